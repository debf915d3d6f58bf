package isa

// Inst is one decoded 64-byte instruction word. The concrete types are *S4D4TR,
// *LoadMaskSelect, *Memset, *DMADirect2D, *DMAIndirect1D, *DMAGatherXpose, *DMADirect2DXpose and
// *Raw (any opcode tpbsim has no struct for; its bytes are kept whole).
type Inst interface {
	// Hdr is the instruction's HEADER (bytes 0..3).
	Hdr() Header
	// Evt is the instruction's EVENTS (bytes 4..11).
	Evt() Events
}

// Src is src_start_addr: the field, or, when it is zero, bytes 16..23 of Raw (callers that fill
// the partly known struct through Raw read the same).
func (i *DMADirect2DXpose) Src() Addr8 {
	if i.SrcStartAddr != 0 {
		return i.SrcStartAddr
	}
	return Addr8(le.Uint64(i.Raw[16:24]))
}

// Dst is dst_start_addr, the field or bytes 40..47 of Raw as Src.
func (i *DMADirect2DXpose) Dst() Addr8 {
	if i.DstStartAddr != 0 {
		return i.DstStartAddr
	}
	return Addr8(le.Uint64(i.Raw[40:48]))
}

// RowStep is dst_row_step, the field or bytes 48..51 of Raw as Src.
func (i *DMADirect2DXpose) RowStep() int32 {
	if i.DstRowStep != 0 {
		return i.DstRowStep
	}
	return int32(le.Uint32(i.Raw[48:52]))
}
