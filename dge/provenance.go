package dge

import "github.com/tpbsim/tpbsim/isa"

// Provenance lists the DGE model's choices the seeds and FACTS do not pin down (the reshape
// enums, the spray, the fast path and credit mechanics, the log lines without a recovered
// format), with confidence and reason (DESIGN.md §3).
func Provenance() []isa.Provenance {
	b := isa.Behaviour
	r := isa.Rule
	return []isa.Provenance{
		b("dge.log_formats", "Every firmware line is printed with its recovered printf format: Analyzed tensor, Assessed (simple) tensor pair params, tensor_reshape_transpose tile_src_rows/cols, "+
			"BEFORE/AFTER working state, gen_spray_info, make_gather_pattern, push REGWRITE/GENERATE/DIMPUSH, Generating %i descriptors; ring_ndesc = %i, P%i: DGE DIRECT2D/INDIRECT/GATHER TRANSPOSE. "+
			"%X of step_target prints the 32-bit two's complement; a count or step beyond 32 bits (tpbsim's dge_shape is wider than the firmware's) prints in full, not wrapped; base prints the 29-bit on-chip address for SBUF/PSUM and the full device address for HBM.",
			"seed 003 §4; FACTS §C.7", isa.HighObserved, ""),
		b("dge.state_log_prefix", "The BEFORE/AFTER lines are printed with the prefix \"S: tensor_reshape_indirect_transpose \"; the seed elides it (\"...BEFORE:\").",
			"seed 003 §4.5", isa.LowInferred, "the lines belong to tensor_reshape_indirect_transpose; the exact prefix is not quoted"),
		b("dge.strategy_enum", "Reshape Strategy: 0 IDENTITY (same coalesced nest as the partner), 1 DIM_MERGE (fewer coalesced dims than the partner), 2 DIM_SPLIT (more), 3 TRANSPOSE (the source of a non-identity permutation).",
			"seed 003 §4.1 NOTE", isa.Invented, "the firmware's values are not byte-recoverable (FLIX desync); the four classes are the seed's taxonomy"),
		b("dge.kind_enum", "Reshape Kind: 0 DIRECT2D, 1 INDIRECT, 2 XBAR_TRANSPOSE, 3 GATHER_TRANSPOSE, 4 TRANSPOSE_SB2SB, 5 ELEMENT_STRIDED (a transpose without the crossbar). "+
			"Requested Reshape Kind of the source is the transpose kind when it is permuted, DIRECT2D otherwise; the destination always requests DIRECT2D.",
			"seed 003 §4.1 (requested_kind: DIRECT2D / INDIRECT / GATHER_XPOSE / sb2sb)", isa.Invented, "values not recoverable; order follows the DGE opcode enum then the v4+ kind"),
		b("dge.analysis_fields", "nelem_target = element count; step_target = the byte stride of the outermost coalesced dim, (%dP) = step_target / partition stride; base (%dP) = start partition; "+
			"Partition Range = last - first partition touched + 1; Num Partitions = distinct partitions touched; both 0 in HBM.",
			"seed 003 §4.1", isa.MedInferred, "the seed's annotated reconstruction: 'target stride (in partition units)', 'Partition Range spanned', '# SBUF partitions touched'"),
		b("dge.pair_assessment", "The simple pair assessment runs for DIRECT2D-kind requests when both tensors are in HBM or touch the same number of partitions (no partition remap); everything else runs the full one. "+
			"#DMA Avail = the DMA bits of MEMCOPY_DMA_CFG (all engines when 0); #DMA = min(#DMA Avail, splittable units, sem_increment when non-zero).",
			"seed 003 §4.2-§4.3; FACTS §C.7, §C.2 (sem_increment bounds # DMAs used)", isa.MedInferred, "the log fields name exactly these inputs"),
		b("dge.coalesce", "Both views are refined to a common loop nest walked in destination row-major order; levels whose steps chain on both sides merge (loop order is free for a copy); "+
			"the contiguous level folds into elem_size (largest divisor keeping elem_size <= 64 KiB and every other step a multiple). A request whose nests do not refine is one descriptor walking each nest.",
			"seed 003 §4.5-§4.6", isa.Invented, "makes a contiguous copy one descriptor per engine share"),
		b("dge.xbar_eligibility", "A permutation that moves the innermost axis is a crossbar transpose on CAYMAN and later when the element is 2 bytes (16x128 tiles) or 4 bytes (16x64), in == out, no compute_op, "+
			"the source is HBM or SBUF, and the destination is SBUF, 32-byte aligned, with every destination row a tile writes 32-byte aligned (the byte step of every level but the "+
			"destination-contiguous one a multiple of 32); from MARIANA_PLUS an SBUF source makes it TRANSPOSE_SB2SB. Otherwise (SUNDA, 1- or 8-byte elements, casts, compute ops, PSUM sources, "+
			"HBM or PSUM destinations, misaligned destinations) it is an element-strided DIRECT2D fallback and the plan says why; a DMA_TRANSPOSE instruction the crossbar cannot run is refused (dge_xpose_placement).",
			"seed 003 §3.3 (\"from HBM or SBUF ... writes the result to SBUF\"; dst_start_addr % 32, dst_step_elem[1] % 32, \"xbar HW constraint\"), §3.4, §6.4; FACTS §C.4, §C.5 (dst 32-B aligned); NKI.md dma_transpose (dst in SBUF)",
			isa.MedInferred, "the header constraints of the xbar; the row-step rule counts bytes (each transposed row starts on a 32-byte beat; dge.gather_xpose_dst_step)"),
		b("dge.direct2d_planner", "A DIRECT2D (DMAMEMCPY) instruction is planned as a request of its two views, by the same planner: a walk that transposes the innermost axis "+
			"therefore gets crossbar descriptors where dge.xbar_eligibility allows, and the others the request lowering's descriptors.",
			"seed 003 §3.1 (DIRECT2D: a strided 2-D copy), §4", isa.Invented,
			"the seed does not say whether the DGE reroutes a transposing DIRECT2D to the crossbar or walks it element by element; the bytes moved are the same either way, "+
				"only the descriptor count and the modelled time differ (sim's TestDMACrossbarTransposeRunsParallel relies on the crossbar form)"),
		b("dge.tiling", "Crossbar descriptors: rows = the destination-contiguous level in tiles of 16, columns = the source-contiguous level in tiles of 128 (64 for 4-byte); "+
			"one descriptor nest per tile shape: [rows][cols][column tiles][row tiles][other levels], the smallest levels beyond four unrolled.",
			"seed 003 §3.3, §4.4", isa.HighInferred, "the seed: walks the src in tile_src_rows x tile_src_cols tiles and emits a descriptor per tile-group"),
		b("dge.spray", "gen_spray_info / make_gather_pattern: the largest splittable level of each nest is split into units; the unit sequence is cut into one contiguous run per engine: engine e takes units while the next unit's midpoint lies within the fair share of what is left (remaining bytes / engines left), at least one unit and leaving one for each later engine (no engine idle while another has two units); the plain midpoint rule over total/n is used instead when it spreads bytes less. Bytes per engine differ by at most the largest unit (one tile). "+
			"is_our_tensor is the on-chip tensor of an HBM<->SBUF pair, else the destination; step_port = units per engine, step_half = the remainder; pattern = the engines given work, mask = the available engines.",
			"seed 003 §4.7; FACTS §C.7", isa.Invented, "the algorithms are not recovered; this one balances bytes within the largest unit and gives each engine one contiguous run (one descriptor per group it touches)"),
		b("dge.fast_path", "MARIANA_PLUS: every DIRECT2D / crossbar request takes dge_reshape_memcopy_transpose_fast: no REGWRITE, no separate gen_spray_info/make_gather_pattern lines (inlined), "+
			"a cheaper producer (25 ns vs 100 ns per descriptor), and wait_for_credit. MAVERICK has neither the fast path nor credits but keeps the sb2sb kind; REGWRITE is pushed on CAYMAN and MARIANA only.",
			"seed 003 §6; FACTS §C.7, §F.3", isa.MedInferred, "the seed's per-gen string presence map; the cost figures are INVENTED"),
		b("dge.wait_for_credit_log", "wait_for_credit has no recovered log format; tpbsim prints \"tpbsim: wait_for_credit: DMA[%d] ring full (%d descriptors in flight), waiting for credit\" where the producer must check credit "+
			"(the tpbsim: prefix, not the firmware's S:, marks it as invented in a diff against a device log) "+
			"(the engine's ring holds RingDepth pushed descriptors); the trace reports the actual wait.", "seed 003 §6.4", isa.Invented, "visible flow control"),
		b("dge.min_share", "A request of B bytes uses at most max(1, B/512) engines: no engine gets a share under 512 bytes.",
			"NKI.md (DMA efficiency)", isa.Invented, "spraying a few bytes over 16 engines costs 16 descriptor overheads for nothing"),
		b("dge.dma_cfg_zero", "MEMCOPY_DMA_CFG's DMA bitfield (low 16 bits) 0 means every DMA engine of the generation, and the plan says so; bits naming engines the generation lacks "+
			"(8..15 on MAVERICK's 8 engines) are refused (dge_dma_cfg_enables_engine), not cut. The queue bitfield (high 16 bits) assigns the descriptors of each engine to the enabled queues in turn (queue 0 when none is set). "+
			"MEMCOPY_CARVEOUT_CFG: the high 16 bits (max #descriptors per memcopy) are the ring depth of MARIANA_PLUS's wait_for_credit and have no effect elsewhere, the low 16 bits (per-partition "+
			"offset in #descriptors) have no effect (the descriptor RAM is not modelled); the plan notes either when set.",
			"seed 003 §8 (AWS_NEURON_ISA_XT_MEMCOPY_DMA_CFG = 40, MEMCOPY_CARVEOUT_CFG = 39 and their halves); FACTS §C.7", isa.Invented,
			"the header names the halves but not what 0 means; an all-zero bitfield that enabled nothing would make every default request fail, so 0 reads as the generation's full set"),
		b("dge.backend_select", "After the pair assessment (and the transpose's BEFORE/AFTER and tile lines) the backend selector runs (seed 003 §7: Pool | RTL | software | NO-BACKEND): "+
			"from CAYMAN every request and DMA instruction selects Pool and logs \"S: DGE: Select backend Pool\" before the spray and emission; SUNDA (no DGE setup, backend or emitter) is NO-BACKEND, without a line. "+
			"`dge plan` prints the backend and `plan --json` has it under \"backend\".",
			"seed 003 §7 (the @0xf9b0 anchor: backend[Pool].available tested first; the string at MP NX DRAM VA 0x83197), §1 (gather_xpose.h: SW-DGE backend on the Q7 processors of GpSimd), §6.1",
			isa.MedInferred, "the availability table is run-time state (BSS); the POOL/Q7 firmware tpbsim models is the Pool backend, and the RTL and software arms have no recovered log line"),
		b("dge.push_order", "The producer pushes descriptors round robin over the engines: descriptor 0 of every engine with work, then descriptor 1, ... (dma.RoundRobin); the micro-op streams, "+
			"the push log lines and wait_for_credit follow that order.", "seed 003 §4.6-§4.7 (pushes per DMA[d]; the order is not shown)", isa.Invented,
			"spreads the first descriptors over every engine before any engine gets a second, so all engines start at once"),
		b("dge.ring_ndesc_unbounded", "\"Generating %i descriptors; ring_ndesc = %i\" prints, per engine with work, its descriptor count and the ring depth; without a ring (every generation but "+
			"MARIANA_PLUS) ring_ndesc is the engine's own descriptor count.", "FACTS §C.7 (the format)", isa.Invented, "without credits the whole queue is one ring's worth"),
		b("dge.generate_sem", "GENERATE RD carries sem_num -1 (no semaphore); GENERATE WR names the request's semaphore only on the last descriptor of each engine, so each engine adds its share once.",
			"FACTS §C.7 (GENERATE ... sem_num=%i); seed 003 §7 ($S[%i]+=%i@dmacomplete)", isa.Invented, "a read completing signals nothing; the write of the last descriptor marks the engine's share done"),
		b("dge.do_indirection", "gen_spray_info prints do_indirection=0 for every reshape request (a pair of tensor views has no index tensor); INDIRECT and GATHER TRANSPOSE instructions take their own path "+
			"and print no gen_spray_info lines.", "seed 003 §4.7 (the do_indirection input and the 'applying indirection reshape' arm)", isa.Invented,
			"tpbsim's index lowering does not go through the reshape spray, so the indirection arm is never taken"),
		b("dge.gather_xpose_dst_step", "The crossbar's row-step rule counts bytes: every destination row (and tile) the crossbar writes starts on a 32-byte beat, so a destination "+
			"step of n elements of s bytes needs n*s % 32 == 0 (dma.XbarRowAligned). One rule everywhere: the planner's crossbar placement for requests and DIRECT2D (dge.xbar_eligibility), "+
			"dma's crossbar descriptor check, PlanInst of DMA_TRANSPOSE (dge_xpose_placement) and of DMA_GATHER_XPOSE, and the ISA rule gather_xpose_dst_step, which reads "+
			"FACTS' dst_step_elem_1 % 32 == 0 as 32 bytes of dtype_hi elements (16 for BF16/FP16), so every crossbar word the planner plans is one check accepts.",
			"seed 003 §3.3 (dst_start_addr 32 B aligned \"and dst_step_elem[1] % 32 == 0 (xbar HW constraint)\"); FACTS §C.4 (\"dim-0 dst step is implicit = sizeof(dtype_hi)\")", isa.MedInferred,
			"the seed gives the step rule with the 32-byte start alignment as one hardware constraint of the crossbar, whose beat is 32 bytes, and FACTS counts the struct's implicit dim-0 step "+
				"in bytes (sizeof(dtype_hi)): read in elements the rule would ask 64-byte rows of 2-byte elements for no hardware reason; tpbsim keeps reading the field itself in elements "+
				"of dtype_hi (dma.gather_xpose.mapping)"),
		b("dge.ring_depth_default", "MEMCOPY_CARVEOUT_CFG = 0 means a 64-descriptor ring.", "FACTS §C.7", isa.Invented, "no default is documented"),
		b("dge.sunda", "SUNDA has no DGE Reshape lines and no DGE emitter: tpbsim lowers its requests to DIRECT2D descriptors without firmware log lines and a transpose to the element-strided fallback, and says so.",
			"seed 003 §6.1", isa.HighObserved, ""),
		b("dge.direct2d_xpose_layout", "DMA_TRANSPOSE (0xBD): src_start_addr (ADDR8) at byte 16, dst_start_addr (ADDR8) at 40, dst_row_step (int32, elements; 0 = one SBUF partition) at 48; "+
			"one tile of tile_src_rows x tile_src_cols. asm, disasm, disasm --json and explain name these three fields (the isa layout), run executes them, and check makes run's DGE checks on them "+
			"(so a word run refuses, e.g. for overlapping src and dst, is invalid in check too).",
			"FACTS §C.5 (partial layout: bytes 16..35 and 40..59 undescribed); FACTS §C.2 (DIRECT2D: src ADDR8 at 16, dst ADDR8 at 40, dst_step_elem at 48)", isa.LowInferred,
			"the offsets are not captured; the DMA structs of one family put src ADDR8 at 16 and dst ADDR8 at 40 (DIRECT2D, GATHER_XPOSE), and DIRECT2D's dst step at 48"),
		b("dge.direct2d_units", "A DIRECT2D whose src and dst elem_size differ without a cast is lowered in units of gcd(src_elem_size, dst_elem_size) bytes (only total bytes must match).",
			"FACTS §C.2 (src_num*src_elem == dst_num*dst_elem)", isa.MedInferred, "the validator checks byte totals only"),
		b("dge.gather_xpose_semaphore", "GATHER_XPOSE and DMA_TRANSPOSE have no sem_increment field: completion adds 1 to their semaphore.", "FACTS §C.4, §C.5", isa.LowInferred, "one completion event per instruction"),
		b("dge.dma_transpose_generations", "DMA_TRANSPOSE (0xBD) exists from CAYMAN: the isa opcode table marks it absent on SUNDA, so `check --gen SUNDA` reports "+
			"opcode_on_generation and `run --gen SUNDA` refuses the program with the same rule before anything runs. (A dge request — `tpbsim dge` — still "+
			"lowers a SUNDA transpose to the element-strided fallback: that is tpbsim's lowering, not the 0xBD instruction.)",
			"FACTS §C.1, §C.5 (silent on SUNDA), §C.7 (SUNDA: no DGE emitter, no transpose); seed 003 §3.4, §6.1", isa.MedInferred,
			"0xBD is the crossbar transpose descriptor (dge_op kind DMA_TRANSPOSE, tile_src_rows == 16); SUNDA has none of the machinery it names "+
				"(no tensor_reshape_transpose, no DGE emitter, no gather_xpose.h), so an instruction naming it cannot be what SUNDA runs; running it as an "+
				"element-strided copy would invent an instruction the generation does not show"),

		// The rules the DGE's errors name (RuleIDs).
		r(RuleViewValid, "Each view is a dge_shape the planner can walk: elem_size 1..64 KiB, every num_elem >= 1, steps within +-2^40 elements, at most 2^40 elements; "+
			"an HBM view's bytes stay below the on-chip window (0x800000000000 in the ADDR8 map); a CLI layout fits the region's partitions and its partition stride is a multiple of the element size.",
			"seed 003 §4.5 (dge_shape); FACTS §C.7", isa.MedInferred, []string{"src", "dst", "elem_size", "num_elem", "step_elem"},
			"the firmware's dge_shape is u16 elem_size, num_elem and i32 steps; tpbsim widens them so the ISA structs' 32-bit fields fit, and caps the size so planning arithmetic stays exact"),
		r(RulePartitionInRange, "An on-chip view (SBUF or PSUM, source or destination, of a request or of an ISA DMA instruction: DIRECT2D and DMA_TRANSPOSE views, "+
			"INDIRECT1D's extents of num_elem rows, GATHER_XPOSE's destination rows) stays inside the region its first element is in: "+
			"every element lies in partitions 0..N-1 of that region (128 SBUF partitions; PSUM's from its offset), never past the last partition nor before the first. "+
			"The on-chip map puts PSUM right after SBUF partition 127 (0x2000000 on CAYMAN), so without the rule a DMAMEMCPY whose rows run from partition 100 "+
			"past 127 writes PSUM partitions. The error names the first element in walk order that leaves the region and the row it would be.",
			"FACTS §B.3 (ADDR4: region_base + partition x stride + offset), §B.5 (STATE_BUF_NUM_PARTITIONS = 128, PSUM_BUF_OFFSET)", isa.MedInferred,
			[]string{"src", "dst", "start_addr", "step_elem", "num_elem"},
			"a row of a tensor is a partition; rows 128 and beyond do not exist, and the address past them belongs to another memory. "+
				"Whether the hardware faults or wraps is not recorded; refusing is the behaviour a kernel author can rely on"),
		r(RuleRowInPartition, "A reshape request's on-chip tensor (SBUF or PSUM, source or destination, on every generation) keeps each row inside its partition's active area: "+
			"splitting every dim's byte step into whole partitions and a remainder, the byte offset plus the remainders' reach (and the element) must lie in [0, active size). "+
			"For the CLI layout the row is everything after the partition axis, from the byte offset, so offset + row bytes <= the active size. Checked before planning for requests, "+
			"JSON requests and `tpbsim dge` layouts. ISA DMA instructions (DIRECT2D, DMA_TRANSPOSE) are exempt: their ADDR8 addresses are linear device addresses "+
			"(addr = region_base + partition x PARTITION_SIZE + offset), so a walk past a partition's end legally continues in the next partition; the DMA bounds check "+
			"still refuses any byte outside an active area (CAYMAN's 192 KiB..256 KiB gap).",
			"FACTS §B.3 (partition folded into the address), §B.5 (STATE_BUF_PARTITION_ACTIVE_SIZE); tpbsim (the rest of each row contiguous from the byte offset)", isa.MedInferred,
			[]string{"src", "dst", "base", "step_elem"},
			"a tensor's partition axis is the hardware's; a row that spills into the next partition is another partition's data, and on MARIANA / MARIANA_PLUS (active = stride) no bounds check catches it"),
		r(RuleElementCounts, "The source and destination views hold the same number of elements.", "FACTS §C.2 (src_num*src_elem == dst_num*dst_elem)", isa.HighInferred,
			[]string{"src_num_elem", "dst_num_elem"}, "a reshape moves every element once"),
		r(RulePermValid, "A permutation has at most 4 axes, is a permutation of 0..n-1, and source dims beyond it are 1.", "seed 003 §4.5 (transpose = permute the strides)", isa.MedInferred,
			[]string{"perm"}, "the dge_shape has four dims"),
		r(RuleDtypes, "in and out dtypes are both given or both omitted, are whole-byte types of the generation, and src/dst elem_size hold the same value count "+
			"(without a cast the element sizes are equal). A cast or reduce-on-copy is also held to the DMAMEMCPY word's own predicates (are_valid_memcpy_dtypes, "+
			"is_valid_dma_cce: no 64-bit dtype, element sizes equal to the dtype sizes, aligned start addresses) and refused under their rule ids; a plain copy's "+
			"dtype only sizes its elements, so a plain copy of 64-bit values is accepted and moved as raw bytes.",
			"FACTS §C.2 (are_valid_memcpy_dtypes, is_valid_dma_cce)", isa.MedInferred, []string{"in_dtype", "out_dtype", "elem_size"},
			"the CCE path converts value by value; a plain copy never reaches it (the DGE and the DMA engines move raw bytes, and the DMAMEMCPY word asking for it "+
				"can name any dtype is_valid_dtype allows with an 8-byte elem_size), so refusing it would forbid a copy the hardware makes"),
		r(RuleComputeOp, "compute_op is NONE, ADD, MULTIPLY, MAX or MIN, and a reduce-on-copy names its dtypes.", "FACTS §C.6 (DGE_COMPUTE_OP)", isa.HighInferred,
			[]string{"compute_op", "in_dtype", "out_dtype"}, "the op computes on values, so it needs their types"),
		r(RuleSemaphore, "semaphore is -1 (none) or 0..255, sem_increment 0..255.", "FACTS §B.2, §C.2", isa.HighInferred, []string{"semaphore", "sem_increment"},
			"256 semaphores; sem_increment is an 8-bit field"),
		r(RuleDMACfg, "MEMCOPY_DMA_CFG enables at least one of the generation's DMA engines (0 means all); engine bits at or above the generation's engine count "+
			"(bits 8..15 on MAVERICK's 8 engines) name no engine and are ignored.", "FACTS §C.7 (#DMA Avail source)", isa.MedInferred, []string{"MEMCOPY_DMA_CFG"},
			"with no engine available nothing can move; 0 as 'all' is tpbsim's default; ignoring the bits of absent engines (rather than refusing) is INVENTED: "+
				"a mask written for a 16-engine generation then still runs on the engines that exist"),
		r(RuleSrcDstDisjoint, "A DMA's source and destination byte ranges do not overlap, unless the request is an exact identity: a plain copy (no cast, no compute_op) "+
			"whose permuted source walk visits the destination's addresses in the same order (a no-op, accepted). The check is exact on the byte footprints "+
			"(interleaved strided views are disjoint) up to 2^20 runs per side, beyond which an overlap of the bounding ranges is refused. Requests, DIRECT2D and "+
			"DMA_TRANSPOSE are checked when planned, so `dge plan`, `dge run` and the machine all refuse them; INDIRECT1D and GATHER_XPOSE footprints depend on "+
			"index values and are not checked.",
			"tpbsim (DMA engines give no ordering guarantee across descriptors; FACTS §C.7 spray over engines)", isa.Invented, []string{"src_start_addr", "dst_start_addr"},
			"the sources say nothing about overlapping DMAs; the descriptors of one request run on several engines in no defined order, so an overlap has no defined result"),
		r(RuleAddrImmediate, "The DGE model lowers immediate ADDR8 addresses and immediate ADDR4 index addresses only; register and table forms are resolved by hardware registers tpbsim does not model.",
			"FACTS §C.6 (ADDR8 markers)", isa.Invented, []string{"src_start_addr", "dst_start_addr", "src_idx_start_addr", "dst_idx_start_addr"},
			"guessing a register value would silently move the wrong bytes"),
		r(RuleDMAInstruction, "dge.PlanInst lowers DMA_DIRECT2D, DMA_INDIRECT1D, DMA_TRANSPOSE and DMA_GATHER_TRANSPOSE; other structs are not DGE DMA instructions.",
			"FACTS §C.1", isa.HighInferred, []string{"header.opcode"}, "the four dge_op kinds"),
		r(RuleIndirectMode, "INDIRECT1D indirect_mode is SRC, DST or SRC_DST indirection.", "FACTS §C.3", isa.HighInferred, []string{"flags.indirect_mode"},
			"the other codes have no documented data movement"),
		r(RuleGatherXposeShape, "GATHER_XPOSE lowers as NKI's gather transpose: one 2-byte dtype, gather_dim Y, src_num_elem[1] a non-zero multiple of 16 equal to dst_num_elem[0], "+
			"a row of 1..128 elements equal to dst_num_elem[1], elem_size = 2 x row, 16..128 index partitions in multiples of 16 (the DGE's re-check of the gather_xpose_* rules).",
			"FACTS §C.4; NKI.md gather transpose", isa.MedInferred, []string{"src_num_elem", "dst_num_elem", "elem_size", "idx_num_active_channels"},
			"the struct-field mapping follows the validator's equalities (dma.gather_xpose.mapping)"),
		r(RuleXposeDtype, "DMA_TRANSPOSE moves one 2- or 4-byte dtype (in == out) through the crossbar.", "FACTS §C.5", isa.HighInferred, []string{"in_dtype", "out_dtype"},
			"the xbar tiles are defined for 2- and 4-byte elements only"),
		r(RuleXposeTile, "DMA_TRANSPOSE's tile is 16 rows by 1..128 columns (2-byte) or 1..64 (4-byte): the ISA's dma_xpose_tile_src_rows and dma_xpose_tile_src_cols, re-checked "+
			"where the validator does not run (library callers of PlanInst), so the planner never plans a word check refuses; a crossbar tile of fewer rows is a request's row edge, "+
			"which has no instruction form.", "FACTS §C.5 (tile_src_rows must == 16; tile_src_cols 1..128 / 1..64)", isa.HighObserved, []string{"tile_src_rows", "tile_src_cols"},
			"the field limits of DIRECT2D_XPOSE; a partial-row word used to be planned here and refused by check and run (a kernel's 8-row dma_transpose lowered to one)"),
		r(RuleXposePlacement, "A DMA_TRANSPOSE (0xBD) runs on the crossbar or not at all: its source is HBM or SBUF, its destination SBUF, 32-byte aligned, and its destination row step a multiple of 32 bytes "+
			"(see dge.xbar_eligibility); where a reshape request would fall back to element-strided descriptors, the instruction is refused.",
			"FACTS §C.5 (dst 32-B aligned); seed 003 §3.3", isa.MedInferred, []string{"dst_start_addr", "src_start_addr"},
			"the instruction names the crossbar; lowering it to element-strided copies would run an instruction the hardware refuses"),
		r(RulePlanNests, "A plan has at most MaxPlanNests (65536) distinct descriptor nests (G of the lower bound): a pair of views whose common nest has more than four "+
			"levels (six with crossbar tiles) needs one nest per position of its smallest levels beyond four, and a request needing more is refused before they are built.",
			"tpbsim", isa.Invented, []string{"num_elem", "step_elem"},
			"a model limit, not a hardware rule: two 4-dim views can refine to 7 levels and name 2^17 or more nests, which cost seconds and gigabytes to plan and print; "+
				"a request of row-major tensors refines to at most four levels (six with crossbar tiles, whose count the SBUF destination bounds), "+
				"and a DMA instruction's plan has at most four nests"),
		r(RuleLoopCount16, "A request whose two nests have no common refinement (one descriptor walks each view's own nest) may not have a dim of more than 65535 elements: "+
			"the DGE's working state holds num_elem[4] as uint16_t. (Where the nests refine, the planner splits such levels itself: dge.loop_count_split.)",
			"seed 003 §4.5 (struct dge_reshape_state: uint16_t num_elem[4])", isa.HighObserved, []string{"num_elem"},
			"an independent walk cannot be cut at a 16-bit boundary on both sides at once without a common nest"),
		b("dge.loop_count_split", "No descriptor level counts more than 65535 iterations (uint16_t num_elem[4]). A common-nest level of n > 65535 becomes two levels a x n/a, "+
			"a the largest factor <= 65535 with n/a <= 65535; a level without such a factorisation is peeled into a nest of q*65535 iterations (then split) and a nest of n mod 65535 at the offset after them. "+
			"The lower bound's G is counted before splitting (splitting only adds nests), and `dge plan` says how many levels were factored and peeled.",
			"seed 003 §4.5 (uint16_t num_elem[4]), §4.6 (one DIMPUSH per level)", isa.MedInferred,
			"the firmware must do something with a 70000-element dim; the choice of factor and the peel are tpbsim's (the seed does not show the firmware's split)"),
	}
}
