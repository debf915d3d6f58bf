package isa

import "fmt"

// Rule lists of LOAD_MASK_SELECT, MEMSET (FACTS §F.4) and the DMA structs (FACTS §C.2-§C.5).

var lmsChecks = []check[LoadMaskSelect]{
	{"load_mask_select_param_ram_offset_zero", func(v *vctx, i *LoadMaskSelect) {
		if i.ParamRAMOffset != 0 {
			v.fail("param_ram_offset", fmt.Sprint(i.ParamRAMOffset), "0")
		}
	}},
	{"load_mask_select_imm_ptr_select_zero", func(v *vctx, i *LoadMaskSelect) {
		if i.ImmPtrSelect != 0 {
			v.fail("imm_ptr_select", fmt.Sprint(i.ImmPtrSelect), "0")
		}
	}},
	{"load_mask_select_reserved_zero", func(v *vctx, i *LoadMaskSelect) {
		for k, b := range i.Reserved0 {
			if b != 0 {
				v.fail(fmt.Sprintf("reserved0[%d]", k), hexs(uint64(b)), "0")
			}
		}
	}},
	{"load_mask_select_valid_mask", func(v *vctx, i *LoadMaskSelect) {
		for k, b := range i.Immediate {
			if b >= 64 && b != 255 {
				v.fail(fmt.Sprintf("immediate[%d]", k), fmt.Sprint(b), "0..63 or 255 (leave the channel untouched)")
			}
		}
	}},
}

var memsetChecks = []check[Memset]{
	{"is_valid_dtype", func(v *vctx, i *Memset) {
		if !IsValidDType(i.Dtype, v.g, true) {
			v.fail("dtype", fmtEnum(KDType, uint64(i.Dtype)), dtypeLegal(v.g, true, false))
		}
	}},
	{"has_valid_active_channel_range", func(v *vctx, i *Memset) {
		if i.NumActiveChannels == 0 || int(i.NumActiveChannels) > v.geo.DVENumChannels {
			v.fail("num_active_channels", fmt.Sprint(i.NumActiveChannels), fmt.Sprintf("1..%d", v.geo.DVENumChannels))
		}
	}},
	{"memset_serialization_mode", func(v *vctx, i *Memset) {
		if i.SerializationMode != MemsetSerial {
			v.fail("serialization_mode", fmt.Sprint(i.SerializationMode), fmt.Sprintf("Serial (%d)", MemsetSerial))
		}
	}},
	{"memset_set_value_fits_dtype", func(v *vctx, i *Memset) {
		switch i.Dtype.Size() {
		case 1:
			if i.SetValue>>8 != 0 {
				v.fail("set_value", hexs(uint64(i.SetValue)), "high 24 bits zero for a 1-byte dtype")
			}
		case 2:
			if i.SetValue>>16 != 0 {
				v.fail("set_value", hexs(uint64(i.SetValue)), "high 16 bits zero for a 2-byte dtype")
			}
		}
	}},
	{"memset_dst_element_count", func(v *vctx, i *Memset) {
		if i.DstMemPattern.StartAddr.ShapeFromRegister() {
			return
		}
		if c := i.DstMemPattern.ElementCount(); uint64(i.DstElementCount) != c {
			v.fail("dst_element_count", fmt.Sprint(i.DstElementCount), fmt.Sprintf("%d (the dst pattern's element count)", c))
		}
	}},
	{"start_addr_active_channels", func(v *vctx, i *Memset) {
		startAddrActiveChannels(v, "dst_mem_pattern", i.DstMemPattern.StartAddr, i.NumActiveChannels)
	}},
	{"tensor4d_valid", func(v *vctx, i *Memset) {
		tensor4dValid(v, "dst_mem_pattern", &i.DstMemPattern, i.Dtype, "dtype", true, true, true)
	}},
}

// MemsetSerial is the value tpbsim takes for MEMSET's serialization_mode "Serial" (INFERRED:
// the enum's values are not in the sources; provenance "memset_serialization_mode").
const MemsetSerial = 0

// ---- shared DMA checks --------------------------------------------------------------------

// validAddr8 is the INFERRED body of is_valid_addr8 (FACTS §C.6): known marker combinations
// only, and an immediate address inside tpbsim's address map (HBM or the on-chip window).
func validAddr8(v *vctx, field string, a Addr8) {
	m := a.RawMarker()
	switch {
	case m&0x03 != 0:
		v.fail(field, hexs(uint64(a)), "marker bits 56..57 zero (marker mask 0xFC)")
	case m&Addr8MarkerVAR_ID != 0:
		v.fail(field, hexs(uint64(a)), "no VAR_ID marker (0x10): compiler pseudo addresses only")
	case m&0x0C != 0 && m&Addr8MarkerADDR_TBL_SHAPE_IMM == 0:
		v.fail(field, hexs(uint64(a)), "ADDR_TBL_OFFSET markers (0x08, 0x04) only with an address table (0x20)")
	case m&0xA0 == Addr8MarkerADDR_REG:
		if r := uint8(a); r >= uint8(v.geo.NumAddrRegisters) {
			v.fail(field, fmt.Sprintf("reg:%d", r), fmt.Sprintf("register < %d", v.geo.NumAddrRegisters))
		}
	case m&0xBF == 0: // immediate address (IMM or SHAPE_REG)
		ad := a.Address()
		if ad < DMALocalBase {
			return
		}
		if a.IsLocal() {
			if _, ok := LocateOnChip(a.Local(), v.g); ok {
				return
			}
		}
		v.fail(field, hexs(ad), fmt.Sprintf("HBM below 0x%x or an SBUF/PSUM address in tpbsim's on-chip window", DMALocalBase))
	}
}

func shapeRegDMA(a Addr8) bool { return a.RawMarker()&Addr8MarkerSHAPE_REG != 0 }

func validShapeReg(v *vctx, field string, a Addr8, stepField string, step0 int32) {
	if shapeRegDMA(a) && (step0 < 0 || int(step0) >= v.geo.NumDGEShapeRegisters) {
		v.fail(stepField, fmt.Sprint(step0), fmt.Sprintf("a shape register index 0..%d (shape from register)", v.geo.NumDGEShapeRegisters-1))
	}
}

func validDMAConfigs(v *vctx, field string, c DMAConfigs) {
	if c.PriorityClass() > 4 {
		v.fail(field+".priority_class", fmt.Sprint(c.PriorityClass()), "0..4")
	}
	if c.Reserved() != 0 {
		v.fail(field+".reserved", fmt.Sprint(c.Reserved()), "0")
	}
}

// validBoundReg is the INFERRED body of has_valid_bound_check_reg / has_valid_idx_bound_check_reg:
// a disabled bound carries no register or flag; in wide-offset mode bc_reg+1 must exist.
func validBoundReg(v *vctx, field string, b BoundCheckReg, wide, noFlags bool) {
	if !b.Enabled() && b != 0 {
		v.fail(field, hexs(uint64(b)), "0 when bc_enabled is clear")
		return
	}
	if noFlags && b.DisableOOBErrorNotif() {
		v.fail(field+".bc_disable_oob_error_notif", "1", "0 (the index bound takes no flags)")
	}
	if wide && b.Enabled() && int(b.Reg()) >= v.geo.NumAddrRegisters-1 {
		v.fail(field+".bc_reg", fmt.Sprint(b.Reg()), fmt.Sprintf("< %d (bc_reg+1 holds the high word in wide-offset mode)", v.geo.NumAddrRegisters-1))
	}
}

func validMemcpyDtypes(v *vctx, in, out DType) {
	if !IsValidDType(in, v.g, false) {
		v.fail("in_dtype", fmtEnum(KDType, uint64(in)), dtypeLegal(v.g, false, false))
	}
	if !IsValidDType(out, v.g, true) {
		v.fail("out_dtype", fmtEnum(KDType, uint64(out)), dtypeLegal(v.g, true, false))
	}
}

func validComputeOp(v *vctx, c DGEComputeOp) {
	if c > DGEComputeMIN {
		v.fail("compute_op", fmt.Sprint(uint8(c)), "NONE, ADD, MULTIPLY, MAX or MIN (0..4)")
	}
}

func elemSize(n uint16) uint64 {
	if n == 0 {
		return 64 * KiB
	}
	return uint64(n)
}

func checkIndices(v *vctx, n uint8) {
	if n != 128 {
		v.fail("idx_num_active_channels", fmt.Sprint(n), "128")
	}
}

// ---- DMA_DIRECT2D (FACTS §C.2) ------------------------------------------------------------

var d2Checks = []check[DMADirect2D]{
	{"is_valid_addr8", func(v *vctx, i *DMADirect2D) {
		validAddr8(v, "src_start_addr", i.SrcStartAddr)
		validAddr8(v, "dst_start_addr", i.DstStartAddr)
	}},
	{"is_valid_dge_shape_reg", func(v *vctx, i *DMADirect2D) {
		validShapeReg(v, "src_start_addr", i.SrcStartAddr, "src_step_elem[0]", i.SrcStepElem[0])
		validShapeReg(v, "dst_start_addr", i.DstStartAddr, "dst_step_elem[0]", i.DstStepElem[0])
	}},
	{"zero_num_step_elem_shape_reg_mode", func(v *vctx, i *DMADirect2D) {
		for _, s := range []struct {
			p    string
			a    Addr8
			num  [2]uint16
			step int32
		}{{"src", i.SrcStartAddr, i.SrcNumElem, i.SrcStepElem[1]}, {"dst", i.DstStartAddr, i.DstNumElem, i.DstStepElem[1]}} {
			if !shapeRegDMA(s.a) {
				continue
			}
			for k, n := range s.num {
				if n != 0 {
					v.fail(fmt.Sprintf("%s_num_elem[%d]", s.p, k), fmt.Sprint(n), "0 (shape from register)")
				}
			}
			if s.step != 0 {
				v.fail(s.p+"_step_elem[1]", fmt.Sprint(s.step), "0 (shape from register)")
			}
		}
	}},
	{"are_valid_memcpy_dtypes", func(v *vctx, i *DMADirect2D) { validMemcpyDtypes(v, i.InDtype, i.OutDtype) }},
	{"has_valid_bound_check_reg", func(v *vctx, i *DMADirect2D) {
		validBoundReg(v, "src_bound_reg", i.SrcBoundReg, i.SrcStartAddr.RawMarker()&Addr8MarkerADDR_TBL_OFF_WIDE != 0, false)
		validBoundReg(v, "dst_bound_reg", i.DstBoundReg, i.DstStartAddr.RawMarker()&Addr8MarkerADDR_TBL_OFF_WIDE != 0, false)
	}},
	{"is_valid_dge_compute_op", func(v *vctx, i *DMADirect2D) { validComputeOp(v, i.ComputeOp) }},
	{"is_valid_dma_configs", func(v *vctx, i *DMADirect2D) { validDMAConfigs(v, "dma_configs", i.DMAConfigs) }},
	{"is_valid_dma_memcpy_direct_without_cce", func(v *vctx, i *DMADirect2D) {
		if i.InDtype != i.OutDtype || i.ComputeOp != DGEComputeNONE || shapeRegDMA(i.SrcStartAddr) || shapeRegDMA(i.DstStartAddr) {
			return // the CCE path applies
		}
		sb := uint64(i.SrcNumElem[0]) * uint64(i.SrcNumElem[1]) * elemSize(i.SrcElemSize)
		db := uint64(i.DstNumElem[0]) * uint64(i.DstNumElem[1]) * elemSize(i.DstElemSize)
		if sb != db {
			v.fail("dst_num_elem", fmt.Sprintf("%d bytes", db), fmt.Sprintf("%d bytes (src_num_elem x src_elem_size)", sb))
		}
	}},
	{"is_valid_dma_cce", func(v *vctx, i *DMADirect2D) {
		if i.InDtype == i.OutDtype && i.ComputeOp == DGEComputeNONE {
			return // plain memcpy path
		}
		if s := i.InDtype.Size(); s > 0 && elemSize(i.SrcElemSize) != uint64(s) {
			v.fail("src_elem_size", fmt.Sprint(i.SrcElemSize), fmt.Sprintf("%d (the in_dtype size, CCE path)", s))
		}
		if s := i.OutDtype.Size(); s > 0 && elemSize(i.DstElemSize) != uint64(s) {
			v.fail("dst_elem_size", fmt.Sprint(i.DstElemSize), fmt.Sprintf("%d (the out_dtype size, CCE path)", s))
		}
		if shapeRegDMA(i.SrcStartAddr) || shapeRegDMA(i.DstStartAddr) {
			return
		}
		sc := uint64(i.SrcNumElem[0]) * uint64(i.SrcNumElem[1])
		dc := uint64(i.DstNumElem[0]) * uint64(i.DstNumElem[1])
		if sc != dc {
			v.fail("dst_num_elem", fmt.Sprintf("%d elements", dc), fmt.Sprintf("%d (elementwise CCE: same element count)", sc))
		}
		for _, a := range []struct {
			f  string
			a  Addr8
			sz int
		}{{"src_start_addr", i.SrcStartAddr, i.InDtype.Size()}, {"dst_start_addr", i.DstStartAddr, i.OutDtype.Size()}} {
			if a.a.RawMarker()&0xBF == 0 && a.sz > 0 && a.a.Address()%uint64(a.sz) != 0 {
				v.fail(a.f, hexs(a.a.Address()), fmt.Sprintf("a multiple of %d (CCE alignment)", a.sz))
			}
		}
	}},
}

// ---- DMA_INDIRECT1D (FACTS §C.3) ----------------------------------------------------------

func srcLeg(f DMAIndirectFlags) bool {
	return f.IndirectMode() == SrcIndirection || f.IndirectMode() == SrcDstIndirection
}
func dstLeg(f DMAIndirectFlags) bool {
	return f.IndirectMode() == DstIndirection || f.IndirectMode() == SrcDstIndirection
}

var diChecks = []check[DMAIndirect1D]{
	{"is_valid_addr8", func(v *vctx, i *DMAIndirect1D) {
		validAddr8(v, "src_start_addr", i.SrcStartAddr)
		validAddr8(v, "dst_start_addr", i.DstStartAddr)
	}},
	{"is_valid_dge_shape_reg", func(v *vctx, i *DMAIndirect1D) {
		validShapeReg(v, "src_start_addr", i.SrcStartAddr, "src_step_elem", i.SrcStepElem)
		validShapeReg(v, "dst_start_addr", i.DstStartAddr, "dst_step_elem", i.DstStepElem)
	}},
	{"zero_num_elem_shape_reg_mode", func(v *vctx, i *DMAIndirect1D) {
		if shapeRegDMA(i.SrcStartAddr) && i.SrcNumElem != 0 {
			v.fail("src_num_elem", fmt.Sprint(i.SrcNumElem), "0 (shape from register)")
		}
		if shapeRegDMA(i.DstStartAddr) && i.DstNumElem != 0 {
			v.fail("dst_num_elem", fmt.Sprint(i.DstNumElem), "0 (shape from register)")
		}
	}},
	{"check_dma_indirect_indices", func(v *vctx, i *DMAIndirect1D) { checkIndices(v, i.IdxNumActiveChannels) }},
	{"has_dma_indirect_valid_idx_start_addr", func(v *vctx, i *DMAIndirect1D) {
		for _, l := range []struct {
			on bool
			f  string
			a  Addr4
		}{{srcLeg(i.Flags), "src_idx_start_addr", i.SrcIdxStartAddr}, {dstLeg(i.Flags), "dst_idx_start_addr", i.DstIdxStartAddr}} {
			if l.on && !l.a.IsAddrReg() && l.a.ByteAddr()%4 != 0 {
				v.fail(l.f, hexs(uint64(l.a.ByteAddr())), "4-byte aligned (UINT32 indices)")
			}
		}
	}},
	{"has_dma_indirect_idx_addr_in_sbuf_partition0", func(v *vctx, i *DMAIndirect1D) {
		for _, l := range []struct {
			on bool
			f  string
			a  Addr4
		}{{srcLeg(i.Flags), "src_idx_start_addr", i.SrcIdxStartAddr}, {dstLeg(i.Flags), "dst_idx_start_addr", i.DstIdxStartAddr}} {
			if !l.on || l.a.IsAddrReg() {
				continue
			}
			loc, ok := LocateOnChip(l.a.ByteAddr(), v.g)
			if uint32(l.a)&^TPBPartitionAddrMask != 0 || !ok || loc.Space != SpaceSBUF || loc.Partition != 0 || loc.Offset >= uint64(v.geo.StateBufPartitionActive) {
				v.fail(l.f, LocateAddr4(l.a, v.g).String(), fmt.Sprintf("sbuf:0:OFF with OFF < 0x%x, or a register", v.geo.StateBufPartitionActive))
			}
		}
	}},
	{"are_valid_memcpy_dtypes", func(v *vctx, i *DMAIndirect1D) { validMemcpyDtypes(v, i.InDtype, i.OutDtype) }},
	{"is_valid_dge_compute_op", func(v *vctx, i *DMAIndirect1D) { validComputeOp(v, i.ComputeOp) }},
	{"is_valid_dma_indirect_operation", func(v *vctx, i *DMAIndirect1D) {
		if i.InDtype == i.OutDtype && i.ComputeOp == DGEComputeNONE {
			if i.SrcElemSize != i.DstElemSize {
				v.fail("dst_elem_size", fmt.Sprint(i.DstElemSize), fmt.Sprintf("%d (== src_elem_size without CCE)", i.SrcElemSize))
			}
			return
		}
		if s := i.InDtype.Size(); s > 0 && elemSize(i.SrcElemSize)%uint64(s) != 0 {
			v.fail("src_elem_size", fmt.Sprint(i.SrcElemSize), fmt.Sprintf("a multiple of %d (in_dtype size, CCE path)", s))
		}
		if s, t := i.InDtype.Size(), i.OutDtype.Size(); s > 0 && t > 0 && elemSize(i.SrcElemSize)/uint64(s)*uint64(t) != elemSize(i.DstElemSize) {
			v.fail("dst_elem_size", fmt.Sprint(i.DstElemSize), fmt.Sprintf("%d (same element count as src, CCE path)", elemSize(i.SrcElemSize)/uint64(s)*uint64(t)))
		}
	}},
	{"has_valid_idx_bound_check_reg", func(v *vctx, i *DMAIndirect1D) {
		validBoundReg(v, "src_idx_bound_reg", i.SrcIdxBoundReg, false, false)
		validBoundReg(v, "dst_idx_bound_reg", i.DstIdxBoundReg, false, false)
	}},
	{"has_valid_indirect_dim_by_mode", func(v *vctx, i *DMAIndirect1D) {
		switch i.Flags.IndirectMode() {
		case SrcIndirection:
			if i.Flags.ScatterDim() != 0 {
				v.fail("flags.scatter_dim", i.Flags.ScatterDim().String(), "X (0): no scatter leg in SRC_INDIRECTION")
			}
		case DstIndirection:
			if i.Flags.GatherDim() != 0 {
				v.fail("flags.gather_dim", i.Flags.GatherDim().String(), "X (0): no gather leg in DST_INDIRECTION")
			}
		case SrcDstIndirection:
		default:
			v.fail("flags.indirect_mode", fmt.Sprint(uint8(i.Flags.IndirectMode())), "SRC_INDIRECTION, DST_INDIRECTION or SRC_DST_INDIRECTION")
		}
	}},
	{"indirect_dim_check", func(v *vctx, i *DMAIndirect1D) {
		if srcLeg(i.Flags) && !shapeRegDMA(i.SrcStartAddr) && i.Flags.GatherDim() != IndirectDimX {
			v.fail("flags.gather_dim", i.Flags.GatherDim().String(), "X without a shape register")
		}
		if dstLeg(i.Flags) && !shapeRegDMA(i.DstStartAddr) && i.Flags.ScatterDim() != IndirectDimX {
			v.fail("flags.scatter_dim", i.Flags.ScatterDim().String(), "X without a shape register")
		}
	}},
	{"has_dma_indirect_valid_index_count", func(v *vctx, i *DMAIndirect1D) {
		if srcLeg(i.Flags) && !shapeRegDMA(i.SrcStartAddr) && i.SrcNumElem > 4096 {
			v.fail("src_num_elem", fmt.Sprint(i.SrcNumElem), "<= 4096 indices")
		}
		if dstLeg(i.Flags) && !shapeRegDMA(i.DstStartAddr) && i.DstNumElem > 4096 {
			v.fail("dst_num_elem", fmt.Sprint(i.DstNumElem), "<= 4096 indices")
		}
	}},
	{"dma_indirect_reserved_zero", func(v *vctx, i *DMAIndirect1D) {
		for k, b := range i.Reserved {
			if b != 0 {
				v.fail(fmt.Sprintf("reserved[%d]", k), hexs(uint64(b)), "0")
			}
		}
	}},
	{"is_valid_dma_configs", func(v *vctx, i *DMAIndirect1D) { validDMAConfigs(v, "dma_configs", i.DMAConfigs) }},
}

// ---- DMA_GATHER_XPOSE (FACTS §C.4) --------------------------------------------------------

var gxChecks = []check[DMAGatherXpose]{
	{"is_valid_addr8", func(v *vctx, i *DMAGatherXpose) {
		validAddr8(v, "src_start_addr", i.SrcStartAddr)
		validAddr8(v, "dst_start_addr", i.DstStartAddr)
	}},
	{"gather_xpose_dst_in_sbuf", func(v *vctx, i *DMAGatherXpose) {
		a := i.DstStartAddr
		if a.RawMarker()&0xBF != 0 {
			return
		}
		if a.IsLocal() {
			if loc, ok := LocateOnChip(a.Local(), v.g); ok && loc.Space == SpaceSBUF {
				return
			}
		}
		v.fail("dst_start_addr", LocateAddr8(a, v.g).String(), "an SBUF address")
	}},
	{"is_valid_gather_transpose_dtype", func(v *vctx, i *DMAGatherXpose) {
		lo, hi := i.Dtype.Lo(), i.Dtype.Hi()
		if !lo.InGen(v.g) || lo.Size() != 2 {
			v.fail("dtype.dtype_lo", fmtEnum(KDType, uint64(lo)), "a 2-byte dtype (BFLOAT16, FP16, INT16, UINT16)")
		}
		if !hi.InGen(v.g) || hi.Size() != 2 || hi != lo {
			v.fail("dtype.dtype_hi", fmtEnum(KDType, uint64(hi)), "== dtype_lo, 2 bytes (no cast)")
		}
	}},
	{"gather_xpose_elem_size", func(v *vctx, i *DMAGatherXpose) {
		if i.ElemSize < 2 || i.ElemSize > 256 || i.ElemSize%2 != 0 {
			v.fail("elem_size", fmt.Sprint(i.ElemSize), "even, 2..256")
		}
	}},
	{"gather_xpose_src_aligned", func(v *vctx, i *DMAGatherXpose) {
		if i.SrcStartAddr.RawMarker()&0xBF == 0 && i.SrcStartAddr.Address()%2 != 0 {
			v.fail("src_start_addr", hexs(i.SrcStartAddr.Address()), "2-byte aligned")
		}
	}},
	{"gather_xpose_dst_aligned", func(v *vctx, i *DMAGatherXpose) {
		if i.DstStartAddr.RawMarker()&0xBF == 0 && i.DstStartAddr.Address()%32 != 0 {
			v.fail("dst_start_addr", hexs(i.DstStartAddr.Address()), "32-byte aligned")
		}
	}},
	{"gather_xpose_src_idx_aligned", func(v *vctx, i *DMAGatherXpose) {
		if !i.SrcIdxStartAddr.IsAddrReg() && i.SrcIdxStartAddr.ByteAddr()%4 != 0 {
			v.fail("src_idx_start_addr", hexs(uint64(i.SrcIdxStartAddr.ByteAddr())), "4-byte aligned (UINT32 indices)")
		}
	}},
	{"gather_xpose_gather_dim_y", func(v *vctx, i *DMAGatherXpose) {
		if i.Flags.GatherDim() != IndirectDimY {
			v.fail("flags.gather_dim", i.Flags.GatherDim().String(), "Y")
		}
	}},
	{"gather_xpose_flags_reserved_zero", func(v *vctx, i *DMAGatherXpose) {
		if i.Flags.Reserved() != 0 {
			v.fail("flags.reserved", fmt.Sprint(i.Flags.Reserved()), "0")
		}
	}},
	{"gather_xpose_src_rows_multiple_16", func(v *vctx, i *DMAGatherXpose) {
		if i.SrcNumElem[1]%16 != 0 {
			v.fail("src_num_elem[1]", fmt.Sprint(i.SrcNumElem[1]), "a multiple of 16")
		}
	}},
	{"gather_xpose_index_count", func(v *vctx, i *DMAGatherXpose) {
		if i.SrcNumElem[1] != i.DstNumElem[0] {
			v.fail("dst_num_elem[0]", fmt.Sprint(i.DstNumElem[0]), fmt.Sprintf("%d (== src_num_elem[1], the number of indices)", i.SrcNumElem[1]))
		}
	}},
	{"gather_xpose_dst_step", func(v *vctx, i *DMAGatherXpose) {
		if i.DstStepElem1%32 != 0 && i.DstNumElem[1] != 1 {
			v.fail("dst_step_elem_1", fmt.Sprint(i.DstStepElem1), "a multiple of 32, or dst_num_elem[1] == 1")
		}
	}},
	{"check_dma_indirect_indices", func(v *vctx, i *DMAGatherXpose) { checkIndices(v, i.IdxNumActiveChannels) }},
	{"has_valid_idx_bound_check_reg_no_flags", func(v *vctx, i *DMAGatherXpose) {
		validBoundReg(v, "src_idx_bound_reg", i.SrcIdxBoundReg, false, true)
	}},
	{"has_valid_bound_check_reg", func(v *vctx, i *DMAGatherXpose) {
		validBoundReg(v, "dst_bound_reg", i.DstBoundReg, i.DstStartAddr.RawMarker()&Addr8MarkerADDR_TBL_OFF_WIDE != 0, false)
	}},
	{"gather_xpose_reserved_zero", func(v *vctx, i *DMAGatherXpose) {
		for k, b := range i.Reserved {
			if b != 0 {
				v.fail(fmt.Sprintf("reserved[%d]", k), hexs(uint64(b)), "0")
			}
		}
	}},
	{"is_valid_dma_configs", func(v *vctx, i *DMAGatherXpose) { validDMAConfigs(v, "dma_configs", i.DMAConfigs) }},
}

// ---- DMA_DIRECT2D_XPOSE (FACTS §C.5, known fields only) -----------------------------------

var dxChecks = []check[DMADirect2DXpose]{
	{"are_valid_memcpy_dtypes", func(v *vctx, i *DMADirect2DXpose) { validMemcpyDtypes(v, i.InDtype, i.OutDtype) }},
	{"dma_xpose_tile_src_rows", func(v *vctx, i *DMADirect2DXpose) {
		if i.TileSrcRows != 16 {
			v.fail("tile_src_rows", fmt.Sprint(i.TileSrcRows), "16")
		}
	}},
	{"dma_xpose_tile_src_cols", func(v *vctx, i *DMADirect2DXpose) {
		max := 0
		switch i.OutDtype.Size() {
		case 2:
			max = 128
		case 4:
			max = 64
		default:
			v.fail("out_dtype", fmtEnum(KDType, uint64(i.OutDtype)), "a 2- or 4-byte dtype (crossbar cell)")
			return
		}
		if i.TileSrcCols == 0 || int(i.TileSrcCols) > max {
			v.fail("tile_src_cols", fmt.Sprint(i.TileSrcCols), fmt.Sprintf("1..%d for a %d-byte out_dtype", max, i.OutDtype.Size()))
		}
	}},
	{"is_valid_dma_configs", func(v *vctx, i *DMADirect2DXpose) { validDMAConfigs(v, "dma_configs", i.DMAConfigs) }},
}
