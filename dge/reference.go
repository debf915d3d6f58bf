package dge

import (
	"fmt"

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

// ReadView reads a view's elements, in dim order, element by element.
func ReadView(m dma.Memory, v View) ([]byte, error) {
	out := make([]byte, v.Elements()*uint64(v.ElemSize))
	var err error
	Walk(v, func(i uint64, off int64) {
		if err == nil {
			err = m.ReadAt(offsetAddr(v.Base, off), out[i*uint64(v.ElemSize):(i+1)*uint64(v.ElemSize)])
		}
	})
	return out, err
}

// WriteView writes data over a view's elements, in dim order.
func WriteView(m dma.Memory, v View, data []byte) error {
	var err error
	Walk(v, func(i uint64, off int64) {
		if err == nil {
			err = m.WriteAt(offsetAddr(v.Base, off), data[i*uint64(v.ElemSize):(i+1)*uint64(v.ElemSize)])
		}
	})
	return err
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
		if r.ComputeOp == isa.DGEComputeNONE {
			num.StoreF32(out, dst[j*out.Size():], x)
			continue
		}
		y := num.LoadF32(out, dst[j*out.Size():])
		var v float32
		switch r.ComputeOp {
		case isa.DGEComputeADD:
			v = y + x
		case isa.DGEComputeMULTIPLY:
			v = y * x
		case isa.DGEComputeMAX:
			v = max(y, x)
		case isa.DGEComputeMIN:
			v = min(y, x)
		}
		num.StoreF32(out, dst[j*out.Size():], v)
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
