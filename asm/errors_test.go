package asm

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// TestErrorsAcrossLayers: an assembly error, wrapped as the CLI wraps it, keeps its category
// (fault.ErrInvalid), its type, its rule and its field path; one caused by isa keeps the cause.
func TestErrorsAcrossLayers(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		json  bool
		rule  string
		path  string
		cause bool // an error of another layer is behind it
	}{
		{"unknown opcode", "NOPE_OP x=1\n", false, RuleForm, "opcode", true},
		{"bad field", "COPY nac=300\n", false, RuleForm, "num_active_channels", true},
		{"bad directive", ".frob 1\n", false, RuleForm, "", false},
		{"bad generation", ".gen NOPE\n", false, RuleForm, "", true},
		{"json shared line", `[{"opcode":"COPY"},{"opcode":"NOPE_OP"}]`, true, RuleForm, "instruction[1]: opcode", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.json {
				_, err = ParseJSON("p.json", []byte(c.src), isa.CAYMAN)
			} else {
				_, err = Parse("p.s", []byte(c.src), isa.CAYMAN)
			}
			if err == nil {
				t.Fatal("no error")
			}
			w := fmt.Errorf("tpbsim: %w", err)
			if !errors.Is(w, fault.ErrInvalid) || fault.Category(w) != fault.ErrInvalid {
				t.Errorf("category of %v: %v", w, fault.Category(w))
			}
			var e *Error
			if !errors.As(w, &e) {
				t.Fatalf("errors.As(*Error) false for %v", w)
			}
			if got := fault.Rule(w); got != c.rule {
				t.Errorf("rule %q, want %q", got, c.rule)
			}
			if got := fault.Path(w); got != c.path {
				t.Errorf("path %q, want %q", got, c.path)
			}
			if (e.Err != nil) != c.cause {
				t.Errorf("cause %v, want one: %v", e.Err, c.cause)
			}
		})
	}
}
