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

// S4D4TR is NEURON_ISA_TPB_S4D4_TR_STRUCT (64 bytes; seed 000 §4, FACTS §D.1), shared by the
// eleven opcodes of FACTS §D.2 (plus SUNDA's 0x8C/0x8D). op@36 is the reduce/scan operator for
// the reduce and cumulative siblings and is pinned to BYPASS for StreamTranspose.
//
//	byte 0        4        12                32      33       34   35      36  37     38     39       44               64
//	   +--------+--------+-----------------+-------+--------+----+-------+---+------+------+--------+-----------------+
//	   | header | events | src_mem_pattern |in_dty |out_dty | nac|negated| op|op_dim|mask_e|reserved| dst_mem_pattern |
//	   +--------+--------+-----------------+-------+--------+----+-------+---+------+------+--------+-----------------+
type S4D4TR struct {
	Header            Header
	Events            Events
	SrcMemPattern     Tensor4D
	InDtype           DType
	OutDtype          DType
	NumActiveChannels uint8
	Negated           uint8
	Op                ALUOp
	OpDim             TensorSubdim
	MaskEnable        uint8
	Reserved1         [5]uint8
	DstMemPattern     Tensor4D
}

func (i *S4D4TR) Hdr() Header { return i.Header }
func (i *S4D4TR) Evt() Events { return i.Events }

// LoadMaskSelect is LOAD_MASK_SELECT 0x69 on struct CTRL_IM (FACTS §F.4): a 32-entry lane map
// that the following STREAM_SHUFFLE instructions on the DVE queue use. Each entry is valid iff
// < 64 or == 255 (255 = leave the output channel untouched).
//
//	byte 0        4        12                 14              15             32            64
//	   +--------+--------+------------------+---------------+--------------+-------------+
//	   | header | events | param_ram_offset | imm_ptr_select| reserved0[17]| immediate[32]|
//	   +--------+--------+------------------+---------------+--------------+-------------+
type LoadMaskSelect struct {
	Header         Header
	Events         Events
	ParamRAMOffset uint16 // must be 0
	ImmPtrSelect   uint8  // must be 0
	Reserved0      [17]uint8
	Immediate      [32]uint8
}

func (i *LoadMaskSelect) Hdr() Header { return i.Header }
func (i *LoadMaskSelect) Evt() Events { return i.Events }

// Memset is MEMSET 0x49 on struct D4_MR (FACTS §F.4). Bytes 12..27, 33, 35, 37..39 are not
// described by the sources and are kept raw.
//
//	byte 0        4        12        28                 32     33   34   35   36         37      40         44          64
//	   +--------+--------+---------+-------------------+------+----+----+----+----------+-------+----------+-----------+
//	   | header | events | (raw)   | dst_element_count | dtype|raw | nac|raw | serial.  | raw   | set_value| dst TENSOR4D|
//	   +--------+--------+---------+-------------------+------+----+----+----+----------+-------+----------+-----------+
type Memset struct {
	Header            Header
	Events            Events
	Raw12             [16]uint8 // bytes 12..27, unknown
	DstElementCount   uint32
	Dtype             DType
	Raw33             uint8
	NumActiveChannels uint8
	Raw35             uint8
	SerializationMode uint8 // must be Serial (value not known; see provenance)
	Raw37             [3]uint8
	SetValue          uint32
	DstMemPattern     Tensor4D
}

func (i *Memset) Hdr() Header { return i.Header }
func (i *Memset) Evt() Events { return i.Events }

// DMADirect2D is NEURON_ISA_TPB_DMA_DIRECT2D_STRUCT, opcode 0xB8 DMAMEMCPY (FACTS §C.2; seed 003
// §3.1): a 2-D (x, y) strided memcopy with optional cast and reduce-on-copy compute_op.
//
//	byte 0      4      12     13  14      15         16        24            32          36        38  39  40        48            56          60        62    63
//	   +------+------+------+---+-------+----------+---------+-------------+-----------+---------+---+---+---------+-------------+-----------+---------+-----+-----+
//	   |header|events|dmacfg|sem|sem_inc|compute_op| src ADDR8| src_step[2] | src_num[2]| src_esz |sbr|dbr| dst ADDR8| dst_step[2] | dst_num[2]| dst_esz | in  | out |
//	   +------+------+------+---+-------+----------+---------+-------------+-----------+---------+---+---+---------+-------------+-----------+---------+-----+-----+
type DMADirect2D struct {
	Header       Header
	Events       Events
	DMAConfigs   DMAConfigs
	Semaphore    uint8
	SemIncrement uint8
	ComputeOp    DGEComputeOp
	SrcStartAddr Addr8
	SrcStepElem  [2]int32
	SrcNumElem   [2]uint16
	SrcElemSize  uint16 // 0 means 64 KiB
	SrcBoundReg  BoundCheckReg
	DstBoundReg  BoundCheckReg
	DstStartAddr Addr8
	DstStepElem  [2]int32
	DstNumElem   [2]uint16
	DstElemSize  uint16
	InDtype      DType
	OutDtype     DType
}

func (i *DMADirect2D) Hdr() Header { return i.Header }
func (i *DMADirect2D) Evt() Events { return i.Events }

// DMAIndirect1D is NEURON_ISA_TPB_DMA_INDIRECT1D_STRUCT, opcode 0xBB (FACTS §C.3; seed 003 §3.2):
// a 1-D access with dynamic gather/scatter indices (uint32, SBUF partition 0).
//
//	byte 0      4      12  13      14        15    16        24       28      30      32        40       44      46      48      52      56 57  58  59  60  61     62
//	   +------+------+---+-------+---------+-----+---------+--------+-------+-------+---------+--------+-------+-------+-------+-------+---+---+---+---+---+------+----+
//	   |header|events|sem|sem_inc|idx_nac  |flags| src ADDR8|src_step|src_num|src_esz| dst ADDR8|dst_step|dst_num|dst_esz|src_idx|dst_idx|in |out|sib|dib|cop|dmacfg|rsvd|
//	   +------+------+---+-------+---------+-----+---------+--------+-------+-------+---------+--------+-------+-------+-------+-------+---+---+---+---+---+------+----+
type DMAIndirect1D struct {
	Header               Header
	Events               Events
	Semaphore            uint8
	SemIncrement         uint8
	IdxNumActiveChannels uint8 // must be 128
	Flags                DMAIndirectFlags
	SrcStartAddr         Addr8
	SrcStepElem          int32
	SrcNumElem           uint16
	SrcElemSize          uint16
	DstStartAddr         Addr8
	DstStepElem          int32
	DstNumElem           uint16
	DstElemSize          uint16
	SrcIdxStartAddr      Addr4
	DstIdxStartAddr      Addr4
	InDtype              DType
	OutDtype             DType
	SrcIdxBoundReg       BoundCheckReg
	DstIdxBoundReg       BoundCheckReg
	ComputeOp            DGEComputeOp
	DMAConfigs           DMAConfigs
	Reserved             [2]uint8
}

func (i *DMAIndirect1D) Hdr() Header { return i.Header }
func (i *DMAIndirect1D) Evt() Events { return i.Events }

// DMAGatherXpose is NEURON_ISA_TPB_DMA_GATHER_XPOSE_STRUCT, opcode 0xF1 DMA_GATHER_TRANSPOSE
// (FACTS §C.4; seed 003 §3.3): gather rows by uint32 index, then transpose them through the
// 16x128 crossbar into SBUF. CAYMAN and later.
//
//	byte 0      4      12  13     14      15  16        24           32          36       40        48      51  52          56          60       62    63
//	   +------+------+---+------+-------+---+---------+------------+-----------+--------+---------+-------+---+-----------+-----------+--------+-----+-----+
//	   |header|events|sem|dmacfg|idx_nac|sib| src ADDR8|src_step[2] |src_num[2] |src_idx | dst ADDR8|rsvd[3]|dbr|dst_step_1 |dst_num[2] |elem_sz |dtype|flags|
//	   +------+------+---+------+-------+---+---------+------------+-----------+--------+---------+-------+---+-----------+-----------+--------+-----+-----+
type DMAGatherXpose struct {
	Header               Header
	Events               Events
	Semaphore            uint8
	DMAConfigs           DMAConfigs
	IdxNumActiveChannels uint8 // must be 128
	SrcIdxBoundReg       BoundCheckReg
	SrcStartAddr         Addr8
	SrcStepElem          [2]int32
	SrcNumElem           [2]uint16
	SrcIdxStartAddr      Addr4
	DstStartAddr         Addr8
	Reserved             [3]uint8
	DstBoundReg          BoundCheckReg
	DstStepElem1         int32 // dim-0 dst step is implicit = sizeof(dtype_hi)
	DstNumElem           [2]uint16
	ElemSize             uint16
	Dtype                DTypePair
	Flags                GatherTransposeFlags
}

func (i *DMAGatherXpose) Hdr() Header { return i.Header }
func (i *DMAGatherXpose) Evt() Events { return i.Events }

// DMADirect2DXpose is DMA_DIRECT2D_XPOSE_STRUCT, opcode 0xBD DMA_TRANSPOSE (FACTS §C.5). Only part
// of the layout is known; every other byte is kept raw in Raw and encoded back unchanged.
//
//	known: in_dtype@14 out_dtype@15 tile_src_row_step@36 (i32) tile_src_rows@60 (== 16)
//	       tile_src_cols@61 semaphore@62 dma_configs@63; bytes 12..13, 16..35, 40..59 unknown
//	tpbsim's INFERRED reading of the unknown bytes (Provenance dge.direct2d_xpose_layout), which
//	the model executes: src_start_addr@16 (ADDR8), dst_start_addr@40 (ADDR8), dst_row_step@48 (i32)
type DMADirect2DXpose struct {
	Header         Header
	Events         Events
	InDtype        DType
	OutDtype       DType
	SrcStartAddr   Addr8 // INFERRED offset
	TileSrcRowStep int32
	DstStartAddr   Addr8 // INFERRED offset
	DstRowStep     int32 // INFERRED offset; elements, 0 = one SBUF partition
	TileSrcRows    uint8
	TileSrcCols    uint8
	Semaphore      uint8
	DMAConfigs     DMAConfigs
	Raw            [64]byte // the whole word as read; known fields above override their bytes on encode
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

func (i *DMADirect2DXpose) Hdr() Header { return i.Header }
func (i *DMADirect2DXpose) Evt() Events { return i.Events }

// Raw is an instruction whose opcode has no modelled struct (or is unknown): the header and
// events are decoded for scheduling, and all 64 bytes are kept.
type Raw struct {
	Header Header
	Events Events
	Bytes  [64]byte
}

func (i *Raw) Hdr() Header { return i.Header }
func (i *Raw) Evt() Events { return i.Events }
