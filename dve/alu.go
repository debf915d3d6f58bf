package dve

import (
	"math"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// The ALU of the reduce and scan ops (FACTS §A.2): the op classes, and each class's evaluation
// of one op on two operands.
//
// Fold order (Provenance dve.alu_fold): acc = op(acc, x) with acc as src0 and the next element as
// src1; single-source ops (BYPASS, ABSOLUTE_VALUE, RE_LU, SQUARE, RSQRT, BITWISE_NOT) act on src0.

// opClass is how an ALU op computes.
type opClass uint8

const (
	classNone  opClass = iota
	classFloat         // FP32 arithmetic
	classInt           // int64 arithmetic (the integer band)
	classBits          // raw bit vectors
)

func arithClass(op isa.ALUOp) opClass {
	switch op {
	case isa.ALUBypass, isa.ALUAdd, isa.ALUSubtract, isa.ALUMult, isa.ALUDivide, isa.ALUMax, isa.ALUMin,
		isa.ALULogicalAnd, isa.ALULogicalOr, isa.ALULogicalXor, isa.ALUIsEQ, isa.ALUIsGT, isa.ALUIsGE,
		isa.ALUIsLE, isa.ALUIsLT, isa.ALUIsNE, isa.ALUAbsoluteDiff, isa.ALUAbsoluteValue, isa.ALUPow, isa.ALUMod,
		isa.ALURsqrt, isa.ALUAbsMax, isa.ALUAbsMin, isa.ALUReLU, isa.ALUSquare:
		return classFloat
	case isa.ALUAddInt, isa.ALUSubtractInt, isa.ALUMultInt, isa.ALUDivideInt, isa.ALUModInt, isa.ALUMaxInt, isa.ALUMinInt,
		isa.ALUMaxUint, isa.ALUMinUint, isa.ALUMultUint, isa.ALUDivideUint, isa.ALUModUint, isa.ALUAbsMaxInt,
		isa.ALUAbsMinInt, isa.ALUAbsDiffInt, isa.ALUIsEqualInt, isa.ALUIsNEInt, isa.ALUIsGTInt, isa.ALUIsGEInt,
		isa.ALUIsLEInt, isa.ALUIsLTInt, isa.ALUIsGTUint, isa.ALUIsGEUint, isa.ALUIsLEUint, isa.ALUIsLTUint:
		return classInt
	}
	return classNone
}

func bitvecClass(op isa.ALUOp) opClass {
	switch op {
	case isa.ALUBypass, isa.ALUBitwiseNot, isa.ALUArithShiftLeft, isa.ALUArithShiftRight, isa.ALULogicalShiftLeft,
		isa.ALULogicalShiftRight, isa.ALUBitwiseAnd, isa.ALUBitwiseOr, isa.ALUBitwiseXor:
		return classBits
	}
	return classNone
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// fmax is numpy's maximum: NaN propagates, otherwise a >= b ? a : b.
func fmax(a, b float32) float32 {
	if a != a || a >= b {
		return a
	}
	return b
}

func fmin(a, b float32) float32 {
	if a != a || a <= b {
		return a
	}
	return b
}

func abs32(a float32) float32 { return math.Float32frombits(math.Float32bits(a) &^ (1 << 31)) }

// evalFloat computes op(a, b) in FP32.
func evalFloat(op isa.ALUOp, a, b float32) float32 {
	switch op {
	case isa.ALUBypass:
		return a
	case isa.ALUAdd:
		return a + b
	case isa.ALUSubtract:
		return a - b
	case isa.ALUMult:
		return a * b
	case isa.ALUDivide:
		return a / b
	case isa.ALUMax:
		return fmax(a, b)
	case isa.ALUMin:
		return fmin(a, b)
	case isa.ALULogicalAnd:
		return b2f(a != 0 && b != 0)
	case isa.ALULogicalOr:
		return b2f(a != 0 || b != 0)
	case isa.ALULogicalXor:
		return b2f((a != 0) != (b != 0))
	case isa.ALUIsEQ:
		return b2f(a == b)
	case isa.ALUIsGT:
		return b2f(a > b)
	case isa.ALUIsGE:
		return b2f(a >= b)
	case isa.ALUIsLE:
		return b2f(a <= b)
	case isa.ALUIsLT:
		return b2f(a < b)
	case isa.ALUIsNE:
		return b2f(a != b)
	case isa.ALUAbsoluteDiff:
		return abs32(a - b)
	case isa.ALUAbsoluteValue:
		return abs32(a)
	case isa.ALUPow:
		return float32(math.Pow(float64(a), float64(b)))
	case isa.ALUMod:
		return float32(math.Mod(float64(a), float64(b)))
	case isa.ALURsqrt:
		return 1 / float32(math.Sqrt(float64(a)))
	case isa.ALUAbsMax:
		return fmax(abs32(a), abs32(b))
	case isa.ALUAbsMin:
		return fmin(abs32(a), abs32(b))
	case isa.ALUReLU:
		return fmax(a, 0)
	case isa.ALUSquare:
		return a * a
	}
	return a
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// evalInt computes an integer-band op on int64 values (wrapping; division by zero gives 0).
func evalInt(op isa.ALUOp, a, b int64) int64 {
	ua, ub := uint64(a), uint64(b)
	absI := func(x int64) int64 {
		if x < 0 {
			return -x
		}
		return x
	}
	switch op {
	case isa.ALUAddInt:
		return a + b
	case isa.ALUSubtractInt:
		return a - b
	case isa.ALUMultInt, isa.ALUMultUint:
		return a * b
	case isa.ALUDivideInt:
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0
		}
		return a / b
	case isa.ALUModInt:
		if b == 0 || b == -1 {
			return 0
		}
		return a % b
	case isa.ALUDivideUint:
		if ub == 0 {
			return 0
		}
		return int64(ua / ub)
	case isa.ALUModUint:
		if ub == 0 {
			return 0
		}
		return int64(ua % ub)
	case isa.ALUMaxInt:
		return max(a, b)
	case isa.ALUMinInt:
		return min(a, b)
	case isa.ALUMaxUint:
		return int64(max(ua, ub))
	case isa.ALUMinUint:
		return int64(min(ua, ub))
	case isa.ALUAbsMaxInt:
		return max(absI(a), absI(b))
	case isa.ALUAbsMinInt:
		return min(absI(a), absI(b))
	case isa.ALUAbsDiffInt:
		return absI(a - b)
	case isa.ALUIsEqualInt:
		return b2i(a == b)
	case isa.ALUIsNEInt:
		return b2i(a != b)
	case isa.ALUIsGTInt:
		return b2i(a > b)
	case isa.ALUIsGEInt:
		return b2i(a >= b)
	case isa.ALUIsLEInt:
		return b2i(a <= b)
	case isa.ALUIsLTInt:
		return b2i(a < b)
	case isa.ALUIsGTUint:
		return b2i(ua > ub)
	case isa.ALUIsGEUint:
		return b2i(ua >= ub)
	case isa.ALUIsLEUint:
		return b2i(ua <= ub)
	case isa.ALUIsLTUint:
		return b2i(ua < ub)
	}
	return a
}

// evalBits computes a bitvec op on raw values of width bits (zero-extended); shift amounts are
// taken modulo the width (Provenance dve.bitvec_shift).
func evalBits(op isa.ALUOp, a, b uint64, width int) uint64 {
	mask := uint64(math.MaxUint64)
	if width < 64 {
		mask = 1<<uint(width) - 1
	}
	sh := uint(b % uint64(width))
	var r uint64
	switch op {
	case isa.ALUBypass:
		r = a
	case isa.ALUBitwiseNot:
		r = ^a
	case isa.ALUBitwiseAnd:
		r = a & b
	case isa.ALUBitwiseOr:
		r = a | b
	case isa.ALUBitwiseXor:
		r = a ^ b
	case isa.ALUArithShiftLeft, isa.ALULogicalShiftLeft:
		r = a << sh
	case isa.ALULogicalShiftRight:
		r = (a & mask) >> sh
	case isa.ALUArithShiftRight:
		s := int64(a << (64 - uint(width)))
		r = uint64(s >> (64 - uint(width)) >> sh)
	}
	return r & mask
}

// opFor picks the op class for an S4D4_TR reduce / scan opcode and checks op against it, and a
// transposing reduce's cell width (transpose_cell_width) before that: the executors and the
// pre-run check (CheckOp) both go through here, so the two cannot disagree about a word.
func opFor(o *operands, in *isa.S4D4TR, arith bool) (isa.ALUOp, valueKind, error) {
	if o.op == isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP || o.op == isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP {
		if es := in.InDtype.Size(); es != 1 && es != 2 && es != 4 {
			return 0, valueKind{}, fail(o.op, fault.ErrUnsupported, RuleTransposeCellWidth, "in_dtype", "transpose cells of %d bytes are not modelled", es)
		}
	}
	op := in.Op
	switch o.op {
	case isa.OpTENSOR_REDUCE_ADD_BF16:
		op = isa.ALUAdd
	case isa.OpTENSOR_REDUCE_MAX_BF16:
		op = isa.ALUMax
	}
	vk := valueKind{in: num.Kind(in.InDtype), out: num.Kind(in.OutDtype), width: in.InDtype.Bits()}
	if arith {
		vk.class = arithClass(op)
	} else {
		vk.class = bitvecClass(op)
		if !in.InDtype.IsInteger() || !in.OutDtype.IsInteger() {
			return op, vk, fail(o.op, fault.ErrInvalid, RuleBitvecIntegerDtype, "in_dtype",
				"bitvec ops need integer dtypes: in %v, out %v", in.InDtype, in.OutDtype)
		}
	}
	if vk.class == classNone {
		return op, vk, fail(o.op, fault.ErrUnsupported, RuleALUOpModelled, "op", "%v is not executed by the DVE model for %v", op, o.op)
	}
	if vk.class == classInt && (!in.InDtype.IsInteger() || !in.OutDtype.IsInteger()) {
		return op, vk, fail(o.op, fault.ErrInvalid, RuleIntALUOpIntegerDtype, "op", "%v needs integer dtypes: in %v, out %v", op, in.InDtype, in.OutDtype)
	}
	return op, vk, nil
}

// CheckOp reports, without memory, whether the model computes the reduce / scan op of an S4D4_TR
// reduce or cumulative instruction (transpose_cell_width, dve_alu_op_modelled,
// bitvec_integer_dtype, int_alu_op_integer_dtype): the machine runs it before anything
// executes, so an instruction the model cannot compute fails before the run, not halfway.
// Other opcodes: nil.
func CheckOp(in *isa.S4D4TR) error {
	switch op := in.Hdr().Opcode; op {
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_ARITH_OP,
		isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16,
		isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP, isa.OpTENSOR_CUMULATIVE_BITVEC_OP:
		_, _, err := opFor(&operands{op: op}, in, isArithOpcode(op))
		return err
	}
	return nil
}

func isArithOpcode(op isa.Opcode) bool {
	switch op {
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_ARITH_OP,
		isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16:
		return true
	}
	return false
}
