package dge

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

func mustPlan(t *testing.T, r Request) *Plan {
	t.Helper()
	p, err := PlanRequest(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func tensorReq(t *testing.T, g isa.Generation, src, dst uint64, shape, perm []int, d isa.DType) Request {
	t.Helper()
	r, err := TensorRequest(g, src, dst, shape, perm, d)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// engineBytes returns the bytes each engine with work moves.
func engineBytes(p *Plan) []uint64 {
	var out []uint64
	for _, q := range p.Job.Queues {
		if len(q) == 0 {
			continue
		}
		var b uint64
		for i := range q {
			b += q[i].Bytes()
		}
		out = append(out, b)
	}
	return out
}

func checkBalance(t *testing.T, p *Plan, unit uint64) {
	t.Helper()
	bs := engineBytes(p)
	lo, hi := bs[0], bs[0]
	for _, b := range bs {
		lo, hi = min(lo, b), max(hi, b)
	}
	if hi-lo > unit {
		t.Errorf("engine bytes %v differ by %d > one unit %d", bs, hi-lo, unit)
	}
}

// TestLowerBoundContiguous: a contiguous copy is one descriptor per engine share, balanced.
func TestLowerBoundContiguous(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			for _, n := range []int{1, 7, 100, 4096, 1 << 20, 1000003, 64 << 20} {
				for _, dmas := range []uint32{0, 0x7, 0x1, 0xF0F0} {
					r := tensorReq(t, g, 0x1000, 0x40000000, []int{n}, nil, isa.DTypeUINT8)
					r.DMACfg = dmas
					p, err := PlanRequest(r, Options{Quiet: true})
					if dmas&^(1<<g.Geometry().DMAEngineCount-1) != 0 {
						// bits of engines the generation lacks (MAVERICK's 8) are refused, not cut
						if ruleOf(err) != RuleDMACfg {
							t.Fatalf("%v dma_cfg 0x%x: want %s, got %v", g, dmas, RuleDMACfg, err)
						}
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					D := len(engineList(dmas, g))
					want := min(D, max(1, n/MinShareBytes))
					// A prime count above 65535 cannot fold into elem_size nor factor into 16-bit
					// levels: it is peeled, one more nest (dge.loop_count_split).
					peel := 0
					if n == 1000003 {
						peel = 1
					}
					if p.Descriptors != want+peel || p.LowerBound != want || p.NumDMA != want || p.Peeled16 != peel {
						t.Fatalf("%v n=%d dmas=%x: %d descriptors on %d engines (%d peeled), lower bound %d, want %d (+%d)", g, n, dmas, p.Descriptors, p.NumDMA, p.Peeled16, p.LowerBound, want, peel)
					}
					unit := max(uint64(p.ElemSize[0]), p.MaxUnitBytes*uint64(peel))
					checkBalance(t, p, unit)
					if p.Kind != KindDirect || !p.Simple {
						t.Fatalf("contiguous copy: kind %v simple %v", p.Kind, p.Simple)
					}
				}
			}
		})
	}
}

// TestLowerBoundKeepInner: N-D copies that keep the innermost axis meet max(G, E) with G == 1.
func TestLowerBoundKeepInner(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 300; i++ {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			g := isa.Generations[rng.Intn(5)]
			r := 2 + rng.Intn(3)
			shape := make([]int, r)
			for k := range shape {
				shape[k] = 2 + rng.Intn(40)
			}
			perm := rng.Perm(r - 1)
			perm = append(perm, r-1) // innermost stays
			req := tensorReq(t, g, 0x1000, 0x40000000, shape, perm, isa.DTypeFP32)
			p := mustPlan(t, req)
			if p.Kind != KindDirect {
				t.Fatalf("%v %v: kind %v", shape, perm, p.Kind)
			}
			if p.Groups == 1 && p.Descriptors != p.LowerBound {
				t.Fatalf("%v %v: %d descriptors, lower bound %d", shape, perm, p.Descriptors, p.LowerBound)
			}
			if p.Descriptors > p.LowerBound+p.Groups-1 {
				t.Fatalf("%v %v: %d descriptors > LB %d + G %d - 1", shape, perm, p.Descriptors, p.LowerBound, p.Groups)
			}
			// the innermost run is one element of the folded size: no per-element descriptors
			if p.ElemSize[0] < uint32(4*shape[r-1]) && shape[r-1] > 1 {
				t.Fatalf("%v %v: innermost axis of %d not folded (elem_size %d)", shape, perm, shape[r-1], p.ElemSize[0])
			}
		})
	}
}

// TestLowerBoundTranspose: tile-aligned crossbar transposes meet the bound; others stay within G-1.
func TestLowerBoundTranspose(t *testing.T) {
	cases := []struct {
		shape   []int
		perm    []int
		aligned bool
	}{
		{[]int{128, 128}, []int{1, 0}, true},
		{[]int{4096, 128}, []int{1, 0}, true},
		{[]int{512, 32}, []int{1, 0}, true},
		{[]int{100, 100}, []int{1, 0}, false},
		{[]int{16, 32, 128}, []int{2, 1, 0}, true}, // (4, 32, 128) puts 8-byte rows at 8-byte steps: see TestXbarPlacement
		{[]int{64, 2, 2, 128}, []int{3, 1, 2, 0}, true},
		{[]int{32, 3, 5, 70}, []int{3, 1, 2, 0}, false}, // rows beyond a 2-D transpose are multiples of 16: 32-byte aligned dst rows
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.shape, c.perm), func(t *testing.T) {
			for _, g := range []isa.Generation{isa.CAYMAN, isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK} {
				ps := PermutedShape(c.shape, c.perm)
				req := tensorReq(t, g, 0x1000, sbufAddr(g, 0, 0), c.shape, c.perm, isa.DTypeBFLOAT16)
				p := mustPlan(t, req)
				if p.Kind != KindXbarTranspose {
					t.Fatalf("%v %v on %v: kind %v (dst %v)", c.shape, c.perm, g, p.Kind, ps)
				}
				if c.aligned && (p.Groups != 1 || p.Descriptors != p.LowerBound) {
					t.Fatalf("%v %v on %v: %d descriptors, G %d, lower bound %d", c.shape, c.perm, g, p.Descriptors, p.Groups, p.LowerBound)
				}
				if p.Descriptors > p.LowerBound+p.Groups-1 {
					t.Fatalf("%v %v on %v: %d descriptors > LB %d + G %d - 1", c.shape, c.perm, g, p.Descriptors, p.LowerBound, p.Groups)
				}
				if c.aligned && p.Groups == 1 {
					unit := p.Bytes / uint64(p.Units)
					checkBalance(t, p, unit)
				}
				for _, q := range p.Job.Queues {
					for i := range q {
						if err := q[i].Validate(); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		})
	}
}

func TestGenerationFeatures(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			req := tensorReq(t, g, 0x1000, sbufAddr(g, 0, 0), []int{256, 64}, []int{1, 0}, isa.DTypeBFLOAT16)
			req.CarveoutCfg = 2 << 16
			p := mustPlan(t, req)
			log := strings.Join(p.Log, "\n")
			hasRegwrite := strings.Contains(log, "S: push REGWRITE to DMA[")
			if hasRegwrite != (g == isa.CAYMAN || g == isa.MARIANA) {
				t.Errorf("%v: REGWRITE present = %v", g, hasRegwrite)
			}
			if got := strings.Contains(log, "DGE Reshape:"); got != (g != isa.SUNDA) {
				t.Errorf("%v: DGE Reshape lines = %v", g, got)
			}
			if g == isa.SUNDA && (p.Kind != KindElementStrided || !strings.Contains(log, "SUNDA has no transpose descriptor")) {
				t.Errorf("SUNDA transpose: kind %v\n%s", p.Kind, log)
			}
			if g == isa.MARIANA_PLUS && (!p.FastPath || p.Job.RingDepth != 2 || !strings.Contains(log, "wait_for_credit")) {
				t.Errorf("MARIANA_PLUS: fast path %v ring %d\n%s", p.FastPath, p.Job.RingDepth, log)
			}
			if g != isa.MARIANA_PLUS && (p.FastPath || p.Job.RingDepth != 0) {
				t.Errorf("%v: fast path %v ring %d", g, p.FastPath, p.Job.RingDepth)
			}
			if g == isa.MAVERICK && p.DMAAvail != 8 {
				t.Errorf("MAVERICK: %d DMA engines", p.DMAAvail)
			}
			if g == isa.MARIANA_PLUS && strings.Contains(log, "gen_spray_info") {
				t.Errorf("MARIANA_PLUS fast path inlines the spray")
			}
			if (g == isa.CAYMAN || g == isa.MARIANA || g == isa.MAVERICK) && !strings.Contains(log, "make_gather_pattern END: pattern=0x") {
				t.Errorf("%v: no make_gather_pattern", g)
			}
		})
	}
	// SB2SB from MARIANA_PLUS on
	for _, g := range []isa.Generation{isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK} {
		req := tensorReq(t, g, sbufAddr(g, 0, 0), sbufAddr(g, 0, 64<<10), []int{64, 128}, []int{1, 0}, isa.DTypeFP16)
		p := mustPlan(t, req)
		want := KindXbarTranspose
		if g != isa.MARIANA {
			want = KindSB2SBTranspose
		}
		if p.Kind != want {
			t.Errorf("%v SBUF->SBUF: kind %v want %v", g, p.Kind, want)
		}
		if want == KindSB2SBTranspose && !strings.Contains(strings.Join(p.Log, "\n"), "S: tensor_reshape_transpose_sb2sb: tile_src_rows=16") {
			t.Errorf("%v: no sb2sb line", g)
		}
	}
}

// TestCredits: on MARIANA_PLUS a shallow ring makes the producer wait, and the trace shows it.
func TestCredits(t *testing.T) {
	g := isa.MARIANA_PLUS
	req := tensorReq(t, g, 0x1000, sbufAddr(g, 0, 0), []int{96, 5, 7, 128}, []int{3, 2, 1, 0}, isa.DTypeBFLOAT16)
	req.DMACfg = 0x1
	req.CarveoutCfg = 2 << 16
	p := mustPlan(t, req)
	if p.Descriptors < 4 {
		t.Fatalf("want several descriptors on one engine, got %d", p.Descriptors)
	}
	m := dmatest.New(g)
	res, err := dma.New(g).Run(m, &p.Job)
	if err != nil {
		t.Fatal(err)
	}
	if res.CreditWaits == 0 {
		t.Fatalf("no credit waits with a 2-deep ring and %d descriptors on one engine", p.Descriptors)
	}
	for _, r := range res.Records {
		if r.Credits < 0 || r.Credits > 2 {
			t.Fatalf("credits %d outside 0..2", r.Credits)
		}
	}
	waits := 0
	for _, op := range p.Streams[0] {
		if op.Op == OpWaitCredit {
			waits++
		}
	}
	if waits != p.Descriptors-2 {
		t.Fatalf("%d WAIT_CREDIT ops for %d descriptors on a 2-deep ring", waits, p.Descriptors)
	}
}

// TestLogFormats pins the firmware lines byte for byte, in the seed's order: analyze, assess,
// then tensor_reshape_indirect_transpose's BEFORE/AFTER state and the tile line (seed 003 §4).
func TestLogFormats(t *testing.T) {
	g := isa.CAYMAN
	req := tensorReq(t, g, 0x1000, sbufAddr(g, 2, 0x40), []int{32, 16}, []int{1, 0}, isa.DTypeBFLOAT16)
	req.DMACfg = 0x3
	req.Semaphore, req.SemIncrement = 5, 2
	p := mustPlan(t, req)
	want := []string{
		"S: DGE Reshape: Analyzed tensor (nelem_target = 512, step_target = 0x2 (0P), base = 0x1000 (0P)): Reshape Strategy = 3, Requested Reshape Kind = 2, Partition Range = 0, Num Partitions = 0",
		"S: DGE Reshape: Analyzed tensor (nelem_target = 512, step_target = 0x40000 (1P), base = 0x80040 (2P)): Reshape Strategy = 0, Requested Reshape Kind = 0, Partition Range = 16, Num Partitions = 16",
		"S: DGE Reshape: Assessed tensor pair params (Requested Reshape Kind = 2, Min Num Partitions = 16, #DMA Avail = 2): Reshape Kind = 2, #DMA = 2",
		"S: tensor_reshape_indirect_transpose BEFORE: elem_size=2 num_elem=[16,32,1,1] step_elem=[1,16,512,512] is_src=1",
		"S: tensor_reshape_indirect_transpose AFTER:  elem_size=2 num_elem=[32,16,1,1] step_elem=[16,1,512,512]",
		"S: tensor_reshape_transpose: tile_src_rows=16 tile_src_cols=128 dtype_size=2",
		SelectBackendLine,
		"gen_spray_info: reshape_kind=2, do_indirection=0, is_our_tensor=0, hbm_to_hbm=0, ndma=2",
		"gen_spray_info: skipping reshape (not our tensor and no indirection)",
		"gen_spray_info: reshape_kind=2, do_indirection=0, is_our_tensor=1, hbm_to_hbm=0, ndma=2",
		"gen_spray_info: applying tensor reshape for our tensor",
		"gen_spray_info: tensor result step_port=1, step_half=0",
		"make_gather_pattern START: reshape_kind=2, step_port=1, step_half=0, eng_mask=0x3",
		"make_gather_pattern END: pattern=0x3, mask=0x3",
		"Generating 1 descriptors; ring_ndesc = 1",
		"Generating 1 descriptors; ring_ndesc = 1",
		"S: push REGWRITE to DMA[0]",
		"S: push GENERATE to DMA[0]: RD : addr=0x1000, elem_size=2, sem_num=-1",
		"S: push GENERATE to DMA[0]: WR : addr=0x800000080040, elem_size=2, sem_num=5",
		"S: push DIMPUSH to DMA[0]: [16,16][1,131072]",
		"S: push DIMPUSH to DMA[0]: [16,16][16,1]",
		"S: push REGWRITE to DMA[1]",
		"S: push GENERATE to DMA[1]: RD : addr=0x1200, elem_size=2, sem_num=-1",
		"S: push GENERATE to DMA[1]: WR : addr=0x800000080060, elem_size=2, sem_num=5",
		"S: push DIMPUSH to DMA[1]: [16,16][1,131072]",
		"S: push DIMPUSH to DMA[1]: [16,16][16,1]",
	}
	if strings.Join(p.Log, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log differs:\n got:\n%s\nwant:\n%s", strings.Join(p.Log, "\n"), strings.Join(want, "\n"))
	}
}

// TestAtomicBounds: a request that fails a bound register or the active area changes nothing.
func TestAtomicBounds(t *testing.T) {
	g := isa.CAYMAN
	m := dmatest.New(g)
	src := uint64(0x1000)
	for i := 0; i < 4096; i++ {
		m.WriteAt(src+uint64(i), []byte{byte(i)})
	}
	t.Run("the active area", func(t *testing.T) {
		// 16 partitions x 256 KiB rows: passes SBUF's 224 KiB active area on every partition but the data lands first elsewhere
		req := tensorReq(t, g, src, sbufAddr(g, 0, 0), []int{16, 229376 / 2}, nil, isa.DTypeBFLOAT16)
		req.Dst.NumElem[0]++ // one element past the active area in each partition
		req.Src.NumElem[0]++
		if _, err := PlanRequest(req, Options{Quiet: true}); ruleOf(err) != RuleRowInPartition {
			t.Fatalf("a request whose rows pass the active area: want %s, got %v", RuleRowInPartition, err)
		}
		req.linear = true // as a DMA instruction's linear addresses: the dma bounds check refuses it
		p := mustPlan(t, req)
		before, _ := ReadView(m, View{Base: sbufAddr(g, 0, 0), ElemSize: 1, NumElem: [4]uint32{1024, 1, 1, 1}, StepElem: [4]int64{1, 1, 1, 1}})
		_, err := dma.New(g).Run(m, &p.Job)
		if !errors.Is(err, fault.ErrBounds) || !strings.Contains(err.Error(), "S: DGE: Failed bounds check.") {
			t.Fatalf("want a bounds failure, got %v", err)
		}
		after, _ := ReadView(m, View{Base: sbufAddr(g, 0, 0), ElemSize: 1, NumElem: [4]uint32{1024, 1, 1, 1}, StepElem: [4]int64{1, 1, 1, 1}})
		if string(before) != string(after) {
			t.Fatal("a failed request changed memory")
		}
	})
	t.Run("a bound register", func(t *testing.T) {
		// bound register: the dst may only touch its first 100 bytes
		req2 := tensorReq(t, g, src, 0x50000, []int{64}, nil, isa.DTypeUINT8)
		req2.DstBound = isa.BoundCheckReg(0x80 | 3)
		p2 := mustPlan(t, req2)
		e := dma.New(g)
		e.Regs[3] = 100
		_, err := e.Run(m, &p2.Job)
		if err != nil {
			t.Fatalf("64 bytes within a 100-byte bound: %v", err)
		}
		e.Regs[3] = 63
		_, err = e.Run(m, &p2.Job)
		var be *dma.BoundsError
		if !errors.As(err, &be) || be.Reg != 3 {
			t.Fatalf("want a bound-register failure, got %v", err)
		}
	})
}

// TestRequestErrors: each malformed request is refused as invalid, by its rule.
func TestRequestErrors(t *testing.T) {
	g := isa.CAYMAN
	good := tensorReq(t, g, 0, 0x1000, []int{4, 4}, []int{1, 0}, isa.DTypeFP32)
	for _, c := range []struct {
		name string
		bad  func(r *Request)
		rule string
		text string // a part of the message, when it matters
	}{
		{"an axis twice", func(r *Request) { r.Perm = []int{0, 0} }, RulePermValid, ""},
		{"five axes", func(r *Request) { r.Perm = []int{0, 1, 2, 3, 4} }, RulePermValid, ""},
		{"a zero count", func(r *Request) { r.Src.NumElem[0] = 0 }, RuleViewValid, ""},
		{"counts differ", func(r *Request) { r.Dst.NumElem[0] = 3 }, RuleElementCounts, ""},
		{"no element size", func(r *Request) { r.Src.ElemSize = 0 }, RuleViewValid, ""},
		{"an out dtype alone", func(r *Request) { r.In = 0 }, RuleDtypes, ""},
		{"compute_op 9", func(r *Request) { r.ComputeOp = 9 }, RuleComputeOp, ""},
		{"no generation", func(r *Request) { r.Gen = 0 }, isa.RuleGeneration, ""},
		// 2^64 elements wrap Elements to 0: refused as too many, not planned as none.
		{"2^64 elements", func(r *Request) {
			r.Src.NumElem, r.Src.StepElem = [4]uint32{65536, 65536, 65536, 65536}, [4]int64{}
			r.Dst.NumElem, r.Dst.StepElem = r.Src.NumElem, [4]int64{1, 1, 1, 1}
			r.Perm = nil
		}, RuleViewValid, "more than 2^40 elements"},
		// A shape over 2^40 elements whose steps are also past 2^40 (a CLI layout's steps are its
		// products): named as too many elements, the step the user never wrote is not blamed.
		{"over 2^40 elements with steps past 2^40", func(r *Request) {
			r.Src.NumElem, r.Src.StepElem = [4]uint32{65535, 65535, 65535, 65535}, [4]int64{1, 65535, 65535 * 65535, 65535 * 65535 * 65535}
			r.Dst.NumElem, r.Dst.StepElem = r.Src.NumElem, r.Src.StepElem
			r.Perm = nil
		}, RuleViewValid, "more than 2^40 elements"},
		// An HBM view running into the on-chip window (from near its top, or by a large step).
		{"src into the on-chip window", func(r *Request) { r.Src.Base = isa.DMALocalBase - 32 }, RuleViewValid, ""},
		{"dst into the on-chip window", func(r *Request) { r.Dst.Base = isa.DMALocalBase - 4 }, RuleViewValid, ""},
		{"a step into the on-chip window", func(r *Request) { r.Src.StepElem[0] = 1 << 40; r.Src.Base = isa.DMALocalBase - 1<<42 }, RuleViewValid, ""},
		// The CCE path moves whole values at aligned addresses (the ISA's is_valid_dma_cce).
		{"a cast at an odd address", func(r *Request) { r.Out, r.Dst.ElemSize = isa.DTypeBFLOAT16, 2; r.Src.Base = 1 }, RuleCCEAligned, "CCE alignment"},
		{"a compute_op at a misaligned dst", func(r *Request) { r.ComputeOp = isa.DGEComputeADD; r.Dst.Base = 0x1002 }, RuleCCEAligned, "CCE alignment"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := good
			r.Perm = append([]int{}, good.Perm...)
			c.bad(&r)
			_, err := PlanRequest(r, Options{})
			if !errors.Is(err, fault.ErrInvalid) || ruleOf(err) != c.rule || !strings.Contains(fmt.Sprint(err), c.text) {
				t.Errorf("want rule %s (%q), got %v", c.rule, c.text, err)
			}
		})
	}
}

func TestAll24Permutations(t *testing.T) {
	rng := rand.New(rand.NewSource(24))
	var perms [][]int
	var gen func(p []int, used int)
	gen = func(p []int, used int) {
		if len(p) == 4 {
			perms = append(perms, append([]int{}, p...))
			return
		}
		for a := 0; a < 4; a++ {
			if used&(1<<a) == 0 {
				gen(append(p, a), used|1<<a)
			}
		}
	}
	gen(nil, 0)
	if len(perms) != 24 {
		t.Fatal(len(perms))
	}
	for _, perm := range perms {
		t.Run(fmt.Sprint(perm), func(t *testing.T) {
			for _, g := range isa.Generations {
				for _, d := range []isa.DType{isa.DTypeUINT8, isa.DTypeBFLOAT16, isa.DTypeFP32} {
					shape := []int{3, 16, 5, 33}
					dst := sbufAddr(g, 0, 0)
					if PermutedShape(shape, perm)[0] > 128 {
						dst = 0x40000000
					}
					c := testCase{req: tensorReq(t, g, 0x1000, dst, shape, perm, d), shape: shape, perm: perm, in: d, out: d}
					c.req.In, c.req.Out = d, d
					checkCase(t, rng, c)
				}
			}
		})
	}
}

// Two 4-dim views whose common nest has seven levels of 48 unroll into 48^3 nests: refused
// (rule dge_plan_nests) before they are built; 2^16 nests still plan.
func TestPlanNestsLimit(t *testing.T) {
	view := func(base uint64, num [4]uint32, step [4]int64) View {
		return View{Base: base, ElemSize: 1, NumElem: num, StepElem: step}
	}
	r := Request{Gen: isa.CAYMAN,
		Src: view(0, [4]uint32{48, 48 * 48, 48 * 48, 48 * 48}, [4]int64{2, 128, 1 << 19, 1 << 31}),
		Dst: view(1<<44, [4]uint32{48 * 48, 48 * 48, 48 * 48, 48}, [4]int64{1, 4096, 1 << 24, 1 << 36})}
	t0 := time.Now()
	_, err := PlanRequest(r, Options{})
	var de *Error
	if !errors.Is(err, fault.ErrUnsupported) || !errors.As(err, &de) || de.Rule != RulePlanNests || !strings.Contains(err.Error(), "needs 110592 descriptor nests") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("the refusal took %v", d)
	}
	r.Src = view(0, [4]uint32{64, 4096, 4096, 1024}, [4]int64{2, 256, 1 << 21, 1 << 34})
	r.Dst = view(1<<46, [4]uint32{4096, 4096, 4096, 16}, [4]int64{1, 8192, 1 << 26, 1 << 39})
	p, err := PlanRequest(r, Options{Quiet: true})
	if err != nil || p.Groups != MaxPlanNests {
		t.Fatalf("2^16 nests: %v", err)
	}
}

// TestXbarPlacement: the crossbar reads HBM or SBUF, writes SBUF, and starts every tile and
// every destination row it writes 32-byte aligned (seed 003 §3.3 "xbar HW constraint"); other
// transposes fall back to element-strided descriptors, say why, and still move the right bytes.
func TestXbarPlacement(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, c := range []struct {
		g           isa.Generation
		src, dst    uint64
		shape, perm []int
		kind        Kind
		why         string
	}{
		{isa.CAYMAN, 0x1000, sbufAddr(isa.CAYMAN, 0, 0x20), []int{30, 128}, []int{1, 0}, KindXbarTranspose, ""},
		{isa.CAYMAN, 0x1000, sbufAddr(isa.CAYMAN, 0, 0x2), []int{30, 128}, []int{1, 0}, KindElementStrided, "dst_start_addr % 32"},
		{isa.MARIANA, 0x1000, sbufAddr(isa.MARIANA, 3, 0x10), []int{32, 64}, []int{1, 0}, KindElementStrided, "dst_start_addr % 32"},
		// dst (128, 32, 4): 4-element (8-byte) tile rows at 8-byte steps
		{isa.CAYMAN, 0x1000, sbufAddr(isa.CAYMAN, 0, 0), []int{4, 32, 128}, []int{2, 1, 0}, KindElementStrided, "dst_step_elem[1] % 32"},
		{isa.MARIANA_PLUS, 0x1000, sbufAddr(isa.MARIANA_PLUS, 0, 0), []int{16, 32, 128}, []int{2, 1, 0}, KindXbarTranspose, ""},
		// PSUM is not a crossbar source, and PSUM -> SBUF is not SBUF-to-SBUF
		{isa.CAYMAN, psumAddr(isa.CAYMAN, 0, 0), sbufAddr(isa.CAYMAN, 0, 0), []int{32, 128}, []int{1, 0}, KindElementStrided, "not PSUM"},
		{isa.MARIANA_PLUS, psumAddr(isa.MARIANA_PLUS, 0, 0), sbufAddr(isa.MARIANA_PLUS, 0, 0), []int{32, 128}, []int{1, 0}, KindElementStrided, "not PSUM"},
		{isa.MARIANA_PLUS, sbufAddr(isa.MARIANA_PLUS, 0, 0), sbufAddr(isa.MARIANA_PLUS, 0, 0x1000), []int{32, 128}, []int{1, 0}, KindSB2SBTranspose, ""},
	} {
		t.Run(fmt.Sprintf("%v %v->0x%x %v", c.g, c.shape, c.dst, c.kind), func(t *testing.T) {
			req := tensorReq(t, c.g, c.src, c.dst, c.shape, c.perm, isa.DTypeFP16)
			p := checkCase(t, rng, testCase{req: req, shape: c.shape, perm: c.perm, in: isa.DTypeFP16, out: isa.DTypeFP16})
			if p.Kind != c.kind || !strings.Contains(strings.Join(p.Notes, "\n"), c.why) {
				t.Errorf("%v %v -> 0x%x %v: kind %v, notes %q; want %v (%q)", c.g, c.shape, c.dst, c.perm, p.Kind, p.Notes, c.kind, c.why)
			}
			for e, q := range p.Job.Queues {
				for i := range q {
					if q[i].Kind == dma.KindXbar && q[i].Dst.Addr%dma.XbarDstAlign != 0 {
						t.Errorf("%v: DMA[%d] #%d: xbar dst 0x%x", c.shape, e, i, q[i].Dst.Addr)
					}
				}
			}
		})
	}
	// A view pair whose destination rows are 48 bytes apart inside one partition.
	g := isa.CAYMAN
	req := Request{Gen: g, In: isa.DTypeBFLOAT16, Out: isa.DTypeBFLOAT16, Perm: []int{1, 0},
		Src: View{Base: 0x1000, ElemSize: 2, NumElem: [4]uint32{8, 16, 1, 1}, StepElem: [4]int64{1, 8, 128, 128}},
		Dst: View{Base: sbufAddr(g, 0, 0), ElemSize: 2, NumElem: [4]uint32{16, 8, 1, 1}, StepElem: [4]int64{1, 24, 192, 192}}}
	if p := mustPlan(t, req); p.Kind != KindElementStrided {
		t.Errorf("48-byte dst rows: kind %v", p.Kind)
	}
	req.Dst.StepElem = [4]int64{1, 32, 256, 256}
	if p := mustPlan(t, req); p.Kind != KindXbarTranspose {
		t.Errorf("64-byte dst rows: kind %v", p.Kind)
	}
}

func psumAddr(g isa.Generation, part int, off uint64) uint64 {
	geo := g.Geometry()
	return isa.DMALocalBase + uint64(geo.PSUMOffset) + uint64(part)*uint64(geo.PSUMPartitionSize) + off
}

// TestWideLevels: a request of more than 2^32 elements whose dims chain into one level keeps
// its levels within a descriptor's 32-bit loop count (the merged level wrapped: 2^32 + 2^16
// elements were planned as 2^16, and 2^33 as an empty plan).
func TestWideLevels(t *testing.T) {
	for _, c := range []struct {
		num  [4]uint32
		step [4]int64
		dmas uint32
	}{
		{[4]uint32{65537, 65536, 1, 1}, [4]int64{2, 131074, 1, 1}, 0x1},
		{[4]uint32{65536, 65536, 2, 1}, [4]int64{2, 131072, 1 << 33, 1}, 0x1},
		{[4]uint32{65536, 65536, 2, 1}, [4]int64{2, 131072, 1 << 33, 1}, 0xFFFF},
		{[4]uint32{1 << 20, 1 << 20, 1, 1}, [4]int64{1, 1 << 20, 1, 1}, 0x7},
	} {
		t.Run(fmt.Sprint(c.num, c.step), func(t *testing.T) {
			v := View{Base: 0, ElemSize: 1, NumElem: c.num, StepElem: c.step}
			w := v
			w.Base = 1 << 45
			p := mustPlan(t, Request{Gen: isa.CAYMAN, Src: v, Dst: w, DMACfg: c.dmas, CarveoutCfg: 0})
			if p.Bytes != v.Elements() {
				t.Errorf("%v: plan moves %d bytes, the request %d", c.num, p.Bytes, v.Elements())
			}
		})
	}
}

// TestLogWideValues: counts and steps beyond the firmware's 32-bit fields print in full, not
// wrapped (nelem_target 2^34 printed 0, a step of 2^31 printed -2147483648); values that fit
// keep the firmware's rendering (%X of a negative step_target is its 32-bit two's complement).
func TestLogWideValues(t *testing.T) {
	v := View{ElemSize: 1, NumElem: [4]uint32{2, 2, 2, 2}, StepElem: [4]int64{1, 1 << 31, 1 << 32, -(1 << 33)}}
	for _, c := range []struct {
		name, line, want string
	}{
		{"a step past 32 bits", stateLine(false, v, true), "step_elem=[1,2147483648,4294967296,-8589934592]"},
		{"a negative step_target", Analysis{NelemTarget: 1 << 34, StepTarget: -2}.logLine(), "nelem_target = 17179869184, step_target = 0xFFFFFFFE (0P)"},
		{"a step_target past 32 bits", Analysis{StepTarget: 1 << 33}.logLine(), "step_target = 0x200000000 (0P)"},
		{"a DIMPUSH step past 32 bits", MicroOp{Op: OpDimpush, Num: [2]uint32{2, 2}, Step: [2]int64{1 << 32, -1}}.String(), "S: push DIMPUSH to DMA[0]: [2,2][4294967296,-1]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.line, c.want) {
				t.Errorf("%q lacks %q", c.line, c.want)
			}
		})
	}
}
