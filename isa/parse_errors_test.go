package isa

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// Every refused spelling is a *ParseError: fault.ErrInvalid under its rule, at its path, through
// any wrapping.
func TestParseErrorsTyped(t *testing.T) {
	for _, c := range []struct {
		name, rule, path string
		err              func() error
	}{
		{"generation", RuleGenerationName, "generation", func() error { _, err := ParseGeneration("TRN9"); return err }},
		{"engine", RuleEngineName, "engine", func() error { _, err := ParseEngine("TENSOR"); return err }},
		{"opcode", RuleOpcodeName, "opcode", func() error { _, err := ParseOpcode("NOPE"); return err }},
		{"opcode number", RuleOpcodeName, "opcode", func() error { _, err := ParseOpcode("256"); return err }},
		{"address form", RuleAddressForm, "address", func() error { _, err := ParseAddress("sbuf:1", CAYMAN); return err }},
		{"address partition", RuleAddressForm, "address", func() error { _, err := ParseAddress("sbuf:128:0", CAYMAN); return err }},
		{"psum on MAVERICK", RuleAddressForm, "address", func() error { _, err := ParseAddress("psum:0:0", MAVERICK); return err }},
		{"hbm in the window", RuleAddressForm, "address", func() error { _, err := ParseAddress(fmt.Sprintf("hbm:%#x", DMALocalBase), CAYMAN); return err }},
		{"ADDR4 of hbm", RuleAddressForm, "address", func() error { _, err := (Location{Space: SpaceHBM}).Addr4(CAYMAN); return err }},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.err()
			var pe *ParseError
			for _, e := range []error{err, fmt.Errorf("line 3: %w", err), fault.Wrap("--src", err)} {
				if !errors.As(e, &pe) || !errors.Is(e, fault.ErrInvalid) || fault.Rule(e) != c.rule || fault.Path(e) == "" {
					t.Errorf("%v (%T): rule %q path %q; want a *ParseError under %s", e, e, fault.Rule(e), fault.Path(e), c.rule)
				}
			}
			if pe != nil && pe.Path != c.path {
				t.Errorf("path %q, want %q", pe.Path, c.path)
			}
		})
	}
}
