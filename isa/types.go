package isa

import "fmt"

// InstWordLen is the only legal inst_word_len: 16 dwords = 64 bytes.
const InstWordLen = 16

// WaitMode is NEURON_ISA_TPB_WAIT_MODE (1 byte, FACTS §B.2).
type WaitMode uint8

const (
	WaitNone        WaitMode = 0x00
	WaitForSemEQImm WaitMode = 0x01
	WaitForSemLTImm WaitMode = 0x02
	WaitForSemLEImm WaitMode = 0x03
	WaitForSemGTImm WaitMode = 0x04
	WaitForSemGEImm WaitMode = 0x05
	WaitForEvt6     WaitMode = 0x06
	WaitForEvt7     WaitMode = 0x07
	WaitForEvtE     WaitMode = 0x0E
	WaitForEvtF     WaitMode = 0x0F
	WaitForSemEQReg WaitMode = 0x81
	WaitForSemLTReg WaitMode = 0x82
	WaitForSemLEReg WaitMode = 0x83
	WaitForSemGTReg WaitMode = 0x84
	WaitForSemGEReg WaitMode = 0x85
	WaitSemEQRegOff WaitMode = 0x91 // MAVERICK only
	WaitSemLTRegOff WaitMode = 0x92
	WaitSemLERegOff WaitMode = 0x93
	WaitSemGTRegOff WaitMode = 0x94
	WaitSemGERegOff WaitMode = 0x95
	WaitUnordered   WaitMode = 0xFE // MAVERICK only
	WaitInvalid     WaitMode = 0xFF
)

var waitNames = map[WaitMode]string{
	0x00: "NONE", 0x01: "WAIT_FOR_SEM_EQ_IMM", 0x02: "WAIT_FOR_SEM_LT_IMM", 0x03: "WAIT_FOR_SEM_LE_IMM",
	0x04: "WAIT_FOR_SEM_GT_IMM", 0x05: "WAIT_FOR_SEM_GE_IMM", 0x06: "WAIT_FOR_EVT_0x06", 0x07: "WAIT_FOR_EVT_0x07",
	0x0E: "WAIT_FOR_EVT_0x0E", 0x0F: "WAIT_FOR_EVT_0x0F", 0x81: "WAIT_FOR_SEM_EQ_REG", 0x82: "WAIT_FOR_SEM_LT_REG",
	0x83: "WAIT_FOR_SEM_LE_REG", 0x84: "WAIT_FOR_SEM_GT_REG", 0x85: "WAIT_FOR_SEM_GE_REG",
	0x91: "SEM_EQ_REG_OFFSET", 0x92: "SEM_LT_REG_OFFSET", 0x93: "SEM_LE_REG_OFFSET", 0x94: "SEM_GT_REG_OFFSET",
	0x95: "SEM_GE_REG_OFFSET", 0xFE: "UNORDERED", 0xFF: "INVALID",
}

func (m WaitMode) String() string {
	if n, ok := waitNames[m]; ok {
		return n
	}
	return fmt.Sprintf("WaitMode(0x%02x)", uint8(m))
}

// Known reports whether m is a listed WAIT_MODE value.
func (m WaitMode) Known() bool { _, ok := waitNames[m]; return ok }

// IsSemImm reports the immediate semaphore compare modes 0x01..0x05 tpbsim executes.
func (m WaitMode) IsSemImm() bool { return m >= WaitForSemEQImm && m <= WaitForSemGEImm }

// Satisfied evaluates an immediate compare mode: sem <op> value.
func (m WaitMode) Satisfied(sem, value uint32) bool {
	switch m {
	case WaitNone, WaitUnordered:
		return true
	case WaitForSemEQImm:
		return sem == value
	case WaitForSemLTImm:
		return sem < value
	case WaitForSemLEImm:
		return sem <= value
	case WaitForSemGTImm:
		return sem > value
	case WaitForSemGEImm:
		return sem >= value
	}
	return false
}

// UpdateMode is NEURON_ISA_TPB_UPDATE_MODE (1 byte, FACTS §B.2). Bit 0x10 set: the update fires on
// completion; clear: once the instruction's reads are done.
type UpdateMode uint8

const (
	UpdateNone        UpdateMode = 0x00
	SemIncRead        UpdateMode = 0x03
	SemDecRead        UpdateMode = 0x04
	SemAddImmRead     UpdateMode = 0x05
	SemSubImmRead     UpdateMode = 0x07
	SemWrImmRead      UpdateMode = 0x09
	SemIncComplete    UpdateMode = 0x13
	SemDecComplete    UpdateMode = 0x14
	SemAddImmComplete UpdateMode = 0x15
	SemSubImmComplete UpdateMode = 0x17
	SemWrImmComplete  UpdateMode = 0x19
	SemWrRegComplete  UpdateMode = 0x99
	UpdateInvalid     UpdateMode = 0xFF
)

var updateNames = map[UpdateMode]string{
	0x00: "NONE", 0x03: "SEM_INC_READ", 0x04: "SEM_DEC_READ", 0x05: "SEM_ADD_IMM_READ", 0x07: "SEM_SUB_IMM_READ",
	0x09: "SEM_WR_IMM_READ", 0x13: "SEM_INC_COMPLETE", 0x14: "SEM_DEC_COMPLETE", 0x15: "SEM_ADD_IMM_COMPLETE",
	0x17: "SEM_SUB_IMM_COMPLETE", 0x19: "SEM_WR_IMM_COMPLETE", 0x99: "SEM_WR_REG_COMPLETE", 0xFF: "INVALID",
}

func (m UpdateMode) String() string {
	if n, ok := updateNames[m]; ok {
		return n
	}
	return fmt.Sprintf("UpdateMode(0x%02x)", uint8(m))
}

// Known reports whether m is a listed UPDATE_MODE value.
func (m UpdateMode) Known() bool { _, ok := updateNames[m]; return ok }

// OnComplete reports bit 0x10: the update fires on completion rather than after the reads.
func (m UpdateMode) OnComplete() bool { return m&0x10 != 0 }

// Apply computes the new semaphore value for the immediate modes; ok is false for modes tpbsim
// does not execute (register forms, events, NONE).
func (m UpdateMode) Apply(sem, value uint32) (uint32, bool) {
	switch m &^ 0x10 {
	case 0x03:
		return sem + 1, true
	case 0x04:
		return sem - 1, true
	case 0x05:
		return sem + value, true
	case 0x07:
		return sem - value, true
	case 0x09:
		return value, true
	}
	return sem, false
}

// Addr4 is NEURON_ISA_TPB_ADDR4, the 32-bit little-endian address word that opens every TENSORnD
// (FACTS §B.3). The partition is folded into the address: addr = region_base + partition*stride + offset.
//
//	bit 31   30      29       28..25   24 ......................... 0
//	   +-----+-------+--------+--------+----------------------------+
//	   | REG | SHAPE | INDIR  | region |       byte address         |
//	   +-----+-------+--------+--------+----------------------------+
//	    \_______ marker = byte 3 ______/
//
// In register mode (bit 31; marker ADDR_REG 0x80 or ADDR_SHAPE_REG 0xC0) byte 0 is the register
// number (< 64) and bits 8..28 must be zero.
type Addr4 uint32

// ADDR4 marker constants (common.h:486-491).
const (
	Addr4MarkerIMM          = 0x00
	Addr4MarkerINDIRECT_IMM = 0x20
	Addr4MarkerSHAPE_REG    = 0x40
	Addr4MarkerADDR_REG     = 0x80
	Addr4MarkerINDIRECT_REG = 0xA0
	Addr4MarkerADDR_SHAPE   = 0xC0
	Addr4MarkerMXTENSOR_V2  = 0x01 // MAVERICK
)

// Marker is byte 3 of the word.
func (a Addr4) Marker() uint8 { return uint8(a >> 24) }

// ByteAddr is the 29-bit on-chip byte address (addr & TPB_PARTITION_ADDR_MASK).
func (a Addr4) ByteAddr() uint32 { return uint32(a) & TPBPartitionAddrMask }

// IsAddrReg reports register mode (bit 31, marker ADDR_REG or ADDR_SHAPE_REG).
func (a Addr4) IsAddrReg() bool { return a&0x80000000 != 0 }

// RegNum is byte 0 in register mode.
func (a Addr4) RegNum() uint8 { return uint8(a) }

// ShapeFromRegister is shape_from_register: marker SHAPE_REG or ADDR_SHAPE_REG (bit 30).
func (a Addr4) ShapeFromRegister() bool { return a&0x40000000 != 0 }

// IsIndirect reports bit 29 (INDIRECT_IMM / INDIRECT_REG gather index slot).
func (a Addr4) IsIndirect() bool { return a&0x20000000 != 0 }

// ElementCount is t4d_element_count: num[0]*num[1]*num[2]*num[3].
func (t Tensor4D) ElementCount() uint64 {
	return uint64(t.NumElem[0]) * uint64(t.NumElem[1]) * uint64(t.NumElem[2]) * uint64(t.NumElem[3])
}

// Addr8 is NEURON_ISA_TPB_ADDR8 (8 bytes; FACTS §C.6), the DMA address word: a union keyed by the
// high byte's marker bits (mask 0xFC). In immediate mode bits 0..55 are the address.
//
//	bit 63 ........... 56 55 ........................................ 0
//	   +------------------+-------------------------------------------+
//	   | marker (& 0xFC)  |                 address                   |
//	   +------------------+-------------------------------------------+
//
// tpbsim's device address map for immediate ADDR8 values (INVENTED, see provenance
// "isa.addr8_address_map"): addresses below DMALocalBase are HBM; DMALocalBase + an ADDR4-style
// 29-bit on-chip address is SBUF or PSUM of this NeuronCore.
type Addr8 uint64

// ADDR8 marker constants (high byte, FACTS §C.6).
const (
	Addr8MarkerIMM                = 0x00
	Addr8MarkerADDR_TBL_OFF_WIDE  = 0x04
	Addr8MarkerADDR_TBL_OFF_REG   = 0x08
	Addr8MarkerVAR_ID             = 0x10 // PSEUDO_ADDR8 only
	Addr8MarkerADDR_TBL_SHAPE_IMM = 0x20
	Addr8MarkerSHAPE_REG          = 0x40
	Addr8MarkerADDR_TBL_SHAPE_REG = 0x60
	Addr8MarkerADDR_REG           = 0x80
	Addr8MarkerADDR_SHAPE_REG     = 0xC0
)

// DMALocalBase is where tpbsim maps the on-chip (SBUF/PSUM) address space inside the 56-bit DMA
// address space: 1<<47 (128 TiB). HBM is [0, DMALocalBase).
const DMALocalBase = uint64(1) << 47

// Marker is the high byte masked with 0xFC.
func (a Addr8) Marker() uint8 { return uint8(a>>56) & 0xFC }

// RawMarker is the whole high byte.
func (a Addr8) RawMarker() uint8 { return uint8(a >> 56) }

// Address is the 56-bit immediate address.
func (a Addr8) Address() uint64 { return uint64(a) & (1<<56 - 1) }

// IsLocal reports whether an immediate address falls in the on-chip window.
func (a Addr8) IsLocal() bool {
	ad := a.Address()
	return ad >= DMALocalBase && ad-DMALocalBase <= TPBPartitionAddrMask
}

// Local is the ADDR4-style on-chip byte address of a local ADDR8.
func (a Addr8) Local() uint32 { return uint32(a.Address() - DMALocalBase) }

// LocalAddr8 builds the immediate ADDR8 of an on-chip byte address.
func LocalAddr8(onchip uint32) Addr8 {
	return Addr8(DMALocalBase + uint64(onchip&TPBPartitionAddrMask))
}

// DGEComputeOp is NEURON_ISA_TPB_DGE_COMPUTE_OP (seed 003 §3.4): the reduce-on-copy op.
type DGEComputeOp uint8

const (
	DGEComputeNONE     DGEComputeOp = 0 // B = A
	DGEComputeADD      DGEComputeOp = 1 // B += A
	DGEComputeMULTIPLY DGEComputeOp = 2 // B *= A
	DGEComputeMAX      DGEComputeOp = 3
	DGEComputeMIN      DGEComputeOp = 4
)

func (c DGEComputeOp) String() string {
	switch c {
	case DGEComputeNONE:
		return "NONE"
	case DGEComputeADD:
		return "ADD"
	case DGEComputeMULTIPLY:
		return "MULTIPLY"
	case DGEComputeMAX:
		return "MAX"
	case DGEComputeMIN:
		return "MIN"
	}
	return fmt.Sprintf("DGEComputeOp(%d)", uint8(c))
}

// IndirectDim is NEURON_ISA_TPB_INDIRECT_DIM: X=0, Y=1, Z=2, W=3.
type IndirectDim uint8

const (
	IndirectDimX IndirectDim = 0
	IndirectDimY IndirectDim = 1
	IndirectDimZ IndirectDim = 2
	IndirectDimW IndirectDim = 3
)

func (d IndirectDim) String() string {
	if d < 4 {
		return [...]string{"X", "Y", "Z", "W"}[d]
	}
	return fmt.Sprintf("IndirectDim(%d)", uint8(d))
}

// IndirectMode is the indirect_mode:2 field of DMA_INDIRECT_FLAGS.
type IndirectMode uint8

const (
	SrcIndirection    IndirectMode = 0 // gather
	DstIndirection    IndirectMode = 1 // scatter
	SrcDstIndirection IndirectMode = 2 // both
)

func (m IndirectMode) String() string {
	if m < 3 {
		return [...]string{"SRC_INDIRECTION", "DST_INDIRECTION", "SRC_DST_INDIRECTION"}[m]
	}
	return fmt.Sprintf("IndirectMode(%d)", uint8(m))
}
