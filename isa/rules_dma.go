package isa

import "fmt"

// Rule lists of LOAD_MASK_SELECT, MEMSET (FACTS §F.4) and the DMA structs (FACTS §C.2-§C.5).

var lmsChecks = []check[LoadMaskSelect]{
	{RuleLoadMaskSelectParamRamOffsetZero, func(v *vctx, i *LoadMaskSelect) {
		if i.ParamRAMOffset != 0 {
			v.failT("param_ram_offset", v.udec(uint64(i.ParamRAMOffset)), lit("0"))
		}
	}},
	{RuleLoadMaskSelectImmPtrSelectZero, func(v *vctx, i *LoadMaskSelect) {
		if i.ImmPtrSelect != 0 {
			v.fail("imm_ptr_select", decStrings[i.ImmPtrSelect], "0")
		}
	}},
	{RuleLoadMaskSelectReservedZero, func(v *vctx, i *LoadMaskSelect) {
		for k, b := range i.Reserved0 {
			if b != 0 {
				v.fail(pathReserved0[k], hexStrings[b], "0")
			}
		}
	}},
	{RuleLoadMaskSelectValidMask, func(v *vctx, i *LoadMaskSelect) {
		for k, b := range i.Immediate {
			if b >= 64 && b != 255 {
				v.fail(pathImmediate[k], decStrings[b], "0..63 or 255 (leave the channel untouched)")
			}
		}
	}},
}

var memsetChecks = []check[Memset]{
	{RuleIsValidDtype, func(v *vctx, i *Memset) {
		if !IsValidDType(i.Dtype, v.g, true) {
			v.fail("dtype", fmtEnum(KDType, uint64(i.Dtype)), dtypeLegal(v.g, true, false))
		}
	}},
	{RuleHasValidActiveChannelRange, func(v *vctx, i *Memset) {
		if i.NumActiveChannels == 0 || int(i.NumActiveChannels) > v.geo.DVENumChannels {
			v.failT("num_active_channels", lit(decStrings[i.NumActiveChannels]), v.num("1..", int64(v.geo.DVENumChannels), ""))
		}
	}},
	{RuleMemsetSerializationMode, func(v *vctx, i *Memset) {
		if i.SerializationMode != MemsetSerial {
			v.fail("serialization_mode", decStrings[i.SerializationMode], memsetSerialLegal)
		}
	}},
	{RuleMemsetSetValueFitsDtype, func(v *vctx, i *Memset) {
		switch i.Dtype.Size() {
		case 1:
			if i.SetValue>>8 != 0 {
				v.failT("set_value", v.hex(uint64(i.SetValue)), lit("high 24 bits zero for a 1-byte dtype"))
			}
		case 2:
			if i.SetValue>>16 != 0 {
				v.failT("set_value", v.hex(uint64(i.SetValue)), lit("high 16 bits zero for a 2-byte dtype"))
			}
		}
	}},
	{RuleMemsetDstElementCount, func(v *vctx, i *Memset) {
		if i.DstMemPattern.StartAddr.ShapeFromRegister() {
			return
		}
		if c := i.DstMemPattern.ElementCount(); uint64(i.DstElementCount) != c {
			legal := v.unum("", c, " (the dst pattern's element count)")
			v.failT("dst_element_count", v.udec(uint64(i.DstElementCount)), legal)
		}
	}},
	{RuleStartAddrActiveChannels, func(v *vctx, i *Memset) {
		startAddrActiveChannels(v, "dst_mem_pattern", i.DstMemPattern.StartAddr, i.NumActiveChannels)
	}},
	{RuleTensor4DValid, func(v *vctx, i *Memset) {
		tensor4dValid(v, "dst_mem_pattern", &i.DstMemPattern, i.Dtype, "dtype", true, true, true)
	}},
	{RuleTensor4DFootprint, func(v *vctx, i *Memset) {
		tensor4dFootprint(v, "dst_mem_pattern", &i.DstMemPattern, i.Dtype)
	}},
}

// MemsetSerial is the value tpbsim takes for MEMSET's serialization_mode "Serial" (INFERRED:
// the enum's values are not in the sources; provenance RuleMemsetSerializationMode).
const MemsetSerial = 0

var memsetSerialLegal = fmt.Sprintf("Serial (%d)", MemsetSerial)

// ---- shared DMA checks --------------------------------------------------------------------

// validAddr8 is the INFERRED body of is_valid_addr8 (FACTS §C.6): known marker combinations
// only, and an immediate address inside tpbsim's address map (HBM or the on-chip window).
func validAddr8(v *vctx, field string, a Addr8) {
	m := a.RawMarker()
	switch {
	case m&0x03 != 0:
		v.failT(field, v.hex(uint64(a)), lit("marker bits 56..57 zero (marker mask 0xFC)"))
	case m&Addr8MarkerVAR_ID != 0:
		v.failT(field, v.hex(uint64(a)), lit("no VAR_ID marker (0x10): compiler pseudo addresses only"))
	case m&0x0C != 0 && m&Addr8MarkerADDR_TBL_SHAPE_IMM == 0:
		v.failT(field, v.hex(uint64(a)), lit("ADDR_TBL_OFFSET markers (0x08, 0x04) only with an address table (0x20)"))
	case m&0xA0 == Addr8MarkerADDR_REG:
		if r := uint8(a); r >= uint8(v.geo.NumAddrRegisters) {
			v.failT(field, lit(regStrings[r]), v.num("register < ", int64(v.geo.NumAddrRegisters), ""))
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
		v.failT(field, v.hex(ad), lit(addr8Legal))
	}
}

var addr8Legal = fmt.Sprintf("HBM below 0x%x or an SBUF/PSUM address in tpbsim's on-chip window", DMALocalBase)

func shapeRegDMA(a Addr8) bool { return a.RawMarker()&Addr8MarkerSHAPE_REG != 0 }

func validShapeReg(v *vctx, field string, a Addr8, stepField string, step0 int32) {
	if shapeRegDMA(a) && (step0 < 0 || int(step0) >= v.geo.NumDGEShapeRegisters) {
		legal := v.num("a shape register index 0..", int64(v.geo.NumDGEShapeRegisters-1), " (shape from register)")
		v.failT(stepField, v.dec(int64(step0)), legal)
	}
}

func validDMAConfigs(v *vctx, c DMAConfigs) {
	const field = "dma_configs"
	if c.PriorityClass() > 4 {
		v.fail(field+".priority_class", decStrings[c.PriorityClass()], "0..4")
	}
	if c.Reserved() != 0 {
		v.fail(field+".reserved", decStrings[c.Reserved()], "0")
	}
}

// boundPaths are the field paths of one BOUND_CHECK_REG (static: no allocation per violation).
type boundPaths struct{ field, notif, reg string }

func makeBoundPaths(f string) boundPaths {
	return boundPaths{f, f + ".bc_disable_oob_error_notif", f + ".bc_reg"}
}

var (
	srcBoundPaths    = makeBoundPaths("src_bound_reg")
	dstBoundPaths    = makeBoundPaths("dst_bound_reg")
	srcIdxBoundPaths = makeBoundPaths("src_idx_bound_reg")
	dstIdxBoundPaths = makeBoundPaths("dst_idx_bound_reg")
)

// validBoundReg is the INFERRED body of has_valid_bound_check_reg / has_valid_idx_bound_check_reg:
// a disabled bound carries no register or flag; in wide-offset mode bc_reg+1 must exist.
// validBoundReg checks a BOUND_CHECK_REG. noFlags is the "_no_flags" variant of the GATHER_XPOSE
// index bound: no ADDR8 marker flags come with it, so wide is false; its
// bc_disable_oob_error_notif stays legal (it selects skipping an out-of-bounds index, NKI's
// oob_mode=skip; Provenance dma.gather_xpose and the rule's text).
func validBoundReg(v *vctx, p *boundPaths, b BoundCheckReg, wide, noFlags bool) {
	_ = noFlags
	field := p.field
	if !b.Enabled() && b != 0 {
		v.failT(field, v.hex(uint64(b)), lit("0 when bc_enabled is clear"))
		return
	}
	if wide && b.Enabled() && int(b.Reg()) >= v.geo.NumAddrRegisters-1 {
		v.failT(p.reg, lit(decStrings[b.Reg()]), v.num("< ", int64(v.geo.NumAddrRegisters-1), " (bc_reg+1 holds the high word in wide-offset mode)"))
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
		v.fail("compute_op", decStrings[uint8(c)], "NONE, ADD, MULTIPLY, MAX or MIN (0..4)")
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
		v.fail("idx_num_active_channels", decStrings[n], "128")
	}
}

// ---- DMA_DIRECT2D (FACTS §C.2) ------------------------------------------------------------

var d2Checks = []check[DMADirect2D]{
	{RuleIsValidAddr8, func(v *vctx, i *DMADirect2D) {
		validAddr8(v, "src_start_addr", i.SrcStartAddr)
		validAddr8(v, "dst_start_addr", i.DstStartAddr)
	}},
	{RuleIsValidDGEShapeReg, func(v *vctx, i *DMADirect2D) {
		validShapeReg(v, "src_start_addr", i.SrcStartAddr, "src_step_elem[0]", i.SrcStepElem[0])
		validShapeReg(v, "dst_start_addr", i.DstStartAddr, "dst_step_elem[0]", i.DstStepElem[0])
	}},
	{RuleZeroNumStepElemShapeRegMode, func(v *vctx, i *DMADirect2D) {
		for _, s := range []struct {
			p    string
			a    Addr8
			num  [2]uint16
			step int32
			nums []string
		}{{"src", i.SrcStartAddr, i.SrcNumElem, i.SrcStepElem[1], pathSrcNumElem}, {"dst", i.DstStartAddr, i.DstNumElem, i.DstStepElem[1], pathDstNumElem}} {
			if !shapeRegDMA(s.a) {
				continue
			}
			for k, n := range s.num {
				if n != 0 {
					v.failT(s.nums[k], v.udec(uint64(n)), lit("0 (shape from register)"))
				}
			}
			if s.step != 0 {
				v.failT(s.p+"_step_elem[1]", v.dec(int64(s.step)), lit("0 (shape from register)"))
			}
		}
	}},
	{RuleAreValidMemcpyDtypes, func(v *vctx, i *DMADirect2D) { validMemcpyDtypes(v, i.InDtype, i.OutDtype) }},
	{RuleHasValidBoundCheckReg, func(v *vctx, i *DMADirect2D) {
		validBoundReg(v, &srcBoundPaths, i.SrcBoundReg, i.SrcStartAddr.RawMarker()&Addr8MarkerADDR_TBL_OFF_WIDE != 0, false)
		validBoundReg(v, &dstBoundPaths, i.DstBoundReg, i.DstStartAddr.RawMarker()&Addr8MarkerADDR_TBL_OFF_WIDE != 0, false)
	}},
	{RuleIsValidDGEComputeOp, func(v *vctx, i *DMADirect2D) { validComputeOp(v, i.ComputeOp) }},
	{RuleIsValidDMAConfigs, func(v *vctx, i *DMADirect2D) { validDMAConfigs(v, i.DMAConfigs) }},
	{RuleIsValidDMAMemcpyDirectWithoutCCE, func(v *vctx, i *DMADirect2D) {
		if i.InDtype != i.OutDtype || i.ComputeOp != DGEComputeNONE || shapeRegDMA(i.SrcStartAddr) || shapeRegDMA(i.DstStartAddr) {
			return // the CCE path applies
		}
		sb := uint64(i.SrcNumElem[0]) * uint64(i.SrcNumElem[1]) * elemSize(i.SrcElemSize)
		db := uint64(i.DstNumElem[0]) * uint64(i.DstNumElem[1]) * elemSize(i.DstElemSize)
		if sb != db {
			legal := v.unum("", sb, " bytes (src_num_elem x src_elem_size)")
			v.failT("dst_num_elem", v.unum("", db, " bytes"), legal)
		}
	}},
	{RuleIsValidDMACCE, func(v *vctx, i *DMADirect2D) {
		if i.InDtype == i.OutDtype && i.ComputeOp == DGEComputeNONE {
			return // plain memcpy path
		}
		if s := i.InDtype.Size(); s > 0 && elemSize(i.SrcElemSize) != uint64(s) {
			legal := v.num("", int64(s), " (the in_dtype size, CCE path)")
			v.failT("src_elem_size", v.udec(uint64(i.SrcElemSize)), legal)
		}
		if s := i.OutDtype.Size(); s > 0 && elemSize(i.DstElemSize) != uint64(s) {
			legal := v.num("", int64(s), " (the out_dtype size, CCE path)")
			v.failT("dst_elem_size", v.udec(uint64(i.DstElemSize)), legal)
		}
		if shapeRegDMA(i.SrcStartAddr) || shapeRegDMA(i.DstStartAddr) {
			return
		}
		sc := uint64(i.SrcNumElem[0]) * uint64(i.SrcNumElem[1])
		dc := uint64(i.DstNumElem[0]) * uint64(i.DstNumElem[1])
		if sc != dc {
			legal := v.unum("", sc, " (elementwise CCE: same element count)")
			v.failT("dst_num_elem", v.unum("", dc, " elements"), legal)
		}
		for _, a := range []struct {
			f  string
			a  Addr8
			sz int
		}{{"src_start_addr", i.SrcStartAddr, i.InDtype.Size()}, {"dst_start_addr", i.DstStartAddr, i.OutDtype.Size()}} {
			if a.a.RawMarker()&0xBF == 0 && a.sz > 0 && a.a.Address()%uint64(a.sz) != 0 {
				legal := v.num("a multiple of ", int64(a.sz), " (CCE alignment)")
				v.failT(a.f, v.hex(a.a.Address()), legal)
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
	{RuleIsValidAddr8, func(v *vctx, i *DMAIndirect1D) {
		validAddr8(v, "src_start_addr", i.SrcStartAddr)
		validAddr8(v, "dst_start_addr", i.DstStartAddr)
	}},
	{RuleIsValidDGEShapeReg, func(v *vctx, i *DMAIndirect1D) {
		validShapeReg(v, "src_start_addr", i.SrcStartAddr, "src_step_elem", i.SrcStepElem)
		validShapeReg(v, "dst_start_addr", i.DstStartAddr, "dst_step_elem", i.DstStepElem)
	}},
	{RuleZeroNumElemShapeRegMode, func(v *vctx, i *DMAIndirect1D) {
		if shapeRegDMA(i.SrcStartAddr) && i.SrcNumElem != 0 {
			v.failT("src_num_elem", v.udec(uint64(i.SrcNumElem)), lit("0 (shape from register)"))
		}
		if shapeRegDMA(i.DstStartAddr) && i.DstNumElem != 0 {
			v.failT("dst_num_elem", v.udec(uint64(i.DstNumElem)), lit("0 (shape from register)"))
		}
	}},
	{RuleCheckDMAIndirectIndices, func(v *vctx, i *DMAIndirect1D) { checkIndices(v, i.IdxNumActiveChannels) }},
	{RuleHasDMAIndirectValidIdxStartAddr, func(v *vctx, i *DMAIndirect1D) {
		for _, l := range []struct {
			on bool
			f  string
			a  Addr4
		}{{srcLeg(i.Flags), "src_idx_start_addr", i.SrcIdxStartAddr}, {dstLeg(i.Flags), "dst_idx_start_addr", i.DstIdxStartAddr}} {
			if l.on && !l.a.IsAddrReg() && l.a.ByteAddr()%4 != 0 {
				v.failT(l.f, v.hex(uint64(l.a.ByteAddr())), lit("4-byte aligned (UINT32 indices)"))
			}
		}
	}},
	{RuleHasDMAIndirectIdxAddrInSBUFPartition0, func(v *vctx, i *DMAIndirect1D) {
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
				m := v.mark()
				v.s("sbuf:0:OFF with OFF < ").hx(uint64(v.geo.StateBufPartitionActive)).s(", or a register")
				legal := v.since(m)
				v.failT(l.f, v.loc(LocateAddr4(l.a, v.g)), legal)
			}
		}
	}},
	{RuleAreValidMemcpyDtypes, func(v *vctx, i *DMAIndirect1D) { validMemcpyDtypes(v, i.InDtype, i.OutDtype) }},
	{RuleIsValidDGEComputeOp, func(v *vctx, i *DMAIndirect1D) { validComputeOp(v, i.ComputeOp) }},
	{RuleIsValidDMAIndirectOperation, func(v *vctx, i *DMAIndirect1D) {
		if i.InDtype == i.OutDtype && i.ComputeOp == DGEComputeNONE {
			if i.SrcElemSize != i.DstElemSize {
				legal := v.unum("", uint64(i.SrcElemSize), " (== src_elem_size without CCE)")
				v.failT("dst_elem_size", v.udec(uint64(i.DstElemSize)), legal)
			}
			return
		}
		if s := i.InDtype.Size(); s > 0 && elemSize(i.SrcElemSize)%uint64(s) != 0 {
			legal := v.num("a multiple of ", int64(s), " (in_dtype size, CCE path)")
			v.failT("src_elem_size", v.udec(uint64(i.SrcElemSize)), legal)
		}
		if s, t := i.InDtype.Size(), i.OutDtype.Size(); s > 0 && t > 0 && elemSize(i.SrcElemSize)/uint64(s)*uint64(t) != elemSize(i.DstElemSize) {
			legal := v.unum("", elemSize(i.SrcElemSize)/uint64(s)*uint64(t), " (same element count as src, CCE path)")
			v.failT("dst_elem_size", v.udec(uint64(i.DstElemSize)), legal)
		}
	}},
	{RuleHasValidIdxBoundCheckReg, func(v *vctx, i *DMAIndirect1D) {
		validBoundReg(v, &srcIdxBoundPaths, i.SrcIdxBoundReg, false, false)
		validBoundReg(v, &dstIdxBoundPaths, i.DstIdxBoundReg, false, false)
	}},
	{RuleHasValidIndirectDimByMode, func(v *vctx, i *DMAIndirect1D) {
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
			v.fail("flags.indirect_mode", decStrings[uint8(i.Flags.IndirectMode())], "SRC_INDIRECTION, DST_INDIRECTION or SRC_DST_INDIRECTION")
		}
	}},
	{RuleIndirectDimCheck, func(v *vctx, i *DMAIndirect1D) {
		if srcLeg(i.Flags) && !shapeRegDMA(i.SrcStartAddr) && i.Flags.GatherDim() != IndirectDimX {
			v.fail("flags.gather_dim", i.Flags.GatherDim().String(), "X without a shape register")
		}
		if dstLeg(i.Flags) && !shapeRegDMA(i.DstStartAddr) && i.Flags.ScatterDim() != IndirectDimX {
			v.fail("flags.scatter_dim", i.Flags.ScatterDim().String(), "X without a shape register")
		}
	}},
	{RuleHasDMAIndirectValidIndexCount, func(v *vctx, i *DMAIndirect1D) {
		if srcLeg(i.Flags) && !shapeRegDMA(i.SrcStartAddr) && i.SrcNumElem > 4096 {
			v.failT("src_num_elem", v.udec(uint64(i.SrcNumElem)), lit("<= 4096 indices"))
		}
		if dstLeg(i.Flags) && !shapeRegDMA(i.DstStartAddr) && i.DstNumElem > 4096 {
			v.failT("dst_num_elem", v.udec(uint64(i.DstNumElem)), lit("<= 4096 indices"))
		}
	}},
	{RuleDMAIndirectReservedZero, func(v *vctx, i *DMAIndirect1D) {
		for k, b := range i.Reserved {
			if b != 0 {
				v.fail(pathReserved[k], hexStrings[b], "0")
			}
		}
	}},
	{RuleIsValidDMAConfigs, func(v *vctx, i *DMAIndirect1D) { validDMAConfigs(v, i.DMAConfigs) }},
}

// ---- DMA_GATHER_XPOSE (FACTS §C.4) --------------------------------------------------------

var gxChecks = []check[DMAGatherXpose]{
	{RuleIsValidAddr8, func(v *vctx, i *DMAGatherXpose) {
		validAddr8(v, "src_start_addr", i.SrcStartAddr)
		validAddr8(v, "dst_start_addr", i.DstStartAddr)
	}},
	{RuleGatherXposeDstInSBUF, func(v *vctx, i *DMAGatherXpose) {
		a := i.DstStartAddr
		if a.RawMarker()&0xBF != 0 {
			return
		}
		if a.IsLocal() {
			if loc, ok := LocateOnChip(a.Local(), v.g); ok && loc.Space == SpaceSBUF {
				return
			}
		}
		v.failT("dst_start_addr", v.loc(LocateAddr8(a, v.g)), lit("an SBUF address"))
	}},
	{RuleIsValidGatherTransposeDtype, func(v *vctx, i *DMAGatherXpose) {
		lo, hi := i.Dtype.Lo(), i.Dtype.Hi()
		if !lo.InGen(v.g) || lo.Size() != 2 {
			v.fail("dtype.dtype_lo", fmtEnum(KDType, uint64(lo)), "a 2-byte dtype (BFLOAT16, FP16, INT16, UINT16)")
		}
		if !hi.InGen(v.g) || hi.Size() != 2 || hi != lo {
			v.fail("dtype.dtype_hi", fmtEnum(KDType, uint64(hi)), "== dtype_lo, 2 bytes (no cast)")
		}
	}},
	{RuleGatherXposeElemSize, func(v *vctx, i *DMAGatherXpose) {
		if i.ElemSize < 2 || i.ElemSize > 256 || i.ElemSize%2 != 0 {
			v.failT("elem_size", v.udec(uint64(i.ElemSize)), lit("even, 2..256"))
		}
	}},
	{RuleGatherXposeSrcAligned, func(v *vctx, i *DMAGatherXpose) {
		if i.SrcStartAddr.RawMarker()&0xBF == 0 && i.SrcStartAddr.Address()%2 != 0 {
			v.failT("src_start_addr", v.hex(i.SrcStartAddr.Address()), lit("2-byte aligned"))
		}
	}},
	{RuleGatherXposeDstAligned, func(v *vctx, i *DMAGatherXpose) {
		if i.DstStartAddr.RawMarker()&0xBF == 0 && i.DstStartAddr.Address()%32 != 0 {
			v.failT("dst_start_addr", v.hex(i.DstStartAddr.Address()), lit("32-byte aligned"))
		}
	}},
	{RuleGatherXposeSrcIdxAligned, func(v *vctx, i *DMAGatherXpose) {
		if !i.SrcIdxStartAddr.IsAddrReg() && i.SrcIdxStartAddr.ByteAddr()%4 != 0 {
			v.failT("src_idx_start_addr", v.hex(uint64(i.SrcIdxStartAddr.ByteAddr())), lit("4-byte aligned (UINT32 indices)"))
		}
	}},
	{RuleGatherXposeGatherDimY, func(v *vctx, i *DMAGatherXpose) {
		if i.Flags.GatherDim() != IndirectDimY {
			v.fail("flags.gather_dim", i.Flags.GatherDim().String(), "Y")
		}
	}},
	{RuleGatherXposeFlagsReservedZero, func(v *vctx, i *DMAGatherXpose) {
		if i.Flags.Reserved() != 0 {
			v.fail("flags.reserved", decStrings[i.Flags.Reserved()], "0")
		}
	}},
	{RuleGatherXposeSrcRowsMultiple16, func(v *vctx, i *DMAGatherXpose) {
		if i.SrcNumElem[1]%16 != 0 {
			v.failT("src_num_elem[1]", v.udec(uint64(i.SrcNumElem[1])), lit("a multiple of 16"))
		}
	}},
	{RuleGatherXposeIndexCount, func(v *vctx, i *DMAGatherXpose) {
		if i.SrcNumElem[1] != i.DstNumElem[0] {
			legal := v.unum("", uint64(i.SrcNumElem[1]), " (== src_num_elem[1], the number of indices)")
			v.failT("dst_num_elem[0]", v.udec(uint64(i.DstNumElem[0])), legal)
		}
	}},
	{RuleGatherXposeDstStep, func(v *vctx, i *DMAGatherXpose) {
		// 32 bytes: each destination row starts on the crossbar's 32-byte beat (seed 003 §3.3
		// "xbar HW constraint", beside dst_start_addr % 32); the field counts dtype_hi elements.
		sz := int64(max(i.Dtype.Hi().Size(), 1))
		if int64(i.DstStepElem1)*sz%32 != 0 && i.DstNumElem[1] != 1 {
			v.failT("dst_step_elem_1", v.dec(int64(i.DstStepElem1)), v.num("a multiple of ", 32/sz, " (32 bytes of dtype_hi elements), or dst_num_elem[1] == 1"))
		}
	}},
	{RuleCheckDMAIndirectIndices, func(v *vctx, i *DMAGatherXpose) { checkIndices(v, i.IdxNumActiveChannels) }},
	{RuleHasValidIdxBoundCheckRegNoFlags, func(v *vctx, i *DMAGatherXpose) {
		validBoundReg(v, &srcIdxBoundPaths, i.SrcIdxBoundReg, false, true)
	}},
	{RuleHasValidBoundCheckReg, func(v *vctx, i *DMAGatherXpose) {
		validBoundReg(v, &dstBoundPaths, i.DstBoundReg, i.DstStartAddr.RawMarker()&Addr8MarkerADDR_TBL_OFF_WIDE != 0, false)
	}},
	{RuleGatherXposeReservedZero, func(v *vctx, i *DMAGatherXpose) {
		for k, b := range i.Reserved {
			if b != 0 {
				v.fail(pathReserved[k], hexStrings[b], "0")
			}
		}
	}},
	{RuleIsValidDMAConfigs, func(v *vctx, i *DMAGatherXpose) { validDMAConfigs(v, i.DMAConfigs) }},
}

// ---- DMA_DIRECT2D_XPOSE (FACTS §C.5, known fields only) -----------------------------------

var dxChecks = []check[DMADirect2DXpose]{
	{RuleAreValidMemcpyDtypes, func(v *vctx, i *DMADirect2DXpose) { validMemcpyDtypes(v, i.InDtype, i.OutDtype) }},
	{RuleDMAXposeTileSrcRows, func(v *vctx, i *DMADirect2DXpose) {
		if i.TileSrcRows != 16 {
			v.fail("tile_src_rows", decStrings[i.TileSrcRows], "16")
		}
	}},
	{RuleDMAXposeTileSrcCols, func(v *vctx, i *DMADirect2DXpose) {
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
			m := v.mark()
			v.s("1..").d(int64(max)).s(" for a ").d(int64(i.OutDtype.Size())).s("-byte out_dtype")
			v.failT("tile_src_cols", lit(decStrings[i.TileSrcCols]), v.since(m))
		}
	}},
	{RuleIsValidDMAConfigs, func(v *vctx, i *DMADirect2DXpose) { validDMAConfigs(v, i.DMAConfigs) }},
}
