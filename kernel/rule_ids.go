package kernel

import "github.com/tpbsim/tpbsim/isa"

// ruleTexts says what each rule id a kernel error can name checks (the provenance entries of
// provenance.go hold the ones with a longer story). TestRuleIDsRegistered holds the source to
// this list.
var ruleTexts = []struct{ id, text, source string }{
	{"kernel.capacity", "Every live SBUF / PSUM tile fits its memory: the live tiles' bytes per partition stay within the generation's active partition size (SBUF less 64 bytes of sync scratch; PSUM 16 KiB).", "NKI.md §4; FACTS §B.5"},
	{"kernel.dma_instruction_count", "One DMA call lowers to at most 16384 DMA words.", "tpbsim's limit"},
	{"kernel.dma_level_size", "A DMA walk level over 65535 positions is split into a product of levels that fit DIRECT2D's uint16 counts.", "FACTS §C.2"},
	{"kernel.dma_step_range", "DMA steps fit DIRECT2D's int32 element steps.", "FACTS §C.2"},
	{"kernel.dma_step_whole", "DMA steps are whole elements of the element size the word uses.", "FACTS §C.2"},
	{"kernel.dtype", "A tensor's dtype is an NKI dtype name with an ISA storage dtype on the generation (tfloat32 has none).", "NKI.md §5; FACTS §A.1"},
	{"kernel.engine_modelled", "The engine a call names is one tpbsim models (not the Tensor Engine) and one the ISA's opcode table gives the instructions the call lowers to (nisa.memset: DVE's MEMSET; nc_transpose: DVE's STREAM_TRANSPOSE).", "DESIGN.md §1"},
	{"kernel.form.call", "A call has an op of the kernel form, the operands its op takes (dst, src, data) and no others, and memset a value.", "FORMAT.md"},
	{"kernel.form.format", "The form is tpbsim.kernel, version 1.", "FORMAT.md"},
	{"kernel.form.json", "The kernel form is one JSON object of the documented types, with nothing after it.", "FORMAT.md"},
	{"kernel.form.key", "Every key of an object of the kernel form is one its object has, spelt exactly (keys are case-sensitive), and given once.", "FORMAT.md"},
	{"kernel.form.outputs", "Outputs name HBM tensors of the kernel.", "FORMAT.md"},
	{"kernel.form.tensor", "A kernel has tensors; each has a shape of positive extents (at most 2^40 elements), a buffer, a kind and an encoding of the form's, and only inputs (in HBM) have a file or an arg.", "FORMAT.md"},
	{"kernel.form.view", "A view names a tensor of the kernel, has 1 to 16 axes of 1..2^32 positions with steps and offset within 2^40 (at most 2^40 elements), and an indirect index view that is direct and names an axis of the view.", "FORMAT.md"},
	{"kernel.gather_transpose_shape", "An indirect dma_transpose's src is [rows, row] or [rows, a, b] after dropping size-1 axes, indexed on its first axis.", "NKI.md §2-§3"},
	{"kernel.indirect_both", "An indirect DMA indexes its src or its dst, not both.", "NKI.md §2"},
	{"kernel.indirect_cast", "An indirect DMA keeps the dtype.", "tpbsim's lowering (INDIRECT1D rows)"},
	{"kernel.indirect_row", "The axes of an indexed view other than the indexed one form one contiguous run (the INDIRECT1D element).", "dma.indirect1d"},
	{"kernel.indirect_row_bytes", "An indexed row is at most 64 KiB (INDIRECT1D elem_size).", "FACTS §C.3"},
	{"kernel.indirect_row_step", "The indexed axis steps a whole number of rows.", "dma.indirect1d"},
	{"kernel.indirect_rows", "The other side of an indirect DMA is rows of the indexed row length, each contiguous.", "dma.indirect1d"},
	{"kernel.input_given", "Every input tensor has data (its \"file\" or --input NAME=FILE.npy), and --input names an input.", "FORMAT.md"},
	{"kernel.input_npy", "An input's .npy holds the tensor's element count in the type its encoding names (native, raw bits, float32).", "FORMAT.md"},
	{"kernel.input_size", "An input's data is the tensor's size in bytes.", "FORMAT.md"},
	{"kernel.nc_transpose_engine", "An nc_transpose with no engine named larger than [32, 32] would go to the Tensor Engine, which tpbsim does not model.", "NKI.md §2"},
	{"kernel.nki_version", "The NKI release is one tpbsim knows (2.21 .. 2.32).", "NKI.md §2-§3"},
	{"kernel.op", "A call's op is one of the kernel form's.", "FORMAT.md"},
	{"kernel.output_bytes", "The outputs a run reads back fit, together, in the machine's HBM cap (mem.Options.HBMCapBytes, default 4 GiB): RunOn reads each output back whole (see mem.hbm_cap).", "tpbsim's limit"},
	{"kernel.psum_present", "A PSUM tensor needs a generation with PSUM (not MAVERICK).", "FACTS §B.5 (PSUM_BUF_SZ = 0 on v5)"},
	{"kernel.run_generation", "A lowered kernel runs on a machine of the generation it was lowered for.", "FORMAT.md"},
	{"kernel.tensor_placed", "A view names a placed tensor.", "FORMAT.md"},
	{"kernel.view_in_tensor", "A view walks elements and partitions inside its tensor.", "FORMAT.md"},
	{"kernel.view_inside_partition", "A free axis of an on-chip view stays inside one partition row.", "FORMAT.md; NKI.md §4"},
	{"kernel.view_one_partition_axis", "An on-chip view walks partitions along one axis.", "NKI.md §4"},
	{"nki.access_pattern_dims", "A compute engine's operand has at most 4 free dims after merging contiguous ones.", "NKI.md §4"},
	{"nki.access_pattern_size", "Each free size of an access pattern is a uint16 (at most 65535).", "NKI.md §4"},
	{"nki.access_pattern_stride", "Each free stride of an access pattern is an int16, in elements.", "NKI.md §4"},
	{"nki.compute_indirect", "Compute calls take direct views (only DMA calls gather or scatter).", "NKI.md §2"},
	{"nki.compute_on_chip", "Compute engines read and write SBUF or PSUM tiles.", "NKI.md §2"},
	{"nki.dma_copy.dst_rmw_op", "dst_rmw_op is add (np.add / nl.add) or None.", "NKI.md §2"},
	{"nki.dma_copy.indirect_swdge", "Indirect DMA runs on the software DGE (dge_mode swdge or unknown).", "NKI.md §2"},
	{"nki.dma_copy.oob_skip_indirect", "oob_mode=skip only with indirect indexing.", "NKI.md §3"},
	{"nki.dma_copy.rmw_oob_error", "dst_rmw_op only with oob_mode=error.", "NKI.md §2"},
	{"nki.dma_copy.same_elements", "A DMA's dst and src walk the same number of elements.", "NKI.md §2"},
	{"nki.dma_engine", "A DMA call's engine is sync, scalar (act), gpsimd or unknown.", "NKI.md §2"},
	{"nki.dma_shapes", "A DMA's dst and src shapes refine to common levels (equal, or one a reshape of the other).", "NKI.md §2"},
	{"nki.dma_transpose.axes", "dma_transpose's axes are the rank's fixed permutation: (1,0), (2,1,0), (3,1,2,0).", "NKI.md §2"},
	{"nki.dma_transpose.dst_sbuf", "dma_transpose writes SBUF.", "NKI.md §2"},
	{"nki.dma_transpose.dst_shape", "dma_transpose's dst is the src's shape permuted.", "NKI.md §2"},
	{"nki.dma_transpose.index_columns", "Indirect dma_transpose: indices.shape[0] == 128 when indices.shape[1] > 1.", "NKI.md §3"},
	{"nki.dma_transpose.index_count", "Indirect dma_transpose: indices.shape[0] * indices.shape[1] >= src.shape[0].", "NKI.md §3"},
	{"nki.dma_transpose.index_partitions", "Indirect dma_transpose: indices.shape[0] in [16, 128], a multiple of 16.", "NKI.md §3"},
	{"nki.dma_transpose.indices", "Indirect dma_transpose: 2-D uint32 indices in SBUF.", "NKI.md §3"},
	{"nki.dma_transpose.indices_2d", "The gather transpose's index tile is 2-D [P, N].", "NKI.md §3"},
	{"nki.dma_transpose.indirect_2_28", "NKI 2.28's indirect dma_transpose: a 3-D src whose last axis is 128, one index column.", "NKI.md §3"},
	{"nki.dma_transpose.indirect_gen", "Indirect dma_transpose needs TRN2 (CAYMAN) or newer.", "NKI.md §3"},
	{"nki.dma_transpose.indirect_release", "Indirect dma_transpose exists from NKI 2.28.", "NKI.md §3"},
	{"nki.dma_transpose.indirect_row", "Indirect dma_transpose 2.29 on: src.shape[-1] <= 128.", "NKI.md §3"},
	{"nki.dma_transpose.indirect_rows16", "Indirect dma_transpose: src.shape[0] a multiple of 16.", "NKI.md §3"},
	{"nki.dma_transpose.indirect_src_hbm", "Indirect dma_transpose reads an HBM src.", "NKI.md §3"},
	{"nki.dma_transpose.indirect_swdge", "Indirect dma_transpose runs on the software DGE.", "NKI.md §3"},
	{"nki.dma_transpose.oob_skip_indirect", "oob_mode=skip only with indirect indexing (2.32 wording).", "NKI.md §3"},
	{"nki.dma_transpose.rank", "dma_transpose takes a 2-D, 3-D or 4-D src.", "NKI.md §2"},
	{"nki.dma_transpose.same_dtype", "dma_transpose keeps the dtype.", "NKI.md §2"},
	{"nki.engine", "A compute call's engine is one that runs it (vector, gpsimd, scalar as the call allows).", "NKI.md §2"},
	{"nki.indirect.index_count", "An index view has one index per position of the indexed axis.", "NKI.md §2"},
	{"nki.indirect.index_dtype", "Index tiles are uint32 (or int32).", "NKI.md §2-§3"},
	{"nki.indirect.index_in_sbuf", "Index tiles are in SBUF.", "NKI.md §2"},
	{"nki.memset.value", "memset's value fits the dtype: an integer in range for an integer dtype.", "NKI.md §2"},
	{"nki.nc_stream_shuffle.mask_in_src", "A shuffle mask entry names a partition of the source (or is 255).", "NKI.md §2"},
	{"nki.nc_stream_shuffle.mask_len", "A shuffle mask has exactly 32 entries.", "NKI.md §2"},
	{"nki.nc_stream_shuffle.mask_value", "A shuffle mask entry is 0..31 or 255.", "NKI.md §2"},
	{"nki.nc_stream_shuffle.partitions", "Up to NKI 2.22: src and dst the same 32, 64, 96 or 128 partitions; later: start partitions that leave num_active partitions to 128.", "NKI.md §2"},
	{"nki.nc_transpose.dst_shape", "nc_transpose's dst is [F, P] for data [P, F] (free axes flattened row-major).", "NKI.md §2"},
	{"nki.nc_transpose.vector_tile", "The Vector Engine transposes tiles of at most [32, 32].", "NKI.md §2"},
	{"nki.oob_mode", "oob_mode is error or skip.", "NKI.md §2"},
	{"nki.partition_dim", "A tile's partition dimension (first axis) is at most 128.", "NKI.md §4"},
	{"nki.partition_stride", "Compute engines access consecutive partitions (no striding along the partition axis).", "NKI.md §4"},
	{"nki.same_free_elements", "Elementwise calls: the same number of elements per partition on both sides.", "NKI.md §2"},
	{"nki.same_partitions", "Elementwise calls and reduces: the same number of partitions on both sides.", "NKI.md §2"},
	{"nki.tensor_reduce.axes_from_1", "Up to NKI 2.28: tensor_reduce's axes are consecutive and contain axis 1.", "NKI.md §2"},
	{"nki.tensor_reduce.axis", "tensor_reduce reduces at least one free axis (1 .. rank-1).", "NKI.md §2"},
	{"nki.tensor_reduce.negate", "negate only with an arithmetic reduce op.", "NKI.md §2"},
	{"nki.tensor_reduce.op", "tensor_reduce's op is add, subtract, multiply, maximum, minimum, or a bitwise / logical and, or, xor.", "NKI.md §2"},
	{"nki.tensor_reduce.partition_axis", "tensor_reduce's data view walks partitions along its axis 0 (unless it has one position) and only there: axes 1..rank-1 are free.", "NKI.md §1 (the first pair of an access pattern is the partition axis), §2"},
}

func ruleEntries() []isa.Provenance {
	var out []isa.Provenance
	for _, r := range ruleTexts {
		c := isa.MedInferred
		if r.source == "tpbsim's limit" || r.source == "FORMAT.md" {
			c = isa.Invented
		}
		out = append(out, isa.Rule(r.id, r.text, r.source, c, nil, "checked by the kernel lowering before any word is emitted; the message names the call's file:line, the argument and what is legal"))
	}
	return out
}
