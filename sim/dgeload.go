package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// Load applies one load (ParseLoad) to the run's machine, as `tpbsim dge run --load` does. For
// a tensor request a load at the base of its source (or destination) view fills that view and
// must fit it: the array holds the view's element count, and values of another numpy type than
// the dtype's own (or its raw bits) are converted to the view's dtype, which the returned note
// says (a 10-element array for a 64x128 source, or a float32 array copied into an FP16 request
// as raw bytes, would otherwise run on garbage). Any other load is Machine.Load's.
func (r *DGERun) Load(l LoadSpec) (note string, err error) {
	m := r.machine
	if m == nil {
		return "", fmt.Errorf("sim.DGERun.Load before Start")
	}
	if r.req == nil {
		return "", m.Load(l)
	}
	g := r.gen()
	var dev uint64
	switch l.At.Space {
	case isa.SpaceHBM:
		dev = l.At.Offset
	case isa.SpaceSBUF, isa.SpacePSUM:
		a, _ := l.At.OnChip(g)
		dev = isa.DMALocalBase + uint64(a)
	case isa.SpaceRaw:
		dev = isa.DMALocalBase + l.At.Offset // as a run's load reads it: a raw number is an on-chip address
	}
	req := r.req
	var v dge.View
	var d isa.DType
	var side string
	switch dev {
	case req.Src.Base:
		v, d, side = req.Src, req.In, "source"
	case req.Dst.Base:
		v, d, side = req.Dst, req.Out, "destination"
	default:
		return "", m.Load(l)
	}
	a, err := ReadNPY(l.File)
	if err != nil {
		return "", err
	}
	per := 1 // values per view element (a folded or raw-byte view element holds several)
	if d != 0 {
		per = int(v.ElemSize) / d.Size()
	}
	want := v.Elements() * uint64(per)
	if d == 0 {
		want = v.Elements() * uint64(v.ElemSize)
	}
	n := uint64(a.Len())
	if d == 0 && l.Kind == num.INVALID {
		n = uint64(len(a.Data)) // raw bytes
	}
	if n != want {
		return "", fmt.Errorf("%s holds %d values (shape %v) but the request's %s has %d: the load must fill the view it starts", l.File, a.Len(), a.Shape, side, want)
	}
	data := a.Data
	if d != 0 {
		k := num.Kind(d)
		own, _ := npy.TypeOf(k)
		switch {
		case l.Kind != num.INVALID && l.Kind != k:
			return "", fmt.Errorf(":%v differs from the request's %s dtype %v", l.Kind, side, d)
		case l.Kind == num.INVALID && (a.Dtype == own || a.Dtype == npy.RawType(k)):
			// the dtype's own numpy type or its raw bits: copied as they are
		default:
			if data, err = a.Convert(k); err != nil {
				return "", err
			}
			if l.Kind == num.INVALID {
				note = fmt.Sprintf("%s: the %s values converted to %v, the request's %s dtype (through FP32, rounding to nearest even)", l.Arg, a.Dtype, d, side)
			}
		}
	}
	if err := dge.WriteView(m.Memory(), v, data); err != nil {
		return "", err
	}
	return note, nil
}
