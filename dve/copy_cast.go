package dve

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// COPY (0x46), CAST (0x47) and RECIPROCAL (0x48): one element in, one element out.

func (d *DVE) copyOp(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	if in.InDtype != in.OutDtype {
		return o.refuse(isa.RuleS4D4TRSameSrcDstType, "out_dtype", "in %v, out %v", in.InDtype, in.OutDtype)
	}
	// Contiguous rows that do not overlap (and no never-written tracking, which the gather
	// does): one copy per channel, row to row, as the transposes read and write in place,
	// marked written as Scatter marks its bytes (so that Reset clears them).
	if !d.reference && !m.Options().TrackUninit && o.src.Contiguous() && o.dst.Contiguous() && !o.src.Span().Overlaps(o.dst.Span()) {
		n, so, do := o.src.Bytes(), o.src.Offset(), o.dst.Offset()
		for c := 0; c < o.nac; c++ {
			copy(m.Partition(o.dst.Start.Region, o.dst.Partition(c))[do:do+n], m.Partition(o.src.Start.Region, o.src.Partition(c))[so:so+n])
			m.MarkInit(o.dst.Start.Region, o.dst.Partition(c), do, n)
		}
		return nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	scatterAll(m, o, sbuf)
	return nil
}

func (d *DVE) castOp(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	ik, ok := num.Kind(in.InDtype), num.Kind(in.OutDtype)
	if !d.reference {
		rows, srcInPlace, err := d.srcRows(m, o, nil)
		if err != nil {
			return err
		}
		// Kinds are checked (n = 0 converts nothing) before a row may be written in place.
		if err := num.ConvertSlice(nil, ok, nil, ik, 0); err != nil {
			return o.refuse(isa.RuleIsValidDtype, "in_dtype", "%v", err)
		}
		orows, dstInPlace := d.dstRows(m, o, srcInPlace)
		d.runRows(o, rowJob{kind: jobCast, rows: rows, orows: orows, esIn: o.esIn, in: ik, out: ok})
		d.putRows(m, o, orows, dstInPlace)
		return nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	n := o.nac * o.src.Elements()
	obuf := make([]byte, n*o.esOut)
	if err := num.ConvertSlice(obuf, ok, sbuf, ik, n); err != nil {
		return o.refuse(isa.RuleIsValidDtype, "in_dtype", "%v", err)
	}
	scatterAll(m, o, obuf)
	return nil
}

func (d *DVE) reciprocal(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	ik, ok := num.Kind(in.InDtype), num.Kind(in.OutDtype)
	if !d.reference {
		rows, srcInPlace, err := d.srcRows(m, o, nil)
		if err != nil {
			return err
		}
		orows, dstInPlace := d.dstRows(m, o, srcInPlace)
		d.runRows(o, rowJob{kind: jobReciprocal, rows: rows, orows: orows, esIn: o.esIn, esOut: o.esOut, in: ik, out: ok})
		d.putRows(m, o, orows, dstInPlace)
		return nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	n := o.nac * o.src.Elements()
	obuf := make([]byte, n*o.esOut)
	for i := 0; i < n; i++ {
		x := num.LoadF32(ik, sbuf[i*o.esIn:])
		num.StoreF32(ok, obuf[i*o.esOut:], num.CanonicalNaN(1/x))
	}
	scatterAll(m, o, obuf)
	return nil
}
