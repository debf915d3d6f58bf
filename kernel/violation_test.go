package kernel_test

import (
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/kernel"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/ucode"
)

// One broken rule prints one way: the same fault.Violation carried by an error of the kernel,
// ucode, DGE, instruction and machine layers reads "rule: path = value, legal: L: why" after
// each layer's own where and category words, and comes back from the error as the same value.
func TestOneViolationOneText(t *testing.T) {
	for _, row := range []struct {
		name string
		v    fault.Violation
		text string // the rule's part of every message, written out
	}{
		{"value and legal", fault.Violation{Rule: "r.one", Path: "src: num_elem[1]", Value: "48", Legal: "32, 64, 96 or 128", Offset: -1},
			"r.one: src: num_elem[1] = 48, legal: 32, 64, 96 or 128"},
		{"why only", fault.Violation{Rule: "r.two", Path: "dst", Msg: "the row spills into the next partition", Offset: -1},
			"r.two: dst: the row spills into the next partition"},
		{"everything", fault.Violation{Rule: "r.three", Path: "gen", Value: "3", Legal: "0..2", Msg: "why", Offset: -1},
			"r.three: gen = 3, legal: 0..2: why"},
	} {
		v := row.v
		type layer struct {
			name string
			err  error
			got  fault.Violation // what the error gives back as a value
			want string
		}
		ue := &ucode.Error{Offset: -1, Kind: fault.ErrInvalid, V: v}
		de := &dge.Error{Rule: v.Rule, Err: fault.ErrInvalid, Path: v.Path, Value: v.Value, Legal: v.Legal, Msg: v.Msg}
		se := &sim.InstError{Kind: fault.ErrInvalid, Engine: "DVE", Index: 2, Offset: -1, Opcode: isa.OpSTREAM_TRANSPOSE, Rule: v.Rule, Violations: []fault.Violation{v}}
		layers := []layer{
			{"ucode", ue, ue.Violation(), "invalid: rule " + row.text},
			{"dge", de, de.Violation(), "dge: invalid request: rule " + row.text},
			{"sim", se, se.Violations[0], "DVE instruction 2: STREAM_TRANSPOSE: invalid instruction: rule " + row.text},
		}
		if v.Msg == "" { // an ISA violation has no why
			iv := isa.Violation{Rule: v.Rule, Field: v.Path, Value: v.Value, Legal: v.Legal, Offset: -1}
			layers = append(layers, layer{"isa", iv, iv.Fault(), row.text})
		}
		// A kernel error carries one found text: the value when what is legal is known, else the why.
		found, ok := "", false
		switch {
		case v.Legal != "" && v.Msg == "":
			found, ok = v.Value, true
		case v.Legal == "" && v.Value == "":
			found, ok = v.Msg, true
		}
		if ok {
			ke := &kernel.Error{Kind: fault.ErrInvalid, Loc: "t.py:3", Call: "nisa.tensor_copy", Arg: v.Path, Rule: v.Rule, Msg: found, Legal: v.Legal}
			layers = append(layers, layer{"kernel", ke, ke.Violation(), "t.py:3: nisa.tensor_copy: NKI rule broken: rule " + row.text})
		}
		for _, l := range layers {
			t.Run(row.name+"/"+l.name, func(t *testing.T) {
				if got := l.err.Error(); got != l.want {
					t.Errorf("message\n%q\nwant\n%q", got, l.want)
				}
				if l.got != v {
					t.Errorf("violation %+v, want %+v", l.got, v)
				}
				if fault.Rule(l.err) != v.Rule {
					t.Errorf("rule %q, want %q", fault.Rule(l.err), v.Rule)
				}
			})
		}
	}
}
