package dge

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
)

// checkDMACfg refuses a MEMCOPY_DMA_CFG whose DMA bitfield (low 16 bits) names engines the
// generation does not have (MAVERICK has 8: 0xffff used to be cut to 0xff without a word), and
// one that enables none.
func checkDMACfg(cfg uint32, g isa.Generation) error {
	n := g.Geometry().DMAEngineCount
	if extra := cfg & 0xFFFF &^ (1<<n - 1); extra != 0 {
		return reqErr(RuleDMACfg, "MEMCOPY_DMA_CFG", "MEMCOPY_DMA_CFG 0x%08x: DMA bits 0x%x name engines %v does not have (it has %d: legal DMA bits 0x%x, or 0 for all of them)",
			cfg, extra, g, n, 1<<n-1)
	}
	if len(engineList(cfg, g)) == 0 {
		return reqErr(RuleDMACfg, "MEMCOPY_DMA_CFG", "MEMCOPY_DMA_CFG 0x%08x enables none of %v's %d DMA engines", cfg, g, n)
	}
	return nil
}

// dmaCfgZeroNote is cfgNotes' note on a zero DMA bitfield; dmaCfgZeroNotes holds it for each
// generation, made once (formatting it for every plan was 1% of a FuzzRandomKernel exec).
func dmaCfgZeroNote(g isa.Generation) string {
	return fmt.Sprintf("MEMCOPY_DMA_CFG's DMA bitfield is 0: read as every engine of %v (mask 0x%x; Provenance dge.dma_cfg_zero)", g, 1<<g.Geometry().DMAEngineCount-1)
}

var dmaCfgZeroNotes = func() map[isa.Generation]string {
	m := make(map[isa.Generation]string, len(isa.Generations))
	for _, g := range isa.Generations {
		m[g] = dmaCfgZeroNote(g)
	}
	return m
}()

// cfgNotes says how the planner reads the two DGE registers where a reader could guess wrong:
// DMA bits 0 (every engine), and MEMCOPY_CARVEOUT_CFG's halves where they have no effect.
func cfgNotes(dmaCfg, carveout uint32, f *Features, lg *logger) {
	g := f.Gen
	if dmaCfg&0xFFFF == 0 {
		n, ok := dmaCfgZeroNotes[g]
		if !ok {
			n = dmaCfgZeroNote(g)
		}
		lg.note(n)
	}
	if carveout == 0 {
		return
	}
	if !f.Credits && carveout>>16 != 0 {
		lg.note(fmt.Sprintf("MEMCOPY_CARVEOUT_CFG's max #descriptors (high 16 bits, %d) has no effect on %v: only MARIANA_PLUS's wait_for_credit works against a ring depth", carveout>>16, g))
	}
	if off := carveout & 0xFFFF; off != 0 {
		lg.note(fmt.Sprintf("MEMCOPY_CARVEOUT_CFG's per-partition descriptor offset (low 16 bits, %d) has no effect: tpbsim does not model the descriptor RAM", off))
	}
}
