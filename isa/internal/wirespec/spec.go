package wirespec

// Types are the wire types of the fields (FACTS §A, §B; the one-byte bitfield types LSB first as
// the header declares them: FACTS §A.1, §C.3, §C.4, §C.6).
var Types = []*Type{
	{Name: "u8", C: "uint8_t", Go: "uint8", Size: 1, Kind: "KUint"},
	{Name: "u16", C: "uint16_t", Go: "uint16", Size: 2, Kind: "KUint"},
	{Name: "u32", C: "uint32_t", Go: "uint32", Size: 4, Kind: "KUint"},
	{Name: "i16", C: "int16_t", Go: "int16", Size: 2, Signed: true, Kind: "KInt"},
	{Name: "i32", C: "int32_t", Go: "int32", Size: 4, Signed: true, Kind: "KInt"},
	{Name: "OPCODE", C: "NEURON_ISA_TPB_OPCODE", CBase: "uint8_t", Go: "Opcode", Size: 1, Kind: "KOpcode"},
	{Name: "DTYPE", C: "NEURON_ISA_TPB_DTYPE", CBase: "uint8_t", Go: "DType", Size: 1, Kind: "KDType"},
	{Name: "ALU_OP", C: "NEURON_ISA_TPB_ALU_OP", CBase: "uint8_t", Go: "ALUOp", Size: 1, Kind: "KALUOp"},
	{Name: "TENSOR_SUBDIM", C: "NEURON_ISA_TPB_TENSOR_SUBDIM", CBase: "uint8_t", Go: "TensorSubdim", Size: 1, Kind: "KSubdim"},
	{Name: "WAIT_MODE", C: "NEURON_ISA_TPB_WAIT_MODE", CBase: "uint8_t", Go: "WaitMode", Size: 1, Kind: "KWaitMode"},
	{Name: "UPDATE_MODE", C: "NEURON_ISA_TPB_UPDATE_MODE", CBase: "uint8_t", Go: "UpdateMode", Size: 1, Kind: "KUpdateMode"},
	{Name: "DGE_COMPUTE_OP", C: "NEURON_ISA_TPB_DGE_COMPUTE_OP", CBase: "uint8_t", Go: "DGEComputeOp", Size: 1, Kind: "KComputeOp"},
	{Name: "ADDR4", C: "NEURON_ISA_TPB_ADDR4", CBase: "uint32_t", Go: "Addr4", Size: 4, Kind: "KAddr4"},
	{Name: "ADDR8", C: "NEURON_ISA_TPB_ADDR8", CBase: "uint64_t", Go: "Addr8", Size: 8, Kind: "KAddr8"},
	{Name: "DMA_CONFIGS", C: "NEURON_ISA_TPB_DMA_CONFIGS", CBase: "uint8_t", Go: "DMAConfigs", Size: 1, Kind: "KUint",
		Doc: "DMAConfigs is NEURON_ISA_TPB_DMA_CONFIGS (1 byte): priority_class:3 (valid 0..4), reserved:5 == 0.",
		Bits: []Bitfield{
			{Name: "priority_class", Width: 3, Kind: "KUint", Method: "PriorityClass", Result: "uint8", Doc: "PriorityClass is bits 0..2."},
			{Name: "reserved", Width: 5, Kind: "KUint", Method: "Reserved", Result: "uint8", Doc: "Reserved is bits 3..7 (must be zero)."},
		}},
	{Name: "BOUND_CHECK_REG", C: "NEURON_ISA_TPB_BOUND_CHECK_REG", CBase: "uint8_t", Go: "BoundCheckReg", Size: 1, Kind: "KUint",
		Doc: `BoundCheckReg is NEURON_ISA_TPB_BOUND_CHECK_REG (1 byte; FACTS §C.6), LSB first:

	bit  7           6                        5 ......... 0
	   +------------+--------------------------+-----------+
	   | bc_enabled | bc_disable_oob_error_notif|  bc_reg   |
	   +------------+--------------------------+-----------+`,
		Bits: []Bitfield{
			{Name: "bc_reg", Width: 6, Kind: "KUint", Method: "Reg", Result: "uint8", Doc: "Reg is bc_reg: the register holding the bound (bc_reg+1 holds the high 32 bits in wide mode)."},
			{Name: "bc_disable_oob_error_notif", Width: 1, Kind: "KUint", Method: "DisableOOBErrorNotif", Result: "bool", Doc: "DisableOOBErrorNotif is bc_disable_oob_error_notif."},
			{Name: "bc_enabled", Width: 1, Kind: "KUint", Method: "Enabled", Result: "bool", Doc: "Enabled is bc_enabled."},
		}},
	{Name: "DMA_INDIRECT_FLAGS", C: "NEURON_ISA_TPB_DMA_INDIRECT_FLAGS", CBase: "uint8_t", Go: "DMAIndirectFlags", Size: 1, Kind: "KUint",
		Make: "MakeDMAIndirectFlags",
		Doc: `DMAIndirectFlags is NEURON_ISA_TPB_DMA_INDIRECT_FLAGS (1 byte, common.h:852), LSB first:

	bit  7   6      5   4        3                   2                 1   0
	   +-------------+-------------+-------------------+-----------------+--------+
	   | scatter_dim | gather_dim  | non_unique_dst_idx| idx_bound_is_err | mode   |
	   +-------------+-------------+-------------------+-----------------+--------+`,
		Bits: []Bitfield{
			{Name: "indirect_mode", Width: 2, Kind: "KIndirectMode", Method: "IndirectMode", Result: "IndirectMode", Doc: "IndirectMode is indirect_mode: gather, scatter or both."},
			{Name: "idx_bound_is_err", Width: 1, Kind: "KUint", Method: "IdxBoundIsErr", Result: "bool", Doc: "IdxBoundIsErr is idx_bound_is_err."},
			{Name: "non_unique_dst_idx", Width: 1, Kind: "KUint", Method: "NonUniqueDstIdx", Result: "bool", Doc: "NonUniqueDstIdx is non_unique_dst_idx."},
			{Name: "gather_dim", Width: 2, Kind: "KIndirectDim", Method: "GatherDim", Result: "IndirectDim", Doc: "GatherDim is gather_dim."},
			{Name: "scatter_dim", Width: 2, Kind: "KIndirectDim", Method: "ScatterDim", Result: "IndirectDim", Doc: "ScatterDim is scatter_dim."},
		}},
	{Name: "DTYPE_PAIR", C: "NEURON_ISA_TPB_DTYPE_PAIR", CBase: "uint8_t", Go: "DTypePair", Size: 1, Kind: "KUint",
		Make: "MakeDTypePair",
		Doc: `DTypePair is NEURON_ISA_TPB_DTYPE_PAIR (1 byte): dtype_lo in the low nibble, dtype_hi in the
high nibble; only codes <= 0xF fit (FACTS §A.1).

	bit  7      4 3      0
	    +--------+--------+
	    |dtype_hi|dtype_lo|
	    +--------+--------+`,
		Bits: []Bitfield{
			{Name: "dtype_lo", Width: 4, Kind: "KDType", Method: "Lo", Result: "DType", Doc: "Lo is the low-nibble dtype (the source dtype of DMA_GATHER_XPOSE)."},
			{Name: "dtype_hi", Width: 4, Kind: "KDType", Method: "Hi", Result: "DType", Doc: "Hi is the high-nibble dtype (the destination dtype of DMA_GATHER_XPOSE)."},
		}},
	{Name: "GATHER_TRANSPOSE_FLAGS", C: "NEURON_ISA_TPB_GATHER_TRANSPOSE_FLAGS", CBase: "uint8_t", Go: "GatherTransposeFlags", Size: 1, Kind: "KUint",
		Doc: "GatherTransposeFlags is GATHER_TRANSPOSE_FLAGS (1 byte): gather_dim:2 (bits 0..1), reserved:6.",
		Bits: []Bitfield{
			{Name: "gather_dim", Width: 2, Kind: "KIndirectDim", Method: "GatherDim", Result: "IndirectDim", Doc: "GatherDim is gather_dim."},
			{Name: "reserved", Width: 6, Kind: "KUint", Method: "Reserved", Result: "uint8", Doc: "Reserved is bits 2..7 (must be zero)."},
		}},
	{Name: "HEADER", C: "NEURON_ISA_TPB_HEADER", Go: "Header", Size: 4, Sub: header},
	{Name: "EVENTS", C: "NEURON_ISA_TPB_EVENTS", Go: "Events", Size: 8, Sub: events},
	{Name: "TENSOR4D", C: "NEURON_ISA_TPB_TENSOR4D", Go: "Tensor4D", Size: 20, Sub: tensor4d},
}

var header = &Struct{Go: "Header", C: "NEURON_ISA_TPB_HEADER", Size: 4,
	Doc: `Header is NEURON_ISA_TPB_HEADER, bytes 0..3 of every instruction (FACTS §B.1).

	byte  0        1              2          3
	    +--------+--------------+----------+-----------+
	    | opcode | inst_word_len| debug_cmd| debug_hint|
	    +--------+--------------+----------+-----------+

has_valid_neuron_header requires a valid opcode and inst_word_len == 16 (dwords).`,
	Fields: []Field{
		{Name: "opcode", Off: 0, Type: "OPCODE"},
		{Name: "inst_word_len", Off: 1, Type: "u8", Default: 16},
		{Name: "debug_cmd", Off: 2, Type: "u8"},
		{Name: "debug_hint", Off: 3, Type: "u8"},
	}}

var events = &Struct{Go: "Events", C: "NEURON_ISA_TPB_EVENTS", Size: 8,
	Doc: `Events is NEURON_ISA_TPB_EVENTS, bytes 4..11 (FACTS §B.2): wait before issue, update after the
reads or on completion. One semaphore_value serves as wait target and update immediate.

	byte  4          5         6            7           8..11
	    +----------+---------+------------+-----------+-----------------+
	    | wait_mode| wait_idx| update_mode| update_idx| semaphore_value |
	    +----------+---------+------------+-----------+-----------------+`,
	Fields: []Field{
		{Name: "wait_mode", Off: 0, Type: "WAIT_MODE"},
		{Name: "wait_idx", Off: 1, Type: "u8"},
		{Name: "update_mode", Off: 2, Type: "UPDATE_MODE"},
		{Name: "update_idx", Off: 3, Type: "u8"},
		{Name: "semaphore_value", Off: 4, Type: "u32"},
	}}

var tensor4d = &Struct{Go: "Tensor4D", C: "NEURON_ISA_TPB_TENSOR4D", Size: 20,
	Doc: `Tensor4D is NEURON_ISA_TPB_TENSOR4D (20 bytes; seed 000 §4.1, FACTS §B.4): the 4-D strided
access pattern. Steps are signed element strides (negative walks backwards, 0 broadcasts);
counts are unsigned loop bounds. All strides come first, then all counts.

	byte 0      4          6          8          10         12     14     16     18    20
	   +-------+----------+----------+----------+----------+------+------+------+------+
	   | ADDR4 | step[0]  | step[1]  | step[2]  | step[3]  |num[0]|num[1]|num[2]|num[3]|
	   +-------+----------+----------+----------+----------+------+------+------+------+`,
	Fields: []Field{
		{Name: "start_addr", Off: 0, Type: "ADDR4"},
		{Name: "step_elem", Off: 4, Type: "i16", Count: 4},
		{Name: "num_elem", Off: 12, Type: "u16", Count: 4},
	}}

// hdrEv are the first two fields of every instruction struct.
var hdrEv = []Field{
	{Name: "header", Off: 0, Type: "HEADER", Inline: true},
	{Name: "events", Off: 4, Type: "EVENTS"},
}

func withHdr(fs ...Field) []Field { return append(append([]Field(nil), hdrEv...), fs...) }

// Structs are the instruction structs, in StructKind order after StructNone. Raw (StructNone)
// comes last here and first in the enum.
var Structs = []*Struct{
	{Kind: "S4D4_TR", Go: "S4D4TR", C: "NEURON_ISA_TPB_S4D4_TR_STRUCT", Size: 64, Opcode: 0x6b, Oracle: true,
		Rules: "s4Checks", ByOpcode: true, KindDoc: "NEURON_ISA_TPB_S4D4_TR_STRUCT",
		Doc: `S4D4TR is NEURON_ISA_TPB_S4D4_TR_STRUCT (64 bytes; seed 000 §4, FACTS §D.1), shared by the
eleven opcodes of FACTS §D.2 (plus SUNDA's 0x8C/0x8D). op@36 is the reduce/scan operator for
the reduce and cumulative siblings and is pinned to BYPASS for StreamTranspose.

	byte 0        4        12                32      33       34   35      36  37     38     39       44               64
	   +--------+--------+-----------------+-------+--------+----+-------+---+------+------+--------+-----------------+
	   | header | events | src_mem_pattern |in_dty |out_dty | nac|negated| op|op_dim|mask_e|reserved| dst_mem_pattern |
	   +--------+--------+-----------------+-------+--------+----+-------+---+------+------+--------+-----------------+`,
		Fields: withHdr(
			Field{Name: "src_mem_pattern", Off: 12, Type: "TENSOR4D", Alias: "src"},
			Field{Name: "in_dtype", Off: 32, Type: "DTYPE"},
			Field{Name: "out_dtype", Off: 33, Type: "DTYPE"},
			Field{Name: "num_active_channels", Off: 34, Type: "u8"},
			Field{Name: "negated", Off: 35, Type: "u8"},
			Field{Name: "op", Off: 36, Type: "ALU_OP"},
			Field{Name: "op_dim", Off: 37, Type: "TENSOR_SUBDIM"},
			Field{Name: "mask_enable", Off: 38, Type: "u8"},
			Field{Name: "reserved1", Off: 39, Type: "u8", Count: 5},
			Field{Name: "dst_mem_pattern", Off: 44, Type: "TENSOR4D", Alias: "dst"},
		)},
	{Kind: "CTRL_IM", Go: "LoadMaskSelect", C: "NEURON_ISA_TPB_CTRL_IM_STRUCT", Size: 64, Opcode: 0x69, Oracle: true,
		Rules: "lmsChecks", KindDoc: "LOAD_MASK_SELECT",
		Doc: `LoadMaskSelect is LOAD_MASK_SELECT 0x69 on struct CTRL_IM (FACTS §F.4): a 32-entry lane map
that the following STREAM_SHUFFLE instructions on the DVE queue use. Each entry is valid iff
< 64 or == 255 (255 = leave the output channel untouched).

	byte 0        4        12                 14              15             32            64
	   +--------+--------+------------------+---------------+--------------+-------------+
	   | header | events | param_ram_offset | imm_ptr_select| reserved0[17]| immediate[32]|
	   +--------+--------+------------------+---------------+--------------+-------------+`,
		Fields: withHdr(
			Field{Name: "param_ram_offset", Off: 12, Type: "u16", Doc: "must be 0"},
			Field{Name: "imm_ptr_select", Off: 14, Type: "u8", Doc: "must be 0"},
			Field{Name: "reserved0", Off: 15, Type: "u8", Count: 17},
			Field{Name: "immediate", Off: 32, Type: "u8", Count: 32},
		)},
	{Kind: "D4_MR", Go: "Memset", C: "NEURON_ISA_TPB_D4_MR_STRUCT", Size: 64, Opcode: 0x49, Oracle: true,
		Rules: "memsetChecks", KindDoc: "MEMSET",
		Partial: "bytes 12..27, 33, 35 and 37..39 are not described by the sources (kept raw)",
		Doc: `Memset is MEMSET 0x49 on struct D4_MR (FACTS §F.4). Bytes 12..27, 33, 35, 37..39 are not
described by the sources and are kept raw.

	byte 0        4        12        28                 32     33   34   35   36         37      40         44          64
	   +--------+--------+---------+-------------------+------+----+----+----+----------+-------+----------+-----------+
	   | header | events | (raw)   | dst_element_count | dtype|raw | nac|raw | serial.  | raw   | set_value| dst TENSOR4D|
	   +--------+--------+---------+-------------------+------+----+----+----+----------+-------+----------+-----------+`,
		Fields: withHdr(
			Field{Name: "unknown12", Off: 12, Type: "u8", Count: 16, Blob: true, Go: "Raw12", Doc: "bytes 12..27, unknown"},
			Field{Name: "dst_element_count", Off: 28, Type: "u32"},
			Field{Name: "dtype", Off: 32, Type: "DTYPE", Go: "Dtype"},
			Field{Name: "unknown33", Off: 33, Type: "u8", Blob: true, Go: "Raw33"},
			Field{Name: "num_active_channels", Off: 34, Type: "u8"},
			Field{Name: "unknown35", Off: 35, Type: "u8", Blob: true, Go: "Raw35"},
			Field{Name: "serialization_mode", Off: 36, Type: "u8", Doc: "must be Serial (value not known; see provenance)"},
			Field{Name: "unknown37", Off: 37, Type: "u8", Count: 3, Blob: true, Go: "Raw37"},
			Field{Name: "set_value", Off: 40, Type: "u32"},
			Field{Name: "dst_mem_pattern", Off: 44, Type: "TENSOR4D", Alias: "dst"},
		)},
	{Kind: "DMA_DIRECT2D", Go: "DMADirect2D", C: "NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT", Size: 64, Opcode: 0xb8, Oracle: true,
		Rules: "d2Checks", KindDoc: "NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT",
		Doc: `DMADirect2D is NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT, opcode 0xB8 DMAMEMCPY (FACTS §C.2; seed 003
§3.1): a 2-D (x, y) strided memcopy with optional cast and reduce-on-copy compute_op.

	byte 0      4      12     13  14      15         16        24            32          36        38  39  40        48            56          60        62    63
	   +------+------+------+---+-------+----------+---------+-------------+-----------+---------+---+---+---------+-------------+-----------+---------+-----+-----+
	   |header|events|dmacfg|sem|sem_inc|compute_op| src ADDR8| src_step[2] | src_num[2]| src_esz |sbr|dbr| dst ADDR8| dst_step[2] | dst_num[2]| dst_esz | in  | out |
	   +------+------+------+---+-------+----------+---------+-------------+-----------+---------+---+---+---------+-------------+-----------+---------+-----+-----+`,
		Fields: withHdr(
			Field{Name: "dma_configs", Off: 12, Type: "DMA_CONFIGS"},
			Field{Name: "semaphore", Off: 13, Type: "u8"},
			Field{Name: "sem_increment", Off: 14, Type: "u8"},
			Field{Name: "compute_op", Off: 15, Type: "DGE_COMPUTE_OP"},
			Field{Name: "src_start_addr", Off: 16, Type: "ADDR8"},
			Field{Name: "src_step_elem", Off: 24, Type: "i32", Count: 2},
			Field{Name: "src_num_elem", Off: 32, Type: "u16", Count: 2},
			Field{Name: "src_elem_size", Off: 36, Type: "u16", Doc: "0 means 64 KiB"},
			Field{Name: "src_bound_reg", Off: 38, Type: "BOUND_CHECK_REG"},
			Field{Name: "dst_bound_reg", Off: 39, Type: "BOUND_CHECK_REG"},
			Field{Name: "dst_start_addr", Off: 40, Type: "ADDR8"},
			Field{Name: "dst_step_elem", Off: 48, Type: "i32", Count: 2},
			Field{Name: "dst_num_elem", Off: 56, Type: "u16", Count: 2},
			Field{Name: "dst_elem_size", Off: 60, Type: "u16"},
			Field{Name: "in_dtype", Off: 62, Type: "DTYPE"},
			Field{Name: "out_dtype", Off: 63, Type: "DTYPE"},
		)},
	{Kind: "DMA_INDIRECT1D", Go: "DMAIndirect1D", C: "NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT", Size: 64, Opcode: 0xbb, Oracle: true,
		Rules: "diChecks", KindDoc: "NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT",
		Doc: `DMAIndirect1D is NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT, opcode 0xBB (FACTS §C.3; seed 003 §3.2):
a 1-D access with dynamic gather/scatter indices (uint32, SBUF partition 0).

	byte 0      4      12  13      14        15    16        24       28      30      32        40       44      46      48      52      56 57  58  59  60  61     62
	   +------+------+---+-------+---------+-----+---------+--------+-------+-------+---------+--------+-------+-------+-------+-------+---+---+---+---+---+------+----+
	   |header|events|sem|sem_inc|idx_nac  |flags| src ADDR8|src_step|src_num|src_esz| dst ADDR8|dst_step|dst_num|dst_esz|src_idx|dst_idx|in |out|sib|dib|cop|dmacfg|rsvd|
	   +------+------+---+-------+---------+-----+---------+--------+-------+-------+---------+--------+-------+-------+-------+-------+---+---+---+---+---+------+----+`,
		Fields: withHdr(
			Field{Name: "semaphore", Off: 12, Type: "u8"},
			Field{Name: "sem_increment", Off: 13, Type: "u8"},
			Field{Name: "idx_num_active_channels", Off: 14, Type: "u8", Doc: "must be 128"},
			Field{Name: "flags", Off: 15, Type: "DMA_INDIRECT_FLAGS"},
			Field{Name: "src_start_addr", Off: 16, Type: "ADDR8"},
			Field{Name: "src_step_elem", Off: 24, Type: "i32"},
			Field{Name: "src_num_elem", Off: 28, Type: "u16"},
			Field{Name: "src_elem_size", Off: 30, Type: "u16"},
			Field{Name: "dst_start_addr", Off: 32, Type: "ADDR8"},
			Field{Name: "dst_step_elem", Off: 40, Type: "i32"},
			Field{Name: "dst_num_elem", Off: 44, Type: "u16"},
			Field{Name: "dst_elem_size", Off: 46, Type: "u16"},
			Field{Name: "src_idx_start_addr", Off: 48, Type: "ADDR4"},
			Field{Name: "dst_idx_start_addr", Off: 52, Type: "ADDR4"},
			Field{Name: "in_dtype", Off: 56, Type: "DTYPE"},
			Field{Name: "out_dtype", Off: 57, Type: "DTYPE"},
			Field{Name: "src_idx_bound_reg", Off: 58, Type: "BOUND_CHECK_REG"},
			Field{Name: "dst_idx_bound_reg", Off: 59, Type: "BOUND_CHECK_REG"},
			Field{Name: "compute_op", Off: 60, Type: "DGE_COMPUTE_OP"},
			Field{Name: "dma_configs", Off: 61, Type: "DMA_CONFIGS"},
			Field{Name: "reserved", Off: 62, Type: "u8", Count: 2},
		)},
	{Kind: "DMA_GATHER_XPOSE", Go: "DMAGatherXpose", C: "NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT", Size: 64, Opcode: 0xf1, Oracle: true,
		Rules: "gxChecks", KindDoc: "NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT",
		Doc: `DMAGatherXpose is NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT, opcode 0xF1 DMA_GATHER_TRANSPOSE
(FACTS §C.4; seed 003 §3.3): gather rows by uint32 index, then transpose them through the
16x128 crossbar into SBUF. CAYMAN and later.

	byte 0      4      12  13     14      15  16        24           32          36       40        48      51  52          56          60       62    63
	   +------+------+---+------+-------+---+---------+------------+-----------+--------+---------+-------+---+-----------+-----------+--------+-----+-----+
	   |header|events|sem|dmacfg|idx_nac|sib| src ADDR8|src_step[2] |src_num[2] |src_idx | dst ADDR8|rsvd[3]|dbr|dst_step_1 |dst_num[2] |elem_sz |dtype|flags|
	   +------+------+---+------+-------+---+---------+------------+-----------+--------+---------+-------+---+-----------+-----------+--------+-----+-----+`,
		Fields: withHdr(
			Field{Name: "semaphore", Off: 12, Type: "u8"},
			Field{Name: "dma_configs", Off: 13, Type: "DMA_CONFIGS"},
			Field{Name: "idx_num_active_channels", Off: 14, Type: "u8", Doc: "must be 128"},
			Field{Name: "src_idx_bound_reg", Off: 15, Type: "BOUND_CHECK_REG"},
			Field{Name: "src_start_addr", Off: 16, Type: "ADDR8"},
			Field{Name: "src_step_elem", Off: 24, Type: "i32", Count: 2},
			Field{Name: "src_num_elem", Off: 32, Type: "u16", Count: 2},
			Field{Name: "src_idx_start_addr", Off: 36, Type: "ADDR4"},
			Field{Name: "dst_start_addr", Off: 40, Type: "ADDR8"},
			Field{Name: "reserved", Off: 48, Type: "u8", Count: 3},
			Field{Name: "dst_bound_reg", Off: 51, Type: "BOUND_CHECK_REG"},
			Field{Name: "dst_step_elem_1", Off: 52, Type: "i32", Doc: "dim-0 dst step is implicit = sizeof(dtype_hi)"},
			Field{Name: "dst_num_elem", Off: 56, Type: "u16", Count: 2},
			Field{Name: "elem_size", Off: 60, Type: "u16"},
			Field{Name: "dtype", Off: 62, Type: "DTYPE_PAIR", Go: "Dtype"},
			Field{Name: "flags", Off: 63, Type: "GATHER_TRANSPOSE_FLAGS"},
		)},
	{Kind: "DMA_DIRECT2D_XPOSE", Go: "DMADirect2DXpose", C: "NEURON_ISA_TPB_DMA_DIRECT2D_XPOSE_STRUCT", Size: 64, Opcode: 0xbd, Oracle: true,
		Rules: "dxChecks", KindDoc: "partial layout", KeepWord: "Raw",
		Partial: "bytes 12..13, 16..35 and 40..59 are not described by the sources: src_start_addr (16), dst_start_addr (40) and dst_row_step (48, " +
			"int32 elements; 0 = one SBUF partition) are tpbsim's INFERRED reading, which run executes (tpbsim explain dge.direct2d_xpose_layout); " +
			"bytes 12..13, 24..35 and 52..59 are kept raw",
		Doc: `DMADirect2DXpose is DMA_DIRECT2D_XPOSE_STRUCT, opcode 0xBD DMA_TRANSPOSE (FACTS §C.5). Only part
of the layout is known; every other byte is kept raw in Raw and encoded back unchanged.

	known: in_dtype@14 out_dtype@15 tile_src_row_step@36 (i32) tile_src_rows@60 (== 16)
	       tile_src_cols@61 semaphore@62 dma_configs@63; bytes 12..13, 16..35, 40..59 unknown
	tpbsim's INFERRED reading of the unknown bytes (Provenance dge.direct2d_xpose_layout), which
	the model executes: src_start_addr@16 (ADDR8), dst_start_addr@40 (ADDR8), dst_row_step@48 (i32)

The INFERRED fields are written over Raw only when they are set, so a struct filled through Raw
alone encodes Raw's bytes there.`,
		Fields: withHdr(
			Field{Name: "unknown12", Off: 12, Type: "u8", Count: 2, Blob: true, NoGo: true},
			Field{Name: "in_dtype", Off: 14, Type: "DTYPE"},
			Field{Name: "out_dtype", Off: 15, Type: "DTYPE"},
			Field{Name: "src_start_addr", Off: 16, Type: "ADDR8", OverRaw: true, Doc: "INFERRED offset"},
			Field{Name: "unknown24", Off: 24, Type: "u8", Count: 12, Blob: true, NoGo: true},
			Field{Name: "tile_src_row_step", Off: 36, Type: "i32"},
			Field{Name: "dst_start_addr", Off: 40, Type: "ADDR8", OverRaw: true, Doc: "INFERRED offset"},
			Field{Name: "dst_row_step", Off: 48, Type: "i32", OverRaw: true, Doc: "INFERRED offset; elements, 0 = one SBUF partition"},
			Field{Name: "unknown52", Off: 52, Type: "u8", Count: 8, Blob: true, NoGo: true},
			Field{Name: "tile_src_rows", Off: 60, Type: "u8"},
			Field{Name: "tile_src_cols", Off: 61, Type: "u8"},
			Field{Name: "semaphore", Off: 62, Type: "u8"},
			Field{Name: "dma_configs", Off: 63, Type: "DMA_CONFIGS"},
		)},
	{Kind: "None", Go: "Raw", C: "(no modelled struct)", Size: 64, KeepWord: "Bytes",
		KindDoc: "named opcode, no modelled struct: decodes as a raw word",
		Partial: "tpbsim models no struct for this opcode: bytes 12..63 are kept raw",
		Doc: `Raw is an instruction whose opcode has no modelled struct (or is unknown): the header and
events are decoded for scheduling, and all 64 bytes are kept.`,
		Fields: withHdr(
			Field{Name: "payload", Off: 12, Type: "u8", Count: 52, Blob: true, NoGo: true},
		)},
}
