package main

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// parseExpects reads every --expect before the run (sim.ParseExpect: addresses, shapes, the
// reference files): a mistake there is a usage or I/O error, exit 2, and costs no run.
func parseExpects(m *sim.Machine, g isa.Generation, args []string) ([]sim.ExpectSpec, error) {
	var out []sim.ExpectSpec
	for _, a := range args {
		e, err := sim.ParseExpect(m, a, g)
		if err != nil {
			return nil, ioErr(fmt.Errorf("--expect %s: %w", a, err))
		}
		out = append(out, e)
	}
	return out, nil
}

// checkExpects compares every expectation after the run; the first unmet one is a rule broken
// (exit 1), and no output is written.
func checkExpects(m *sim.Machine, es []sim.ExpectSpec) error {
	for _, e := range es {
		if err := e.Check(m); err != nil {
			return ruleErr(fmt.Errorf("--expect %s: %w", e.Arg, err))
		}
	}
	return nil
}
