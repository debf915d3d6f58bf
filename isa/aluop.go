package isa

import "fmt"

// ALUOp is NEURON_ISA_TPB_ALU_OP (1 byte; FACTS §A.2). For S4D4_TR it sits at op@36: the reduce /
// scan operator for the reduce and cumulative siblings, pinned to BYPASS for StreamTranspose,
// StreamShuffle, Copy, Cast and Reciprocal (seed 000 §3.1). The base band is 0x00..0x24; bits
// [7:6] == 0b11 select the integer engine band 0xC4..0xE1.
type ALUOp uint8

const (
	ALUBypass            ALUOp = 0x00
	ALUBitwiseNot        ALUOp = 0x01
	ALUArithShiftLeft    ALUOp = 0x02
	ALUArithShiftRight   ALUOp = 0x03
	ALUAdd               ALUOp = 0x04
	ALUSubtract          ALUOp = 0x05
	ALUMult              ALUOp = 0x06
	ALUDivide            ALUOp = 0x07
	ALUMax               ALUOp = 0x08
	ALUMin               ALUOp = 0x09
	ALUBitwiseAnd        ALUOp = 0x0A
	ALUBitwiseOr         ALUOp = 0x0B
	ALUBitwiseXor        ALUOp = 0x0C
	ALULogicalAnd        ALUOp = 0x0D
	ALULogicalOr         ALUOp = 0x0E
	ALULogicalXor        ALUOp = 0x0F
	ALULogicalShiftLeft  ALUOp = 0x10
	ALULogicalShiftRight ALUOp = 0x11
	ALUIsEQ              ALUOp = 0x12
	ALUIsGT              ALUOp = 0x13
	ALUIsGE              ALUOp = 0x14
	ALUIsLE              ALUOp = 0x15
	ALUIsLT              ALUOp = 0x16
	ALUAbsoluteDiff      ALUOp = 0x17
	ALUIsNE              ALUOp = 0x18
	ALUAbsoluteValue     ALUOp = 0x19
	ALUPow               ALUOp = 0x1A
	ALUMod               ALUOp = 0x1B
	ALUCrc32             ALUOp = 0x1C
	ALURsqrt             ALUOp = 0x1D
	ALUAbsMax            ALUOp = 0x20
	ALUAbsMin            ALUOp = 0x21
	ALUReLU              ALUOp = 0x22
	ALUSquare            ALUOp = 0x23
	ALUSymmetricClamp    ALUOp = 0x24
	ALUAddInt            ALUOp = 0xC4
	ALUMultInt           ALUOp = 0xC5
	ALUSubtractInt       ALUOp = 0xC6
	ALUDivideInt         ALUOp = 0xC7
	ALUModInt            ALUOp = 0xC8
	ALUIsEqualInt        ALUOp = 0xC9
	ALUIsNEInt           ALUOp = 0xCA
	ALUAbsMaxInt         ALUOp = 0xCB
	ALUAbsMinInt         ALUOp = 0xCC
	ALUAbsDiffInt        ALUOp = 0xCD
	ALUAbsValueInt       ALUOp = 0xCE
	ALUMaxInt            ALUOp = 0xCF
	ALUMinInt            ALUOp = 0xD0
	ALUIsGTInt           ALUOp = 0xD1
	ALUIsGEInt           ALUOp = 0xD2
	ALUIsLEInt           ALUOp = 0xD3
	ALUIsLTInt           ALUOp = 0xD4
	ALUMaxUint           ALUOp = 0xD5
	ALUMinUint           ALUOp = 0xD6
	ALUIsGTUint          ALUOp = 0xD7
	ALUIsGEUint          ALUOp = 0xD8
	ALUIsLEUint          ALUOp = 0xD9
	ALUIsLTUint          ALUOp = 0xDA
	ALUMultUint          ALUOp = 0xDB
	ALUDivideUint        ALUOp = 0xDC
	ALUModUint           ALUOp = 0xDD
	ALUAmaxInt           ALUOp = 0xDE
	ALUAminInt           ALUOp = 0xDF
	ALUAmaxUint          ALUOp = 0xE0
	ALUAminUint          ALUOp = 0xE1
)

type aluInfo struct {
	name  string
	first Generation
}

var aluTable = func() map[ALUOp]aluInfo {
	m := map[ALUOp]aluInfo{}
	base := []string{"BYPASS", "BITWISE_NOT", "ARITH_SHIFT_LEFT", "ARITH_SHIFT_RIGHT", "ADD", "SUBTRACT",
		"MULT", "DIVIDE", "MAX", "MIN", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "LOGICAL_AND",
		"LOGICAL_OR", "LOGICAL_XOR", "LOGICAL_SHIFT_LEFT", "LOGICAL_SHIFT_RIGHT", "IS_EQ", "IS_GT",
		"IS_GE", "IS_LE", "IS_LT", "ABSOLUTE_DIFF", "IS_NE", "ABSOLUTE_VALUE", "POW", "MOD", "CRC32", "RSQRT"}
	for i, n := range base {
		m[ALUOp(i)] = aluInfo{n, SUNDA}
	}
	for i, n := range []string{"ABS_MAX", "ABS_MIN", "RE_LU", "SQUARE"} {
		m[ALUOp(0x20+i)] = aluInfo{n, MARIANA}
	}
	m[ALUSymmetricClamp] = aluInfo{"SYMMETRIC_CLAMP", MAVERICK}
	ints := []string{"ADD_INT", "MULT_INT", "SUBTRACT_INT", "DIVIDE_INT", "MOD_INT", "IS_EQUAL_INT", "IS_NE_INT",
		"ABS_MAX_INT", "ABS_MIN_INT", "ABS_DIFF_INT", "ABS_VALUE_INT", "MAX_INT", "MIN_INT", "IS_GT_INT",
		"IS_GE_INT", "IS_LE_INT", "IS_LT_INT", "MAX_UINT", "MIN_UINT", "IS_GT_UINT", "IS_GE_UINT",
		"IS_LE_UINT", "IS_LT_UINT", "MULT_UINT", "DIVIDE_UINT", "MOD_UINT", "AMAX_INT", "AMIN_INT",
		"AMAX_UINT", "AMIN_UINT"}
	for i, n := range ints {
		first := CAYMAN
		if i < 3 { // 0xC4..0xC6 exist on SUNDA
			first = SUNDA
		}
		m[ALUOp(0xC4+i)] = aluInfo{n, first}
	}
	return m
}()

func (o ALUOp) String() string {
	if aluKnown[o] {
		return aluArr[o].name
	}
	return fmt.Sprintf("ALUOp(0x%02x)", uint8(o))
}

// Known reports whether o is an ALU_OP code in any generation.
func (o ALUOp) Known() bool { return aluKnown[o] }

// InGen reports whether generation g's header defines o (FACTS §A.2 presence columns:
// SUNDA 33, CAYMAN 60, MARIANA 64, MAVERICK 65 enumerators).
func (o ALUOp) InGen(g Generation) bool {
	return aluKnown[o] && g.Valid() && g >= aluArr[o].first
}

// AllALUOps lists every known code in numeric order.
var AllALUOps = func() []ALUOp {
	var out []ALUOp
	for c := 0; c < 256; c++ {
		if _, ok := aluTable[ALUOp(c)]; ok {
			out = append(out, ALUOp(c))
		}
	}
	return out
}()

// IsIntBand reports bits[7:6] == 0b11: the integer-engine band.
func (o ALUOp) IsIntBand() bool { return o&0xC0 == 0xC0 }

// IsBitvecOp is is_bitvec_op (10 members, FACTS §A.2).
func IsBitvecOp(o ALUOp) bool {
	switch o {
	case ALUBypass, ALUBitwiseNot, ALUArithShiftLeft, ALUArithShiftRight, ALULogicalShiftLeft,
		ALULogicalShiftRight, ALUBitwiseAnd, ALUBitwiseOr, ALUBitwiseXor, ALUCrc32:
		return true
	}
	return false
}

// IsGeneralBitvecOp is is_general_bitvec_op: is_bitvec_op minus CRC32.
func IsGeneralBitvecOp(o ALUOp) bool { return o != ALUCrc32 && IsBitvecOp(o) }

// IsArithOp is is_arith_op on generation g (CAYMAN 26 members; MARIANA+ 30).
func IsArithOp(o ALUOp, g Generation) bool {
	switch o {
	case ALUBypass, ALUAdd, ALUSubtract, ALUMult, ALUDivide, ALUMax, ALUMin, ALULogicalAnd, ALULogicalOr,
		ALULogicalXor, ALUIsEQ, ALUIsGT, ALUIsGE, ALUIsLE, ALUIsLT, ALUIsNE, ALUAbsoluteDiff,
		ALUAbsoluteValue, ALUPow, ALUMod, ALUAddInt, ALUMultInt, ALUSubtractInt, ALUDivideInt, ALUModInt, ALURsqrt:
		return o.InGen(g)
	case ALUAbsMax, ALUAbsMin, ALUReLU, ALUSquare: // MARIANA on: their first generation
		return o.InGen(g)
	}
	return false
}

// IsGeneralArithOp is is_general_arith_op: is_arith_op minus {Divide, Pow, Mod, Rsqrt} minus the
// int ALU ops (CAYMAN 17 members; MARIANA+ 21).
func IsGeneralArithOp(o ALUOp, g Generation) bool {
	switch o {
	case ALUDivide, ALUPow, ALUMod, ALURsqrt:
		return false
	}
	return !o.IsIntBand() && IsArithOp(o, g)
}

// IsValidIntALUOp is is_valid_int_aluop (26 members): the int band 0xC4..0xDD plus MOD, minus
// ABS_VALUE_INT; AMAX/AMIN 0xDE..0xE1 excluded.
func IsValidIntALUOp(o ALUOp, g Generation) bool {
	if o == ALUMod {
		return true
	}
	if o == ALUAbsValueInt || o < 0xC4 || o > 0xDD {
		return false
	}
	return o.InGen(g)
}

// IsArgReduceOp reports the AMAX/AMIN family (argmax / argmin, out_dtype u32).
func IsArgReduceOp(o ALUOp) bool { return o >= ALUAmaxInt && o <= ALUAminUint }

// IsTensorReduceIntOp is tpbsim's membership of is_valid_tensor_reduce_int_op (INFERRED; the
// sources name the predicate but do not list it): the integer-band ops a fold can use (ADD, MULT,
// MAX, MIN, ABS_MAX, ABS_MIN on INT, MAX / MIN / MULT on UINT) and the argmax / argmin family
// (FACTS §D.2 "Pool (int, argmax)"). These are the ops of the Pool arm of
// is_valid_tensor_reduce_arith_engine; the DVE arm excludes them.
func IsTensorReduceIntOp(o ALUOp, g Generation) bool {
	switch o {
	case ALUAddInt, ALUMultInt, ALUMaxInt, ALUMinInt, ALUMaxUint, ALUMinUint, ALUAbsMaxInt, ALUAbsMinInt,
		ALUMultUint, ALUAmaxInt, ALUAminInt, ALUAmaxUint, ALUAminUint:
		return o.InGen(g)
	}
	return false
}

// TensorReduceArithOps lists, in numeric order, the op@36 values an arithmetic reduce
// (TENSOR_REDUCE_ARITH_OP, TRANSPOSE_TENSOR_REDUCE_ARITH_OP) may carry when queued on engine e
// of generation g: those passing tensor_reduce_valid_alu_op and e's arm of
// is_valid_tensor_reduce_arith_engine. DVE: the general arithmetic ops; POOL: the tensor-reduce
// integer ops; EngineNone: either; any other engine: none.
func TensorReduceArithOps(e Engine, g Generation) []ALUOp {
	var out []ALUOp
	for _, o := range AllALUOps {
		gen, in := IsGeneralArithOp(o, g), IsTensorReduceIntOp(o, g)
		if (e == EngineDVE && gen) || (e == EnginePOOL && in) || (e == EngineNone && (gen || in)) {
			out = append(out, o)
		}
	}
	return out
}

// TensorSubdim is NEURON_ISA_TPB_TENSOR_SUBDIM (1 byte; FACTS §A.3): which innermost free dims an
// op reduces or scans. 0x01 is not listed by any header.
type TensorSubdim uint8

const (
	SubdimUNUSED TensorSubdim = 0x00
	SubdimX      TensorSubdim = 0x02
	SubdimXY     TensorSubdim = 0x03
	SubdimXYZ    TensorSubdim = 0x04
	SubdimXYZW   TensorSubdim = 0x05
)

func (s TensorSubdim) String() string {
	switch s {
	case SubdimUNUSED:
		return "UNUSED"
	case SubdimX:
		return "X"
	case SubdimXY:
		return "XY"
	case SubdimXYZ:
		return "XYZ"
	case SubdimXYZW:
		return "XYZW"
	}
	return fmt.Sprintf("TensorSubdim(0x%02x)", uint8(s))
}

// Dims is the number of innermost pattern dims the subdim covers (X 1 ... XYZW 4; UNUSED 0).
func (s TensorSubdim) Dims() int {
	if s >= SubdimX && s <= SubdimXYZW {
		return int(s) - 1
	}
	return 0
}

// IsZeroSubdim is is_zero_subdim (common.h:1410): UNUSED or X.
func IsZeroSubdim(s TensorSubdim) bool { return s == SubdimUNUSED || s == SubdimX }

// IsValidSubdim is is_valid_subdim: X, XY, XYZ or XYZW.
func IsValidSubdim(s TensorSubdim) bool { return s >= SubdimX && s <= SubdimXYZW }
