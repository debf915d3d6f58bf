package main

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// dgeLoad applies one `dge run --load ADDR=FILE.npy[:DTYPE]` (sim.DGERun.Load: a load at the
// request's source or destination fills that view). The note says what was converted. Errors
// are usage errors (exit 2).
func dgeLoad(r *sim.DGERun, g isa.Generation, arg string) (string, error) {
	l, err := sim.ParseLoad(arg, g)
	if err == nil {
		var note string
		if note, err = r.Load(l); err == nil {
			if note != "" {
				note = "--load " + note
			}
			return note, nil
		}
	}
	return "", ioErr(fmt.Errorf("--load %s: %w", arg, err))
}
