package dge

import (
	"math/rand/v2"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// TestFirstOutsideMatchesWalk: firstOutside's closed form finds the same first element leaving
// a window as walking every element does (the oracle), over random small views with signed steps.
func TestFirstOutsideMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for c := 0; c < 3000; c++ {
		v := View{ElemSize: uint32(1 << rng.IntN(3))}
		for k := 0; k < 4; k++ {
			v.NumElem[k] = uint32(1 + rng.IntN(5))
			v.StepElem[k] = int64(rng.IntN(41) - 20)
		}
		lo, hi := -int64(rng.IntN(200)), int64(rng.IntN(200))+int64(v.ElemSize)
		var wantIdx uint64
		var wantOff int64
		wantFound := false
		Walk(v, func(i uint64, off int64) {
			if !wantFound && (off < lo || off+int64(v.ElemSize) > hi) {
				wantIdx, wantOff, wantFound = i, off, true
			}
		})
		idx, off, found := firstOutside(v, lo, hi)
		if found != wantFound || (found && (idx != wantIdx || off != wantOff)) {
			t.Fatalf("view %+v window [%d,%d): got (%d, %d, %v), walk says (%d, %d, %v)", v, lo, hi, idx, off, found, wantIdx, wantOff, wantFound)
		}
	}
}

// TestPartitionInRange: a view starting in SBUF (or PSUM) whose walk leaves the region's
// partitions is refused with RulePartitionInRange, for requests and for DMAMEMCPY's linear views;
// a view ending on the last partition is accepted.
func TestPartitionInRange(t *testing.T) {
	for _, g := range []isa.Generation{isa.SUNDA, isa.CAYMAN, isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK} {
		geo := g.Geometry()
		pe := int64(geo.StateBufPartitionSize) / 4
		rows := func(first, n int) View {
			return View{Base: sbufAddr(g, first, 0), ElemSize: 4, NumElem: [4]uint32{64, uint32(n), 1, 1}, StepElem: [4]int64{1, pe, 0, 0}}
		}
		hbm := View{Base: 0, ElemSize: 4, NumElem: [4]uint32{64, 64, 1, 1}, StepElem: [4]int64{1, 64, 0, 0}}
		for _, c := range []struct {
			name   string
			dst    View
			linear bool
			want   string
		}{
			{"rows 64..127", rows(64, 64), true, ""},
			{"rows 100..163 linear", rows(100, 64), true, RulePartitionInRange},
			{"rows 100..163 request", rows(100, 64), false, RulePartitionInRange},
			{"rows 127..64 downward", View{Base: sbufAddr(g, 127, 0), ElemSize: 4, NumElem: [4]uint32{64, 64, 1, 1}, StepElem: [4]int64{1, -pe, 0, 0}}, true, ""},
			{"rows 30..-33 downward", View{Base: sbufAddr(g, 30, 0), ElemSize: 4, NumElem: [4]uint32{64, 64, 1, 1}, StepElem: [4]int64{1, -pe, 0, 0}}, true, RulePartitionInRange},
		} {
			t.Run(g.String()+"/"+c.name, func(t *testing.T) {
				r := Request{Gen: g, Src: hbm, Dst: c.dst, linear: c.linear}
				_, err := PlanRequest(r, Options{Quiet: true})
				if got := ruleOf(err); got != c.want {
					t.Fatalf("err %v, want rule %q", err, c.want)
				}
			})
		}
	}
}

// TestPartitionInRangeGatherXpose: a gather-transpose's destination rows (one per column of the
// gathered rows, one partition each) may not run past partition 127 either.
func TestPartitionInRangeGatherXpose(t *testing.T) {
	g := isa.CAYMAN
	geo := g.Geometry()
	mk := func(part int) *isa.DMAGatherXpose {
		return &isa.DMAGatherXpose{Header: isa.Header{Opcode: isa.OpDMA_GATHER_TRANSPOSE, InstWordLen: 16}, IdxNumActiveChannels: 128,
			SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: [2]int32{1, 16}, SrcNumElem: [2]uint16{16, 128}, SrcIdxStartAddr: isa.Addr4(0x100),
			DstStartAddr: isa.LocalAddr8(uint32(part) * geo.StateBufPartitionSize), DstStepElem1: int32(geo.StateBufPartitionSize / 2),
			DstNumElem: [2]uint16{128, 16}, ElemSize: 32, Dtype: isa.MakeDTypePair(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16),
			Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}
	}
	if _, err := PlanInst(g, mk(112), Config{}, Options{Quiet: true}); err != nil {
		t.Fatalf("rows 112..127: %v", err)
	}
	if _, err := PlanInst(g, mk(120), Config{}, Options{Quiet: true}); ruleOf(err) != RulePartitionInRange {
		t.Fatalf("rows 120..135: want %s, got %v", RulePartitionInRange, err)
	}
}
