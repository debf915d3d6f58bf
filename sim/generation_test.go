package sim_test

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/demo"
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/kernel"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/timing"
)

// An invalid generation is one rule with one message in every layer: each entry point that takes
// a generation refuses it under isa.generation, category fault.ErrInvalid, with isa's own
// *GenerationError in the chain (kernel's form error carries the rule and isa's violation text).
func TestInvalidGenerationOneRule(t *testing.T) {
	for _, g := range []isa.Generation{isa.GenInvalid, isa.MAVERICK + 1} {
		for _, c := range []struct {
			name  string
			typed bool // isa's *GenerationError is in the chain
			err   func() error
		}{
			{"isa.Generation.Check", true, g.Check},
			{"mem.New", true, func() error { _, err := mem.New(g, mem.Options{}); return err }},
			{"sim.New", true, func() error { _, err := sim.New(sim.Config{Gen: g}); return err }},
			{"timing.For", true, func() error { _, err := timing.For(g); return err }},
			{"dge.FeaturesOf", true, func() error { _, err := dge.FeaturesOf(g); return err }},
			{"dge.PlanRequest", true, func() error { _, err := dge.PlanRequest(dge.Request{Gen: g}, dge.Options{}); return err }},
			{"dma.Engines.Check", true, func() error { return dma.New(g).Check(nil, &dma.Job{}) }},
			{"demo.New", true, func() error { _, err := demo.New(g); return err }},
			{"kernel.Lower", false, func() error { _, err := kernel.Lower(&kernel.Kernel{}, kernel.Options{Gen: g}); return err }},
		} {
			t.Run(g.String()+"/"+c.name, func(t *testing.T) {
				err := c.err()
				if !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != isa.RuleGeneration {
					t.Fatalf("%v: category %v, rule %q; want fault.ErrInvalid under %s", err, fault.Category(err), fault.Rule(err), isa.RuleGeneration)
				}
				var ge *isa.GenerationError
				if c.typed && (!errors.As(err, &ge) || ge.Gen != g) {
					t.Errorf("%v (%T): want an *isa.GenerationError for %v in the chain", err, err, g)
				}
			})
		}
	}
}
