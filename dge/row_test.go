package dge

import (
	"errors"
	"github.com/tpbsim/tpbsim/fault"
	"testing"

	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
)

func ruleOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Rule
	}
	return fault.Rule(err) // another layer's typed error, e.g. an *isa.GenerationError
}

// TestRowInPartition: an on-chip tensor whose row does not fit in its partition's active area is
// refused before planning, on both sides and every generation (the audit's 17x33024 int64 rows
// spilled into the next partition on MARIANA / MARIANA_PLUS, where active == stride).
func TestRowInPartition(t *testing.T) {
	for _, g := range []isa.Generation{isa.SUNDA, isa.CAYMAN, isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK} {
		t.Run(g.String(), func(t *testing.T) {
			geo := g.Geometry()
			active := int(geo.StateBufPartitionActive)
			sb := sbufAddr(g, 0, 0)
			// a row of active+8 bytes, int64
			long := []int{17, active/8 + 1}
			for _, c := range []struct {
				name     string
				src, dst uint64
				shape    []int
				perm     []int
				d        isa.DType
			}{
				{"hbm->sbuf", 0, sb, long, nil, isa.DTypeINT64},
				{"sbuf->hbm", sb, 0, long, nil, isa.DTypeINT64},
				{"xpose dst row", 0, sb, []int{active/2/16 + 1, 17, 16}, []int{1, 2, 0}, isa.DTypeBFLOAT16},
			} {
				if !c.d.InGen(g) {
					return
				}
				_, err := TensorRequest(g, c.src, c.dst, c.shape, c.perm, c.d)
				if ruleOf(err) != RuleRowInPartition {
					t.Errorf("%v %s: err %v, want rule %s", g, c.name, err, RuleRowInPartition)
				}
			}
			// a row that exactly fills the active area from offset 0 fits; at offset 8 it does not.
			fit := []int{2, active / 4}
			if _, err := TensorRequest(g, 0, sb, fit, nil, isa.DTypeUINT32); err != nil {
				t.Errorf("%v: exact row: %v", g, err)
			}
			if _, err := TensorRequest(g, 0, sbufAddr(g, 0, 8), fit, nil, isa.DTypeUINT32); ruleOf(err) != RuleRowInPartition {
				t.Errorf("%v: row at offset 8: err %v", g, err)
			}
			// a raw request view: the same long row as a 2-D view is refused by PlanRequest too.
			es := uint32(8)
			r := Request{Gen: g, Src: RowMajor(0, es, long), Dst: RowMajor(sb, es, long)}
			r.Dst.StepElem[1] = int64(geo.StateBufPartitionSize) / int64(es)
			r.Dst.StepElem[2], r.Dst.StepElem[3] = r.Dst.StepElem[1]*17, r.Dst.StepElem[1]*17
			if _, err := PlanRequest(r, Options{Quiet: true}); ruleOf(err) != RuleRowInPartition {
				t.Errorf("%v: raw view: err %v", g, err)
			}
			// a negative row step that stays inside the row is legal; one that walks below offset 0 is not.
			neg := Request{Gen: g, Src: RowMajor(0, 4, []int{4, 16}),
				Dst: View{Base: sbufAddr(g, 0, 60), ElemSize: 4, NumElem: [4]uint32{16, 4, 1, 1},
					StepElem: [4]int64{-1, int64(geo.StateBufPartitionSize) / 4, 0, 0}}}
			if _, err := PlanRequest(neg, Options{Quiet: true}); err != nil {
				t.Errorf("%v: negative step inside the row: %v", g, err)
			}
			neg.Dst.Base = sbufAddr(g, 0, 56)
			if _, err := PlanRequest(neg, Options{Quiet: true}); ruleOf(err) != RuleRowInPartition {
				t.Errorf("%v: negative step below offset 0: err %v", g, err)
			}
			// PSUM rows are bounded by the PSUM active size.
			if geo.PSUMSize > 0 {
				ps := isa.DMALocalBase + uint64(geo.PSUMOffset)
				if _, err := TensorRequest(g, 0, ps, []int{2, int(geo.PSUMPartitionActive)/4 + 1}, nil, isa.DTypeUINT32); ruleOf(err) != RuleRowInPartition {
					t.Errorf("%v: PSUM long row: err %v", g, err)
				}
				if _, err := TensorRequest(g, 0, ps, []int{2, int(geo.PSUMPartitionActive) / 4}, nil, isa.DTypeUINT32); err != nil {
					t.Errorf("%v: PSUM exact row: %v", g, err)
				}
			}
		})
	}
}

// TestDirect2DCrossesPartitions: DMA instructions address memory linearly (FACTS §B.3), so a
// DIRECT2D on MARIANA (active == stride) may run from one partition into the next; the DGE does
// not apply dge_row_in_partition to it, and the bytes land at the linear addresses.
func TestDirect2DCrossesPartitions(t *testing.T) {
	g := isa.MARIANA
	m := dmatest.New(g)
	stride := uint64(g.Geometry().StateBufPartitionSize)
	dst := sbufAddr(g, 0, stride-64)
	for i := 0; i < 128; i++ {
		m.WriteAt(0x1000+uint64(i), []byte{byte(i + 1)})
	}
	in := &isa.DMADirect2D{SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: [2]int32{1, 128}, SrcNumElem: [2]uint16{128, 1}, SrcElemSize: 1,
		DstStartAddr: isa.Addr8(dst), DstStepElem: [2]int32{1, 128}, DstNumElem: [2]uint16{128, 1}, DstElemSize: 1,
		InDtype: isa.DTypeUINT8, OutDtype: isa.DTypeUINT8}
	if _, err := runInst(t, g, m, in, nil); err != nil {
		t.Fatalf("DIRECT2D across a partition boundary: %v", err)
	}
	got := make([]byte, 128)
	m.ReadAt(dst, got)
	for i, b := range got {
		if b != byte(i+1) {
			t.Fatalf("byte %d = %d, want %d", i, b, i+1)
		}
	}
}
