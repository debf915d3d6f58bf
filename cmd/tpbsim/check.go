package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var gen string
	var asJSON bool
	c := &cobra.Command{
		Use:   "check IN.bin [--gen G] [--json]",
		Short: "Validate every instruction word against the rules of a generation",
		Long: `Decode and validate each 64-byte word of IN.bin (or an .s / .tpb / .json source, assembled
first) for generation G and report every violation: the word, its byte offset, the opcode, the
rule id (the ISA header's predicate name), the field, the value found, what is legal, and the
rule's source and confidence ('tpbsim explain RULE' says more).

--gen defaults to CAYMAN. Exit status: 0 all words valid; 1 any word invalid; 2 usage or I/O
error (e.g. a file whose length is not a multiple of 64: the offset is named). Words whose
opcode tpbsim names but does not model are reported as unsupported (header and events checked).
A valid DMA instruction is also lowered by the DGE as run lowers it, so what run refuses before
the run (a view past the last partition, overlapping src and dst, a crossbar placement) is
invalid here too; a form run refuses as unmodelled (register or event EVENTS forms, register /
shape-register ADDR4s) is reported as unsupported with its rule.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := loadProgramArg(args[0], gen)
			if err != nil {
				return err
			}
			g := f.gen
			bw := bufio.NewWriter(stdout)
			defer bw.Flush()
			invalid, unsupported := 0, 0
			var d isa.Decoder
			var val isa.Validator
			var vs []isa.Violation
			for k := 0; k < f.Len(); k++ {
				w := f.Word(k)
				off := k * isa.InstNBytes
				inst, _ := d.Decode(w[:])
				vs = val.AppendOn(vs[:0], inst, g, f.Engine(k))
				op := isa.Opcode(w[0])
				// What `run` checks beyond the instruction layer: a source's queue must execute
				// the opcode (a .bin's words go to their opcode's own engine), and a reduce /
				// scan op must be one the model computes.
				if eng := f.Engine(k); !f.binary() && eng != isa.EngineNone && op.Known() && !sim.EngineExecutes(eng, op) {
					vs = append(vs, isa.Violation{Rule: sim.RuleOpcodeLegalOnEngine, Field: "opcode",
						Value: fmt.Sprintf("%v on the %v queue", op, eng), Legal: "on " + sim.EnginesFor(op)})
				}
				sup := isa.Supported(inst)
				var de *dve.Error
				if x, ok := inst.(*isa.S4D4TR); ok && len(vs) == 0 {
					if err := dve.CheckOp(x); errors.As(err, &de) {
						if errors.Is(err, dve.ErrUnsupported) {
							sup = false
						} else {
							vs = append(vs, isa.Violation{Rule: de.Rule, Field: de.Field, Value: x.Op.String(), Legal: de.Detail})
						}
					}
				}
				dmaWhy := ""
				if len(vs) == 0 && sup {
					if rule, why := sim.Unmodelled(inst, g); rule != "" {
						dmaWhy = "rule " + rule + ": " + why
						sup = false
					}
				}
				if len(vs) == 0 && dmaWhy == "" {
					var dv *isa.Violation
					if dv, dmaWhy = dmaPlanCheck(inst, g); dv != nil {
						vs = append(vs, *dv)
					} else if dmaWhy != "" {
						sup = false
					}
				}
				if len(vs) > 0 {
					invalid++
				}
				if !sup {
					unsupported++
				}
				if asJSON {
					why := ""
					if de != nil && !sup {
						why = "rule " + de.Rule + ": " + de.Detail
					}
					if dmaWhy != "" {
						why = dmaWhy
					}
					writeCheckJSON(bw, k, off, op, sup, why, f.where(k), vs)
					continue
				}
				where := f.where(k)
				for _, v := range vs {
					src := ""
					if p, ok := ruleProvenance(v.Rule, op); ok {
						src = fmt.Sprintf(" [%s, %v]", p.Source, p.Confidence)
					}
					fmt.Fprintf(bw, "word %d (offset 0x%x)%s %v: %s%s\n", k, off, where, op, v, src)
				}
				switch {
				case de != nil && !sup && len(vs) == 0:
					fmt.Fprintf(bw, "word %d (offset 0x%x)%s %v: unsupported: rule %s: %s (run refuses it before anything executes)\n", k, off, where, op, de.Rule, de.Detail)
				case dmaWhy != "":
					fmt.Fprintf(bw, "word %d (offset 0x%x)%s %v: unsupported: %s (run refuses it before anything executes)\n", k, off, where, op, dmaWhy)
				case !sup && len(vs) == 0 && op.Known():
					fmt.Fprintf(bw, "word %d (offset 0x%x)%s %v: unsupported: no modelled struct, header and events checked only\n", k, off, where, op)
				}
			}
			if !asJSON {
				fmt.Fprintf(bw, "%s: %d words, %d valid, %d invalid, %d unsupported on %v\n",
					f.path, f.Len(), f.Len()-invalid, invalid, unsupported, g)
			}
			if invalid > 0 {
				bw.Flush()
				return errSilentRule
			}
			return nil
		},
	}
	c.Flags().StringVar(&gen, "gen", "", "generation: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK (default CAYMAN)")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per word")
	return c
}

type checkViolationJSON struct {
	Rule       string `json:"rule"`
	Field      string `json:"field"`
	Value      string `json:"value"`
	Legal      string `json:"legal"`
	Offset     int    `json:"field_offset"`
	Source     string `json:"source,omitempty"`
	Confidence string `json:"confidence,omitempty"`
}

type checkWordJSON struct {
	Word      int    `json:"word"`
	Offset    string `json:"offset"`
	At        string `json:"at,omitempty"` // FILE:LINE of a source's word
	Opcode    string `json:"opcode"`
	Valid     bool   `json:"valid"`
	Supported bool   `json:"supported"`
	// Unsupported says why a supported struct is still not executed (a reduce op the model
	// does not compute; run refuses it before anything executes).
	Unsupported string               `json:"unsupported,omitempty"`
	Violations  []checkViolationJSON `json:"violations"`
}

func writeCheckJSON(w io.Writer, k, off int, op isa.Opcode, sup bool, why, where string, vs []isa.Violation) {
	o := checkWordJSON{Word: k, Offset: fmt.Sprintf("0x%x", off), At: strings.TrimSpace(where), Opcode: op.String(),
		Valid: len(vs) == 0, Supported: sup, Unsupported: why, Violations: []checkViolationJSON{}}
	for _, v := range vs {
		j := checkViolationJSON{Rule: v.Rule, Field: v.Field, Value: v.Value, Legal: v.Legal, Offset: v.Offset}
		if p, ok := ruleProvenance(v.Rule, op); ok {
			j.Source, j.Confidence = p.Source, p.Confidence.String()
		}
		o.Violations = append(o.Violations, j)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(o)
}

// ruleProvenance finds a violated rule's registry entry: the instruction layer's (with the
// confidence as applied to op, isa.LookupFor), else the entry of the package that checks it
// (the engine check of sim, dve's op checks, ...).
func ruleProvenance(rule string, op isa.Opcode) (isa.Provenance, bool) {
	if p, ok := isa.LookupFor(rule, op); ok {
		return p, true
	}
	for _, p := range allProvenance() {
		if p.ID == rule {
			return p, true
		}
	}
	return isa.Provenance{}, false
}
