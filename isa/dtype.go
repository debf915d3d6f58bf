package isa

import "fmt"

// DType is NEURON_ISA_TPB_DTYPE, a packed 1-byte enum (FACTS §A.1). Codes never change meaning
// across generations; later generations add codes. The zero value is INVALID.
type DType uint8

const (
	DTypeINVALID  DType = 0x00
	DTypeUINT64   DType = 0x01
	DTypeINT8     DType = 0x02
	DTypeUINT8    DType = 0x03
	DTypeINT16    DType = 0x04
	DTypeUINT16   DType = 0x05
	DTypeBFLOAT16 DType = 0x06
	DTypeFP16     DType = 0x07
	DTypeINT32    DType = 0x08
	DTypeUINT32   DType = 0x09
	DTypeFP32     DType = 0x0A
	DTypeFP32R    DType = 0x0B // output-only "FP22" rounded partial fp32
	DTypeINT64    DType = 0x0C
	DTypeFP8_EXP3 DType = 0x0D // E3M4
	DTypeFP8_EXP4 DType = 0x0E // E4M3
	DTypeFP8_EXP5 DType = 0x0F // E5M2
	DTypeFP4_EXP2 DType = 0x10 // OCP FP4 E2M1, MARIANA+
	DTypeFP8_EXP2 DType = 0x11 // E2M5, MAVERICK
	DTypeINT4     DType = 0x12 // MAVERICK
	DTypeSFP8_E8  DType = 0x13 // scale-only E8M0, MAVERICK
	DTypeSFP8_E7  DType = 0x14
	DTypeSFP8_E6  DType = 0x15
	DTypeSFP8_E5  DType = 0x16
	DTypeCPTC1    DType = 0x19 // CPTC1..CPTC7 = 0x19..0x1F, MARIANA+
	DTypeCPTC7    DType = 0x1F
)

type dtypeInfo struct {
	name   string
	bits   int // element width in bits (4 for the nibble types, 0 for INVALID/CPTC)
	signed bool
	float  bool
	first  Generation // first generation that has the code
}

var dtypeTable = map[DType]dtypeInfo{
	DTypeINVALID:  {"INVALID", 0, false, false, SUNDA},
	DTypeUINT64:   {"UINT64", 64, false, false, SUNDA},
	DTypeINT8:     {"INT8", 8, true, false, SUNDA},
	DTypeUINT8:    {"UINT8", 8, false, false, SUNDA},
	DTypeINT16:    {"INT16", 16, true, false, SUNDA},
	DTypeUINT16:   {"UINT16", 16, false, false, SUNDA},
	DTypeBFLOAT16: {"BFLOAT16", 16, true, true, SUNDA},
	DTypeFP16:     {"FP16", 16, true, true, SUNDA},
	DTypeINT32:    {"INT32", 32, true, false, SUNDA},
	DTypeUINT32:   {"UINT32", 32, false, false, SUNDA},
	DTypeFP32:     {"FP32", 32, true, true, SUNDA},
	DTypeFP32R:    {"FP32R", 32, true, true, SUNDA},
	DTypeINT64:    {"INT64", 64, true, false, SUNDA},
	DTypeFP8_EXP3: {"FP8_EXP3", 8, true, true, SUNDA},
	DTypeFP8_EXP4: {"FP8_EXP4", 8, true, true, SUNDA},
	DTypeFP8_EXP5: {"FP8_EXP5", 8, true, true, SUNDA},
	DTypeFP4_EXP2: {"FP4_EXP2", 4, true, true, MARIANA},
	DTypeFP8_EXP2: {"FP8_EXP2", 8, true, true, MAVERICK},
	DTypeINT4:     {"INT4", 4, true, false, MAVERICK},
	DTypeSFP8_E8:  {"SFP8_E8", 8, false, true, MAVERICK},
	DTypeSFP8_E7:  {"SFP8_E7", 8, false, true, MAVERICK},
	DTypeSFP8_E6:  {"SFP8_E6", 8, false, true, MAVERICK},
	DTypeSFP8_E5:  {"SFP8_E5", 8, false, true, MAVERICK},
	0x19:          {"CPTC1", 0, false, false, MARIANA},
	0x1A:          {"CPTC2", 0, false, false, MARIANA},
	0x1B:          {"CPTC3", 0, false, false, MARIANA},
	0x1C:          {"CPTC4", 0, false, false, MARIANA},
	0x1D:          {"CPTC5", 0, false, false, MARIANA},
	0x1E:          {"CPTC6", 0, false, false, MARIANA},
	0x1F:          {"CPTC7", 0, false, false, MARIANA},
}

// AllDTypes lists every known code in numeric order.
var AllDTypes = func() []DType {
	var out []DType
	for c := 0; c < 256; c++ {
		if _, ok := dtypeTable[DType(c)]; ok {
			out = append(out, DType(c))
		}
	}
	return out
}()

func (d DType) String() string {
	if dtypeKnown[d] {
		return dtypeArr[d].name
	}
	return fmt.Sprintf("DType(0x%02x)", uint8(d))
}

// Known reports whether d is a code of the enum in any generation.
func (d DType) Known() bool { return dtypeKnown[d] }

// InGen reports whether generation g's header defines code d (FACTS §A.1 presence columns).
// MARIANA_PLUS shares MARIANA's headers.
func (d DType) InGen(g Generation) bool {
	return dtypeKnown[d] && g.Valid() && g >= dtypeArr[d].first
}

// Bits is the element width in bits (4 for FP4/INT4; 0 when the code has no element width).
func (d DType) Bits() int { return dtypeArr[d].bits }

// Size is the element size in bytes (1/2/4/8); 4-bit codes and width-less codes report 0.
func (d DType) Size() int { return dtypeArr[d].bits / 8 }

// IsFloat reports a floating-point code (incl. the scale-only SFP8 codes).
func (d DType) IsFloat() bool { return dtypeArr[d].float }

// IsSigned reports a signed code.
func (d DType) IsSigned() bool { return dtypeArr[d].signed }

// IsInteger reports an integer code with a width.
func (d DType) IsInteger() bool {
	in := dtypeArr[d]
	return !in.float && in.bits > 0
}

// IsCPTC is the header's CPTC test: (d & 0xF8) == 0x18 && (d & 7) != 0 (FACTS §A.1).
func (d DType) IsCPTC() bool { return d&0xF8 == 0x18 && d&7 != 0 }

// Alignment is the addr_aligned_dtype class of d: the byte alignment a start address must have,
// or 0 when the code has no alignment class (then addr_aligned_dtype is false). FACTS §A.1/§B.3;
// FP8_EXP2 on MAVERICK is INFERRED (isa.maverick_fp8_exp2_alignment).
func (d DType) Alignment(g Generation) int {
	switch d {
	case 2, 3, 13, 14, 15:
		return 1
	case 4, 5, 6, 7:
		return 2
	case 8, 9, 10, 11:
		return 4
	case 1, 12:
		return 8
	case 16:
		if g >= MARIANA {
			return 1
		}
	case 0x11:
		// FP8_EXP2 (1 byte) is the one MAVERICK code is_valid_dtype admits; the class list
		// of FACTS §B.3 predates it. INFERRED (isa.maverick_fp8_exp2_alignment): alignment =
		// element size, FACTS §A.1's width rule, as gen4 did for FP4_EXP2.
		if g >= MAVERICK {
			return 1
		}
	}
	return 0
}

// IsValidDType is the header's is_valid_dtype(d, AllowFP32R) on generation g: any code of the
// generation except INVALID, UINT64, INT64, and FP32R unless allowed. MAVERICK additionally
// rejects the 4-bit and scale-only codes (FACTS §A.1 "Dtype validity gates").
// FP4_EXP2 needs is_valid_dtype_inc_fp4; CPTC codes are not element dtypes.
func IsValidDType(d DType, g Generation, allowFP32R bool) bool {
	if !d.InGen(g) {
		return false
	}
	switch {
	case d == DTypeINVALID, d == DTypeUINT64, d == DTypeINT64:
		return false
	case d == DTypeFP32R:
		return allowFP32R
	case d == DTypeFP4_EXP2, d == DTypeINT4, d >= DTypeSFP8_E8 && d <= DTypeSFP8_E5, d.IsCPTC():
		return false
	}
	return true
}

// IsValidDType64 is is_valid_dtype_64(d, AllowFP32R, AllowU64, AllowI64): is_valid_dtype that can
// also admit UINT64 / INT64 (used by the TensorReduce family).
func IsValidDType64(d DType, g Generation, allowFP32R, allowU64, allowI64 bool) bool {
	switch d {
	case DTypeUINT64:
		return allowU64 && d.InGen(g)
	case DTypeINT64:
		return allowI64 && d.InGen(g)
	}
	return IsValidDType(d, g, allowFP32R)
}

// IsValidDTypeIncFP4 is is_valid_dtype_inc_fp4: on MARIANA and later it also admits FP4_EXP2.
func IsValidDTypeIncFP4(d DType, g Generation, allowFP32R bool) bool {
	if d == DTypeFP4_EXP2 {
		return g >= MARIANA
	}
	return IsValidDType(d, g, allowFP32R)
}
