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
		{"bad generation", ".gen NOPE\n", false, isa.RuleGenerationName, "generation", true},
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

// TestInvalidGenerationRefused: every parser refuses a generation none of the five (the zero
// value included) with the isa error behind it, instead of assuming CAYMAN.
func TestInvalidGenerationRefused(t *testing.T) {
	parsers := map[string]func(g isa.Generation) error{
		"Parse":        func(g isa.Generation) error { _, err := Parse("p.s", []byte("COPY\n"), g); return err },
		"ParseProgram": func(g isa.Generation) error { _, err := ParseProgram("p.s", []byte("COPY\n"), g); return err },
		"ParseJSON": func(g isa.Generation) error {
			_, err := ParseJSON("p.json", []byte(`{"opcode":"COPY"}`), g)
			return err
		},
		"ParseLine": func(g isa.Generation) error { _, err := ParseLine("COPY", g); return err },
	}
	for name, parse := range parsers {
		for _, g := range []isa.Generation{isa.GenInvalid, isa.MAVERICK + 1} {
			t.Run(name+"/"+g.String(), func(t *testing.T) {
				err := parse(g)
				var ge *isa.GenerationError
				if !errors.As(err, &ge) || fault.Rule(err) != isa.RuleGeneration || !errors.Is(err, fault.ErrInvalid) {
					t.Errorf("%v, want the *isa.GenerationError", err)
				}
			})
		}
	}
}
