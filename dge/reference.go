package dge

import (
	"fmt"
	"math"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// Walk visits a view's elements in dim order (dim 0 fastest), giving the linear index and the
// byte offset from the base.
func Walk(v View, fn func(i uint64, off int64)) {
	es := int64(v.ElemSize)
	i := uint64(0)
	for a := int64(0); a < int64(v.NumElem[3]); a++ {
		for b := int64(0); b < int64(v.NumElem[2]); b++ {
			for c := int64(0); c < int64(v.NumElem[1]); c++ {
				for d := int64(0); d < int64(v.NumElem[0]); d++ {
					fn(i, (a*v.StepElem[3]+b*v.StepElem[2]+c*v.StepElem[1]+d*v.StepElem[0])*es)
					i++
				}
			}
		}
	}
}

// runs visits a view's elements in dim order as maximal runs of elements that are consecutive
// in memory: fn gets the linear index and byte offset of the run's first element and its
// length in elements.
func runs(v View, fn func(i uint64, off int64, n uint64) error) error {
	es := int64(v.ElemSize)
	var start uint64
	var soff, next int64
	var n uint64
	var err error
	Walk(v, func(i uint64, off int64) {
		if err != nil {
			return
		}
		if n > 0 && off == next {
			n++
			next += es
			return
		}
		if n > 0 {
			err = fn(start, soff, n)
		}
		start, soff, next, n = i, off, off+es, 1
	})
	if err == nil && n > 0 {
		err = fn(start, soff, n)
	}
	return err
}

// maxBoxSlack bounds the bytes ReadView may read beyond the view's own when it reads the
// view's bounding box in one access.
const maxBoxSlack = 1 << 20

// ReadView reads a view's elements, in dim order. It reads the view's bounding box in one
// access when that box is at most twice the view's bytes (plus 1 MiB) and the memory accepts
// it, else each run of elements consecutive in memory with one access; either way the bytes
// are those of an element-by-element read, and an error is the memory's for the first run
// that cannot be read.
func ReadView(m dma.Memory, v View) ([]byte, error) {
	es := uint64(v.ElemSize)
	out := make([]byte, v.Elements()*es)
	if len(out) == 0 {
		return out, nil
	}
	var lo, hi int64
	for k := range v.NumElem {
		d := int64(v.NumElem[k]-1) * v.StepElem[k] * int64(es)
		if d < 0 {
			lo += d
		} else {
			hi += d
		}
	}
	if box := uint64(hi-lo) + es; box <= 2*uint64(len(out))+maxBoxSlack {
		b := make([]byte, box)
		if m.ReadAt(offsetAddr(v.Base, lo), b) == nil {
			Walk(v, func(i uint64, off int64) {
				copy(out[i*es:(i+1)*es], b[off-lo:])
			})
			return out, nil
		}
	}
	err := runs(v, func(i uint64, off int64, n uint64) error {
		return m.ReadAt(offsetAddr(v.Base, off), out[i*es:(i+n)*es])
	})
	return out, err
}

// WriteView writes data over a view's elements, in dim order, each run of elements consecutive
// in memory with one access.
func WriteView(m dma.Memory, v View, data []byte) error {
	es := uint64(v.ElemSize)
	return runs(v, func(i uint64, off int64, n uint64) error {
		return m.WriteAt(offsetAddr(v.Base, off), data[i*es:(i+n)*es])
	})
}

// SourceStream reads the request's source in destination order (the permuted source view).
func (r Request) SourceStream(m dma.Memory) ([]byte, error) {
	return ReadView(m, permuted(r.Src, r.Perm))
}

// Expect is the direct, element-by-element meaning of a request, independent of the planner:
// given the source stream (SourceStream) and the destination's bytes before the transfer (in
// dim order; only read for compute ops), it returns the destination's bytes after.
func (r Request) Expect(src, dstBefore []byte) ([]byte, error) {
	n := int(r.Src.Elements())
	ses, des := int(r.Src.ElemSize), int(r.Dst.ElemSize)
	if len(src) < n*ses || len(dstBefore) < n*des {
		return nil, fmt.Errorf("dge: Expect: short buffers")
	}
	dst := append([]byte{}, dstBefore[:n*des]...)
	if r.In == 0 || (r.In == r.Out && r.ComputeOp == isa.DGEComputeNONE) {
		copy(dst, src[:n*ses])
		return dst, nil
	}
	in, out := num.Kind(r.In), num.Kind(r.Out)
	vals := n * ses / in.Size()
	for j := 0; j < vals; j++ {
		x := num.LoadF32(in, src[j*in.Size():])
		y := num.LoadF32(out, dst[j*out.Size():])
		num.StoreF32(out, dst[j*out.Size():], dma.Compute(r.ComputeOp, y, x))
	}
	return dst, nil
}

// Reference performs the request directly on m, element by element (the oracle the planner and
// the engines are checked against).
func Reference(m dma.Memory, r Request) error {
	src, err := r.SourceStream(m)
	if err != nil {
		return err
	}
	before, err := ReadView(m, r.Dst)
	if err != nil {
		return err
	}
	after, err := r.Expect(src, before)
	if err != nil {
		return err
	}
	return WriteView(m, r.Dst, after)
}

// ReadBack turns a stream written over view v, in walk order, into what ReadView of v gives
// afterwards: where the view names one byte more than once, the byte written last in walk
// order is what every such position reads (sim.dma_dst_overlap); this is how `tpbsim dge run
// --verify` compares a self-overlapping destination. A view whose elements follow each other
// without overlap in walk order (the usual case) gives the stream itself.
func ReadBack(v View, stream []byte) []byte {
	prev, increasing := int64(math.MinInt64/2), true
	Walk(v, func(_ uint64, off int64) {
		if off < prev+int64(v.ElemSize) {
			increasing = false
		}
		prev = off
	})
	if increasing {
		return stream
	}
	es := uint64(v.ElemSize)
	last := map[int64]uint64{} // byte offset -> stream byte written there last
	Walk(v, func(i uint64, off int64) {
		for b := uint64(0); b < es; b++ {
			last[off+int64(b)] = i*es + b
		}
	})
	out := make([]byte, len(stream))
	Walk(v, func(i uint64, off int64) {
		for b := uint64(0); b < es; b++ {
			out[i*es+b] = stream[last[off+int64(b)]]
		}
	})
	return out
}
