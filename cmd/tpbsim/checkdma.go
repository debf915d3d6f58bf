package main

import (
	"errors"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/isa"
)

// dmaPlanCheck makes the DGE's own checks `run` makes before the run on a valid DMA instruction
// (dge.PlanInst: views, partitions, overlap, dtypes, tiles): check reports what run refuses.
// It returns a violation for an invalid request, or unsupported with the reason for what the
// DGE model cannot lower (a register-mode address); a non-DMA word gives neither.
func dmaPlanCheck(inst isa.Inst, g isa.Generation) (v *isa.Violation, unsupported string) {
	switch inst.(type) {
	case *isa.DMADirect2D, *isa.DMAIndirect1D, *isa.DMAGatherXpose, *isa.DMADirect2DXpose:
	default:
		return nil, ""
	}
	_, err := dge.PlanInst(g, inst, dge.Config{}, dge.Options{Quiet: true})
	if err == nil {
		return nil, ""
	}
	rule := "dge_plan"
	var r interface{ RuleID() string }
	if errors.As(err, &r) && r.RuleID() != "" {
		rule = r.RuleID()
	}
	if errors.Is(err, dge.ErrUnsupported) && rule != dge.RuleOpcodeOnGeneration {
		return nil, "rule " + rule + ": " + err.Error()
	}
	return &isa.Violation{Rule: rule, Field: "(the DGE's lowering, as run makes it)", Value: err.Error(),
		Legal: "see tpbsim explain " + rule}, ""
}
