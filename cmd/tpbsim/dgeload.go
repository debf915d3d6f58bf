package main

import (
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
)

// dgeLoad applies one `dge run --load ADDR=FILE.npy[:DTYPE]`. A load at the base of the
// request's source (or destination) view fills that view, and must fit it: its element count
// must be the view's (a 10-element array for a 64x128 source was accepted), and its values are
// converted to the view's dtype when the file holds another numpy type (a float32 array was
// copied into an FP16 request as raw bytes), which the returned note says. Any other load is
// `tpbsim run`'s. Errors are usage errors (exit 2).
func dgeLoad(m *sim.Machine, g isa.Generation, arg string, req dge.Request) (string, error) {
	fail := func(err error) (string, error) { return "", ioErr(fmt.Errorf("--load %s: %w", arg, err)) }
	addrS, rest, ok := strings.Cut(arg, "=")
	if !ok || rest == "" {
		return fail(fmt.Errorf("want ADDR=FILE.npy[:DTYPE]"))
	}
	at, err := isa.ParseAddress(addrS, g)
	if err != nil {
		return fail(err)
	}
	var dev uint64
	switch at.Space {
	case isa.SpaceHBM:
		dev = at.Offset
	case isa.SpaceSBUF, isa.SpacePSUM:
		a, _ := at.OnChip(g)
		dev = isa.DMALocalBase + uint64(a)
	case isa.SpaceRaw:
		dev = isa.DMALocalBase + at.Offset // as in tpbsim run: a raw number is an on-chip address
	}
	var v dge.View
	var d isa.DType
	var side string
	switch {
	case dev == req.Src.Base:
		v, d, side = req.Src, req.In, "source"
	case dev == req.Dst.Base:
		v, d, side = req.Dst, req.Out, "destination"
	default:
		if err := loadArg(m, g, arg); err != nil {
			return fail(err)
		}
		return "", nil
	}
	file, kind, err := splitLoadFile(rest)
	if err != nil {
		return fail(err)
	}
	a, err := readNPY(file)
	if err != nil {
		return fail(err)
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
	if d == 0 && kind == num.INVALID {
		n = uint64(len(a.Data)) // raw bytes
	}
	if n != want {
		return fail(fmt.Errorf("%s holds %d values (shape %v) but the request's %s has %d: the load must fill the view it starts", file, a.Len(), a.Shape, side, want))
	}
	data, note := a.Data, ""
	if d != 0 {
		k := num.Kind(d)
		own, _ := npy.TypeOf(k)
		raw := fmt.Sprintf("u%d", k.Size())
		switch {
		case kind != num.INVALID && kind != k:
			return fail(fmt.Errorf(":%v differs from the request's %s dtype %v", kind, side, d))
		case kind == num.INVALID && (a.Dtype == own || a.Dtype == raw):
			// the dtype's own numpy type or its raw bits: copied as they are
		default:
			if data, err = a.Convert(k); err != nil {
				return fail(err)
			}
			if kind == num.INVALID {
				note = fmt.Sprintf("--load %s: the %s values converted to %v, the request's %s dtype (through FP32, rounding to nearest even)", arg, a.Dtype, d, side)
			}
		}
	}
	if err := dge.WriteView(m.Memory(), v, data); err != nil {
		return fail(err)
	}
	return note, nil
}
