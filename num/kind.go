// Package num models the NeuronCore element types (NEURON_ISA_TPB_DTYPE, FACTS §A.1) and the
// conversions between them that the DVE executor and the DMA engines perform: every cast goes
// through FP32, the hardware's "cast hub" (FACTS §A.1, DESIGN.md §4), rounding to nearest even
// into floats and toward zero, saturating, into integers.
//
// The package imports nothing from this module. It is the one declaration of the element types:
// a Kind's value is the wire DTYPE code itself, and package isa derives isa.DType's constants,
// names and widths from Kind (the two convert with a plain type conversion), adding only which
// generation has each code.
//
// Every choice the seeds and FACTS leave open (fp8 special values, FP32R rounding, the scale and
// 4-bit formats, NaN payloads) is listed by Provenance with its confidence and reason.
package num

import (
	"fmt"
	"github.com/tpbsim/tpbsim/fault"
	"sort"
	"strconv"
	"strings"
)

// Kind is an element type, numbered by its NEURON_ISA_TPB_DTYPE wire code (FACTS §A.1: a 1-byte
// packed enum whose codes never change meaning across generations). The zero value is INVALID.
type Kind uint8

// The DTYPE codes (FACTS §A.1). FP8_EXPn names the exponent width; the mantissa is 7-n bits.
const (
	INVALID  Kind = 0x00 // rejected by every is_valid_dtype gate
	UINT64   Kind = 0x01 // only where is_valid_dtype_64 admits it (TensorReduce)
	INT8     Kind = 0x02
	UINT8    Kind = 0x03
	INT16    Kind = 0x04
	UINT16   Kind = 0x05
	BFLOAT16 Kind = 0x06
	FP16     Kind = 0x07
	INT32    Kind = 0x08
	UINT32   Kind = 0x09
	FP32     Kind = 0x0A // the cast hub
	FP32R    Kind = 0x0B // output only: "FP22" rounded partial fp32 (see Provenance num.fp32r)
	INT64    Kind = 0x0C // only where is_valid_dtype_64 admits it (TensorReduce)
	FP8_EXP3 Kind = 0x0D // E3M4
	FP8_EXP4 Kind = 0x0E // E4M3
	FP8_EXP5 Kind = 0x0F // E5M2
	FP4_EXP2 Kind = 0x10 // OCP FP4 E2M1, MARIANA+; two elements per byte
	FP8_EXP2 Kind = 0x11 // E2M5, MAVERICK
	INT4     Kind = 0x12 // MAVERICK; two elements per byte
	SFP8_E8  Kind = 0x13 // scale-only E8M0, MAVERICK
	SFP8_E7  Kind = 0x14 // scale-only E7M1, MAVERICK
	SFP8_E6  Kind = 0x15 // scale-only E6M2, MAVERICK
	SFP8_E5  Kind = 0x16 // scale-only E5M3, MAVERICK
	CPTC1    Kind = 0x19 // CPTC1..CPTC7: (d & 0xF8) == 0x18 && d & 7 != 0; d & 7 is a bit count
	CPTC2    Kind = 0x1A
	CPTC3    Kind = 0x1B
	CPTC4    Kind = 0x1C
	CPTC5    Kind = 0x1D
	CPTC6    Kind = 0x1E
	CPTC7    Kind = 0x1F
	numKinds      = 0x20
)

var kindNames = [numKinds]string{
	INVALID: "INVALID", UINT64: "UINT64", INT8: "INT8", UINT8: "UINT8", INT16: "INT16",
	UINT16: "UINT16", BFLOAT16: "BFLOAT16", FP16: "FP16", INT32: "INT32", UINT32: "UINT32",
	FP32: "FP32", FP32R: "FP32R", INT64: "INT64", FP8_EXP3: "FP8_EXP3", FP8_EXP4: "FP8_EXP4",
	FP8_EXP5: "FP8_EXP5", FP4_EXP2: "FP4_EXP2", FP8_EXP2: "FP8_EXP2", INT4: "INT4",
	SFP8_E8: "SFP8_E8", SFP8_E7: "SFP8_E7", SFP8_E6: "SFP8_E6", SFP8_E5: "SFP8_E5",
	CPTC1: "CPTC1", CPTC2: "CPTC2", CPTC3: "CPTC3", CPTC4: "CPTC4", CPTC5: "CPTC5",
	CPTC6: "CPTC6", CPTC7: "CPTC7",
}

// String returns the wire name (FACTS §A.1); unknown codes print as Kind(0x17). Never panics.
func (k Kind) String() string {
	if int(k) < numKinds && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%#02x)", uint8(k))
}

// Known reports whether k is one of the codes of FACTS §A.1 (INVALID excluded). It says
// nothing about which generation or gate admits it: that is the isa package's business.
func (k Kind) Known() bool { return k != INVALID && int(k) < numKinds && kindNames[k] != "" }

// IsCPTC reports whether k is one of CPTC1..CPTC7, by the header's own test (FACTS §A.1).
func (k Kind) IsCPTC() bool { return k&0xF8 == 0x18 && k&7 != 0 }

// CPTCBits is the bit count d & 7 carried by a CPTC code, or 0 for every other kind.
func (k Kind) CPTCBits() int {
	if k.IsCPTC() {
		return int(k & 7)
	}
	return 0
}

// Numeric reports whether the package can load and store elements of k: every known code
// except INVALID and the CPTC codes, whose element encoding FACTS does not give.
func (k Kind) Numeric() bool { return k.Known() && !k.IsCPTC() }

// SizeBits is the element width in bits: 4 for FP4_EXP2 and INT4, 8/16/32/64 for the others,
// 0 for INVALID, CPTC and unknown codes (FACTS §A.1 "bytes" column).
func (k Kind) SizeBits() int {
	switch k {
	case INT8, UINT8, FP8_EXP3, FP8_EXP4, FP8_EXP5, FP8_EXP2, SFP8_E8, SFP8_E7, SFP8_E6, SFP8_E5:
		return 8
	case INT16, UINT16, BFLOAT16, FP16:
		return 16
	case INT32, UINT32, FP32, FP32R:
		return 32
	case INT64, UINT64:
		return 64
	case FP4_EXP2, INT4:
		return 4
	}
	return 0
}

// Size is the element size in bytes (the unit of addr_aligned_dtype, FACTS §A.1). The 4-bit
// kinds report 0: they have no whole-byte size; use SizeBits or BytesFor.
func (k Kind) Size() int { return k.SizeBits() / 8 }

// BytesFor is the number of bytes n consecutive elements of k occupy (4-bit kinds pack two per
// byte, see LoadF32). It is 0 for non-numeric kinds.
func (k Kind) BytesFor(n int) int { return (k.SizeBits()*n + 7) / 8 }

// IsFloat reports whether k is a floating-point format (including FP32R and the scale-only
// SFP8 formats).
func (k Kind) IsFloat() bool {
	switch k {
	case BFLOAT16, FP16, FP32, FP32R, FP8_EXP3, FP8_EXP4, FP8_EXP5, FP4_EXP2, FP8_EXP2,
		SFP8_E8, SFP8_E7, SFP8_E6, SFP8_E5:
		return true
	}
	return false
}

// IsInteger reports whether k is an integer format.
func (k Kind) IsInteger() bool {
	switch k {
	case UINT64, INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, INT4:
		return true
	}
	return false
}

// IsSigned reports whether k can hold negative values: the signed integers and every float
// format that has a sign bit. The scale-only SFP8 formats are unsigned (num.sfp8.format).
func (k Kind) IsSigned() bool {
	switch k {
	case INT8, INT16, INT32, INT64, INT4,
		BFLOAT16, FP16, FP32, FP32R, FP8_EXP3, FP8_EXP4, FP8_EXP5, FP4_EXP2, FP8_EXP2:
		return true
	}
	return false
}

// Kinds lists every numeric kind in code order.
func Kinds() []Kind {
	var ks []Kind
	for k := Kind(0); k < numKinds; k++ {
		if k.Numeric() {
			ks = append(ks, k)
		}
	}
	return ks
}

// A userName is a name users write for a kind (NKI.md §5 "Data types users name", numpy spellings
// and common short forms), declared once for every tool: ParseKind (the CLI's --dtype, asm's
// dtype fields) reads them all but the NKI-only ones, LookupNKI (the kernels) the NKI ones.
type userName struct {
	name string
	kind Kind   // INVALID: the name has no storage kind (refuse is why)
	nki  bool   // an NKI dtype name: a kernel may give it
	only string // non-empty: the name stands for its kind only in kernels (Provenance kernel.dtype_e4m3fn); elsewhere it is refused with this
	// refuse is why a name with no kind is refused, everywhere.
	refuse string
}

var userNames = []userName{
	{name: "uint8", kind: UINT8, nki: true}, {name: "int8", kind: INT8, nki: true},
	{name: "uint16", kind: UINT16, nki: true}, {name: "int16", kind: INT16, nki: true},
	{name: "uint32", kind: UINT32, nki: true}, {name: "int32", kind: INT32, nki: true},
	{name: "uint64", kind: UINT64}, {name: "int64", kind: INT64}, {name: "int4", kind: INT4},
	{name: "bool", kind: UINT8, nki: true}, {name: "bool_", kind: UINT8, nki: true},
	{name: "float32", kind: FP32, nki: true}, {name: "fp32", kind: FP32}, {name: "f32", kind: FP32},
	{name: "float32r", kind: FP32R}, {name: "fp32r", kind: FP32R},
	{name: "float16", kind: FP16, nki: true}, {name: "fp16", kind: FP16}, {name: "f16", kind: FP16}, {name: "half", kind: FP16},
	{name: "bfloat16", kind: BFLOAT16, nki: true}, {name: "bf16", kind: BFLOAT16},
	{name: "float8_e3m4", kind: FP8_EXP3, nki: true}, {name: "e3m4", kind: FP8_EXP3}, {name: "fp8_e3m4", kind: FP8_EXP3},
	{name: "float8_e4m3", kind: FP8_EXP4, nki: true}, {name: "e4m3", kind: FP8_EXP4}, {name: "fp8_e4m3", kind: FP8_EXP4},
	{name: "float8_e4m3fn", kind: FP8_EXP4, nki: true, only: "FP8_EXP4 is the IEEE-like e4m3 (max 240), not OCP e4m3fn; an NKI kernel's float8_e4m3fn is converted as FP8_EXP4 (Provenance kernel.dtype_e4m3fn)"},
	{name: "e4m3fn", only: "FP8_EXP4 is the IEEE-like e4m3 (max 240), not OCP e4m3fn", kind: FP8_EXP4},
	{name: "float8_e5m2", kind: FP8_EXP5, nki: true}, {name: "e5m2", kind: FP8_EXP5}, {name: "fp8_e5m2", kind: FP8_EXP5},
	{name: "float8_e2m5", kind: FP8_EXP2}, {name: "e2m5", kind: FP8_EXP2},
	{name: "float4_e2m1", kind: FP4_EXP2}, {name: "float4_e2m1fn", kind: FP4_EXP2}, {name: "e2m1", kind: FP4_EXP2}, {name: "fp4", kind: FP4_EXP2},
	{name: "float8_e8m0fnu", kind: SFP8_E8, nki: true}, {name: "e8m0", kind: SFP8_E8},
	{name: "tfloat32", nki: true, refuse: "tfloat32 is a Tensor Engine compute type with no DTYPE code; store as FP32 (or FP32R)"},
	{name: "tf32", refuse: "tfloat32 is a Tensor Engine compute type with no DTYPE code; store as FP32 (or FP32R)"},
}

// RuleKindName: an element type is named by its wire name, a user name or its code.
const RuleKindName = "num.kind_name"

func lookupName(s string) (userName, bool) {
	s = strings.ToLower(s)
	for _, u := range userNames {
		if u.name == s {
			return u, true
		}
	}
	return userName{}, false
}

// ParseKind reads a kind from its wire name (BFLOAT16, FP8_EXP4, ...), a user name (bfloat16,
// float8_e4m3, ...; case-insensitive) or a number (decimal or 0x-hex wire code). An unknown name
// is a *Error (rule num.kind_name, fault.ErrInvalid) listing the names that work.
func ParseKind(s string) (Kind, error) {
	t := strings.TrimSpace(s)
	up := strings.ToUpper(t)
	for k := Kind(0); k < numKinds; k++ {
		if kindNames[k] != "" && kindNames[k] == up {
			return k, nil
		}
	}
	if u, ok := lookupName(t); ok {
		switch {
		case u.refuse != "":
			return INVALID, errorf(fault.ErrInvalid, RuleKindName, "dtype", "unknown element type %q: %s", s, u.refuse)
		case u.only != "":
			return INVALID, errorf(fault.ErrInvalid, RuleKindName, "dtype", "unknown element type %q: %s", s, u.only)
		}
		return u.kind, nil
	}
	if v, err := strconv.ParseUint(t, 0, 8); err == nil {
		return Kind(v), nil
	}
	return INVALID, errorf(fault.ErrInvalid, RuleKindName, "dtype", "unknown element type %q (names: %s; or a DTYPE wire name or code)", s, userNameList(false))
}

// LookupNKI resolves an NKI dtype name (NKI.md §5; case-insensitive): its kind; or, for a name
// NKI has but with no storage kind (tfloat32), INVALID and why it is refused. ok is false for a
// name NKI does not have (NKINames lists those it has).
func LookupNKI(name string) (k Kind, refuse string, ok bool) {
	u, found := lookupName(name)
	if !found || !u.nki {
		return INVALID, "", false
	}
	return u.kind, u.refuse, true
}

// NKINames is the NKI dtype names that have a kind, sorted, for messages.
func NKINames() string { return userNameList(true) }

// userNameList is the user names (NKI's only, with nki) that name a kind, sorted, for messages.
func userNameList(nki bool) string {
	var names []string
	for _, u := range userNames {
		if u.refuse == "" && (nki && u.nki || !nki && u.only == "") {
			names = append(names, u.name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
