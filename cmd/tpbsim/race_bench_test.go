package main

import (
	"io"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// BenchmarkDemo runs `tpbsim demo` (without writing its trace) with race detection off and on
// (issue 12 item 3: at most 2x).
func BenchmarkDemo(b *testing.B) {
	for _, mode := range []sim.RaceMode{sim.RacesOff, sim.RacesError} {
		b.Run("races="+mode.String(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := runDemo(isa.CAYMAN, "", mode, &timingFlags{}, io.Discard, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
