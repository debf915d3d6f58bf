package dge

import (
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// TestSprayBalanceProperty: over random shapes, permutations, dtypes and DMA masks, bytes per
// engine differ by at most the largest unit (one tile), no engine that the fan-out counts is
// idle while units remain, and the README lower bound is met (G + E - 1 at most).
func TestSprayBalanceProperty(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	dts := []isa.DType{isa.DTypeUINT8, isa.DTypeBFLOAT16, isa.DTypeFP32}
	for i := 0; i < 3000; i++ {
		g := isa.Generations[rng.Intn(len(isa.Generations))]
		d := dts[rng.Intn(len(dts))]
		r := 1 + rng.Intn(4)
		shape := make([]int, r)
		for k := range shape {
			shape[k] = 1 + rng.Intn(140)
		}
		if rng.Intn(4) == 0 {
			shape[r-1] = 1 + rng.Intn(3000)
		}
		if shape[0] > 128 {
			shape[0] = 128
		}
		perm := rng.Perm(r)
		dst := sbufAddr(g, 0, 0)
		if rng.Intn(3) == 0 {
			dst = 0x40000000
		}
		req, err := TensorRequest(g, 0x1000, dst, shape, perm, d)
		if err != nil {
			continue
		}
		if rng.Intn(2) == 0 {
			req.DMACfg = uint32(1 + rng.Intn(0xFFFF))
		}
		p, err := PlanRequest(req, Options{Quiet: true})
		if err != nil {
			continue
		}
		bs := make([]uint64, 0, p.NumDMA)
		for _, q := range p.Job.Queues {
			if len(q) == 0 {
				continue
			}
			var b uint64
			for k := range q {
				b += q[k].Bytes()
			}
			bs = append(bs, b)
		}
		lo, hi := bs[0], bs[0]
		for _, b := range bs {
			lo, hi = min(lo, b), max(hi, b)
		}
		if hi-lo > p.MaxUnitBytes {
			t.Fatalf("%v %v perm %v %v dmas %#x: engine bytes %v differ by %d > largest unit %d", g, shape, perm, d, req.DMACfg, bs, hi-lo, p.MaxUnitBytes)
		}
		if p.Groups >= 1 && p.NumDMA < p.LowerBound-p.Groups+1 && p.Units >= p.LowerBound {
			t.Fatalf("%v %v perm %v %v dmas %#x: %d engines with work, lower bound %d", g, shape, perm, d, req.DMACfg, p.NumDMA, p.LowerBound)
		}
		if p.Descriptors < p.LowerBound || p.Descriptors > p.LowerBound+p.Groups-1 {
			t.Fatalf("%v %v perm %v %v: %d descriptors, lower bound %d, G %d", g, shape, perm, d, p.Descriptors, p.LowerBound, p.Groups)
		}
	}
}

// TestSprayAuditCase: 100x120 bf16 transposed into SBUF: no engine idle while another has two tiles.
func TestSprayAuditCase(t *testing.T) {
	req, err := TensorRequest(isa.CAYMAN, 0, sbufAddr(isa.CAYMAN, 0, 0), []int{100, 120}, []int{1, 0}, isa.DTypeBFLOAT16)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPlan(t, req)
	for e, q := range p.Job.Queues {
		if len(q) > 1 {
			t.Errorf("DMA[%d] has %d descriptors while %d engines have work", e, len(q), p.NumDMA)
		}
	}
	if p.NumDMA != p.LowerBound {
		t.Errorf("%d engines with work, lower bound %d", p.NumDMA, p.LowerBound)
	}
}
