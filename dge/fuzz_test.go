package dge

import (
	"bytes"
	"encoding/binary"
	"slices"
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
		// Run on a patterned source; where the result cannot depend on the order the
		// descriptors run in (the destination's elements are distinct bytes, apart from the
		// source's), it must equal the element-by-element reference's on a twin memory.
		m := dmatest.New(r.Gen)
		pat := make([]byte, r.Src.Elements()*uint64(r.Src.ElemSize))
		for i := range pat {
			pat[i] = byte(i*131 + i>>8)
		}
		srcOK := WriteView(m, r.Src, pat) == nil
		_, err = dma.New(r.Gen).Run(m, &p.Job)
		if err != nil || !srcOK || !disjointElems(r.Dst) || overlaps(r.Src, r.Dst) {
			return
		}
		twin := dmatest.New(r.Gen)
		if WriteView(twin, r.Src, pat) != nil || Reference(twin, r) != nil {
			return
		}
		got, err1 := ReadView(m, r.Dst)
		want, err2 := ReadView(twin, r.Dst)
		if err1 != nil || err2 != nil {
			t.Fatalf("reading back the destination: %v, %v", err1, err2)
		}
		if !bytes.Equal(got, want) {
			i := 0
			for got[i] == want[i] {
				i++
			}
			t.Fatalf("planned run differs from the reference at dst byte %d (got %x, want %x)\nrequest %+v\n%s", i, got[i], want[i], r, p.Text())
		}
	})
}

// bytesOf returns the lowest and one past the highest byte address a view's elements touch.
func bytesOf(v View) (lo, hi int64) {
	lo, hi = 1<<62, -1<<62
	Walk(v, func(_ uint64, off int64) {
		lo, hi = min(lo, off), max(hi, off+int64(v.ElemSize))
	})
	return int64(v.Base) + lo, int64(v.Base) + hi
}

// overlaps reports whether the byte ranges two views span meet (a conservative test).
func overlaps(a, b View) bool {
	alo, ahi := bytesOf(a)
	blo, bhi := bytesOf(b)
	return alo < bhi && blo < ahi
}

// disjointElems reports whether no two elements of v share a byte.
func disjointElems(v View) bool {
	var offs []int64
	Walk(v, func(_ uint64, off int64) { offs = append(offs, off) })
	slices.Sort(offs)
	for i := 1; i < len(offs); i++ {
		if offs[i]-offs[i-1] < int64(v.ElemSize) {
			return false
		}
	}
	return true
}
