package dge

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// ParseComputeOp reads the names and numbers of the DGE compute ops; anything else is a
// *SpecError under dge_request_form at compute_op.
func TestParseComputeOp(t *testing.T) {
	for s, want := range map[string]isa.DGEComputeOp{"": isa.DGEComputeNONE, "bypass": isa.DGEComputeNONE, "add": isa.DGEComputeADD,
		"MUL": isa.DGEComputeMULTIPLY, "max": isa.DGEComputeMAX, "Min": isa.DGEComputeMIN, "0x9": 9} {
		t.Run("ok/"+s, func(t *testing.T) {
			if got, err := ParseComputeOp(s); err != nil || got != want {
				t.Errorf("ParseComputeOp(%q) = %v, %v; want %v", s, got, err, want)
			}
		})
	}
	for _, s := range []string{"sum", "256", "-1"} {
		t.Run("refused/"+s, func(t *testing.T) {
			_, err := ParseComputeOp(s)
			var se *SpecError
			if !errors.As(err, &se) || !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != RuleRequestForm || fault.Path(err) != "compute_op" {
				t.Errorf("ParseComputeOp(%q): %v; want a *SpecError under %s at compute_op", s, err, RuleRequestForm)
			}
		})
	}
}
