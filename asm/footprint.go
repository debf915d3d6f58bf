package asm

import (
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/isa"
)

// footprint is the set of bits of the 64-byte word one key=value assignment writes.
type footprint [isa.InstNBytes]byte

func (f *footprint) addBits(byteOff int, size int, shift, bits uint8) {
	if bits == 0 {
		for i := 0; i < size; i++ {
			if byteOff+i < len(f) {
				f[byteOff+i] = 0xFF
			}
		}
		return
	}
	for b := int(shift); b < int(shift)+int(bits); b++ {
		if o := byteOff + b/8; o < len(f) {
			f[o] |= 1 << (b % 8)
		}
	}
}

func (f *footprint) addField(fl isa.Field, idx int) {
	if idx >= 0 {
		f.addBits(fl.Offset+idx*fl.Size, fl.Size, fl.Shift, fl.Bits)
		return
	}
	for k := 0; k < max(fl.Count, 1); k++ {
		f.addBits(fl.Offset+k*fl.Size, fl.Size, fl.Shift, fl.Bits)
	}
}

// footprintOf is what r writes: a whole tensor's fields, a bitfield byte set whole, one element
// of an array, or a field.
func footprintOf(l *isa.StructLayout, r resolved) footprint {
	var f footprint
	switch {
	case r.tensor != nil:
		for _, c := range l.Fields {
			if strings.HasPrefix(c.Path, r.tensor.Path+".") {
				f.addField(c, -1)
			}
		}
	case r.group != nil:
		f.addBits(r.group[0].Offset, 1, 0, 0)
	default:
		f.addField(r.field, r.idx)
	}
	return f
}

func (f *footprint) overlaps(g *footprint) bool {
	for i := range f {
		if f[i]&g[i] != 0 {
			return true
		}
	}
	return false
}

// assignments are the key=value settings of one instruction so far, with their footprints.
type assignments []struct {
	tok string
	fp  footprint
}

// add records one setting, refusing one that writes bits an earlier one wrote (the same field
// under two names, or a whole tensor or array and then one of its parts): a typo or a merge
// gone wrong, not a request for the last value.
func (a *assignments) add(path, tok string, fp footprint) error {
	for _, prev := range *a {
		if prev.fp.overlaps(&fp) {
			return &Error{Field: path, Msg: fmt.Sprintf("set twice (%s, then %s)", prev.tok, tok)}
		}
	}
	*a = append(*a, struct {
		tok string
		fp  footprint
	}{tok, fp})
	return nil
}
