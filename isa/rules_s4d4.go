package isa

// The S4D4_TR rule lists, one per opcode, composed from the predicates of seed 000 §4.2 and
// FACTS §D.3/§D.4. The order within a list follows the header's conjunction.

type s4check = check[S4D4TR]

var (
	s4ReservedZero = s4check{RuleS4D4TRReservedZero, func(v *vctx, i *S4D4TR) {
		for k, b := range i.Reserved1 {
			if b != 0 {
				v.fail(pathReserved1[k], hexStrings[b], "0")
			}
		}
	}}
	s4MaskValid = s4check{RuleMaskEnableValid, func(v *vctx, i *S4D4TR) {
		if i.MaskEnable > 1 {
			v.fail("mask_enable", decStrings[i.MaskEnable], "0 or 1")
		}
	}}
	s4MaskZero = s4check{RuleMaskEnableZero, func(v *vctx, i *S4D4TR) {
		if i.MaskEnable != 0 {
			v.fail("mask_enable", decStrings[i.MaskEnable], "0 (only STREAM_TRANSPOSE has a partial-tile mask)")
		}
	}}
	s4DType = s4check{RuleIsValidDtype, func(v *vctx, i *S4D4TR) {
		if !IsValidDType(i.InDtype, v.g, false) {
			v.fail("in_dtype", fmtEnum(KDType, uint64(i.InDtype)), dtypeLegal(v.g, false, false))
		}
		if !IsValidDType(i.OutDtype, v.g, true) {
			v.fail("out_dtype", fmtEnum(KDType, uint64(i.OutDtype)), dtypeLegal(v.g, true, false))
		}
	}}
	s4DType64 = s4check{RuleIsValidDtype64, func(v *vctx, i *S4D4TR) {
		if !IsValidDType64(i.InDtype, v.g, false, true, true) {
			v.fail("in_dtype", fmtEnum(KDType, uint64(i.InDtype)), dtypeLegal(v.g, false, true))
		}
		if !IsValidDType64(i.OutDtype, v.g, true, true, true) {
			v.fail("out_dtype", fmtEnum(KDType, uint64(i.OutDtype)), dtypeLegal(v.g, true, true))
		}
	}}
	s4SameType = s4check{RuleS4D4TRSameSrcDstType, func(v *vctx, i *S4D4TR) {
		if i.OutDtype != i.InDtype {
			m := v.mark()
			v.s("== in_dtype (").s(fmtEnum(KDType, uint64(i.InDtype))).s(")")
			v.failT("out_dtype", lit(fmtEnum(KDType, uint64(i.OutDtype))), v.since(m))
		}
	}}
	s4ZeroSubdim = s4check{RuleIsZeroSubdim, func(v *vctx, i *S4D4TR) {
		if !IsZeroSubdim(i.OpDim) {
			v.fail("op_dim", fmtEnum(KSubdim, uint64(i.OpDim)), "UNUSED (0) or X (2)")
		}
	}}
	s4ValidSubdim = s4check{RuleIsValidSubdim, func(v *vctx, i *S4D4TR) {
		if !IsValidSubdim(i.OpDim) {
			v.fail("op_dim", fmtEnum(KSubdim, uint64(i.OpDim)), "X, XY, XYZ or XYZW (2..5)")
		}
	}}
	s4ChannelRange = s4check{RuleHasValidActiveChannelRange, func(v *vctx, i *S4D4TR) {
		if i.NumActiveChannels == 0 || int(i.NumActiveChannels) > v.geo.PoolingNumChannels {
			v.failT("num_active_channels", lit(decStrings[i.NumActiveChannels]), v.num("1..", int64(v.geo.PoolingNumChannels), ""))
		}
	}}
	s4ActiveChannels = s4check{RuleStartAddrActiveChannels, func(v *vctx, i *S4D4TR) {
		startAddrActiveChannels(v, "src_mem_pattern", i.SrcMemPattern.StartAddr, i.NumActiveChannels)
		startAddrActiveChannels(v, "dst_mem_pattern", i.DstMemPattern.StartAddr, i.NumActiveChannels)
	}}
	s4Tensors = s4check{RuleTensor4DValid, func(v *vctx, i *S4D4TR) {
		tensor4dValid(v, "src_mem_pattern", &i.SrcMemPattern, i.InDtype, "in_dtype", false, true, true)
		tensor4dValid(v, "dst_mem_pattern", &i.DstMemPattern, i.OutDtype, "out_dtype", true, true, true)
	}}
	s4Footprint = s4check{RuleTensor4DFootprint, func(v *vctx, i *S4D4TR) {
		tensor4dFootprint(v, "src_mem_pattern", &i.SrcMemPattern, i.InDtype)
		tensor4dFootprint(v, "dst_mem_pattern", &i.DstMemPattern, i.OutDtype)
	}}
	s4TransposeCount = s4check{RuleS4D4TRTransposeSrcDstCount, func(v *vctx, i *S4D4TR) {
		if shapeReg(i) {
			return
		}
		if d, s := i.DstMemPattern.ElementCount(), i.SrcMemPattern.ElementCount(); d > s {
			v.failT("dst_mem_pattern.num_elem", v.unum("", d, " elements"), v.unum("<= ", s, " (the src element count)"))
		}
	}}
	s4SameCount = s4check{RuleS4D4TRSameSrcDstCount, func(v *vctx, i *S4D4TR) {
		if shapeReg(i) {
			return
		}
		if d, s := i.DstMemPattern.ElementCount(), i.SrcMemPattern.ElementCount(); d != s {
			v.failT("dst_mem_pattern.num_elem", v.unum("", d, " elements"), v.unum("", s, " (the src element count)"))
		}
	}}
	s4OpBypass = s4check{RuleS4D4TROpBypass, func(v *vctx, i *S4D4TR) {
		if i.Op != ALUBypass && i.Op.InGen(v.g) {
			v.fail("op", fmtEnum(KALUOp, uint64(i.Op)), "BYPASS (0x00)")
		}
	}}
	s4OpEnum = s4check{RuleIsValidEnum, func(v *vctx, i *S4D4TR) {
		if !i.Op.InGen(v.g) {
			m := v.mark()
			v.s("an ALU_OP defined on ").s(v.g.String())
			v.failT("op", lit(fmtEnum(KALUOp, uint64(i.Op))), v.since(m))
		}
	}}
	s4Mult32 = s4check{RuleHasMultiple32Channels, func(v *vctx, i *S4D4TR) {
		switch i.NumActiveChannels {
		case 32, 64, 96, 128:
		default:
			v.fail("num_active_channels", decStrings[i.NumActiveChannels], "32, 64, 96 or 128")
		}
	}}
	s4SrcCount32 = s4check{RuleHasTransposeSrcElementCountT4D, func(v *vctx, i *S4D4TR) {
		if c := i.SrcMemPattern.ElementCount(); c%32 != 0 {
			v.failT("src_mem_pattern.num_elem", v.unum("", c, " elements"), lit("a multiple of 32"))
		}
	}}
	s4ZeroNegated = s4check{RuleHasZeroNegatedField, func(v *vctx, i *S4D4TR) {
		if i.Negated != 0 {
			v.fail("negated", decStrings[i.Negated], "0")
		}
	}}
	s4ReduceNegated = s4check{RuleHasValidReduceNegated, func(v *vctx, i *S4D4TR) {
		if i.Negated > 1 {
			v.fail("negated", decStrings[i.Negated], "0 or 1")
		}
	}}
	s4ReduceArithOp = s4check{RuleTensorReduceValidALUOp, func(v *vctx, i *S4D4TR) {
		if i.Op.InGen(v.g) && !IsGeneralArithOp(i.Op, v.g) && !IsTensorReduceIntOp(i.Op, v.g) {
			v.fail("op", fmtEnum(KALUOp, uint64(i.Op)), "a general arithmetic op (is_general_arith_op) or a tensor-reduce integer op")
		}
	}}
	s4ReduceBitvecOp = s4check{RuleTensorReduceValidBitvecOp, func(v *vctx, i *S4D4TR) {
		if i.Op.InGen(v.g) && !IsBitvecOp(i.Op) {
			v.fail("op", fmtEnum(KALUOp, uint64(i.Op)), "a bitvec op (is_bitvec_op, CRC32 included)")
		}
	}}
	s4ReduceEngine = s4check{RuleIsValidTensorReduceArithEngine, func(v *vctx, i *S4D4TR) {
		arm := reduceArm(v, i)
		t := &reduceEngineText[v.g]
		opKnown := i.Op.InGen(v.g) // else is_valid_enum reports op alone
		// The dtype conjuncts are checked only where is_valid_dtype_64 (the opcode's own gate)
		// passes, so a dtype no arm could take is reported once, by is_valid_dtype_64.
		inOK := IsValidDType64(i.InDtype, v.g, false, true, true)
		switch arm {
		case EngineDVE:
			if opKnown && (IsTensorReduceIntOp(i.Op, v.g) || IsArgReduceOp(i.Op)) {
				v.failT("op", v.armValue(fmtEnum(KALUOp, uint64(i.Op)), arm, i.Op), lit(t.dveOp))
			}
			if inOK && !IsValidDType(i.InDtype, v.g, false) {
				v.failT("in_dtype", v.armValue(fmtEnum(KDType, uint64(i.InDtype)), arm, i.Op), lit(t.dveIn))
			}
			if IsValidDType64(i.OutDtype, v.g, true, true, true) && !IsValidDType(i.OutDtype, v.g, true) {
				v.failT("out_dtype", v.armValue(fmtEnum(KDType, uint64(i.OutDtype)), arm, i.Op), lit(t.dveOut))
			}
		case EnginePOOL:
			if opKnown && !IsTensorReduceIntOp(i.Op, v.g) {
				v.failT("op", v.armValue(fmtEnum(KALUOp, uint64(i.Op)), arm, i.Op), lit(t.poolOp))
			}
			if inOK && !isPoolReduceDType(i.InDtype) {
				v.failT("in_dtype", v.armValue(fmtEnum(KDType, uint64(i.InDtype)), arm, i.Op), lit(t.poolIn))
			}
		default:
			m := v.mark()
			v.s(i.Header.Opcode.String()).s(" on ").s(arm.String())
			v.failT("opcode", v.since(m), lit("the DVE or POOL queue (is_valid_tensor_reduce_arith_engine has no other arm)"))
		}
	}}
	s4PoolSBUF = s4check{RuleIsS4D4TRTensorsInSBUF, func(v *vctx, i *S4D4TR) {
		if reduceArm(v, i) != EnginePOOL {
			return
		}
		for _, p := range []struct {
			name string
			a    Addr4
		}{{"src_mem_pattern", i.SrcMemPattern.StartAddr}, {"dst_mem_pattern", i.DstMemPattern.StartAddr}} {
			if p.a.IsAddrReg() || p.a.IsIndirect() {
				continue
			}
			if loc, ok := LocateOnChip(p.a.ByteAddr(), v.g); ok && loc.Space == SpacePSUM {
				v.failT(startAddrPath(p.name), v.loc(loc), lit("SBUF (the POOL arm of the reduce reads and writes SBUF only)"))
			}
		}
	}}
	s4ReduceCount = s4check{RuleTensorReduceDstCount, func(v *vctx, i *S4D4TR) {
		if shapeReg(i) || !IsValidSubdim(i.OpDim) {
			return
		}
		want := uint64(1)
		for d := i.OpDim.Dims(); d < 4; d++ {
			want *= uint64(i.SrcMemPattern.NumElem[d])
		}
		if got := i.DstMemPattern.ElementCount(); got != want {
			m := v.mark()
			v.ud(want).s(" (src element count with the ").s(i.OpDim.String()).s(" dims reduced away)")
			legal := v.since(m)
			v.failT("dst_mem_pattern.num_elem", v.unum("", got, " elements"), legal)
		}
	}}
	s4CumArithOp = s4check{RuleTensorCumulativeValidALUOp, func(v *vctx, i *S4D4TR) {
		if i.Op.InGen(v.g) && (!IsArithOp(i.Op, v.g) || i.Op == ALUDivide || i.Op == ALUPow || i.Op == ALUMod) {
			v.fail("op", fmtEnum(KALUOp, uint64(i.Op)), "an arithmetic op (is_arith_op) other than DIVIDE, POW, MOD")
		}
	}}
	s4CumBitvecOp = s4check{RuleTensorCumulativeValidBitvecOp, func(v *vctx, i *S4D4TR) {
		if i.Op.InGen(v.g) && !IsBitvecOp(i.Op) {
			v.fail("op", fmtEnum(KALUOp, uint64(i.Op)), "a bitvec op (is_bitvec_op)")
		}
	}}
	s4CumBitvecDtype = s4check{RuleTensorCumulativeBitvecDtype, func(v *vctx, i *S4D4TR) {
		switch i.InDtype {
		case DTypeUINT8, DTypeUINT16, DTypeUINT32, DTypeINT32:
		default:
			v.fail("in_dtype", fmtEnum(KDType, uint64(i.InDtype)), "UINT8, UINT16, UINT32 or INT32")
		}
	}}
	s4CumLSR = s4check{RuleTensorCumulativeLSRInt32, func(v *vctx, i *S4D4TR) {
		if i.Op == ALULogicalShiftRight && i.InDtype != DTypeINT32 {
			v.fail("in_dtype", fmtEnum(KDType, uint64(i.InDtype)), "INT32 (LOGICAL_SHIFT_RIGHT scans only INT32)")
		}
	}}
	s4BF16In = s4check{RuleBF16ReduceInDtype, func(v *vctx, i *S4D4TR) {
		if i.InDtype != DTypeBFLOAT16 {
			v.fail("in_dtype", fmtEnum(KDType, uint64(i.InDtype)), "BFLOAT16")
		}
	}}
	s4BF16Align = s4check{RuleBF16ReduceSrcAligned, func(v *vctx, i *S4D4TR) {
		a := i.SrcMemPattern.StartAddr
		if !a.IsAddrReg() && a.ByteAddr()%4 != 0 {
			v.failT("src_mem_pattern.start_addr", v.hex(uint64(a.ByteAddr())), lit("4-byte aligned"))
		}
	}}
	s4BF16Even = s4check{RuleBF16ReduceEvenNumElem0, func(v *vctx, i *S4D4TR) {
		if i.SrcMemPattern.NumElem[0]%2 != 0 {
			v.failT("src_mem_pattern.num_elem[0]", v.udec(uint64(i.SrcMemPattern.NumElem[0])), lit("even"))
		}
	}}
	s4BF16Step = s4check{RuleBF16ReduceUnitStep0, func(v *vctx, i *S4D4TR) {
		if i.SrcMemPattern.StepElem[0] != 1 {
			v.failT("src_mem_pattern.step_elem[0]", v.dec(int64(i.SrcMemPattern.StepElem[0])), lit("1"))
		}
	}}
)

func shapeReg(i *S4D4TR) bool {
	return i.SrcMemPattern.StartAddr.ShapeFromRegister() || i.DstMemPattern.StartAddr.ShapeFromRegister()
}

// reduceArm is the arm of is_valid_tensor_reduce_arith_engine(i, engine) an arithmetic reduce
// is checked against: the engine of the queue when the caller names it (ValidateOn), otherwise
// the arm the op selects (a tensor-reduce integer op: POOL; any other op: DVE), which is the only
// arm that op can satisfy: the two arms' op sets are disjoint.
func reduceArm(v *vctx, i *S4D4TR) Engine {
	if v.eng != EngineNone {
		return v.eng
	}
	if IsTensorReduceIntOp(i.Op, v.g) {
		return EnginePOOL
	}
	return EngineDVE
}

// isPoolReduceDType is the Pool arm's dtype conjunct: is_valid_32b_int_dtype(in_dtype) ||
// is_valid_64b_int_dtype(in_dtype).
func isPoolReduceDType(d DType) bool {
	switch d {
	case DTypeINT32, DTypeUINT32, DTypeINT64, DTypeUINT64:
		return true
	}
	return false
}

// armValue writes the value of an is_valid_tensor_reduce_arith_engine violation: the value found
// and the engine queue, or, when the caller did not name the queue, the arm the op selected.
func (v *vctx) armValue(val string, arm Engine, op ALUOp) txt {
	m := v.mark()
	v.s(val)
	if v.eng == EngineNone {
		v.s(" with op ").s(fmtEnum(KALUOp, uint64(op))).s(" (the ").s(arm.String()).s(" arm; no engine given)")
	} else {
		v.s(" on ").s(v.eng.String())
	}
	return v.since(m)
}

// reduceEngineText[g] holds the legal sets is_valid_tensor_reduce_arith_engine names on g.
var reduceEngineText = func() (t [numGenerations]struct{ dveOp, poolOp, dveIn, dveOut, poolIn string }) {
	names := func(ops []ALUOp) string {
		s := make([]string, len(ops))
		for k, o := range ops {
			s[k] = o.String()
		}
		return joinOr(s)
	}
	for _, g := range Generations {
		x := &t[g]
		x.dveOp = "on DVE: " + names(TensorReduceArithOps(EngineDVE, g)) +
			" (is_general_arith_op; the integer and argmax/argmin reduce ops run on POOL)"
		x.poolOp = "on POOL: " + names(TensorReduceArithOps(EnginePOOL, g)) +
			" (is_valid_tensor_reduce_int_op; the other reduce ops run on DVE)"
		x.dveIn = "on DVE: " + dtypeLegal(g, false, false) + " (is_valid_dtype; UINT64 and INT64 only on the POOL integer arm)"
		x.dveOut = "on DVE: " + dtypeLegal(g, true, false) + " (is_valid_dtype; UINT64 and INT64 only on the POOL integer arm)"
		var ints []string
		for _, d := range AllDTypes {
			if isPoolReduceDType(d) && d.InGen(g) {
				ints = append(ints, d.String())
			}
		}
		x.poolIn = "on POOL: " + joinOr(ints) + " (is_valid_32b_int_dtype or is_valid_64b_int_dtype)"
	}
	return
}()

func dtypeLegal(g Generation, fp32r, wide bool) string {
	if g.Valid() {
		return dtypeLegalCache[g][b2i(fp32r)][b2i(wide)]
	}
	return makeDtypeLegal(g, fp32r, wide)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

var dtypeLegalCache = func() (t [numGenerations][2][2]string) {
	for _, g := range Generations {
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				t[g][a][b] = makeDtypeLegal(g, a == 1, b == 1)
			}
		}
	}
	return
}()

func makeDtypeLegal(g Generation, fp32r, wide bool) string {
	var names []string
	for _, d := range AllDTypes {
		ok := IsValidDType(d, g, fp32r)
		if wide {
			ok = IsValidDType64(d, g, fp32r, true, true)
		}
		if ok {
			names = append(names, d.String())
		}
	}
	return joinOr(names)
}

func joinOr(s []string) string {
	switch len(s) {
	case 0:
		return "(none)"
	case 1:
		return s[0]
	}
	out := ""
	for k, x := range s[:len(s)-1] {
		if k > 0 {
			out += ", "
		}
		out += x
	}
	return out + " or " + s[len(s)-1]
}

// common tail shared by every S4D4_TR list: channel range, start partitions, tensors, footprints.
var s4Placement = []s4check{s4ChannelRange, s4ActiveChannels, s4Tensors, s4Footprint}

func s4list(parts ...[]s4check) []s4check {
	var out []s4check
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var s4Checks = func() (t [256][]s4check) {
	// StreamTranspose: seed 000 §4.2, verbatim order.
	t[OpSTREAM_TRANSPOSE] = []s4check{s4ReservedZero, s4MaskValid, s4DType, s4SameType, s4ZeroSubdim,
		s4ChannelRange, s4ActiveChannels, s4Tensors, s4Footprint, s4TransposeCount, s4OpEnum, s4OpBypass, s4Mult32,
		s4SrcCount32, s4ZeroNegated}
	pinned := func(sameType bool, extra ...s4check) []s4check {
		l := []s4check{s4ReservedZero, s4MaskZero, s4DType}
		if sameType {
			l = append(l, s4SameType)
		}
		l = append(l, s4ZeroSubdim)
		l = append(l, s4Placement...)
		l = append(l, s4SameCount, s4OpEnum, s4OpBypass)
		l = append(l, extra...)
		return append(l, s4ZeroNegated)
	}
	t[OpSTREAM_SHUFFLE] = pinned(true, s4Mult32)
	t[OpCOPY] = pinned(true)
	t[OpCAST] = pinned(false)
	t[OpRECIPROCAL] = pinned(false)
	cum := func(bitvec bool) []s4check {
		l := []s4check{s4ReservedZero, s4MaskZero, s4DType}
		if bitvec {
			l = append(l, s4SameType, s4CumBitvecDtype)
		}
		l = append(l, s4ValidSubdim)
		l = append(l, s4Placement...)
		l = append(l, s4SameCount, s4OpEnum)
		if bitvec {
			l = append(l, s4CumBitvecOp, s4CumLSR)
		} else {
			l = append(l, s4CumArithOp)
		}
		return append(l, s4ZeroNegated)
	}
	t[OpTENSOR_CUMULATIVE_ARITH_OP] = cum(false)
	t[OpTENSOR_CUMULATIVE_BITVEC_OP] = cum(true)
	reduce := func(bitvec, transpose bool) []s4check {
		l := []s4check{s4ReservedZero, s4MaskZero, s4DType64}
		if bitvec {
			l = append(l, s4SameType)
		}
		l = append(l, s4ValidSubdim)
		l = append(l, s4Placement...)
		l = append(l, s4ReduceCount, s4OpEnum)
		if bitvec {
			l = append(l, s4ReduceBitvecOp, s4ZeroNegated)
		} else {
			l = append(l, s4ReduceArithOp, s4ReduceEngine, s4PoolSBUF, s4ReduceNegated)
		}
		if transpose {
			l = append(l, s4Mult32, s4SrcCount32)
		}
		return l
	}
	t[OpTENSOR_REDUCE_ARITH_OP] = reduce(false, false)
	t[OpTENSOR_REDUCE_BITVEC_OP] = reduce(true, false)
	t[OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP] = reduce(false, true)
	t[OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP] = reduce(true, true)
	bf16 := []s4check{s4ReservedZero, s4MaskZero, s4BF16In, s4DType, s4ValidSubdim}
	bf16 = append(bf16, s4Placement...)
	bf16 = append(bf16, s4ReduceCount, s4BF16Align, s4BF16Even, s4BF16Step, s4ZeroNegated)
	t[OpTENSOR_REDUCE_ADD_BF16] = bf16
	t[OpTENSOR_REDUCE_MAX_BF16] = bf16
	return t
}()
