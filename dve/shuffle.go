package dve

import (
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// LOAD_MASK_SELECT (0x69) and STREAM_SHUFFLE (0x6A): the mask register and the channel select it
// drives.

// loadMask runs LOAD_MASK_SELECT: the 32 entries become the mask register.
func (d *DVE) loadMask(in *isa.LoadMaskSelect, g isa.Generation, eff Effect) (Effect, error) {
	for i, v := range in.Immediate {
		if v >= 64 && v != 0xFF {
			return eff, refuse(in, g, isa.RuleLoadMaskSelectValidMask, fmt.Sprintf("immediate[%d]", i), "mask entry %d", v)
		}
	}
	d.mask, d.maskSet = in.Immediate, true
	eff.MaskLoaded = true
	return eff, nil
}

// streamShuffle: output channel i of each 32-channel group takes input channel mask[i] of the
// same group; 0xFF leaves output channel i untouched. Entries 32..63 are taken modulo 32
// (Provenance dve.shuffle_mask_high). It returns the number of output channels written.
func (d *DVE) streamShuffle(m *mem.Memory, in *isa.S4D4TR, o *operands) (int, error) {
	if o.nac%32 != 0 {
		return 0, o.refuse(isa.RuleHasMultiple32Channels, "num_active_channels", "%d channels", o.nac)
	}
	if err := requireSameCount(o); err != nil {
		return 0, err
	}
	if in.InDtype != in.OutDtype {
		return 0, o.refuse(isa.RuleS4D4TRSameSrcDstType, "out_dtype", "in %v, out %v", in.InDtype, in.OutDtype)
	}
	if !d.maskSet {
		return 0, fail(o.op, fault.ErrInvalid, RuleStreamShuffleMaskLoaded, "", "no LOAD_MASK_SELECT has run on this DVE")
	}
	n := o.src.Bytes()
	// Contiguous rows that do not overlap, untracked: partition row to partition row.
	if !d.reference && d.readsInPlace(m, o) && o.dst.Contiguous() && !o.src.Span().Overlaps(o.dst.Span()) {
		so, do := o.src.Offset(), o.dst.Offset()
		written := 0
		for c := 0; c < o.nac; c++ {
			sel := d.mask[c%32]
			if sel == 0xFF {
				continue
			}
			from := c/32*32 + int(sel%32)
			copy(m.Partition(o.dst.Start.Region, o.dst.Partition(c))[do:do+n], m.Partition(o.src.Start.Region, o.src.Partition(from))[so:so+n])
			m.MarkInit(o.dst.Start.Region, o.dst.Partition(c), do, n)
			written++
		}
		return written, nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return 0, err
	}
	written := 0
	for c := 0; c < o.nac; c++ {
		sel := d.mask[c%32]
		if sel == 0xFF {
			continue
		}
		from := c/32*32 + int(sel%32)
		m.Scatter(o.dst, c, sbuf[from*n:(from+1)*n])
		written++
	}
	return written, nil
}
