package isa

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

func t4(addr uint32, n0 uint16) Tensor4D {
	return Tensor4D{StartAddr: Addr4(addr), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{n0, 1, 1, 1}}
}

var hdr = func(op Opcode) Header { return Header{Opcode: op, InstWordLen: 16} }

// s4base is a valid instruction of each S4D4_TR opcode (on CAYMAN; 0x8C/0x8D on SUNDA).
func s4base(op Opcode) *S4D4TR {
	i := &S4D4TR{Header: hdr(op), SrcMemPattern: t4(0, 32), InDtype: DTypeBFLOAT16, OutDtype: DTypeBFLOAT16,
		NumActiveChannels: 32, DstMemPattern: t4(0x1000, 32)}
	switch op {
	case OpTENSOR_REDUCE_ARITH_OP, OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP:
		i.Op, i.OpDim, i.DstMemPattern.NumElem[0] = ALUAdd, SubdimX, 1
	case OpTENSOR_REDUCE_BITVEC_OP, OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP:
		i.Op, i.OpDim, i.DstMemPattern.NumElem[0] = ALUBitwiseOr, SubdimX, 1
		i.InDtype, i.OutDtype = DTypeINT32, DTypeINT32
	case OpTENSOR_CUMULATIVE_ARITH_OP:
		i.Op, i.OpDim = ALUAdd, SubdimX
	case OpTENSOR_CUMULATIVE_BITVEC_OP:
		i.Op, i.OpDim = ALUBitwiseOr, SubdimX
		i.InDtype, i.OutDtype = DTypeINT32, DTypeINT32
	case OpCAST:
		i.OutDtype = DTypeFP32
	case OpTENSOR_REDUCE_ADD_BF16, OpTENSOR_REDUCE_MAX_BF16:
		i.OutDtype, i.OpDim, i.DstMemPattern.NumElem[0] = DTypeFP32, SubdimX, 1
	case OpSTREAM_TRANSPOSE:
		i.MaskEnable = 1
	}
	return i
}

func bases() map[string]func() Inst {
	return map[string]func() Inst{
		"lms": func() Inst {
			i := &LoadMaskSelect{Header: hdr(OpLOAD_MASK_SELECT)}
			for k := range i.Immediate {
				i.Immediate[k] = uint8(31 - k)
			}
			return i
		},
		"memset": func() Inst {
			return &Memset{Header: hdr(OpMEMSET), DstElementCount: 64, Dtype: DTypeFP32, NumActiveChannels: 32,
				SetValue: 0x3f800000, DstMemPattern: t4(0x100, 64)}
		},
		"d2": func() Inst {
			return &DMADirect2D{Header: hdr(OpDMAMEMCPY), SrcStartAddr: 0x1000, SrcStepElem: [2]int32{1, 64},
				SrcNumElem: [2]uint16{64, 4}, SrcElemSize: 2, DstStartAddr: LocalAddr8(0x40), DstStepElem: [2]int32{1, 64},
				DstNumElem: [2]uint16{64, 4}, DstElemSize: 2, InDtype: DTypeBFLOAT16, OutDtype: DTypeBFLOAT16}
		},
		"di": func() Inst {
			return &DMAIndirect1D{Header: hdr(OpDMA_INDIRECT), IdxNumActiveChannels: 128, SrcStartAddr: 0x1000, SrcStepElem: 1,
				SrcNumElem: 128, SrcElemSize: 256, DstStartAddr: LocalAddr8(0x1000), DstStepElem: 1, DstNumElem: 128,
				DstElemSize: 256, SrcIdxStartAddr: 0x100, InDtype: DTypeBFLOAT16, OutDtype: DTypeBFLOAT16}
		},
		"gx": func() Inst {
			return &DMAGatherXpose{Header: hdr(OpDMA_GATHER_TRANSPOSE), IdxNumActiveChannels: 128, SrcStartAddr: 0x1000,
				SrcStepElem: [2]int32{1, 256}, SrcNumElem: [2]uint16{128, 16}, SrcIdxStartAddr: 0x100,
				DstStartAddr: LocalAddr8(0x1000), DstStepElem1: 32, DstNumElem: [2]uint16{16, 1}, ElemSize: 256,
				Dtype: MakeDTypePair(DTypeBFLOAT16, DTypeBFLOAT16), Flags: GatherTransposeFlags(IndirectDimY)}
		},
		"dx": func() Inst {
			return &DMADirect2DXpose{Header: hdr(OpDMA_TRANSPOSE), InDtype: DTypeBFLOAT16, OutDtype: DTypeBFLOAT16,
				TileSrcRows: 16, TileSrcCols: 128, Raw: [64]byte{0: byte(OpDMA_TRANSPOSE), 1: 16}}
		},
	}
}

type mutation struct {
	rule string
	gen  Generation
	base string // an opcode name (S4D4_TR) or a key of bases()
	mut  func(Inst)
}

func s4(f func(i *S4D4TR)) func(Inst) { return func(x Inst) { f(x.(*S4D4TR)) } }

const psum0 = 0x2000000

var mutations = []mutation{
	{"opcode_on_generation", SUNDA, "gx", func(i Inst) {}},
	{"opcode_on_generation", CAYMAN, "TENSOR_REDUCE_ADD_BF16", func(i Inst) {}},
	{"has_valid_neuron_header", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.Header.InstWordLen = 64 })},
	{"has_valid_neuron_events", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.Events.WaitMode = WaitInvalid })},
	{"has_valid_neuron_events", MAVERICK, "COPY", s4(func(i *S4D4TR) { i.Events.WaitMode = WaitForEvt6 })},
	{"has_valid_neuron_events", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.Events.UpdateMode = 0x42 })},
	{"s4d4_tr_reserved_zero", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.Reserved1[4] = 1 })},
	{"mask_enable_valid", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.MaskEnable = 2 })},
	{"mask_enable_zero", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.MaskEnable = 1 })},
	{"is_valid_dtype", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.InDtype, i.OutDtype = DTypeFP32R, DTypeFP32R })},
	{"is_valid_dtype", CAYMAN, "CAST", s4(func(i *S4D4TR) { i.OutDtype = DTypeINT64 })},
	{"is_valid_dtype_64", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) { i.InDtype = DTypeFP32R })},
	{"s4d4_tr_same_src_dst_type", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.OutDtype = DTypeFP16 })},
	{"is_zero_subdim", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.OpDim = SubdimXY })},
	{"is_valid_subdim", CAYMAN, "TENSOR_CUMULATIVE_ARITH_OP", s4(func(i *S4D4TR) { i.OpDim = SubdimUNUSED })},
	{"has_valid_active_channel_range", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.NumActiveChannels = 0 })},
	{"start_addr_active_channels", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.SrcMemPattern.StartAddr = 100 * 256 * KiB })},
	{"tensor4d_valid", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.SrcMemPattern.StartAddr = 1 })},
	{"tensor4d_valid", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.DstMemPattern.StartAddr = psum0 })},
	{"tensor4d_footprint", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.SrcMemPattern.StepElem[0] = -1 })},
	{"tensor4d_footprint", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.SrcMemPattern.StartAddr = 224*KiB - 8 })},
	{"tensor4d_valid", SUNDA, "COPY", s4(func(i *S4D4TR) { i.SrcMemPattern.StartAddr = 200 * KiB })},
	{"tensor4d_valid", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.DstMemPattern.StartAddr = 0x80000041 })},
	{"tensor4d_valid", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.DstMemPattern.StartAddr = 0x12000000 })},
	{"tensor4d_valid", CAYMAN, "COPY", s4(func(i *S4D4TR) {
		i.SrcMemPattern.NumElem = [4]uint16{32, 0, 1, 1}
		i.SrcMemPattern.StartAddr |= 0 // count 0 breaks tensor4d_valid; same_count then also differs:
		i.DstMemPattern.NumElem = [4]uint16{32, 0, 1, 1}
	})},
	{"s4d4_tr_transpose_src_dst_count", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.DstMemPattern.NumElem[1] = 2 })},
	{"s4d4_tr_same_src_dst_count", CAYMAN, "COPY", s4(func(i *S4D4TR) { i.DstMemPattern.NumElem[0] = 16 })},
	{"s4d4_tr_op_bypass", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.Op = ALUAdd })},
	{"is_valid_enum", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) { i.Op = ALUAbsMax })},
	{"is_valid_enum", SUNDA, "COPY", s4(func(i *S4D4TR) { i.Op = ALUMaxInt })},
	{"has_multiple_32_channels", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.NumActiveChannels = 48 })},
	{"has_multiple_32_channels", CAYMAN, "STREAM_SHUFFLE", s4(func(i *S4D4TR) { i.NumActiveChannels = 16 })},
	{"has_transpose_src_element_count_t4d", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) {
		i.SrcMemPattern.NumElem[0] = 48
	})},
	{"has_zero_negated_field", CAYMAN, "STREAM_TRANSPOSE", s4(func(i *S4D4TR) { i.Negated = 1 })},
	{"has_valid_reduce_negated", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) { i.Negated = 2 })},
	{"tensor_reduce_valid_alu_op", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) { i.Op = ALUDivide })},
	{"tensor_reduce_valid_bitvec_op", CAYMAN, "TENSOR_REDUCE_BITVEC_OP", s4(func(i *S4D4TR) { i.Op = ALUAdd })},
	{"is_s4d4_tr_tensors_in_sbuf", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {
		i.Op, i.InDtype, i.OutDtype = ALUMaxInt, DTypeINT32, DTypeINT32
		i.SrcMemPattern.StartAddr = psum0
	})},
	// no engine given: an integer op selects the POOL arm, which needs a 32/64-bit integer in_dtype
	{"is_valid_tensor_reduce_arith_engine", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) { i.Op = ALUMaxInt })},
	// no engine given: a float op selects the DVE arm, whose dtypes are is_valid_dtype (no 64-bit)
	{"is_valid_tensor_reduce_arith_engine", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {
		i.InDtype, i.OutDtype = DTypeINT64, DTypeINT64
	})},
	{"tensor_reduce_dst_count", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) { i.DstMemPattern.NumElem[0] = 2 })},
	{"tensor_cumulative_valid_alu_op", CAYMAN, "TENSOR_CUMULATIVE_ARITH_OP", s4(func(i *S4D4TR) { i.Op = ALUPow })},
	{"tensor_cumulative_valid_bitvec_op", CAYMAN, "TENSOR_CUMULATIVE_BITVEC_OP", s4(func(i *S4D4TR) { i.Op = ALUMult })},
	{"tensor_cumulative_bitvec_dtype", CAYMAN, "TENSOR_CUMULATIVE_BITVEC_OP", s4(func(i *S4D4TR) {
		i.InDtype, i.OutDtype = DTypeINT16, DTypeINT16
	})},
	{"tensor_cumulative_lsr_int32", CAYMAN, "TENSOR_CUMULATIVE_BITVEC_OP", s4(func(i *S4D4TR) {
		i.Op, i.InDtype, i.OutDtype = ALULogicalShiftRight, DTypeUINT32, DTypeUINT32
	})},
	{"bf16_reduce_in_dtype", SUNDA, "TENSOR_REDUCE_ADD_BF16", s4(func(i *S4D4TR) { i.InDtype = DTypeFP16 })},
	{"bf16_reduce_src_aligned", SUNDA, "TENSOR_REDUCE_MAX_BF16", s4(func(i *S4D4TR) { i.SrcMemPattern.StartAddr = 2 })},
	{"bf16_reduce_even_num_elem0", SUNDA, "TENSOR_REDUCE_ADD_BF16", s4(func(i *S4D4TR) {
		i.SrcMemPattern.NumElem = [4]uint16{1, 32, 1, 1}
		i.DstMemPattern.NumElem[0] = 32
	})},
	{"bf16_reduce_unit_step0", SUNDA, "TENSOR_REDUCE_ADD_BF16", s4(func(i *S4D4TR) { i.SrcMemPattern.StepElem[0] = 2 })},

	{"load_mask_select_param_ram_offset_zero", CAYMAN, "lms", func(x Inst) { x.(*LoadMaskSelect).ParamRAMOffset = 4 }},
	{"load_mask_select_imm_ptr_select_zero", CAYMAN, "lms", func(x Inst) { x.(*LoadMaskSelect).ImmPtrSelect = 1 }},
	{"load_mask_select_reserved_zero", CAYMAN, "lms", func(x Inst) { x.(*LoadMaskSelect).Reserved0[16] = 1 }},
	{"load_mask_select_valid_mask", CAYMAN, "lms", func(x Inst) { x.(*LoadMaskSelect).Immediate[3] = 64 }},

	{"is_valid_dtype", MARIANA, "memset", func(x Inst) { x.(*Memset).Dtype = DTypeINT64 }},
	{"has_valid_active_channel_range", CAYMAN, "memset", func(x Inst) { x.(*Memset).NumActiveChannels = 129 }},
	{"memset_serialization_mode", CAYMAN, "memset", func(x Inst) { x.(*Memset).SerializationMode = 1 }},
	{"memset_set_value_fits_dtype", CAYMAN, "memset", func(x Inst) { x.(*Memset).Dtype = DTypeBFLOAT16 }},
	{"memset_dst_element_count", CAYMAN, "memset", func(x Inst) { x.(*Memset).DstElementCount = 65 }},
	{"start_addr_active_channels", CAYMAN, "memset", func(x Inst) { x.(*Memset).DstMemPattern.StartAddr = 127 * 256 * KiB }},
	{"tensor4d_footprint", CAYMAN, "memset", func(x Inst) { x.(*Memset).DstMemPattern.StepElem[0] = 4000 }},
	{"tensor4d_valid", MAVERICK, "memset", func(x Inst) { x.(*Memset).DstMemPattern.StartAddr = 0x8000000 }},

	{"is_valid_addr8", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).SrcStartAddr |= 0x10 << 56 }},
	{"is_valid_addr8", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).DstStartAddr = LocalAddr8(0x12000000) }},
	{"is_valid_dge_shape_reg", CAYMAN, "d2", func(x Inst) {
		i := x.(*DMADirect2D)
		i.SrcStartAddr |= 0x40 << 56
		i.SrcStepElem, i.SrcNumElem = [2]int32{7, 0}, [2]uint16{0, 0}
	}},
	{"zero_num_step_elem_shape_reg_mode", CAYMAN, "d2", func(x Inst) {
		i := x.(*DMADirect2D)
		i.SrcStartAddr |= 0x40 << 56
		i.SrcStepElem = [2]int32{1, 0}
	}},
	{"are_valid_memcpy_dtypes", CAYMAN, "d2", func(x Inst) {
		i := x.(*DMADirect2D)
		i.InDtype, i.OutDtype = DTypeFP32R, DTypeFP32R
		i.SrcElemSize, i.DstElemSize = 4, 4
	}},
	{"has_valid_bound_check_reg", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).SrcBoundReg = 0x05 }},
	{"is_valid_dge_compute_op", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).ComputeOp = 5 }},
	{"is_valid_dma_configs", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).DMAConfigs = 5 }},
	{"is_valid_dma_configs", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).DMAConfigs = 0x08 }},
	{"is_valid_dma_memcpy_direct_without_cce", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).DstNumElem[1] = 3 }},
	{"is_valid_dma_cce", CAYMAN, "d2", func(x Inst) { x.(*DMADirect2D).OutDtype = DTypeFP32 }},

	{"is_valid_addr8", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).DstStartAddr = 0x0C << 56 }},
	{"is_valid_dge_shape_reg", CAYMAN, "di", func(x Inst) {
		i := x.(*DMAIndirect1D)
		i.DstStartAddr |= 0x40 << 56
		i.DstStepElem, i.DstNumElem = -1, 0
	}},
	{"zero_num_elem_shape_reg_mode", CAYMAN, "di", func(x Inst) {
		i := x.(*DMAIndirect1D)
		i.DstStartAddr |= 0x40 << 56
	}},
	{"check_dma_indirect_indices", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).IdxNumActiveChannels = 64 }},
	{"has_dma_indirect_valid_idx_start_addr", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).SrcIdxStartAddr = 0x102 }},
	{"has_dma_indirect_idx_addr_in_sbuf_partition0", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).SrcIdxStartAddr = 256 * KiB }},
	{"are_valid_memcpy_dtypes", CAYMAN, "di", func(x Inst) {
		i := x.(*DMAIndirect1D)
		i.InDtype, i.OutDtype = DTypeINVALID, DTypeINVALID
	}},
	{"is_valid_dge_compute_op", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).ComputeOp = 9 }},
	{"is_valid_dma_indirect_operation", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).DstElemSize = 128 }},
	{"has_valid_idx_bound_check_reg", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).DstIdxBoundReg = 0x40 }},
	{"has_valid_indirect_dim_by_mode", CAYMAN, "di", func(x Inst) {
		x.(*DMAIndirect1D).Flags = MakeDMAIndirectFlags(SrcIndirection, false, false, 0, IndirectDimZ)
	}},
	{"has_valid_indirect_dim_by_mode", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).Flags = 3 }},
	{"indirect_dim_check", CAYMAN, "di", func(x Inst) {
		x.(*DMAIndirect1D).Flags = MakeDMAIndirectFlags(SrcIndirection, false, false, IndirectDimY, 0)
	}},
	{"has_dma_indirect_valid_index_count", CAYMAN, "di", func(x Inst) {
		i := x.(*DMAIndirect1D)
		i.SrcNumElem, i.DstNumElem = 5000, 5000
	}},
	{"dma_indirect_reserved_zero", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).Reserved[1] = 1 }},
	{"is_valid_dma_configs", CAYMAN, "di", func(x Inst) { x.(*DMAIndirect1D).DMAConfigs = 7 }},

	{"is_valid_addr8", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).SrcStartAddr = Addr8(DMALocalBase + 0x20000000) }},
	{"gather_xpose_dst_in_sbuf", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).DstStartAddr = 0x2000 }},
	{"is_valid_gather_transpose_dtype", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).Dtype = MakeDTypePair(DTypeBFLOAT16, DTypeFP16) }},
	{"gather_xpose_elem_size", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).ElemSize = 258 }},
	{"gather_xpose_src_aligned", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).SrcStartAddr = 0x1001 }},
	{"gather_xpose_dst_aligned", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).DstStartAddr = LocalAddr8(0x1010) }},
	{"gather_xpose_src_idx_aligned", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).SrcIdxStartAddr = 0x102 }},
	{"gather_xpose_gather_dim_y", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).Flags = 0 }},
	{"gather_xpose_flags_reserved_zero", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).Flags |= 4 }},
	{"gather_xpose_src_rows_multiple_16", CAYMAN, "gx", func(x Inst) {
		i := x.(*DMAGatherXpose)
		i.SrcNumElem[1], i.DstNumElem[0] = 17, 17
	}},
	{"gather_xpose_index_count", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).DstNumElem[0] = 32 }},
	{"gather_xpose_dst_step", CAYMAN, "gx", func(x Inst) {
		i := x.(*DMAGatherXpose)
		i.DstStepElem1, i.DstNumElem[1] = 33, 2
	}},
	{"check_dma_indirect_indices", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).IdxNumActiveChannels = 0 }},
	{"has_valid_idx_bound_check_reg_no_flags", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).SrcIdxBoundReg = 0x41 }}, // notif set, bc_enabled clear
	{"has_valid_bound_check_reg", CAYMAN, "gx", func(x Inst) {
		i := x.(*DMAGatherXpose)
		i.DstBoundReg = 0x80 | 63
		i.DstStartAddr = Addr8(uint64(0x24)<<56 | 0x1000)
	}},
	{"gather_xpose_reserved_zero", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).Reserved[0] = 1 }},
	{"is_valid_dma_configs", CAYMAN, "gx", func(x Inst) { x.(*DMAGatherXpose).DMAConfigs = 0xFF }},

	{"are_valid_memcpy_dtypes", CAYMAN, "dx", func(x Inst) { x.(*DMADirect2DXpose).InDtype = DTypeUINT64 }},
	{"dma_xpose_tile_src_rows", CAYMAN, "dx", func(x Inst) { x.(*DMADirect2DXpose).TileSrcRows = 8 }},
	{"dma_xpose_tile_src_cols", CAYMAN, "dx", func(x Inst) {
		i := x.(*DMADirect2DXpose)
		i.InDtype, i.OutDtype = DTypeFP32, DTypeFP32
	}},
	{"is_valid_dma_configs", CAYMAN, "dx", func(x Inst) { x.(*DMADirect2DXpose).DMAConfigs = 0x10 }},
}

// engineMutation is a mutation validated as queued on an engine (ValidateOn): the rules with one
// arm per engine.
type engineMutation struct {
	mutation
	eng Engine // EngineNone: Validate
}

var int32s = func(i *S4D4TR) { i.InDtype, i.OutDtype = DTypeINT32, DTypeINT32 }

var engineMutations = []engineMutation{
	// FACTS §D.4: the DVE arm excludes the tensor-reduce integer ops and argmax/argmin ...
	{mutation{"is_valid_tensor_reduce_arith_engine", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {
		int32s(i)
		i.Op = ALUAddInt
	})}, EngineDVE},
	{mutation{"is_valid_tensor_reduce_arith_engine", MARIANA, "TRANSPOSE_TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {
		int32s(i)
		i.Op = ALUAmaxUint
	})}, EngineDVE},
	{mutation{"is_valid_tensor_reduce_arith_engine", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {
		i.InDtype = DTypeUINT64
	})}, EngineDVE},
	// ... and the POOL arm takes only them, on 32/64-bit integers in SBUF
	{mutation{"is_valid_tensor_reduce_arith_engine", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(int32s)}, EnginePOOL},
	{mutation{"is_valid_tensor_reduce_arith_engine", CAYMAN, "TRANSPOSE_TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {
		int32s(i)
		i.Op = ALUMax
	})}, EnginePOOL},
	{mutation{"is_valid_tensor_reduce_arith_engine", SUNDA, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) { i.Op = ALUAddInt })}, EnginePOOL},
	{mutation{"is_valid_tensor_reduce_arith_engine", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {})}, EngineACT},
	{mutation{"is_s4d4_tr_tensors_in_sbuf", CAYMAN, "TENSOR_REDUCE_ARITH_OP", s4(func(i *S4D4TR) {
		int32s(i)
		i.Op = ALUMinUint
		i.DstMemPattern.StartAddr = psum0
	})}, EnginePOOL},
}

// allMutations is mutations (no engine) then engineMutations.
func allMutations() []engineMutation {
	out := make([]engineMutation, 0, len(mutations)+len(engineMutations))
	for _, m := range mutations {
		out = append(out, engineMutation{m, EngineNone})
	}
	return append(out, engineMutations...)
}

// validateM validates a mutated instruction the way its mutation says.
func validateM(m engineMutation, i Inst) []Violation {
	switch {
	case m.eng != EngineNone:
		return ValidateOn(i, m.gen, m.eng)
	}
	return Validate(i, m.gen)
}

func buildBase(t *testing.T, name string) Inst {
	if b, ok := bases()[name]; ok {
		return b()
	}
	op, err := ParseOpcode(name)
	if err != nil {
		t.Fatalf("base %q: %v", name, err)
	}
	return s4base(op)
}

func ruleSet(vs []Violation) []string {
	m := map[string]bool{}
	for _, v := range vs {
		m[v.Rule] = true
	}
	var out []string
	for r := range m {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

func TestBasesAreValid(t *testing.T) {
	for _, g := range Generations {
		for name := range bases() {
			i := buildBase(t, name)
			if !OpcodeOf(i).InGen(g) {
				continue
			}
			t.Run(name+"@"+g.String(), func(t *testing.T) {
				if vs := Validate(i, g); len(vs) != 0 {
					t.Errorf("%v", vs)
				}
			})
		}
		for _, op := range S4D4TROpcodes(g) {
			t.Run(op.String()+"@"+g.String(), func(t *testing.T) {
				i := s4base(op)
				if vs := Validate(i, g); len(vs) != 0 {
					t.Errorf("%v", vs)
				}
				// round trip through the codec keeps validity
				w := Encode(i)
				d, _ := Decode(w[:])
				if vs := Validate(d, g); len(vs) != 0 {
					t.Errorf("decoded: %v", vs)
				}
			})
		}
	}
}

// TestEveryRuleFailsAlone walks the registry: for every rule there is an instruction (a valid
// base with one mutation) that breaks that rule and no other.
func TestEveryRuleFailsAlone(t *testing.T) {
	covered := map[string]bool{}
	for _, m := range allMutations() {
		covered[m.rule] = true
		t.Run(fmt.Sprintf("%s/%s@%v,%v", m.rule, m.base, m.gen, m.eng), func(t *testing.T) {
			i := buildBase(t, m.base)
			m.mut(i)
			vs := validateM(m, i)
			got := ruleSet(vs)
			if len(got) != 1 || got[0] != m.rule {
				t.Fatalf("want only %s, got %v", m.rule, vs)
			}
			for _, v := range vs {
				if v.Field == "" || v.Legal == "" || v.Offset < 0 || v.Offset > 63 {
					t.Errorf("incomplete violation %+v", v)
				}
			}
			// the word survives the codec with the same verdict
			w := Encode(i)
			d, _ := Decode(w[:])
			if got2 := ruleSet(validateM(m, d)); strings.Join(got2, ",") != m.rule {
				t.Errorf("after encode/decode got %v", got2)
			}
		})
	}
	// inst_nbytes is the decoder's, not a validator's: a word one byte short
	if _, err := Decode(make([]byte, InstNBytes-1)); fault.Rule(err) != RuleInstNBytes {
		t.Errorf("%s: Decode of 63 bytes: %v", RuleInstNBytes, err)
	}
	covered[RuleInstNBytes] = true
	// isa.generation: a valid word on the zero Generation
	if vs := Validate(s4base(OpCOPY), GenInvalid); len(vs) != 1 || vs[0].Rule != RuleGeneration {
		t.Errorf("%s: Validate on GenInvalid: %v", RuleGeneration, vs)
	}
	covered[RuleGeneration] = true
	for _, id := range RuleIDs() {
		if !covered[id] {
			t.Errorf("rule %s has no failing case", id)
		}
	}
}

func TestRegistryComplete(t *testing.T) {
	emitted := map[string]bool{}
	for _, id := range append(RuleIDs(), ParseRuleIDs()...) {
		emitted[id] = true
		t.Run(id, func(t *testing.T) {
			p, ok := Lookup(id)
			if !ok {
				t.Fatalf("emitted but not registered")
			}
			if p.Kind != "rule" || p.Source == "" || p.Text == "" || len(p.Fields) == 0 || p.Confidence.Kind == "" {
				t.Errorf("incomplete entry %+v", p)
			}
			if p.Confidence.Kind != "OBSERVED" && p.Reason == "" {
				t.Errorf("%v without a reason", p.Confidence)
			}
		})
	}
	t.Run("registry", func(t *testing.T) {
		seen := map[string]bool{}
		for _, p := range Registry() {
			if seen[p.ID] {
				t.Errorf("duplicate registry id %s", p.ID)
			}
			seen[p.ID] = true
			if p.Kind == "rule" && !emitted[p.ID] {
				t.Errorf("registered rule %s is never emitted", p.ID)
			}
		}
	})
}

func TestViolationTexts(t *testing.T) {
	cases := []struct {
		name  string
		mut   func(i *S4D4TR)
		rules string // the rules broken, in order
		n     int    // violations
		first string // the first violation's text
		off   int    // its offset
	}{
		{"one rule", func(i *S4D4TR) { i.NumActiveChannels = 48 }, "has_multiple_32_channels", 1,
			"has_multiple_32_channels: num_active_channels = 48, legal: 32, 64, 96 or 128", 34},
		{"every violation", func(i *S4D4TR) {
			i.NumActiveChannels, i.Negated, i.Op, i.Reserved1 = 48, 1, ALUAdd, [5]uint8{1, 0, 0, 0, 1}
		}, "has_multiple_32_channels,has_zero_negated_field,s4d4_tr_op_bypass,s4d4_tr_reserved_zero", 5, // two reserved bytes
			"s4d4_tr_reserved_zero: reserved1[0] = 0x1, legal: 0", 39},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := s4base(OpSTREAM_TRANSPOSE)
			c.mut(i)
			vs := Validate(i, CAYMAN)
			if got := strings.Join(ruleSet(vs), ","); got != c.rules || len(vs) != c.n {
				t.Fatalf("rules %s (%d violations), want %s (%d)", got, len(vs), c.rules, c.n)
			}
			if vs[0].String() != c.first || vs[0].Offset != c.off {
				t.Errorf("first violation %q at %d, want %q at %d", vs[0].String(), vs[0].Offset, c.first, c.off)
			}
		})
	}
}

// The reviewer's cases: an integer reduce op on the DVE, a float reduce on POOL (plain and
// fused transpose). Each violation names the field, the value with the engine, and the legal set
// of that engine; the instruction index and the opcode are the caller's (sim.InstError, check).
func TestReduceEngineArmMessages(t *testing.T) {
	dveInt := s4base(OpTENSOR_REDUCE_ARITH_OP)
	int32s(dveInt)
	dveInt.Op = ALUAddInt
	poolFP := s4base(OpTENSOR_REDUCE_ARITH_OP)
	poolFP.InDtype, poolFP.OutDtype = DTypeFP32, DTypeFP32
	poolMax := s4base(OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP)
	poolMax.InDtype, poolMax.OutDtype, poolMax.Op = DTypeFP32, DTypeFP32, ALUMax
	for _, c := range []struct {
		inst *S4D4TR
		eng  Engine
		want []string // field = value, legal prefix
	}{
		{dveInt, EngineDVE, []string{"op = ADD_INT on DVE, legal: on DVE: BYPASS, ADD, SUBTRACT, MULT, MAX, MIN,"}},
		{poolFP, EnginePOOL, []string{"op = ADD on POOL, legal: on POOL: ADD_INT, MULT_INT, ABS_MAX_INT, ABS_MIN_INT, MAX_INT, MIN_INT, MAX_UINT, MIN_UINT, MULT_UINT, AMAX_INT, AMIN_INT, AMAX_UINT or AMIN_UINT ",
			"in_dtype = FP32 on POOL, legal: on POOL: UINT64, INT32, UINT32 or INT64 "}},
		{poolMax, EnginePOOL, []string{"op = MAX on POOL, legal: on POOL: ADD_INT,", "in_dtype = FP32 on POOL"}},
	} {
		t.Run(fmt.Sprintf("%v_%v_on_%v", c.inst.Header.Opcode, c.inst.Op, c.eng), func(t *testing.T) {
			if vs := Validate(c.inst, CAYMAN); len(vs) != 0 {
				t.Fatalf("without an engine: %v", vs)
			}
			vs := ValidateOn(c.inst, CAYMAN, c.eng)
			if len(vs) != len(c.want) {
				t.Fatalf("%v", vs)
			}
			for k, v := range vs {
				s := v.String()
				if v.Rule != "is_valid_tensor_reduce_arith_engine" || !strings.Contains(s, c.want[k]) {
					t.Errorf("got %q, want it to contain %q", s, c.want[k])
				}
				if v.Field == "op" && v.Offset != 36 || v.Field == "in_dtype" && v.Offset != 32 {
					t.Errorf("%s at offset %d", v.Field, v.Offset)
				}
			}
		})
	}
}

// Without an engine, an arithmetic reduce is valid exactly when one engine's arm takes it, and
// the op sets of the arms are disjoint, together tensor_reduce_valid_alu_op's set, and
// TensorReduceArithOps' lists.
func TestReduceEngineArmsPartitionOps(t *testing.T) {
	for _, g := range Generations {
		t.Run(g.String(), func(t *testing.T) { reduceArmsPartitionOps(t, g) })
	}
}

func reduceArmsPartitionOps(t *testing.T, g Generation) {
	dve, pool := map[ALUOp]bool{}, map[ALUOp]bool{}
	for _, o := range TensorReduceArithOps(EngineDVE, g) {
		dve[o] = true
	}
	for _, o := range TensorReduceArithOps(EnginePOOL, g) {
		pool[o] = true
	}
	if len(TensorReduceArithOps(EngineACT, g)) != 0 || len(dve) == 0 || len(pool) == 0 {
		t.Fatalf("DVE %d ops, POOL %d ops", len(dve), len(pool))
	}
	for _, op := range []Opcode{OpTENSOR_REDUCE_ARITH_OP, OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP} {
		for c := 0; c < 256; c++ {
			o := ALUOp(c)
			for _, dt := range []DType{DTypeFP32, DTypeINT32, DTypeINT64, DTypeBFLOAT16} {
				i := s4base(op)
				i.Op, i.InDtype, i.OutDtype = o, dt, dt
				none := len(Validate(i, g)) == 0
				onDVE := len(ValidateOn(i, g, EngineDVE)) == 0
				onPOOL := len(ValidateOn(i, g, EnginePOOL)) == 0
				if onDVE && onPOOL || none != (onDVE || onPOOL) {
					t.Errorf("%v %v %v %v: no engine %v, DVE %v, POOL %v", g, op, o, dt, none, onDVE, onPOOL)
				}
				if onDVE && !dve[o] || onPOOL && !pool[o] {
					t.Errorf("%v %v %v %v valid outside TensorReduceArithOps", g, op, o, dt)
				}
				if dt == DTypeINT32 && (dve[o] && !onDVE || pool[o] && !onPOOL) {
					t.Errorf("%v %v %v INT32 listed but refused: DVE %v POOL %v", g, op, o, onDVE, onPOOL)
				}
			}
		}
	}
}

// FACTS §B.3: ADDR_SHAPE_REG (marker 0xC0) is register mode with the shape from a register too;
// INDIRECT_REG (0xA0) is the indirect form of MARIANA's MEM_PATTERN4D. Both were refused as
// "register mode: bits 8..30 zero" (bit 30 / bit 29 counted as reserved).
func TestRegisterModeMarkers(t *testing.T) {
	for _, c := range []struct {
		addr uint32
		gen  Generation
		want string // rules broken, "" when valid
	}{
		{0x80000005, CAYMAN, ""},                             // ADDR_REG r5
		{0xC0000005, CAYMAN, ""},                             // ADDR_SHAPE_REG r5
		{0xC000003F, SUNDA, ""},                              // ADDR_SHAPE_REG r63
		{0xC0000040, CAYMAN, "tensor4d_valid"},               // register 64
		{0xC0000105, CAYMAN, "tensor4d_valid"},               // reserved0[0] set
		{0x81000005, CAYMAN, "tensor4d_valid"},               // stray marker bit 24
		{0xA0000005, CAYMAN, "tensor4d_valid"},               // INDIRECT_REG before MARIANA
		{0xA0000005, MARIANA, ""},                            // INDIRECT_REG: MEM_PATTERN4D indirect
		{0xC0000005 | 0x1000000, MAVERICK, "tensor4d_valid"}, // stray marker bit 24 again
	} {
		t.Run(fmt.Sprintf("%#x@%v", c.addr, c.gen), func(t *testing.T) {
			i := s4base(OpSTREAM_TRANSPOSE)
			i.SrcMemPattern.StartAddr = Addr4(c.addr)
			if got := strings.Join(ruleSet(Validate(i, c.gen)), ","); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	// an ADDR_SHAPE_REG source takes its shape from the register: the element-count relation
	// (same_or_fewer) is not checked, the src count multiple of 32 still is (seed 000 §4.2)
	i := s4base(OpSTREAM_TRANSPOSE)
	i.SrcMemPattern.StartAddr = 0xC0000005
	i.DstMemPattern.NumElem[0] = 64
	if vs := Validate(i, CAYMAN); len(vs) != 0 {
		t.Errorf("ADDR_SHAPE_REG src, dst count 64: %v", vs)
	}
	i.SrcMemPattern.NumElem[0] = 33
	if got := strings.Join(ruleSet(Validate(i, CAYMAN)), ","); got != "has_transpose_src_element_count_t4d" {
		t.Errorf("ADDR_SHAPE_REG src count 33: %s", got)
	}
}

// FP8_EXP2 is the MAVERICK dtype is_valid_dtype admits; it was refused by tensor4d_valid
// on every placement (no addr_aligned_dtype class), so no S4D4_TR instruction could use it.
func TestMaverickFP8Exp2Placeable(t *testing.T) {
	for _, op := range []Opcode{OpSTREAM_TRANSPOSE, OpCOPY, OpSTREAM_SHUFFLE} {
		t.Run(op.String(), func(t *testing.T) {
			i := s4base(op)
			i.InDtype, i.OutDtype = DTypeFP8_EXP2, DTypeFP8_EXP2
			i.SrcMemPattern.StartAddr, i.DstMemPattern.StartAddr = 0x3, 0x1001 // 1-byte aligned
			if vs := Validate(i, MAVERICK); len(vs) != 0 {
				t.Errorf("FP8_EXP2 on MAVERICK: %v", vs)
			}
			// still absent before MAVERICK: is_valid_dtype says so (and nothing has a class for it)
			if got := ruleSet(Validate(i, MARIANA)); len(got) == 0 || got[0] != "is_valid_dtype" {
				t.Errorf("FP8_EXP2 on MARIANA: %v", got)
			}
		})
	}
	for _, d := range []DType{DTypeINT4, DTypeSFP8_E8} {
		t.Run(d.String(), func(t *testing.T) {
			if d.Alignment(MAVERICK) != 0 {
				t.Errorf("an alignment class on MAVERICK")
			}
		})
	}
}

// The footprint check is tpbsim's reading of "per-rank extent rules" (INFERRED); its
// violations were reported under tensor4d_valid and so printed HIGH/OBSERVED.
func TestFootprintCarriesItsOwnConfidence(t *testing.T) {
	for _, c := range []struct {
		name  string
		mut   func(i *S4D4TR)
		rules string
	}{
		{"walk below the partition", func(i *S4D4TR) { i.SrcMemPattern.StepElem[0] = -1 }, "tensor4d_footprint"},
		// a start the gate refuses is not reported again as a footprint
		{"start beyond the active area", func(i *S4D4TR) { i.SrcMemPattern.StartAddr = 224 * KiB }, "tensor4d_valid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := s4base(OpSTREAM_TRANSPOSE)
			c.mut(i)
			vs := Validate(i, CAYMAN)
			if got := strings.Join(ruleSet(vs), ","); got != c.rules || vs[0].Field != "src_mem_pattern" && vs[0].Field != "src_mem_pattern.start_addr" {
				t.Fatalf("%v", vs)
			}
		})
	}
	for id, want := range map[string]string{"tensor4d_footprint": "MED/INFERRED", "tensor4d_valid": "HIGH/OBSERVED"} {
		t.Run(id, func(t *testing.T) {
			if p, _ := Lookup(id); p.Confidence.String() != want {
				t.Errorf("%v, want %s", p.Confidence, want)
			}
		})
	}
}
