package dge

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

func TestSrcDstDisjoint(t *testing.T) {
	g := isa.CAYMAN
	sb := func(p, off uint64) uint64 {
		return isa.DMALocalBase + p*uint64(g.Geometry().StateBufPartitionSize) + off
	}
	tensor := func(src, dst uint64, shape, perm []int) Request {
		r, err := TensorRequest(g, src, dst, shape, perm, isa.DTypeBFLOAT16)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	strided := func(base uint64, n uint32, step int64) View {
		return View{Base: base, ElemSize: 2, NumElem: [4]uint32{n, 1, 1, 1}, StepElem: [4]int64{step, 1, 1, 1}}
	}
	cases := []struct {
		name string
		r    Request
		ok   bool
	}{
		{"hbm shifted by 16 bytes", tensor(0, 0x10, []int{64, 64}, nil), false},
		{"hbm identical copy (no-op)", tensor(0, 0, []int{64, 64}, nil), true},
		{"hbm adjacent", tensor(0, 0x2000, []int{64, 64}, nil), true},
		{"hbm in-place transpose", tensor(0, 0, []int{64, 64}, []int{1, 0}), false},
		{"sbuf same partitions, other offsets", tensor(sb(0, 0), sb(0, 0x100), []int{64, 128}, nil), true},
		{"sbuf same partitions, overlapping offsets", tensor(sb(0, 0), sb(0, 0x80), []int{64, 128}, nil), false},
		{"sbuf in-place transpose", tensor(sb(0, 0), sb(0, 0), []int{64, 64}, []int{1, 0}), false},
		{"interleaved strided views", Request{Gen: g, Src: strided(0, 64, 2), Dst: strided(2, 64, 2)}, true},
		{"strided views sharing one element", Request{Gen: g, Src: strided(0, 64, 2), Dst: strided(126*2, 64, 2)}, false},
		{"reversed view over the same bytes", Request{Gen: g, Src: strided(0, 64, 1), Dst: strided(63*2, 64, -1)}, false},
		{"reversed view below the source", Request{Gen: g, Src: strided(0x1000, 64, 1), Dst: strided(0x1000-2, 64, -1)}, true},
	}
	withOp := tensor(0, 0, []int{64, 64}, nil)
	withOp.In, withOp.Out, withOp.ComputeOp = isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, isa.DGEComputeADD
	cases = append(cases, struct {
		name string
		r    Request
		ok   bool
	}{"identical views with compute_op ADD", withOp, false})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := PlanRequest(c.r, Options{Quiet: true})
			var e *Error
			switch {
			case c.ok && err != nil:
				t.Errorf("%s: %v", c.name, err)
			case !c.ok && (!errors.As(err, &e) || e.Rule != RuleSrcDstDisjoint || !errors.Is(err, fault.ErrInvalid)):
				t.Errorf("%s: want rule %s, got %v", c.name, RuleSrcDstDisjoint, err)
			}
		})
	}
}

// The identity exemption compares walks, not field spellings: a view split into more dims that
// walks the same addresses in the same order is the same copy.
func TestSameWalkCanonical(t *testing.T) {
	a := View{Base: 0, ElemSize: 2, NumElem: [4]uint32{64, 64, 1, 1}, StepElem: [4]int64{1, 64, 1, 1}}
	b := View{Base: 0, ElemSize: 2, NumElem: [4]uint32{4096, 1, 1, 1}, StepElem: [4]int64{1, 0, 0, 0}}
	if !sameWalk(a, b) {
		t.Error("row-major 64x64 and flat 4096 are the same walk")
	}
	c := b
	c.Base = 2
	if sameWalk(a, c) {
		t.Error("different bases are the same walk")
	}
}

// Beyond maxFootprintRuns runs an overlap of the bounding ranges is refused (cannot rule it out).
func TestFootprintRunLimit(t *testing.T) {
	v := View{Base: 0, ElemSize: 1, NumElem: [4]uint32{2048, 1024, 1, 1}, StepElem: [4]int64{2, 4096, 1, 1}}
	if _, ok := footprint(v); ok {
		t.Errorf("2^21 runs enumerated")
	}
	if rs, ok := footprint(View{Base: 8, ElemSize: 4, NumElem: [4]uint32{4, 2, 1, 1}, StepElem: [4]int64{1, 8, 1, 1}}); !ok || len(rs) != 2 || rs[0] != (dma.Run{Lo: 8, Hi: 24}) || rs[1] != (dma.Run{Lo: 40, Hi: 56}) {
		t.Errorf("footprint = %v", rs)
	}
}
