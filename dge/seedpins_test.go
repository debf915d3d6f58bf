package dge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// D14: the simple pair assessment logs the seed's format (seed 003 §4.3, VA 0x83372, quoted with
// %u as Go's %d), filled with the plan's own values, for an HBM-only request.
func TestSeedD14SimpleAssessmentLine(t *testing.T) {
	const seedFmt = "S: DGE Reshape: Assessed simple tensor pair params (Num Partitions A = %d, " +
		"Num Partitions B = %d, #DMA Avail = %d, HBM Only = %d): Reshape Kind = %d, " +
		"#DMA = %d" // seed 003 §4.3, joined from its three lines
	p := mustPlan(t, tensorReq(t, isa.CAYMAN, 0, 0x100000, []int{64, 64}, nil, isa.DTypeFP32))
	want := fmt.Sprintf(seedFmt, p.Src.NumPartitions, p.Dst.NumPartitions, p.DMAAvail, 1, int(p.Kind), p.NumDMA)
	found := false
	for _, l := range p.Log {
		found = found || l == want
	}
	if !p.Simple || !found {
		t.Fatalf("simple %v; want the line %q in\n%s", p.Simple, want, strings.Join(p.Log, "\n"))
	}
}

// D24, D25: both 16-bit halves of MEMCOPY_DMA_CFG and MEMCOPY_CARVEOUT_CFG (seed 003 §7: lower-16
// DMA bitfield, upper-16 queue bitfield; carveout lower-16 descriptor offset, upper-16 max
// #descriptors): the DMA bits pick the engines, the queue bits the queues descriptors go to, the
// carveout's high half is MARIANA_PLUS's ring depth, and its low half is said to have no effect.
func TestSeedD24D25RegisterHalves(t *testing.T) {
	r := tensorReq(t, isa.MARIANA_PLUS, 0, 0x1000000, []int{64, 4096}, nil, isa.DTypeFP32)
	r.DMACfg = 0x0006_0005 // engines 0 and 2; queues 1 and 2
	r.CarveoutCfg = 3<<16 | 7
	p := mustPlan(t, r)
	queues := map[int]bool{}
	for e, q := range p.Job.Queues {
		if len(q) > 0 && e != 0 && e != 2 {
			t.Errorf("engine %d has work; the DMA bits 0x5 enable 0 and 2", e)
		}
		for _, d := range q {
			queues[d.Queue] = true
		}
	}
	if queues[0] || len(queues) == 0 || (len(queues) == 2 && !queues[2]) || len(queues) > 2 {
		t.Errorf("queues used %v; the queue bits 0x6 name 1 and 2 (each engine's descriptors take them in turn)", queues)
	}
	if p.Job.RingDepth != 3 {
		t.Errorf("ring depth %d, want the carveout's high half 3", p.Job.RingDepth)
	}
	noted := false
	for _, n := range p.Notes {
		noted = noted || strings.Contains(n, "per-partition descriptor offset (low 16 bits, 7)")
	}
	if !noted {
		t.Errorf("the carveout's low half is not noted: %v", p.Notes)
	}
}
