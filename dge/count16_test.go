package dge

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// TestLoopCount16: requests with dims beyond 65535 (factorable and prime, copies, element-strided
// transposes and crossbar transposes) plan into descriptors whose every level counts at most
// MaxLoopCount, and move exactly what the reference moves.
func TestLoopCount16(t *testing.T) {
	rng := rand.New(rand.NewSource(16))
	g := isa.CAYMAN
	for _, c := range []struct {
		name     string
		shape    []int
		perm     []int
		dst      uint64
		factored bool
		peeled   bool
	}{
		{"2x70000 transpose", []int{2, 70000}, []int{1, 0}, 0x1000000, true, false},
		{"2x70004 transpose, 70004 = 4 x 17501", []int{2, 70004}, []int{1, 0}, 0x1000000, true, false},
		{"2x70001 transpose, prime", []int{2, 70001}, []int{1, 0}, 0x1000000, false, true},
		{"3x65537 transpose, prime", []int{3, 65537}, []int{1, 0}, 0x1000000, false, true},
		{"65537x3 transpose, prime outer", []int{65537, 3}, []int{1, 0}, 0x1000000, false, true},
		{"70001x3 copy: 210003 = 3 x 70001 folds to a prime count", []int{70001, 3}, nil, 0x1000000, false, true},
		{"70004x3 copy folds into elem_size", []int{70004, 3}, nil, 0x1000000, false, false},
		{"xbar 65600x16 -> sbuf", []int{65600, 16}, []int{1, 0}, sbufAddr(g, 0, 0), false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := TensorRequest(g, 0, c.dst, c.shape, c.perm, isa.DTypeBFLOAT16)
			if err != nil {
				t.Skipf("layout: %v", err)
			}
			tc := testCase{req: req, shape: c.shape, perm: c.perm, in: isa.DTypeBFLOAT16, out: isa.DTypeBFLOAT16}
			p := checkCase(t, rng, tc)
			for e, q := range p.Job.Queues {
				for i, d := range q {
					for k, n := range d.Num {
						if n > MaxLoopCount {
							t.Fatalf("DMA[%d] descriptor %d level %d counts %d > %d", e, i, k, n, MaxLoopCount)
						}
					}
				}
			}
			if (p.Factored16 > 0) != c.factored || (p.Peeled16 > 0) != c.peeled {
				t.Errorf("factored %d peeled %d, want factored %v peeled %v", p.Factored16, p.Peeled16, c.factored, c.peeled)
			}
			if p.Descriptors < p.LowerBound {
				t.Errorf("%d descriptors under the lower bound %d", p.Descriptors, p.LowerBound)
			}
		})
	}
}

// TestLoopCount16Independent: nests without a common refinement walk their own views, so a dim
// beyond 65535 there is refused with dge_loop_count_16bit.
func TestLoopCount16Independent(t *testing.T) {
	g := isa.CAYMAN
	src := View{Base: 0, ElemSize: 2, NumElem: [4]uint32{3, 70001 * 5, 1, 1}, StepElem: [4]int64{1, 3, 1, 1}}
	dst := View{Base: 0x10000000, ElemSize: 2, NumElem: [4]uint32{5, 70001 * 3, 1, 1}, StepElem: [4]int64{1, 5, 1, 1}}
	_, err := PlanRequest(Request{Gen: g, Src: src, Dst: dst}, Options{Quiet: true})
	if ruleOf(err) != RuleLoopCount16 {
		t.Fatalf("want %s, got %v", RuleLoopCount16, err)
	}
}

// TestBoundParts: the lower bound's parts of a 100x77 transpose: 7 units (six full row
// tiles and an edge) over 16 engines, two tile shapes, and the units are what idles nine engines.
func TestBoundParts(t *testing.T) {
	g := isa.CAYMAN
	p := mustPlan(t, tensorReq(t, g, 0, sbufAddr(g, 0, 0), []int{100, 77}, []int{1, 0}, isa.DTypeBFLOAT16))
	if p.BoundNests != 2 || p.BoundEngines != 7 || p.Units != 7 || p.NumDMA != 7 || p.LowerBound != 7 || p.SplitLevel < 0 {
		t.Fatalf("G=%d E=%d U=%d engines %d bound %d split level %d; want 2, 7, 7, 7, 7, >= 0", p.BoundNests, p.BoundEngines, p.Units, p.NumDMA, p.LowerBound, p.SplitLevel)
	}
	if len(p.BoundLines()) != 3 { // bound, split, unused
		t.Errorf("bound lines %q", p.BoundLines())
	}
}

// TestInventedLinesSayTpbsim: every log line that is not a recovered firmware format carries
// the tpbsim: prefix (wait_for_credit's line has none recovered).
func TestInventedLinesSayTpbsim(t *testing.T) {
	m := MicroOp{Op: OpWaitCredit, Engine: 3, Ring: 2}
	if !strings.HasPrefix(m.String(), "tpbsim: ") {
		t.Fatalf("wait_for_credit line %q", m.String())
	}
}

// TestBackendSelectLine: the selector's line is the seed's literal (seed 003 §7, MP NX DRAM VA
// 0x83197), logged from CAYMAN after the assessment and before the spray; SUNDA has none.
func TestBackendSelectLine(t *testing.T) {
	const seed = "S: DGE: Select backend Pool" // seed 003 §7, quoted
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			p := mustPlan(t, tensorReq(t, g, 0, 0x100000, []int{64, 64}, []int{1, 0}, isa.DTypeBFLOAT16))
			at, assess, spray := -1, -1, -1
			for i, l := range p.Log {
				switch {
				case l == seed:
					at = i
				case strings.Contains(l, "Assessed"):
					assess = i
				case strings.HasPrefix(l, "gen_spray_info") && spray < 0:
					spray = i
				}
			}
			if g == isa.SUNDA {
				if at >= 0 || p.Backend != BackendNone {
					t.Errorf("SUNDA selects %v", p.Backend)
				}
				return
			}
			if at < 0 || at < assess || (spray >= 0 && at > spray) || p.Backend != BackendPool {
				t.Errorf("%v: select line at %d (assess %d, spray %d), backend %v", g, at, assess, spray, p.Backend)
			}
		})
	}
}
