package isa

import "sort"

// The rule / behaviour registry of the instruction layer (DESIGN.md §3): every rule id the
// validators can emit, and every behaviour of this package that the sources do not fix, with
// where it comes from and how sure we are. `tpbsim explain` prints it; tests prove each rule can
// fail alone and that every emitted id is registered.

var flds = func(s ...string) []string { return s }

var registry = []Provenance{
	// ---- every instruction ----
	Rule(RuleOpcodeOnGeneration, "The opcode must exist in the generation's ISA (e.g. DMA_GATHER_TRANSPOSE is CAYMAN+, TENSOR_REDUCE_ADD_BF16 is SUNDA-only). When it does not, nothing else is checked: the struct does not exist there.",
		"FACTS §F.2 (engine check first), §F.3, §C.1, §D.2", HighObserved, flds("opcode"),
		"The rule id is tpbsim's: the runtime's engine/opcode check has no predicate name in the sources."),
	Rule(RuleGeneration, "A generation is one of SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK: every entry point that takes one (Validate, ParseAddress, Location.Addr4 / Addr8, Generation.Features) refuses any other value (the zero value GenInvalid included), never reading it as another generation.",
		"FACTS §0 (the generation is an explicit input of every step), §B.5", HighObserved, flds("(generation)"), ""),
	Rule(RuleGenerationName, "A generation is named by its name or an alias of it (SUNDA: V2, NC_V2, GEN2, TRN1, INF2; CAYMAN: V3, NC_V3, GEN3, TRN2; MARIANA: V4, NC_V4, GEN4, TRN3; MARIANA_PLUS: MARIANAPLUS, V4+, NC_V4+, V4PLUS; MAVERICK: V5, NC_V5, TRN4), case-insensitive.",
		"FACTS §E.0 (generation naming), §F.3", MedInferred, flds("generation"), "the names are the sources'; the aliases are tpbsim's"),
	Rule(RuleEngineName, "An engine is named DVE, POOL (or GPSIMD), ACT, SP (TPB_SP), TOP_SP or PE, case-insensitive.",
		"FACTS §A.4 (NEURON_ENGINE)", MedInferred, flds("engine"), "the engine names are the sources'; GPSIMD is NKI's name for POOL"),
	Rule(RuleOpcodeName, "An opcode is named by its ISA name or its number (below 256).", "FACTS §C.1, §D.2 (the opcodes)", HighObserved, flds("opcode"), ""),
	Rule(RuleAddressForm, "An address is sbuf:P:OFF or psum:P:OFF (a partition the generation has and an offset inside its partition stride; no psum: where PSUM_BUF_SZ is 0), hbm:ADDR below tpbsim's on-chip window, reg:N (N <= 255) or a raw number; an ADDR4 holds an on-chip address that fits 32 bits.",
		"FACTS §B.3-§B.5 (address geometry); DESIGN.md (address syntax)", MedInferred, flds("address"), "the geometry is the sources'; the text form is tpbsim's CLI contract"),
	Rule(RuleInstNBytes, "An instruction word is NEURON_ISA_TPB_INST_NBYTES = 64 bytes: a single-word decoder refuses fewer (truncated) or more (trailing bytes), and an instruction stream is a whole number of words.",
		"FACTS \"Global constants\" (NEURON_ISA_TPB_INST_NBYTES), §B.1", HighObserved, flds("(the whole word)"), ""),
	Rule(RuleHasValidNeuronHeader, "The opcode is a valid OPCODE enum member and inst_word_len == 16 (dwords). QUANTIZE_MX (0xE3) may OR bit 0 (SATURATE) on MARIANA+.",
		"FACTS §B.1, §F.2", HighObserved, flds("opcode", "inst_word_len"),
		"An opcode tpbsim has no name for is treated as not a member of the enum (the runtime rejects unknown opcodes)."),
	Rule(RuleHasValidNeuronEvents, "wait_mode is a WAIT_MODE the generation defines (EVT waits dropped on MAVERICK; REG_OFFSET and UNORDERED are MAVERICK-only; INVALID 0xFF never) and update_mode is NONE, a SEM_* immediate mode (READ or COMPLETE) or SEM_WR_REG_COMPLETE. Semaphore indices are 8-bit and always in range.",
		"FACTS §B.2, §G.4", MedInferred, flds("events.wait_mode", "events.update_mode"),
		"The predicate body is not in the sources; this is the enum membership the tables of §B.2 give."),

	// ---- S4D4_TR (seed 000 §4.2, FACTS §D.3-§D.4) ----
	Rule(RuleS4D4TRReservedZero, "reserved1[0..4] are all zero.", "seed 000 §4.2", HighObserved, flds("reserved1"), ""),
	Rule(RuleMaskEnableValid, "STREAM_TRANSPOSE: mask_enable is 0 or 1 (the partial-tile mask).", "seed 000 §4.2", HighObserved, flds("mask_enable"), ""),
	Rule(RuleMaskEnableZero, "Every S4D4_TR opcode but STREAM_TRANSPOSE: mask_enable == 0.", "seed 000 §4.2 (GOTCHA), FACTS §D.4", HighObserved, flds("mask_enable"), ""),
	Rule(RuleIsValidDtype, "in_dtype passes is_valid_dtype(AllowFP32R=False) and out_dtype is_valid_dtype(AllowFP32R=True) on the generation: a code the generation defines, not INVALID, UINT64, INT64; MAVERICK also rejects the 4-bit and scale-only codes. (MEMSET: its dtype with FP32R allowed.)",
		"seed 000 §4.2, FACTS §A.1", HighObserved, flds("in_dtype", "out_dtype", "dtype"), ""),
	Rule(RuleIsValidDtype64, "TensorReduce family: in/out dtypes pass is_valid_dtype_64 (UINT64 and INT64 admitted; FP32R only for out).",
		"seed 000 §4.2 (CORRECTION), FACTS §D.4", HighObserved, flds("in_dtype", "out_dtype"), ""),
	Rule(RuleS4D4TRSameSrcDstType, "out_dtype == in_dtype (no cast). Applies to STREAM_TRANSPOSE, STREAM_SHUFFLE, COPY, the bitvec scan and (INFERRED) the bitvec reduces.",
		"seed 000 §4.2, FACTS §D.4", HighObserved, flds("in_dtype", "out_dtype"), "For 0x52/0x84 FACTS only says 'bitvec narrowing (like cumulative)'; tpbsim requires in == out as for 0x5E."),
	Rule(RuleIsZeroSubdim, "op_dim is UNUSED (0) or X (2).", "seed 000 §4.2, common.h:1410", HighObserved, flds("op_dim"), ""),
	Rule(RuleIsValidSubdim, "op_dim is X, XY, XYZ or XYZW (2..5): the scanned / reduced innermost dims.", "FACTS §D.3, §D.4", HighObserved, flds("op_dim"), ""),
	Rule(RuleHasValidActiveChannelRange, "1 <= num_active_channels <= POOLING_NUM_CHANNELS (128).", "seed 000 §4.2, FACTS §D.3", HighObserved, flds("num_active_channels"), ""),
	Rule(RuleStartAddrActiveChannels, "The start partition of each pattern plus num_active_channels does not pass the last partition (128).",
		"seed 000 §4.2, FACTS §B.3, §G.2", MedInferred, flds("src_mem_pattern.start_addr", "dst_mem_pattern.start_addr", "num_active_channels"),
		"The body is not in the sources; FACTS §B.3 reads it as 'start partition + nac must fit within 128 partitions'. Register-mode and indirect addresses are exempt (resolved at run time)."),
	Rule(RuleTensor4DValid, "The placement gate tensor_start_addr_valid (register mode, marker ADDR_REG 0x80 or ADDR_SHAPE_REG 0xC0: bits 8..28 zero and register < 64, nothing else checked; otherwise the address is aligned to the dtype, lies in SBUF or PSUM as the opcode allows, at an offset inside the generation's active partition size; a PSUM write needs a 4-byte dtype) and every num_elem >= 1 (unless the shape comes from a register). The extent of the walk is tensor4d_footprint.",
		"seed 000 §4.2, FACTS §B.3, §B.4, §B.5", HighObserved, flds("src_mem_pattern", "dst_mem_pattern", "in_dtype", "out_dtype"),
		"An INDIRECT marker is rejected before MARIANA and not checked after (the MEM_PATTERN4D indirect form)."),
	Rule(RuleTensor4DFootprint, "Every byte the 4-D walk touches (min/max of step*(num-1) over the dims, signed; dtype width, 4-bit types rounded outwards) stays inside the active partition area. Not checked where tensor4d_valid already refuses the start, a count or the dtype, or where the address or the shape comes from a register.",
		"FACTS §B.3-§B.5", MedInferred, flds("src_mem_pattern", "dst_mem_pattern"),
		"FACTS names tensor4d_valid but not this part of it, so the id is tpbsim's: its reading of tensor4d_valid's 'per-rank extent rules', which are not spelled out; the active-area rule (addr_in_sbuf_partition) applied to every touched byte is the strictest plausible reading (isa.footprint_check). Kept apart from tensor4d_valid so its violations carry its own confidence."),
	Rule(RuleS4D4TRTransposeSrcDstCount, "STREAM_TRANSPOSE: same_or_fewer_element_count_t4d(dst, src): count(dst) <= count(src), unless either shape comes from a register.",
		"seed 000 §4.2, common.h:1862", HighObserved, flds("src_mem_pattern.num_elem", "dst_mem_pattern.num_elem"), ""),
	Rule(RuleS4D4TRSameSrcDstCount, "count(dst) == count(src) (STREAM_SHUFFLE, COPY, CAST, RECIPROCAL, scans).",
		"FACTS §D.3, §D.4", MedInferred, flds("src_mem_pattern.num_elem", "dst_mem_pattern.num_elem"),
		"The register-shape exemption is presumed as for same_or_fewer (FACTS §D.3 'presumably')."),
	Rule(RuleS4D4TROpBypass, "op@36 == BYPASS (0x00): the transpose-mode byte of STREAM_TRANSPOSE; also STREAM_SHUFFLE, COPY, CAST, RECIPROCAL.",
		"seed 000 §3.1, §4.2", HighObserved, flds("op"), ""),
	Rule(RuleIsValidEnum, "op@36 is an ALU_OP the generation defines. When it is not, the op-class rules are not evaluated (the value has no class there).",
		"FACTS §A.2, §F.2", HighObserved, flds("op"), "Reporting only the root cause for an undefined enum value is tpbsim's choice."),
	Rule(RuleHasMultiple32Channels, "num_active_channels is 32, 64, 96 or 128 (closed set). STREAM_TRANSPOSE, STREAM_SHUFFLE, and (INFERRED) the fused transpose-reduces 0x83/0x84.",
		"seed 000 §4.2, common.h:1767", HighObserved, flds("num_active_channels"), "0x83/0x84 are 'preceded by a 32 element x 32 channel transpose' (seed 000 §3): tpbsim applies the transpose geometry to them."),
	Rule(RuleHasTransposeSrcElementCountT4D, "prod(src.num_elem[0..3]) % 32 == 0 (STREAM_TRANSPOSE; INFERRED for 0x83/0x84).",
		"seed 000 §4.2, common.h:1759", HighObserved, flds("src_mem_pattern.num_elem"), ""),
	Rule(RuleHasZeroNegatedField, "negated == 0.", "seed 000 §4.2, FACTS §D.4", HighObserved, flds("negated"), ""),
	Rule(RuleHasValidReduceNegated, "Arithmetic reduces: negated is 0 or 1.", "FACTS §D.3", HighObserved, flds("negated"), ""),
	Rule(RuleTensorReduceValidALUOp, "Arithmetic reduce (0x42, 0x83): op is a general arithmetic op or a tensor-reduce integer op, whatever the engine (which of the two an engine takes is is_valid_tensor_reduce_arith_engine).",
		"FACTS §D.4, tensor-reduce page §6", MedInferred, flds("op"),
		"is_valid_tensor_reduce_int_op membership is not listed: tpbsim takes ADD/MULT/MAX/MIN(_U)INT, ABS_MAX/MIN_INT, MULT_UINT and AMAX/AMIN."),
	Rule(RuleIsValidTensorReduceArithEngine, "Arithmetic reduce (0x42, 0x83) on the queue it is issued from. DVE arm: op is not a tensor-reduce integer op and not AMAX/AMIN (so, with tensor_reduce_valid_alu_op, a general arithmetic op), in_dtype passes is_valid_dtype (no FP32R) and out_dtype is_valid_dtype (FP32R allowed): no UINT64/INT64. POOL arm: op is a tensor-reduce integer op (AMAX/AMIN included) and in_dtype is INT32, UINT32, INT64 or UINT64 (its SBUF conjunct is is_s4d4_tr_tensors_in_sbuf). No other engine has an arm. When the caller does not name the queue (isa.Validate, tpbsim check) the op picks the arm: an integer reduce op POOL, any other DVE.",
		"FACTS §D.4 (Reduce engine predicate), §D.2 (engine surface: DVE (fp) / Pool (int, argmax)), §F.2 (POOL: unimplemented tensor-reduce ALU op); seed 000 §3 (0x83 = TensorReduce preceded by the 32x32 transpose)",
		MedInferred, flds("op", "in_dtype", "out_dtype", "opcode"),
		"No seed states the engine split; FACTS §D.4 paraphrases the header predicate untagged, and the tensor-reduce page that quotes it (as is_valid_tensor_reduce_arith_engine(i, engine)) elides part of the Pool arm. INFERRED: the membership of is_valid_tensor_reduce_int_op (see tensor_reduce_valid_alu_op); AMAX/AMIN legal on POOL ('the int / argmax path is the Pool ALU'); the same arms for the fused TRANSPOSE_TENSOR_REDUCE_ARITH_OP (0x83); and, without an engine, the arm the op selects (the arms' op sets are disjoint, so that is the only arm the instruction could pass). The rule id is the header predicate's name as the tensor-reduce page quotes it."),
	Rule(RuleTensorReduceValidBitvecOp, "Bitvec reduce (0x52, 0x84): op is a bitvec op (is_bitvec_op, CRC32 included).",
		"FACTS §D.4, §D.5", MedInferred, flds("op"), "Predicate name is tpbsim's."),
	Rule(RuleIsS4D4TRTensorsInSBUF, "An arithmetic reduce on the POOL arm of is_valid_tensor_reduce_arith_engine (queued on POOL, or, with no engine given, an integer reduce op) reads and writes SBUF only.", "FACTS §D.4", HighObserved,
		flds("op", "src_mem_pattern.start_addr", "dst_mem_pattern.start_addr"), ""),
	Rule(RuleTensorReduceDstCount, "Reduce: count(dst) == the product of the src dims op_dim leaves (X reduces dim 0, XY dims 0-1, XYZ dims 0-2, XYZW all).",
		"FACTS §F.1, §G.3", LowInferred, flds("op_dim", "src_mem_pattern.num_elem", "dst_mem_pattern.num_elem"),
		"The collapse predicate was not found; this follows the compiler's 'reduces innermost loop dimensions' mapping."),
	Rule(RuleTensorCumulativeValidALUOp, "Arithmetic scan (0x4E): op is is_arith_op minus DIVIDE, POW, MOD.", "FACTS §D.4", HighObserved, flds("op"), ""),
	Rule(RuleTensorCumulativeValidBitvecOp, "Bitvec scan (0x5E): op is a bitvec op.", "FACTS §D.4", HighObserved, flds("op"), ""),
	Rule(RuleTensorCumulativeBitvecDtype, "Bitvec scan: in_dtype is UINT8, UINT16, UINT32 or INT32.", "FACTS §D.4 (tensorcumulative.md §7.2)", HighObserved, flds("in_dtype"), ""),
	Rule(RuleTensorCumulativeLSRInt32, "Bitvec scan with LOGICAL_SHIFT_RIGHT needs INT32.", "FACTS §D.4 (tensorcumulative.md §7.2)", HighObserved, flds("op", "in_dtype"), ""),
	Behaviour("isa.sunda_bf16_reduce", "SUNDA's TENSOR_REDUCE_ADD_BF16 (0x8C) and TENSOR_REDUCE_MAX_BF16 (0x8D) use the S4D4_TR struct and are executed as TensorReduce add / max on BF16, "+
		"beside the eleven opcodes seed 000 binds to the struct; they are absent from CAYMAN on.", "FACTS §D.2 (13 S4D4_TR opcodes on SUNDA, the BF16 retire page)", MedInferred,
		"seed 000 lists the eleven of CAYMAN+; FACTS' SUNDA table adds these two with the struct's fields (tpbsim explain conflicts)"),
	Rule(RuleBF16ReduceInDtype, "SUNDA 0x8C/0x8D: in_dtype is BFLOAT16.", "FACTS §D.2", HighObserved, flds("in_dtype"), "FACTS §D.2's table lists this as a constraint of 0x8C/0x8D in prose (\"in_dtype must be BF16\") with no predicate name: the id names that clause."),
	Rule(RuleBF16ReduceSrcAligned, "SUNDA 0x8C/0x8D: the src start address is 4-byte aligned.", "FACTS §D.2", HighObserved, flds("src_mem_pattern.start_addr"), "FACTS §D.2 lists \"4-B aligned src\" as a prose constraint of 0x8C/0x8D without a predicate name: the id names that clause."),
	Rule(RuleBF16ReduceEvenNumElem0, "SUNDA 0x8C/0x8D: src num_elem[0] is even.", "FACTS §D.2", HighObserved, flds("src_mem_pattern.num_elem[0]"), "FACTS §D.2 lists \"num_elem[0] even\" as a prose constraint of 0x8C/0x8D without a predicate name: the id names that clause."),
	Rule(RuleBF16ReduceUnitStep0, "SUNDA 0x8C/0x8D: src step_elem[0] == 1.", "FACTS §D.2", HighObserved, flds("src_mem_pattern.step_elem[0]"), "FACTS §D.2 lists \"step_elem[0]==1\" as a prose constraint of 0x8C/0x8D without a predicate name: the id names that clause."),

	// ---- LOAD_MASK_SELECT (FACTS §F.4) ----
	Rule(RuleLoadMaskSelectParamRamOffsetZero, "param_ram_offset == 0.", "FACTS §F.4, §D.5", HighObserved, flds("param_ram_offset"), "FACTS §F.4 / §D.5 give LOAD_MASK_SELECT's field constraints as a list, not as named predicates: one id per listed field condition, so a violation names the field."),
	Rule(RuleLoadMaskSelectImmPtrSelectZero, "imm_ptr_select == 0.", "FACTS §F.4, §D.5", HighObserved, flds("imm_ptr_select"), "FACTS §F.4 / §D.5 give LOAD_MASK_SELECT's field constraints as a list, not as named predicates: one id per listed field condition."),
	Rule(RuleLoadMaskSelectReservedZero, "reserved0[17] are zero.", "FACTS §F.4", MedInferred, flds("reserved0"), "Reserved bytes are zero in every other struct; the sources do not state it for CTRL_IM."),
	Rule(RuleLoadMaskSelectValidMask, "Each of the 32 mask bytes is < 64 or == 255.", "FACTS §F.4, §D.5", HighObserved, flds("immediate"), "FACTS §F.4 / §D.5 state the mask-byte range (< 64 or the 255 'untouched' marker) without a predicate name: the id names that condition."),

	// ---- MEMSET (FACTS §F.4) ----
	Rule(RuleMemsetSerializationMode, "serialization_mode must be Serial; tpbsim takes Serial = 0.", "FACTS §F.4", LowInferred, flds("serialization_mode"),
		"The enum's numeric values are not in the sources; 0 is what a zero-filled compiler bundle carries."),
	Rule(RuleMemsetSetValueFitsDtype, "set_value: a 2-byte dtype needs the high 16 bits zero, a 1-byte dtype the high 24.", "FACTS §F.4", HighObserved, flds("set_value", "dtype"), "FACTS §F.4 states set_value's width condition per dtype in prose, without a predicate name: the id names that condition."),
	Rule(RuleMemsetDstElementCount, "dst_element_count == count(dst pattern) (unless the shape comes from a register).", "FACTS §F.4", MedInferred,
		flds("dst_element_count", "dst_mem_pattern.num_elem"), "The sources give the field, not its rule; equality is the plausible reading."),

	// ---- DMA (FACTS §C.2-§C.5) ----
	Rule(RuleIsValidAddr8, "Each ADDR8 uses a known marker combination (no VAR_ID, table-offset bits only with an address table, bits 56..57 zero), a register number < 64 in register mode, and an immediate address inside tpbsim's address map (HBM below 1<<47, or SBUF/PSUM in the on-chip window).",
		"FACTS §C.2, §C.6, §G.8", MedInferred, flds("src_start_addr", "dst_start_addr"), "The predicate body is not in the sources; the address map is tpbsim's (isa.addr8_address_map)."),
	Rule(RuleIsValidDGEShapeReg, "With the SHAPE_REG marker, step_elem[0] names a DGE shape register (0..3).", "FACTS §C.2, §C.6", LowInferred,
		flds("src_start_addr", "src_step_elem", "dst_start_addr", "dst_step_elem"), "Body not found: tpbsim reads the call is_valid_dge_shape_reg(addr, step_elem[0]) as 'step_elem[0] is the register index'."),
	Rule(RuleZeroNumStepElemShapeRegMode, "DMA_DIRECT2D with a shape register: num_elem[0..1] == 0 and step_elem[1] == 0.", "FACTS §C.2", HighObserved,
		flds("src_num_elem", "src_step_elem", "dst_num_elem", "dst_step_elem"), ""),
	Rule(RuleZeroNumElemShapeRegMode, "DMA_INDIRECT1D with a shape register: num_elem == 0.", "FACTS §C.3", HighObserved, flds("src_num_elem", "dst_num_elem"), ""),
	Rule(RuleAreValidMemcpyDtypes, "in_dtype passes is_valid_dtype (no FP32R), out_dtype is_valid_dtype (FP32R allowed).", "FACTS §C.2", MedInferred, flds("in_dtype", "out_dtype", "compute_op"),
		"Body not found: the S4D4_TR dtype gates are reused."),
	Rule(RuleHasValidBoundCheckReg, "A BOUND_CHECK_REG with bc_enabled clear is all zero; in wide-offset mode (ADDR8 marker 0x04) bc_reg < 63 so bc_reg+1 exists.",
		"FACTS §C.6", LowInferred, flds("src_bound_reg", "dst_bound_reg"), "Body not found; these are the only constraints the field layout implies."),
	Rule(RuleHasValidIdxBoundCheckReg, "As has_valid_bound_check_reg, for the index bounds of DMA_INDIRECT1D.", "FACTS §C.3", LowInferred, flds("src_idx_bound_reg", "dst_idx_bound_reg"), "Body not found."),
	Rule(RuleHasValidIdxBoundCheckRegNoFlags, "DMA_GATHER_XPOSE index bound: with bc_enabled clear the byte is all zero; it is the variant without the ADDR8 marker flags "+
		"(an index has no wide-offset mode, so bc_reg+1 is not needed). bc_disable_oob_error_notif is legal: it makes an index at or above the register skip its row (NKI oob_mode=skip).",
		"FACTS §C.4 (\"no flags\" variant); NKI.md (oob_mode.skip with indirect indexing)", LowInferred, flds("src_idx_bound_reg"),
		"'no flags' is read as 'no marker flags argument' (has_valid_bound_check_reg takes the ADDR8 marker's wide-offset flag, the index's ADDR4 has none); "+
			"the earlier reading, bc_disable_oob_error_notif must be clear, made NKI's oob_mode=skip unreachable for gather-transposes, which NKI documents (tpbsim explain conflicts)"),
	Rule(RuleIsValidDGEComputeOp, "compute_op is NONE, ADD, MULTIPLY, MAX or MIN (0..4).", "FACTS §C.6", HighObserved, flds("compute_op"), ""),
	Rule(RuleIsValidDMAConfigs, "dma_configs: priority_class 0..4, reserved bits zero.", "FACTS §C.2, §C.6", HighObserved, flds("dma_configs"), ""),
	Rule(RuleIsValidDMAMemcpyDirectWithoutCCE, "Plain copy (in == out, compute_op NONE): src_num_elem[0]*[1]*src_elem_size == the same product for dst (elem_size 0 = 64 KiB).",
		"FACTS §C.2", HighObserved, flds("src_num_elem", "src_elem_size", "dst_num_elem", "dst_elem_size"), ""),
	Rule(RuleIsValidDMACCE, "Cast or reduce-on-copy (in != out or compute_op != NONE): element sizes equal the dtype sizes, equal element counts, start addresses aligned to the dtype sizes.",
		"FACTS §C.2, §G.8", LowInferred, flds("src_elem_size", "dst_elem_size", "src_num_elem", "dst_num_elem", "src_start_addr", "dst_start_addr"),
		"The CCE alignment numbers are not in the sources; dtype-size alignment is the plausible minimum."),
	Rule(RuleCheckDMAIndirectIndices, "idx_num_active_channels == 128.", "FACTS §C.3, §C.4", HighObserved, flds("idx_num_active_channels"), ""),
	Rule(RuleHasDMAIndirectValidIdxStartAddr, "An active index leg's ADDR4 (not register mode) is 4-byte aligned (UINT32 indices).", "FACTS §C.3", MedInferred,
		flds("src_idx_start_addr", "dst_idx_start_addr", "flags.indirect_mode"), "Body not found; UINT32 index alignment."),
	Rule(RuleHasDMAIndirectIdxAddrInSBUFPartition0, "An active index leg's address is a register or lies in SBUF partition 0 (inside the active size).", "FACTS §C.3", HighObserved,
		flds("src_idx_start_addr", "dst_idx_start_addr", "flags.indirect_mode"), ""),
	Rule(RuleIsValidDMAIndirectOperation, "Without CCE (in == out, compute_op NONE) src_elem_size == dst_elem_size; with CCE the element sizes hold whole elements of the same count.",
		"FACTS §C.3", LowInferred, flds("src_elem_size", "dst_elem_size", "in_dtype", "out_dtype", "compute_op"), "Split of memcpy-without-CCE vs CCE is OBSERVED; the size arithmetic is tpbsim's."),
	Rule(RuleHasValidIndirectDimByMode, "indirect_mode is 0..2; SRC_INDIRECTION has scatter_dim 0, DST_INDIRECTION gather_dim 0.", "FACTS §C.3", HighObserved,
		flds("flags.indirect_mode", "flags.gather_dim", "flags.scatter_dim"), ""),
	Rule(RuleIndirectDimCheck, "Without a shape register the indexed dim of an active leg must be X.", "FACTS §C.3", HighObserved, flds("flags.gather_dim", "flags.scatter_dim"), ""),
	Rule(RuleHasDMAIndirectValidIndexCount, "At most 4096 indices per active leg (unless the shape comes from a register).", "FACTS §C.3", HighObserved, flds("src_num_elem", "dst_num_elem"), ""),
	Rule(RuleDMAIndirectReservedZero, "reserved[2] == 0.", "FACTS §C.3", HighObserved, flds("reserved"), "FACTS §C.3's layout marks the two trailing bytes reserved (zero) without a predicate name; the id keeps a nonzero reserved byte from passing silently."),
	Rule(RuleGatherXposeDstInSBUF, "DMA_GATHER_XPOSE writes SBUF: an immediate dst_start_addr is an SBUF address.", "FACTS §C.4", MedInferred, flds("dst_start_addr"),
		"Depends on tpbsim's on-chip window (isa.addr8_address_map)."),
	Rule(RuleIsValidGatherTransposeDtype, "dtype_lo and dtype_hi are 2-byte dtypes and equal (BF16/FP16, no cast).", "FACTS §C.4", HighObserved, flds("dtype"), "FACTS §C.4 quotes the header's dtype condition (2-byte, lo == hi) without its predicate's exact name; the id follows the header's is_valid_* naming."),
	Rule(RuleGatherXposeElemSize, "elem_size is even and 2..256.", "FACTS §C.4", HighObserved, flds("elem_size"), "FACTS §C.4 lists elem_size even and 2..256 among GATHER_XPOSE's conditions without a predicate name: the id names that clause."),
	Rule(RuleGatherXposeSrcAligned, "src_start_addr % 2 == 0.", "FACTS §C.4", HighObserved, flds("src_start_addr"), "FACTS §C.4 lists src_start_addr % 2 == 0 among GATHER_XPOSE's conditions without a predicate name: the id names that clause."),
	Rule(RuleGatherXposeDstAligned, "dst_start_addr % 32 == 0.", "FACTS §C.4", HighObserved, flds("dst_start_addr"), "FACTS §C.4 lists dst_start_addr % 32 == 0 (the xbar's 32-byte beat) without a predicate name: the id names that clause."),
	Rule(RuleGatherXposeSrcIdxAligned, "src_idx_start_addr % 4 == 0.", "FACTS §C.4", HighObserved, flds("src_idx_start_addr"), "FACTS §C.4 lists src_idx_start_addr % 4 == 0 (uint32 indices) without a predicate name: the id names that clause."),
	Rule(RuleGatherXposeGatherDimY, "flags.gather_dim == Y.", "FACTS §C.4", HighObserved, flds("flags.gather_dim"), "FACTS §C.4 lists gather_dim == Y without a predicate name: the id names that clause."),
	Rule(RuleGatherXposeFlagsReservedZero, "flags.reserved == 0.", "FACTS §C.4", MedInferred, flds("flags.reserved"), "Reserved bits are zero elsewhere; not stated here."),
	Rule(RuleGatherXposeSrcRowsMultiple16, "src_num_elem[1] % 16 == 0.", "FACTS §C.4", HighObserved, flds("src_num_elem"), "FACTS §C.4 lists src_num_elem[1] % 16 == 0 (whole 16-row xbar tiles) without a predicate name: the id names that clause."),
	Rule(RuleGatherXposeIndexCount, "src_num_elem[1] == dst_num_elem[0] (the number of indices).", "FACTS §C.4", HighObserved, flds("src_num_elem", "dst_num_elem"), "FACTS §C.4 lists src_num_elem[1] == dst_num_elem[0] (the number of indices) without a predicate name: the id names that clause."),
	Rule(RuleGatherXposeDstStep, "dst_step_elem_1, in dtype_hi elements, spans a multiple of 32 bytes (16 elements of a 2-byte dtype), or dst_num_elem[1] == 1.", "FACTS §C.4, seed 003 §3.3", MedInferred, flds("dst_step_elem_1", "dst_num_elem"),
		"FACTS §C.4 and seed 003 §3.3 give \"dst_step_elem[1] % 32 == 0\" (an xbar HW constraint, beside dst_start_addr % 32) and FACTS the OR dst_num_elem[1] == 1 arm, without a predicate name. The constraint's reason is that each transposed destination row starts on the crossbar's 32-byte beat; tpbsim counts the step in elements of dtype_hi and checks the bytes it spans, as the DGE's planner does (conflict gather_xpose_dst_step_unit)."),
	Rule(RuleGatherXposeReservedZero, "reserved[3] == 0.", "FACTS §C.4", MedInferred, flds("reserved"), "Reserved bytes are zero elsewhere; not stated here."),
	Rule(RuleDMAXposeTileSrcRows, "DMA_TRANSPOSE: tile_src_rows == 16.", "FACTS §C.5", HighObserved, flds("tile_src_rows"), "FACTS §C.5 states tile_src_rows == 16 for the partial 0xBD layout without a predicate name: the id names that clause."),
	Rule(RuleDMAXposeTileSrcCols, "DMA_TRANSPOSE: tile_src_cols is 1..128 for a 2-byte out_dtype, 1..64 for a 4-byte one; other out_dtype sizes are rejected.",
		"FACTS §C.5", HighObserved, flds("tile_src_cols", "out_dtype"), "Rejecting other dtype sizes is tpbsim's (INFERRED: the crossbar moves 2- or 4-byte cells)."),

	// ---- behaviours ----
	Behaviour("isa.addr8_address_map", "An immediate ADDR8 below 1<<47 is HBM; 1<<47 + an ADDR4-style 29-bit on-chip address is SBUF/PSUM of this NeuronCore (DMALocalBase).",
		"DESIGN.md §1", Invented, "The sources give ADDR8's markers but not the device address map; any fixed map works for a model, and this one keeps HBM addresses readable."),
	Behaviour("isa.loop_order", "TENSOR4D walks with dim 0 innermost; each active channel c walks partition start+c.",
		"FACTS §B.4, DESIGN.md §1", MedInferred, "'the usual reading is dim 0 innermost'; the footprint check does not depend on it."),
	Behaviour("isa.footprint_check", "tensor4d_footprint walks min/max offsets over the 4 dims with signed steps and requires the touched bytes (dtype width; 4-bit types round outwards) inside the active partition size.",
		"FACTS §B.3-§B.5", MedInferred, "'per-rank extent rules' are not spelled out; the active-area rule (addr_in_sbuf_partition) applied to every touched byte is the strictest plausible reading."),
	Behaviour("isa.maverick_fp8_exp2_alignment", "On MAVERICK, addr_aligned_dtype gives FP8_EXP2 (0x11) the 1-byte alignment class, so tensor4d_valid can place it.",
		"FACTS §A.1 (width rule: alignment = element size; FP8_EXP2 is 1 byte), §B.3", MedInferred,
		"FACTS §B.3's class list (read from pre-MAVERICK headers) names no MAVERICK code, which would make FP8_EXP2, the one MAVERICK code is_valid_dtype admits, legal yet never placeable; the MAVERICK header's list was not found. The other MAVERICK codes (INT4, SFP8_*) stay without a class: is_valid_dtype refuses them on MAVERICK."),
	Behaviour("isa.decode_total", "Every 64-byte word decodes; an opcode without a modelled struct (or unknown) decodes as Raw with all bytes kept; Encode(Decode(b)) == b for any b; unknown bytes of MEMSET and DMA_TRANSPOSE are kept raw.",
		"DESIGN.md §3", HighObserved, ""),
	Behaviour("isa.validation_order", "Validation checks opcode presence, then has_valid_neuron_header, then has_valid_neuron_events, then the opcode's rules in header order, and reports every violation; an opcode absent on the generation (or unknown) reports only that.",
		"FACTS §F.2", HighInferred, "The runtime stops at the first failure; tpbsim continues so a user sees everything, except where the struct itself does not exist."),
	Behaviour("isa.raw_unchecked", "For an opcode tpbsim names but has no struct for, only the header and events are validated; check says 'unsupported'.",
		"DESIGN.md §3", Invented, "tpbsim cannot check what it does not model, and must not call such a word invalid."),
}

var registryIndex = func() map[string]int {
	m := map[string]int{}
	for i, p := range registry {
		m[p.ID] = i
	}
	return m
}()

// Registry returns every registry entry of the instruction layer, rules first, in a stable
// order. The slice is a copy. (Other packages call theirs Provenance(); here that name is the
// entry type, so cmd/tpbsim's provenanceSources lists isa.Registry.)
func Registry() []Provenance {
	out := make([]Provenance, len(registry))
	copy(out, registry)
	return out
}

// Lookup finds a registry entry by id.
func Lookup(id string) (Provenance, bool) {
	i, ok := registryIndex[id]
	if !ok {
		return Provenance{}, false
	}
	return registry[i], true
}

// inferredFor lists the opcodes a HIGH/OBSERVED rule is applied to by inference only (the rule
// text says so): a violation on one of them carries MED/INFERRED, not the rule's own grade.
var inferredFor = map[string][]Opcode{
	RuleS4D4TRSameSrcDstType:           {OpTENSOR_REDUCE_BITVEC_OP, OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP},
	RuleHasMultiple32Channels:          {OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP},
	RuleHasTransposeSrcElementCountT4D: {OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP},
}

// LookupFor is Lookup for a violation on opcode op: where the rule reaches op only by
// inference, the entry's Confidence is MedInferred.
func LookupFor(id string, op Opcode) (Provenance, bool) {
	p, ok := Lookup(id)
	if !ok {
		return p, false
	}
	for _, o := range inferredFor[id] {
		if o == op {
			p.Confidence = MedInferred
		}
	}
	return p, true
}

func ids[T any](c []check[T]) []string {
	out := make([]string, 0, len(c))
	seen := map[string]bool{}
	for _, x := range c {
		if !seen[x.id] {
			seen[x.id] = true
			out = append(out, x.id)
		}
	}
	return out
}

// RuleSet lists, in evaluation order, the rule ids Validate applies to opcode op on generation
// g; nil when op does not exist on g (only opcode_on_generation applies then).
func RuleSet(op Opcode, g Generation) []string {
	if !op.InGen(g) {
		return nil
	}
	out := []string{RuleOpcodeOnGeneration, RuleHasValidNeuronHeader, RuleHasValidNeuronEvents}
	return append(out, ruleListIDs(op.Struct(), op)...)
}

// RuleIDs lists every rule id any validator can emit, sorted.
func RuleIDs() []string {
	set := map[string]bool{RuleGeneration: true, RuleInstNBytes: true, RuleOpcodeOnGeneration: true, RuleHasValidNeuronHeader: true, RuleHasValidNeuronEvents: true}
	for _, id := range allRuleListIDs() {
		set[id] = true
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
