package dve

import "github.com/tpbsim/tpbsim/isa"

// The executor's own rule ids (each registered once, in Provenance). A DVE *Error carries one of
// them, a rule of the ISA (isa.Registry: the validator's own violation, see Error), or the
// memory's (mem.RuleIDs).
const (
	RuleInstGiven               = "dve_inst_given"
	RuleMemoryGiven             = "dve_memory_given"
	RuleMemoryAccess            = "dve_memory_access"
	RuleGenerationMatches       = "dve_generation_matches"
	RuleOpcodeModelled          = "dve_opcode_modelled"
	RuleALUOpModelled           = "dve_alu_op_modelled"
	RuleBitvecIntegerDtype      = "bitvec_integer_dtype"
	RuleIntALUOpIntegerDtype    = "int_aluop_integer_dtype"
	RuleTransposeCellWidth      = "transpose_cell_width"
	RuleStreamShuffleMaskLoaded = "stream_shuffle_mask_loaded"
	RuleMaxStreamBytes          = "dve_max_stream_bytes"
	RuleExecutable              = "dve_executable"
)

// RuleIDs lists the executor's own rule ids (the ISA's and the memory's are in isa.Registry and
// mem.RuleIDs).
func RuleIDs() []string {
	return []string{RuleInstGiven, RuleMemoryGiven, RuleMemoryAccess, RuleGenerationMatches, RuleOpcodeModelled, RuleALUOpModelled,
		RuleBitvecIntegerDtype, RuleIntALUOpIntegerDtype, RuleTransposeCellWidth, RuleStreamShuffleMaskLoaded, RuleMaxStreamBytes,
		RuleExecutable}
}

// Provenance lists every INFERRED or INVENTED behaviour of the DVE executor, for the rule and
// provenance registry (`tpbsim explain`). It returns a fresh slice on each call.
func Provenance() []isa.Provenance {
	b := isa.Behaviour
	r := isa.Rule
	return []isa.Provenance{
		b("dve.memset", "MEMSET (0x49) writes set_value's low dtype-width bytes, as the element's raw bits, to every element of the dst walk of each of the num_active_channels channels; "+
			"the struct bytes FACTS leaves undescribed (12..27, 33, 35, 37..39) are not read.",
			"FACTS §F.4 (dst_element_count, dtype, num_active_channels, set_value, dst_mem_pattern)", isa.MedInferred,
			"memset_set_value_fits_dtype keeps set_value's high bits zero for narrow dtypes, which fits a raw-bits immediate; a float converted from an integer immediate would need a second dtype the struct does not have."),
		b("dve.transpose_mapping", "StreamTranspose: for each channel c the src walk yields a stream S_c of E elements; within channel group g and element tile t, "+
			"O[32g+i][32t+j] = S[32g+j][32t+i]; the dst walk consumes O_c in order and elements past it are dropped. Cells are raw bytes of the dtype width.",
			"seed 000 §5.1; FACTS §D.5; DESIGN.md §4", isa.HighInferred,
			"The 32x32 geometry is header-OBSERVED; streaming the tiles in walk order (element tile t = stream elements 32t..32t+31) is the reading that makes same_or_fewer and a 4-D walk meaningful."),
		b("dve.transpose_loop_order", "The transpose tiles the flattened walk (dim 0 innermost), not the individual dims: tile t is stream elements 32t..32t+31 whatever the 4-D shape.",
			"FACTS §G.5", isa.MedInferred, "The loop order of the 32x32 tiling over a 4-D pattern was not found; has_transpose_src_element_count_t4d constrains only the product of num_elem, which fits tiling the flattened stream."),
		b("dve.transpose_butterfly", "The faithful model transposes each tile in 5 dual-output DSEL stages (stage s swaps lane blocks of width 1<<s between registers 1<<s apart) on "+
			"2NX8 (two tiles per register set), NX16, and N_2X32 (a row in two registers; stage 4 swaps whole registers).",
			"seed 000 §5.2-§5.4", isa.HighInferred, "The firmware body is FLIX-desynced; the textbook butterfly on the recovered dsel primitives is the seed's own reconstruction."),
		b("dve.mask_enable_geometry", "mask_enable = 1 changes nothing beyond what same_or_fewer already does: only the elements the dst walk covers are written, so a partial last tile "+
			"writes only its live lanes; lanes past the dst walk are never written.", "seed 000 §4.2, §8 (MED)", isa.MedInferred,
			"The exact lane-kill geometry is not decoded. The compiler sets mask_enable = 1 whenever it emits a StreamTranspose with a 0x69 companion; the least surprising reading is that the mask kills the padding lanes of a partial tile, which the dst walk length already expresses."),
		b("dve.overlap", "When an instruction's source and destination overlap, it behaves as if it read its whole source before writing (in-place transpose, shuffle, copy and cast are well defined).",
			"NKI.md (nc_stream_shuffle: in-place allowed)", isa.Invented,
			"The hardware streams tile by tile and its behaviour on partial overlaps is not documented; read-before-write gives the result a user computing with numpy expects."),
		b("dve.reduce_shape", "TensorReduce / TransposeTensorReduce: op_dim X, XY, XYZ, XYZW covers the innermost 1..4 src dims; the src stream (dim 0 innermost) is cut into groups of "+
			"G = product of those num_elem consecutive elements, each reduced to one result, and the dst walk must have exactly count(src)/G elements, written in order. "+
			"For TransposeTensorReduce the groups are cut from the transposed stream with the src pattern's num_elem.",
			"FACTS §F.1 (axis + 2, innermost dims), §G.3", isa.MedInferred,
			"The compiler maps BIR axes to op_dim = axis + 2 and reduces innermost loop dims; the exact collapse predicate was not found, so the dst shape is free and only its element count is checked."),
		b("dve.alu_fold", "Reductions and scans fold left in walk order: acc = x0, then acc = op(acc, x) with acc as src0 and the element as src1; single-source ops (BYPASS, "+
			"ABSOLUTE_VALUE, RE_LU, SQUARE, RSQRT, BITWISE_NOT) act on src0, so BYPASS keeps the first element. "+
			"Consequence for those single-source ops: every element after x0 is ignored, and the op is applied G-1 times to x0 for a group of G "+
			"(a group of one is x0 unchanged): ABSOLUTE_VALUE over [-3] gives -3, over [-3, 5, -7] gives 3; SQUARE over [-3, 5, -7] gives 81; "+
			"a scan emits x0, op(x0), op(op(x0)), ...",
			"FACTS §A.2, §D.5 (\"order not architecturally guaranteed\"; TensorCumulative out[i] = out[i-1] op in[i])", isa.LowInferred,
			"The hardware's fold order and operand roles are not documented; a left fold in walk order is deterministic and what a sequential reference computes, "+
				"and acc as src0 is FACTS' scan formula. A single-source op has no meaning as a fold (numpy refuses abs.reduce); the validator accepts "+
				"ABSOLUTE_VALUE, BYPASS (and RE_LU, SQUARE on MARIANA+) as reduce ops, so the model runs them by the same fold rather than refusing them, "+
				"and its results for them are artefacts of that rule, not evidence."),
		b("dve.reduce_fp32", "Arithmetic reduce and scan ops compute in FP32 with rounding after every step (inputs widened by num.LoadF32), then the result is cast to out_dtype "+
			"(num.StoreF32: RNE into floats, toward zero saturating into integers); negated (TensorReduce arith only) multiplies the final result by -1 before the cast. "+
			"A NaN result is the default NaN 0x7FC00000 before the cast (num.alu_nan).",
			"DESIGN.md §4; NKI.md tensor_reduce", isa.MedInferred, "NKI documents FP32 arithmetic then a cast; negation after the fold is NKI's negate = multiply the result by -1."),
		b("dve.int_band_ops", "Integer-band ALU ops (ADD_INT, MAX_INT, ...) fold on 64-bit words: the inputs extended by their dtype's sign, UINT64 as its bits; "+
			"the _UINT ops (MAX_UINT, MIN_UINT, IS_*_UINT, DIVIDE_UINT, MOD_UINT, MULT_UINT) compare and compute on the words unsigned, the others signed; "+
			"arithmetic wraps modulo 2^64; x/0 and x%0 give 0; negated negates the word. A result is stored saturated to the out dtype's range as the value of its word "+
			"read unsigned when the input is UINT64 (2^63 and above store an unsigned or signed out dtype's maximum), else read signed (a negative result stores 0 "+
			"into every unsigned out dtype, UINT64 included). So SUBTRACT_INT 5 - 7 into UINT32 stores 0 from UINT32 inputs (-2) but 0xFFFFFFFF from UINT64 inputs "+
			"(the wrapped 2^64 - 2).",
			"FACTS §A.2", isa.Invented, "The DVE integer datapath width and overflow rules are not documented. Every input value but UINT64's fits an int64, "+
				"whose signed reading the band has; a UINT64 input's words are uint64 values, which is how numpy's uint64 arithmetic reads them, and storing "+
				"2^63 and above as the negative int64 their bits spell would turn a large unsigned maximum into 0."),
		b("dve.bitvec_shift", "Bitvec ops work on the raw bits of the input dtype; shift amounts are taken modulo the element width; ARITH_SHIFT_RIGHT sign-fills at the element width; "+
			"results are truncated to the output width.", "FACTS §A.2", isa.Invented, "Shift-amount handling is not documented; modulo width is what most SIMD units do."),
		b("dve.cumulative", "TensorCumulative is an inclusive scan restarting at every op_dim group (the same groups as TensorReduce); output count == input count; no carry between instructions.",
			"FACTS §D.5 (inclusive vs exclusive MED)", isa.MedInferred, "The scan twin of TensorReduce on the same struct; inclusive per the tensorcumulative page."),
		b("dve.cast", "Cast goes through FP32: round to nearest even into floats, toward zero and saturating into integers, NaN -> 0 (num.ConvertSlice).",
			"DESIGN.md §4; FACTS §D.5; num provenance", isa.MedInferred, "numpy astype semantics for the rounding; saturation on narrowing is MED per FACTS §G.11."),
		b("dve.reciprocal", "Reciprocal computes 1/x in FP32 (x widened by num.LoadF32), correctly rounded, then casts to out_dtype; a NaN result is the default NaN (num.alu_nan).",
			"FACTS §D.5; NKI.md reciprocal", isa.MedInferred, "The firmware seeds with IVP_RECIP0 and refines to about FP32 precision; exact IEEE division is the reference value it approximates."),
		b("dve.shuffle_no_mask", "STREAM_SHUFFLE with no LOAD_MASK_SELECT executed before it on the same DVE fails (rule stream_shuffle_mask_loaded, fault.ErrInvalid) and writes nothing.",
			"FACTS §D.5, §G.6", isa.Invented, "The mask register's reset value is unknown; failing names the missing instruction instead of inventing a mask."),
		b("dve.shuffle_mask_high", "Mask entries 32..63 (legal for LOAD_MASK_SELECT) select input channel entry mod 32 of the same 32-channel group; 0xFF leaves the output channel untouched.",
			"FACTS §F.4; NKI.md nc_stream_shuffle", isa.Invented,
			"NKI documents shuffles as quadrant-local; the validator's < 64 bound probably reflects a 64-lane select, whose upper half we cannot place, so entries stay inside the group."),
		b("dve.shuffle_mask_persistence", "The mask register keeps the last LOAD_MASK_SELECT's 32 entries until the next one (or DVE.Reset); the same mask serves every 32-channel group.",
			"NKI.md nc_stream_shuffle; FACTS §D.5", isa.MedInferred, "NKI: the same mask serves every quadrant; the compiler emits the 0x69 companion next to each shuffle."),
		b("dve.reduce_bf16_sunda", "SUNDA's TENSOR_REDUCE_ADD_BF16 / _MAX_BF16 (0x8C/0x8D) run as arithmetic TensorReduce with op ADD / MAX (op@36 ignored) and op_dim UNUSED read as X.",
			"FACTS §D.2", isa.LowInferred, "Only their validity rules are known; their names say what they compute."),
		b("dve.dst_self_overlap", "When an instruction's destination walk names the same bytes more than once (a step-0 or overlapping dst pattern, e.g. dst=[8@0]), "+
			"every element is written in walk order (channel by channel, dim 0 innermost) and the last write wins: COPY with dst=[8@0] leaves the source's element 7.",
			"none (the seeds and FACTS do not say what an overlapping destination walk does)", isa.Invented,
			"the hardware streams the destination in walk order, so a later element plausibly overwrites an earlier one; the model writes that way on every path (channels "+
				"run on distinct partitions, so parallel transposes cannot reorder writes to one byte) and the result is deterministic"),
		b("dve.effect_spans", "Effect reports one bounding box per pattern (partitions x byte range); bytes read/written count the elements actually walked.",
			"tpbsim (what a trace shows of an operand)", isa.Invented, "A strided pattern can touch millions of runs; a bounding box per operand is what a trace can show."),
		b("dve.parallel", "Large StreamTransposes (> 256 KiB) split work across channel groups and tile ranges on up to GOMAXPROCS goroutines; results are identical to the serial path.",
			"tpbsim (host performance)", isa.Invented, "Host performance only; no architectural effect."),

		// The executor's own rules (RuleIDs); the ISA's predicates are in isa.Registry.
		r(RuleInstGiven, "DVE.Execute needs an instruction (a caller error, not an ISA rule).", "tpbsim", isa.Invented, nil,
			"the executor reports a nil instruction instead of panicking"),
		r(RuleMemoryGiven, "DVE.Execute needs a memory to run against (a caller error, not an ISA rule).", "tpbsim", isa.Invented, nil,
			"the executor reports a nil memory instead of panicking"),
		r(RuleMemoryAccess, "The memory refused an operand access for a reason without a memory rule of its own (memory errors normally keep their own rule, e.g. pattern_in_active_area).",
			"tpbsim", isa.Invented, []string{"src_mem_pattern", "dst_mem_pattern"}, "a fallback so every executor error names a registered rule"),
		r(RuleGenerationMatches, "The instruction runs as a valid generation, the one the memory was built for (its geometry).", "tpbsim; FACTS §B.5", isa.Invented, nil,
			"one machine is one generation; mixing geometries would silently misplace partitions"),
		r(RuleOpcodeModelled, "The DVE executor runs the S4D4_TR family and LOAD_MASK_SELECT; another opcode (or a struct it does not decode) is not executable by tpbsim.",
			"tpbsim; FACTS §D.2", isa.Invented, []string{"header.opcode"}, "only the opcodes whose semantics FACTS and the seeds give are executed"),
		r(RuleALUOpModelled, "The reduce / scan op is one the DVE model computes for this opcode (arithmetic or bitvec band as the opcode requires).",
			"FACTS §A.2, §D.4", isa.MedInferred, []string{"op"}, "ops outside the documented bands have no known semantics"),
		r(RuleBitvecIntegerDtype, "A bitvec reduce or scan needs integer in and out dtypes: it works on the raw bits (see dve.bitvec_shift).",
			"FACTS §A.2, §D.4", isa.MedInferred, []string{"in_dtype", "out_dtype"}, "bit operations on float encodings are not documented; the integer band is"),
		r(RuleIntALUOpIntegerDtype, "An integer-band ALU op (ADD_INT, MAX_INT, ...) needs integer in and out dtypes (see dve.int_band_ops).",
			"FACTS §A.2", isa.MedInferred, []string{"op", "in_dtype", "out_dtype"}, "the _INT ops name an integer datapath; float operands have no documented meaning there"),
		r(RuleTransposeCellWidth, "A transpose moves 1-, 2- or 4-byte cells; other element widths are not executed.",
			"seed 000 §5; FACTS §D.5", isa.MedInferred, []string{"in_dtype"}, "the 32x32 transpose is documented for these widths only"),
		r(RuleStreamShuffleMaskLoaded, "STREAM_SHUFFLE needs a LOAD_MASK_SELECT executed earlier on the same DVE (see dve.shuffle_no_mask); without one it fails and writes nothing.",
			"FACTS §D.5, §G.6", isa.Invented, []string{"header.opcode"}, "the mask register's reset value is unknown; failing names the missing instruction instead of inventing a mask"),
		r(RuleMaxStreamBytes, "One S4D4_TR instruction streams at most DVE.MaxStreamBytes (default 1 GiB; the machine passes its own limit, sim.max_stream_bytes) "+
			"source plus destination bytes over all its channels: num_active_channels x (count(src) x width(in_dtype) + count(dst) x width(out_dtype)). A model limit, not a hardware rule.",
			"tpbsim", isa.Invented, []string{"num_active_channels", "src_mem_pattern.num_elem", "dst_mem_pattern.num_elem"},
			"the executor holds whole walks in host buffers (up to about twice this count); a step-0 pattern names up to 65535^4 elements in a few bytes, "+
				"so one valid instruction could otherwise exhaust host memory"),
		r(RuleExecutable, "The executor refuses an instruction whose operands break a rule it relies on (named in the message) although isa.Validate reports "+
			"no violation of it: a disagreement of the executor and the validator, reported instead of running into a panic. Never expected: "+
			"every such check of the executor is one of an ISA rule, whose own violation is reported when the validator finds it.",
			"tpbsim", isa.Invented, nil, "the executor trusts the validator but must never panic or corrupt memory on an instruction it was given unvalidated"),
	}
}
