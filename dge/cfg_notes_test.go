package dge

import (
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// TestDMACfgZeroNotes: the notes made once per generation are the ones cfgNotes formatted for
// every plan before, for every generation (MAVERICK's 8 engines, the others' 16).
func TestDMACfgZeroNotes(t *testing.T) {
	for _, g := range isa.Generations {
		mask := "0xffff"
		if g.Geometry().DMAEngineCount == 8 {
			mask = "0xff"
		}
		want := "MEMCOPY_DMA_CFG's DMA bitfield is 0: read as every engine of " + g.String() + " (mask " + mask + "; Provenance dge.dma_cfg_zero)"
		lg := &logger{quiet: true}
		cfgNotes(0, 0, &Features{Gen: g}, lg)
		if len(lg.notes) != 1 || lg.notes[0] != want {
			t.Errorf("%v: notes %q, want [%q]", g, lg.notes, want)
		}
	}
}
