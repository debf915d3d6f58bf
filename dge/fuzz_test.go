package dge

import (
	"encoding/binary"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
)

func reqFromBytes(b []byte) Request {
	get := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	i16 := func(i int) int64 { return int64(int16(binary.LittleEndian.Uint16([]byte{get(i), get(i + 1)}))) }
	g := isa.Generation(get(0) % 7)
	r := Request{Gen: g, Semaphore: int(int8(get(1))), SemIncrement: int(get(2) % 20)}
	bases := []uint64{0x1000, isa.DMALocalBase + 0x40, isa.DMALocalBase + 0x2000000, isa.DMALocalBase + 64<<10 + 0x80, 1 << 46}
	mk := func(o int) View {
		v := View{Base: bases[int(get(o))%len(bases)] + uint64(get(o+1))*2, ElemSize: uint32(get(o + 2))}
		for k := 0; k < 4; k++ {
			v.NumElem[k] = uint32(get(o+3+k)) % 33
			v.StepElem[k] = i16(o + 7 + 2*k)
		}
		return v
	}
	r.Src, r.Dst = mk(3), mk(20)
	if n := int(get(37) % 5); n > 0 {
		r.Perm = make([]int, n)
		for k := range r.Perm {
			r.Perm[k] = int(get(38+k)) % (n + 1)
		}
	}
	dts := []isa.DType{0, isa.DTypeUINT8, isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeFP32, isa.DTypeINT32, isa.DTypeFP4_EXP2, isa.DTypeUINT64, 0x1A}
	r.In, r.Out = dts[int(get(42))%len(dts)], dts[int(get(43))%len(dts)]
	r.ComputeOp = isa.DGEComputeOp(get(44) % 6)
	r.DMACfg = uint32(binary.LittleEndian.Uint16([]byte{get(45), get(46)})) | uint32(get(47))<<16
	r.CarveoutCfg = uint32(get(48)) << 16
	r.DstBound = isa.BoundCheckReg(get(49))
	return r
}

// FuzzPlanner: any request either is rejected or plans into descriptors that validate, whose
// element counts add up, and that run (or fail their checks) without a panic.
func FuzzPlanner(f *testing.F) {
	f.Add([]byte{2, 0xff, 0, 0, 0, 0, 2, 16, 128, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 2, 128, 16, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0})
	f.Add([]byte{4, 3, 4, 0, 0, 0, 4, 7, 5, 3, 2, 1, 0, 7, 0, 35, 0, 0, 0, 1, 0, 0, 4, 2, 3, 5, 7, 1, 0, 2, 0, 6, 0, 30, 0, 0, 4, 3, 2, 1, 0, 0, 4, 4, 1})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 1, 32, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 32, 1, 1, 1})
	f.Add([]byte{5, 9, 9, 1, 3, 2, 16, 8, 8, 2, 0, 8, 0, 1, 0, 64, 0, 0, 2, 1, 0, 0, 2, 8, 16, 2, 0, 1, 0, 8, 0, 128, 0, 0, 1, 0, 0, 3, 2, 0, 1, 0, 3, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := reqFromBytes(b)
		p, err := PlanRequest(r, Options{})
		if err != nil {
			return
		}
		var n uint64
		for _, q := range p.Job.Queues {
			for i := range q {
				if err := q[i].Validate(); err != nil {
					t.Fatalf("planned descriptor does not validate: %v\n%+v", err, q[i])
				}
				n += q[i].Elements()
			}
		}
		if n != r.Src.Elements() {
			t.Fatalf("descriptors move %d elements, the request %d", n, r.Src.Elements())
		}
		if p.Bytes > 1<<22 {
			return
		}
		m := dmatest.New(r.Gen)
		e := dma.New(r.Gen)
		_, _ = e.Run(m, &p.Job)
	})
}
