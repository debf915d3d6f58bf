package kernel

import (
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// nc_transpose on the Vector Engine (STREAM_TRANSPOSE 0x6B): a [P, F] tile (free axes flattened
// row-major) becomes [F, P], P and F at most 32. The instruction transposes 32 channels x 32
// elements: a full [32, 32] tile is one word; a partial one is padded through 32x32 staging
// tiles (Provenance kernel.ve_transpose_partial): the source is copied into a staging tile
// zeroed first (unless P is 32 and F divides 32, when the source row is repeated with a step-0
// level instead), and the result is copied out of a second staging tile unless F is 32 (the
// destination then has exactly the 32 channels the instruction writes, each cut to P elements
// by same_or_fewer). mask_enable stays 0: the padding, not the mask, keeps the result exact.
func (l *lowerer) ncTranspose(c *Call) error {
	if _, err := computeEngine(c, isa.OpSTREAM_TRANSPOSE); err != nil {
		return err
	}
	dst, src, err := l.vectorOperands(c, "data", c.Data)
	if err != nil {
		return err
	}
	P, F := src.nparts, int(src.freeElems())
	if P > 32 || F > 32 {
		legal := "a tile of at most [32, 32] on the Vector Engine"
		if c.Engine == nil {
			return callErr(c, fault.ErrUnsupported, "data", "kernel.nc_transpose_engine", legal,
				"a [%d, %d] tile: the compiler would transpose it on the Tensor Engine, which tpbsim does not model", P, F)
		}
		return callErr(c, fault.ErrInvalid, "data", "nki.nc_transpose.vector_tile", legal, "a [%d, %d] tile", P, F)
	}
	if dst.nparts != F || dst.freeElems() != int64(P) {
		return callErr(c, fault.ErrInvalid, "dst", "nki.nc_transpose.dst_shape", fmt.Sprintf("[%d, %d] (data %v transposed)", F, P, src.about()),
			"%s", dst.about())
	}
	if dst.dtype != src.dtype {
		return callErr(c, fault.ErrInvalid, "dst", isa.RuleS4D4TRSameSrcDstType, fmt.Sprintf("%s, as src %s (the instruction does not cast)", src.dtypeName(), src.about()),
			"%s is %s", dst.about(), dst.dtypeName())
	}
	if src.es != 1 && src.es != 2 && src.es != 4 {
		return callErr(c, fault.ErrInvalid, "data", "transpose_cell_width", "a 1-, 2- or 4-byte dtype", "%v", src.dtype)
	}
	sd := freeDims(src)
	es := int64(src.es)
	// the transpose's source: 32 channels x 32 elements
	var tsrc isa.Tensor4D
	switch {
	case P == 32 && F == 32:
		if tsrc, err = l.t4d(c, "data", src, sd); err != nil {
			return err
		}
	case P == 32 && 32%F == 0 && len(sd) <= 3:
		if tsrc, err = l.t4d(c, "data", src, append(append([]dim{}, sd...), dim{n: int64(32 / F), step: 0})); err != nil {
			return err
		}
	default:
		st, err := l.stage("vt_in", 32, 32, src.dtype, false)
		if err != nil {
			return err
		}
		ss, _ := l.resolve(c, "staging", &View{Tensor: st, Pattern: [][2]int64{{32, 32}, {1, 32}}})
		if err := l.emitMemset(c, ss, []dim{{n: 32, step: es}}, 0); err != nil {
			return err
		}
		part, _ := l.resolve(c, "staging", &View{Tensor: st, Pattern: [][2]int64{{32, int64(P)}, {1, int64(F)}}})
		pt, _ := l.t4d(c, "staging", part, freeDims(part))
		srcT, err := l.t4d(c, "data", src, sd)
		if err != nil {
			return err
		}
		cp := s4(isa.OpCOPY, src.dtype, src.dtype, P, srcT, pt)
		l.emit(isa.EngineDVE, cp, l.vectorAcc(cp, src.es, src.es, P), "transpose staging in")
		tsrc, _ = l.t4d(c, "staging", ss, []dim{{n: 32, step: es}})
	}
	if F == 32 {
		dt, err := l.t4d(c, "dst", dst, freeDims(dst))
		if err != nil {
			return err
		}
		in := s4(isa.OpSTREAM_TRANSPOSE, src.dtype, src.dtype, 32, tsrc, dt)
		l.emit(isa.EngineDVE, in, l.vectorAcc(in, src.es, src.es, 32), "")
		return nil
	}
	st2, err := l.stage("vt_out", 32, 32, src.dtype, false)
	if err != nil {
		return err
	}
	s2, _ := l.resolve(c, "staging", &View{Tensor: st2, Pattern: [][2]int64{{32, 32}, {1, int64(P)}}})
	t2, _ := l.t4d(c, "staging", s2, []dim{{n: int64(P), step: es}})
	in := s4(isa.OpSTREAM_TRANSPOSE, src.dtype, src.dtype, 32, tsrc, t2)
	l.emit(isa.EngineDVE, in, l.vectorAcc(in, src.es, src.es, 32), "")
	o2, _ := l.resolve(c, "staging", &View{Tensor: st2, Pattern: [][2]int64{{32, int64(F)}, {1, int64(P)}}})
	ot, _ := l.t4d(c, "staging", o2, []dim{{n: int64(P), step: es}})
	dt, err := l.t4d(c, "dst", dst, freeDims(dst))
	if err != nil {
		return err
	}
	cp := s4(isa.OpCOPY, src.dtype, src.dtype, F, ot, dt)
	l.emit(isa.EngineDVE, cp, l.vectorAcc(cp, src.es, src.es, F), "transpose staging out")
	return nil
}

// nc_stream_shuffle (STREAM_SHUFFLE 0x6A after LOAD_MASK_SELECT 0x69): per 32-partition
// quadrant, output partition i takes input partition mask[i]; 255 leaves it unchanged. The
// instruction runs num_active = ceil(max(src, dst partitions) / 32) * 32 channels from each
// start; the lowering sets the mask entries of channels past the destination to 255 so nothing
// outside the destination tile is written, splitting off a partial last quadrant into its own
// word when the quadrants would need different masks (Provenance kernel.shuffle_lowering). The
// mask register is reloaded only when it changes.
func (l *lowerer) streamShuffle(c *Call) error {
	if len(c.ShuffleMask) != 32 {
		return callErr(c, fault.ErrInvalid, "shuffle_mask", "nki.nc_stream_shuffle.mask_len", "exactly 32 entries", "%d entries", len(c.ShuffleMask))
	}
	dst, src, err := l.vectorOperands(c, "src", c.Src)
	if err != nil {
		return err
	}
	if dst.dtype != src.dtype {
		return callErr(c, fault.ErrInvalid, "dst", isa.RuleS4D4TRSameSrcDstType, fmt.Sprintf("%s, as src %s (the instruction does not cast)", src.dtypeName(), src.about()),
			"%s is %s", dst.about(), dst.dtypeName())
	}
	if dst.freeElems() != src.freeElems() {
		return callErr(c, fault.ErrInvalid, "dst", "nki.same_free_elements", fmt.Sprintf("%d elements per partition, as src", src.freeElems()), "%s", dst.about())
	}
	var mask [32]uint8
	for i, m := range c.ShuffleMask {
		if (m < 0 || m > 31) && m != 255 {
			return callErr(c, fault.ErrInvalid, fmt.Sprintf("shuffle_mask[%d]", i), "nki.nc_stream_shuffle.mask_value", "0..31 (a partition of the quadrant) or 255 (unchanged)", "%d", m)
		}
		mask[i] = uint8(m)
	}
	nac := (max(src.nparts, dst.nparts) + 31) / 32 * 32
	if src.part0+nac > 128 || dst.part0+nac > 128 {
		return callErr(c, fault.ErrInvalid, "src", "nki.nc_stream_shuffle.partitions", "start partitions that leave num_active partitions to 128",
			"%d channels from partitions %d / %d", nac, src.part0, dst.part0)
	}
	for i := 0; i < 32; i++ {
		if mask[i] != 255 && int(mask[i]) >= src.nparts && src.nparts < 32 {
			return callErr(c, fault.ErrInvalid, fmt.Sprintf("shuffle_mask[%d]", i), "nki.nc_stream_shuffle.mask_in_src", fmt.Sprintf("a partition below the src's %d", src.nparts), "%d", mask[i])
		}
	}
	srcParts := src.nparts
	if srcParts%32 != 0 {
		// The instruction reads whole quadrants from the source's start: stage a partial source
		// into a zeroed tile of whole quadrants, so no byte outside it is read.
		rows := (srcParts + 31) / 32 * 32
		id, err := l.stage("shuffle_in", rows, src.freeElems(), src.dtype, false)
		if err != nil {
			return err
		}
		F := src.freeElems()
		whole, _ := l.resolve(c, "staging", &View{Tensor: id, Pattern: [][2]int64{{F, int64(rows)}, {1, F}}})
		if err := l.emitMemset(c, whole, splitLong(freeDims(whole), whole.es), 0); err != nil {
			return err
		}
		part, _ := l.resolve(c, "staging", &View{Tensor: id, Pattern: [][2]int64{{F, int64(srcParts)}, {1, F}}})
		if err := l.vectorOp(c, isa.EngineDVE, isa.OpCOPY, part, src); err != nil {
			return err
		}
		src = whole
	}
	sd, dd := freeDims(src), freeDims(dst)
	st, err := l.t4d(c, "src", src, sd)
	if err != nil {
		return err
	}
	dt, err := l.t4d(c, "dst", dst, dd)
	if err != nil {
		return err
	}
	full := dst.nparts / 32 * 32
	type part struct {
		first, n int
		mask     [32]uint8
	}
	var parts []part
	if full > 0 {
		parts = append(parts, part{0, full, mask})
	}
	if rest := dst.nparts - full; rest > 0 {
		m := mask
		for i := rest; i < 32; i++ {
			m[i] = 255
		}
		parts = append(parts, part{full, 32, m})
	}
	stride := l.geo.StateBufPartitionSize
	if dst.pl.Space == isa.SpacePSUM {
		stride = l.geo.PSUMPartitionSize
	}
	sstride := l.geo.StateBufPartitionSize
	if src.pl.Space == isa.SpacePSUM {
		sstride = l.geo.PSUMPartitionSize
	}
	for _, p := range parts {
		if l.mask == nil || *l.mask != p.mask {
			lm := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: isa.InstWordLen}, Immediate: p.mask}
			l.emit(isa.EngineDVE, lm, nil, "shuffle mask")
			mk := p.mask
			l.mask = &mk
		}
		s, d := st, dt
		s.StartAddr += isa.Addr4(uint32(p.first) * sstride)
		d.StartAddr += isa.Addr4(uint32(p.first) * stride)
		if srcParts <= 32 {
			s.StartAddr = st.StartAddr // a source of one quadrant feeds every destination quadrant
		}
		in := s4(isa.OpSTREAM_SHUFFLE, src.dtype, src.dtype, p.n, s, d)
		// The write is the whole destination walk of the active channels, 255 entries too:
		// those write nothing, but the machine's race detector counts the instruction's
		// destination walk, so the waits must order it (Provenance kernel.shuffle_lowering).
		acc := []access{{b: l.t4dBox(s, src.es, p.n)}, {b: l.t4dBox(d, dst.es, p.n), write: true}}
		l.emit(isa.EngineDVE, in, acc, "")
	}
	return nil
}
