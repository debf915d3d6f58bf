package isa

import (
	"fmt"

	"github.com/tpbsim/tpbsim/num"
)

// DType is NEURON_ISA_TPB_DTYPE, a packed 1-byte enum (FACTS §A.1). Codes never change meaning
// across generations; later generations add codes. The zero value is INVALID.
//
// The element types are declared once, in package num: num.Kind's value is the wire code, and
// its names, widths, signedness and float-ness are DType's (DType(k) and num.Kind(d) convert).
// What isa adds is per generation: which codes a generation's header defines
// (Features.DTypes), their alignment classes and the validity gates.
type DType uint8

const (
	DTypeINVALID  = DType(num.INVALID)
	DTypeUINT64   = DType(num.UINT64)
	DTypeINT8     = DType(num.INT8)
	DTypeUINT8    = DType(num.UINT8)
	DTypeINT16    = DType(num.INT16)
	DTypeUINT16   = DType(num.UINT16)
	DTypeBFLOAT16 = DType(num.BFLOAT16)
	DTypeFP16     = DType(num.FP16)
	DTypeINT32    = DType(num.INT32)
	DTypeUINT32   = DType(num.UINT32)
	DTypeFP32     = DType(num.FP32)
	DTypeFP32R    = DType(num.FP32R) // output-only "FP22" rounded partial fp32
	DTypeINT64    = DType(num.INT64)
	DTypeFP8_EXP3 = DType(num.FP8_EXP3) // E3M4
	DTypeFP8_EXP4 = DType(num.FP8_EXP4) // E4M3
	DTypeFP8_EXP5 = DType(num.FP8_EXP5) // E5M2
	DTypeFP4_EXP2 = DType(num.FP4_EXP2) // OCP FP4 E2M1, MARIANA+
	DTypeFP8_EXP2 = DType(num.FP8_EXP2) // E2M5, MAVERICK
	DTypeINT4     = DType(num.INT4)     // MAVERICK
	DTypeSFP8_E8  = DType(num.SFP8_E8)  // scale-only E8M0, MAVERICK
	DTypeSFP8_E7  = DType(num.SFP8_E7)
	DTypeSFP8_E6  = DType(num.SFP8_E6)
	DTypeSFP8_E5  = DType(num.SFP8_E5)
	DTypeCPTC1    = DType(num.CPTC1) // CPTC1..CPTC7 = 0x19..0x1F, MARIANA+
	DTypeCPTC7    = DType(num.CPTC7)
)

type dtypeInfo struct {
	name   string
	bits   int // element width in bits (4 for the nibble types, 0 for INVALID/CPTC)
	signed bool
	float  bool
}

// dtypeArr / dtypeKnown are num's element types as arrays over the 256 codes, for the decode
// and validation hot paths.
var dtypeArr, dtypeKnown = func() (t [256]dtypeInfo, known [256]bool) {
	for c := range t {
		k := num.Kind(c)
		if k != num.INVALID && !k.Known() {
			continue
		}
		t[c] = dtypeInfo{name: k.String(), bits: k.SizeBits(), signed: k.IsSigned(), float: k.IsFloat()}
		known[c] = true
	}
	return
}()

// AllDTypes lists every known code in numeric order.
var AllDTypes = func() []DType {
	var out []DType
	for c := range dtypeKnown {
		if dtypeKnown[c] {
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

// InGen reports whether generation g's header defines code d (FACTS §A.1 presence columns,
// Features.DTypes). MARIANA_PLUS shares MARIANA's headers.
func (d DType) InGen(g Generation) bool { return featureRow(g).DTypes.Has(d) }

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
// or 0 when the code has no alignment class on g (then addr_aligned_dtype is false) or g is not
// a generation. FACTS §A.1/§B.3;
// FP8_EXP2 on MAVERICK is INFERRED (isa.maverick_fp8_exp2_alignment).
func (d DType) Alignment(g Generation) int {
	if !g.Valid() {
		return 0
	}
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
		if featureRow(g).FP4 {
			return 1
		}
	case 0x11:
		// FP8_EXP2 (1 byte) is the one MAVERICK code is_valid_dtype admits; the class list
		// of FACTS §B.3 predates it. INFERRED (isa.maverick_fp8_exp2_alignment): alignment =
		// element size, FACTS §A.1's width rule, as gen4 did for FP4_EXP2.
		if featureRow(g).FP8Exp2Aligned {
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
		return featureRow(g).FP4
	}
	return IsValidDType(d, g, allowFP32R)
}
