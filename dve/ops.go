package dve

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// ---- ALU evaluation (FACTS §A.2) ----

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

// ---- element streams ----

// stream is one channel's elements in a uniform form for the ALU.
type valueKind struct {
	class opClass
	in    num.Kind
	out   num.Kind
	width int // bits of the input (bitvec)
}

func (v *valueKind) loadF(b []byte, i int) float32 {
	sz := v.in.Size()
	return num.LoadF32(v.in, b[i*sz:])
}

func (v *valueKind) loadI(b []byte, i int) int64 {
	sz := v.in.Size()
	if v.in == num.UINT64 {
		return int64(num.LoadBits(v.in, b[i*sz:]))
	}
	return num.LoadInt(v.in, b[i*sz:])
}

func (v *valueKind) loadB(b []byte, i int) uint64 {
	sz := v.in.Size()
	return num.LoadBits(v.in, b[i*sz:])
}

// opFor picks the op class for an S4D4_TR reduce / scan opcode and checks op against it.
func opFor(o *operands, in *isa.S4D4TR, arith bool) (isa.ALUOp, valueKind, error) {
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
// reduce or cumulative instruction (dve_alu_op_modelled, bitvec_integer_dtype,
// int_alu_op_integer_dtype): the machine runs it before anything executes, so an instruction the
// model cannot compute fails before the run, not halfway. Other opcodes: nil.
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

// groupSize is the number of consecutive walk elements op_dim covers: the product of num_elem
// over its innermost dims (X: dim 0, XY: dims 0-1, ...). Provenance dve.reduce_shape.
func groupSize(o *operands, in *isa.S4D4TR, field string) (int, error) {
	k := in.OpDim.Dims()
	if o.op == isa.OpTENSOR_REDUCE_ADD_BF16 || o.op == isa.OpTENSOR_REDUCE_MAX_BF16 {
		k = max(k, 1)
	}
	if k == 0 {
		return 0, o.refuse("is_valid_subdim", "op_dim", "op_dim %v", in.OpDim)
	}
	g := 1
	for d := 0; d < k; d++ {
		g *= o.src.NumElem[d]
	}
	return g, nil
}

// ---- TensorReduce / TransposeTensorReduce ----

func (d *DVE) tensorReduce(m *mem.Memory, in *isa.S4D4TR, o *operands, pre []byte) error {
	arith := isArithOpcode(o.op)
	op, vk, err := opFor(o, in, arith)
	if err != nil {
		return err
	}
	G, err := groupSize(o, in, "op_dim")
	if err != nil {
		return err
	}
	E := o.src.Elements()
	R := 0
	if G > 0 {
		R = E / G
	}
	if o.dst.Elements() != R {
		return o.refuse("tensor_reduce_dst_count", "dst_mem_pattern.num_elem",
			"reducing %d elements in groups of %d (op_dim %v) gives %d results per channel; dst walks %d", E, G, in.OpDim, R, o.dst.Elements())
	}
	negate := arith && in.Negated != 0
	if !d.reference {
		return d.foldRows(m, o, pre, op, vk, G, negate, false)
	}
	sbuf := pre
	if sbuf == nil {
		if sbuf, err = d.gatherAll(m, o); err != nil {
			return err
		}
	}
	obuf := make([]byte, o.nac*R*o.esOut)
	for c := 0; c < o.nac; c++ {
		row := sbuf[c*E*o.esIn : (c+1)*E*o.esIn]
		orow := obuf[c*R*o.esOut : (c+1)*R*o.esOut]
		for r := 0; r < R; r++ {
			lo := r * G
			dstb := orow[r*o.esOut:]
			switch vk.class {
			case classFloat:
				acc := vk.loadF(row, lo)
				for i := 1; i < G; i++ {
					acc = evalFloat(op, acc, vk.loadF(row, lo+i))
				}
				if negate {
					acc = -acc
				}
				num.StoreF32(vk.out, dstb, num.CanonicalNaN(acc))
			case classInt:
				acc := vk.loadI(row, lo)
				for i := 1; i < G; i++ {
					acc = evalInt(op, acc, vk.loadI(row, lo+i))
				}
				if negate {
					acc = -acc
				}
				storeInt(vk, dstb, acc)
			default:
				acc := vk.loadB(row, lo)
				for i := 1; i < G; i++ {
					acc = evalBits(op, acc, vk.loadB(row, lo+i), vk.width)
				}
				acc = evalBits(isa.ALUBypass, acc, 0, vk.width)
				num.StoreBits(vk.out, dstb, acc)
			}
		}
	}
	scatterAll(m, o, obuf)
	return nil
}

// storeInt stores an integer-band result as an element of vk.out, saturated to its range: the
// value of v's 64 bits read unsigned when the input is UINT64 (whose values the int64 lanes hold
// as their bits), else signed (Provenance dve.int_band_ops).
func storeInt(vk valueKind, b []byte, v int64) {
	if vk.in == num.UINT64 {
		num.StoreUint(vk.out, b, uint64(v))
		return
	}
	num.StoreInt(vk.out, b, v)
}

func (d *DVE) transposeReduce(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if o.nac%32 != 0 {
		return o.refuse("has_multiple_32_channels", "num_active_channels", "%d channels", o.nac)
	}
	E := o.src.Elements()
	if E%32 != 0 {
		return o.refuse("has_transpose_src_element_count_t4d", "src_mem_pattern.num_elem", "src walks %d elements", E)
	}
	es := o.esIn
	if es != 1 && es != 2 && es != 4 {
		return fail(o.op, fault.ErrUnsupported, RuleTransposeCellWidth, "in_dtype", "transpose cells of %d bytes are not modelled", es)
	}
	// Check the reduce's operands before transposing (cheap), then transpose into a buffer.
	if _, _, err := opFor(o, in, isArithOpcode(o.op)); err != nil {
		return err
	}
	row := E * es
	tbuf := scratch(&d.ops.transposed, o.nac*row)
	if d.Transpose == TransposeButterfly {
		sbuf, err := d.gatherAll(m, o)
		if err != nil {
			return err
		}
		butterflyTranspose(tbuf, sbuf, o.nac, E, es)
	} else {
		rows, _, err := d.srcRows(m, o, nil)
		if err != nil {
			return err
		}
		groups := o.nac / 32
		if cap(d.ops.tiles) < 2*groups {
			d.ops.tiles = make([][32][]byte, 2*groups)
		}
		src, dst := d.ops.tiles[:groups], d.ops.tiles[groups:2*groups]
		for c := 0; c < o.nac; c++ {
			src[c/32][c%32] = rows[c]
			dst[c/32][c%32] = tbuf[c*row : (c+1)*row]
		}
		transposeParallel(d.procs(len(tbuf)), dst, src, es, E/32, E)
		clear(src)
		clear(dst)
		clear(rows)
	}
	return d.tensorReduce(m, in, o, tbuf)
}

// ---- TensorCumulative ----

func (d *DVE) tensorCumulative(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	arith := isArithOpcode(o.op)
	op, vk, err := opFor(o, in, arith)
	if err != nil {
		return err
	}
	G, err := groupSize(o, in, "op_dim")
	if err != nil {
		return err
	}
	if !d.reference {
		return d.foldRows(m, o, nil, op, vk, G, false, true)
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	E := o.src.Elements()
	obuf := make([]byte, o.nac*E*o.esOut)
	for c := 0; c < o.nac; c++ {
		row := sbuf[c*E*o.esIn : (c+1)*E*o.esIn]
		orow := obuf[c*E*o.esOut : (c+1)*E*o.esOut]
		for lo := 0; lo < E; lo += G {
			switch vk.class {
			case classFloat:
				var acc float32
				for i := 0; i < G; i++ {
					x := vk.loadF(row, lo+i)
					if i == 0 {
						acc = x
					} else {
						acc = evalFloat(op, acc, x)
					}
					num.StoreF32(vk.out, orow[(lo+i)*o.esOut:], num.CanonicalNaN(acc))
				}
			case classInt:
				var acc int64
				for i := 0; i < G; i++ {
					x := vk.loadI(row, lo+i)
					if i == 0 {
						acc = x
					} else {
						acc = evalInt(op, acc, x)
					}
					storeInt(vk, orow[(lo+i)*o.esOut:], acc)
				}
			default:
				var acc uint64
				for i := 0; i < G; i++ {
					x := vk.loadB(row, lo+i)
					if i == 0 {
						acc = evalBits(isa.ALUBypass, x, 0, vk.width)
					} else {
						acc = evalBits(op, acc, x, vk.width)
					}
					num.StoreBits(vk.out, orow[(lo+i)*o.esOut:], acc)
				}
			}
		}
	}
	scatterAll(m, o, obuf)
	return nil
}

// ---- Copy / Cast / Reciprocal ----

func (d *DVE) copyOp(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	if in.InDtype != in.OutDtype {
		return o.refuse("s4d4_tr_same_src_dst_type", "out_dtype", "in %v, out %v", in.InDtype, in.OutDtype)
	}
	// Contiguous rows that do not overlap (and no never-written tracking, which the gather
	// does): one copy per channel, row to row, as the transposes read and write in place,
	// marked written as Scatter marks its bytes (so that Reset clears them).
	if !d.reference && !m.Options().TrackUninit && o.src.Contiguous() && o.dst.Contiguous() && !o.src.Span().Overlaps(o.dst.Span()) {
		n, so, do := o.src.Bytes(), o.src.Offset(), o.dst.Offset()
		for c := 0; c < o.nac; c++ {
			copy(m.Partition(o.dst.Start.Region, o.dst.Partition(c))[do:do+n], m.Partition(o.src.Start.Region, o.src.Partition(c))[so:so+n])
			m.MarkInit(o.dst.Start.Region, o.dst.Partition(c), do, n)
		}
		return nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	scatterAll(m, o, sbuf)
	return nil
}

func (d *DVE) castOp(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	ik, ok := num.Kind(in.InDtype), num.Kind(in.OutDtype)
	if !d.reference {
		rows, srcInPlace, err := d.srcRows(m, o, nil)
		if err != nil {
			return err
		}
		// Kinds are checked (n = 0 converts nothing) before a row may be written in place.
		if err := num.ConvertSlice(nil, ok, nil, ik, 0); err != nil {
			return o.refuse("is_valid_dtype", "in_dtype", "%v", err)
		}
		orows, dstInPlace := d.dstRows(m, o, srcInPlace)
		d.runRows(o, rowJob{kind: jobCast, rows: rows, orows: orows, esIn: o.esIn, in: ik, out: ok})
		d.putRows(m, o, orows, dstInPlace)
		return nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	n := o.nac * o.src.Elements()
	obuf := make([]byte, n*o.esOut)
	if err := num.ConvertSlice(obuf, ok, sbuf, ik, n); err != nil {
		return o.refuse("is_valid_dtype", "in_dtype", "%v", err)
	}
	scatterAll(m, o, obuf)
	return nil
}

func (d *DVE) reciprocal(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	ik, ok := num.Kind(in.InDtype), num.Kind(in.OutDtype)
	if !d.reference {
		rows, srcInPlace, err := d.srcRows(m, o, nil)
		if err != nil {
			return err
		}
		orows, dstInPlace := d.dstRows(m, o, srcInPlace)
		d.runRows(o, rowJob{kind: jobReciprocal, rows: rows, orows: orows, esIn: o.esIn, esOut: o.esOut, in: ik, out: ok})
		d.putRows(m, o, orows, dstInPlace)
		return nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	n := o.nac * o.src.Elements()
	obuf := make([]byte, n*o.esOut)
	for i := 0; i < n; i++ {
		x := num.LoadF32(ik, sbuf[i*o.esIn:])
		num.StoreF32(ok, obuf[i*o.esOut:], num.CanonicalNaN(1/x))
	}
	scatterAll(m, o, obuf)
	return nil
}

// ---- StreamShuffle ----

// streamShuffle: output channel i of each 32-channel group takes input channel mask[i] of the
// same group; 0xFF leaves output channel i untouched. Entries 32..63 are taken modulo 32
// (Provenance dve.shuffle_mask_high). It returns the number of output channels written.
func (d *DVE) streamShuffle(m *mem.Memory, in *isa.S4D4TR, o *operands) (int, error) {
	if o.nac%32 != 0 {
		return 0, o.refuse("has_multiple_32_channels", "num_active_channels", "%d channels", o.nac)
	}
	if err := requireSameCount(o); err != nil {
		return 0, err
	}
	if in.InDtype != in.OutDtype {
		return 0, o.refuse("s4d4_tr_same_src_dst_type", "out_dtype", "in %v, out %v", in.InDtype, in.OutDtype)
	}
	if !d.maskSet {
		return 0, fail(o.op, fault.ErrInvalid, RuleStreamShuffleMaskLoaded, "", "no LOAD_MASK_SELECT has run on this DVE")
	}
	n := o.src.Bytes()
	// Contiguous rows that do not overlap, untracked: partition row to partition row.
	if !d.reference && d.readsInPlace(m, o) && o.dst.Contiguous() && !o.src.Span().Overlaps(o.dst.Span()) {
		so, do := o.src.Offset(), o.dst.Offset()
		written := 0
		for c := 0; c < o.nac; c++ {
			sel := d.mask[c%32]
			if sel == 0xFF {
				continue
			}
			from := c/32*32 + int(sel%32)
			copy(m.Partition(o.dst.Start.Region, o.dst.Partition(c))[do:do+n], m.Partition(o.src.Start.Region, o.src.Partition(from))[so:so+n])
			m.MarkInit(o.dst.Start.Region, o.dst.Partition(c), do, n)
			written++
		}
		return written, nil
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return 0, err
	}
	written := 0
	for c := 0; c < o.nac; c++ {
		sel := d.mask[c%32]
		if sel == 0xFF {
			continue
		}
		from := c/32*32 + int(sel%32)
		m.Scatter(o.dst, c, sbuf[from*n:(from+1)*n])
		written++
	}
	return written, nil
}

// ---- fast paths: rows in place, lanes of decoded values ----
//
// The fast paths of TensorReduce, TransposeTensorReduce (its reduce half), TensorCumulative,
// Cast, Reciprocal and StreamShuffle compute exactly what the element-by-element code above
// computes (the reference, DVE.reference; TestFastMatchesReference holds them to the same bytes
// for every op, dtype pair and shape class). They differ in how: a channel's elements are
// decoded a chunk at a time by a loop specialised on the dtype, folded or scanned by a loop
// specialised on the ALU op (four groups at a time, whose independent accumulators hide the
// FP32 add's latency; each group still folds left to right from its first element), and
// encoded a chunk at a time; contiguous source rows are read where they are (no gather) when
// never-written tracking is off, contiguous destination rows are written where they are when
// that cannot change a byte still to be read; and every buffer is reused, as gatherAll's is.

// opScratch holds the buffers the fast paths reuse from one instruction to the next (a DVE runs
// one instruction at a time). Byte buffers above scratchMax are allocated per instruction and
// not kept; the row tables are cleared after each instruction so they keep no buffer alive.
type opScratch struct {
	out        []byte       // a destination built whole, then scattered
	transposed []byte       // TransposeTensorReduce's transposed source
	rows       [][]byte     // each channel's source walk
	orows      [][]byte     // each channel's destination walk
	tiles      [][32][]byte // TransposeTensorReduce's row tables, source then destination
	sets       []laneSet    // each worker's lanes (runRows)
	job        rowJob       // the job runRows runs
}

// rowSlots returns n entries of *s, grown when short.
func rowSlots(s *[][]byte, n int) [][]byte {
	if cap(*s) < n {
		*s = make([][]byte, n)
	}
	return (*s)[:n]
}

// readsInPlace reports whether the source walk can be read where it is: contiguous, not empty,
// and nothing to check (never-written tracking off, which only the gather checks).
func (d *DVE) readsInPlace(m *mem.Memory, o *operands) bool {
	return !d.reference && !m.Options().TrackUninit && o.src.Contiguous() && o.src.Elements() > 0
}

// srcRows returns each channel's source walk as one run of bytes: pre's rows when given
// (TransposeTensorReduce's transposed source), the partition bytes themselves when readsInPlace
// (inPlace), else the gathered source.
func (d *DVE) srcRows(m *mem.Memory, o *operands, pre []byte) (rows [][]byte, inPlace bool, err error) {
	n := o.src.Bytes()
	rows = rowSlots(&d.ops.rows, o.nac)
	switch {
	case pre != nil:
	case d.readsInPlace(m, o):
		off := o.src.Offset()
		for c := range rows {
			rows[c] = m.Partition(o.src.Start.Region, o.src.Partition(c))[off : off+n]
		}
		return rows, true, nil
	default:
		if pre, err = d.gatherAll(m, o); err != nil {
			return nil, false, err
		}
	}
	for c := range rows {
		rows[c] = pre[c*n : (c+1)*n]
	}
	return rows, false, nil
}

// dstRows returns where each channel's destination walk is built: the partition bytes
// themselves (inPlace) when the walk is contiguous and writing it cannot change a byte still to
// be read (the source is not read in place, or the two do not overlap), else d's buffer,
// channel-major. putRows finishes the write.
func (d *DVE) dstRows(m *mem.Memory, o *operands, srcInPlace bool) (rows [][]byte, inPlace bool) {
	n := o.dst.Bytes()
	rows = rowSlots(&d.ops.orows, o.nac)
	if !d.reference && o.dst.Contiguous() && n > 0 && !(srcInPlace && o.src.Span().Overlaps(o.dst.Span())) {
		off := o.dst.Offset()
		for c := range rows {
			rows[c] = m.Partition(o.dst.Start.Region, o.dst.Partition(c))[off : off+n]
		}
		return rows, true
	}
	buf := scratch(&d.ops.out, o.nac*n)
	for c := range rows {
		rows[c] = buf[c*n : (c+1)*n]
	}
	return rows, false
}

// putRows finishes a destination dstRows began: rows written in place are marked written (as
// Scatter marks the bytes it writes), a buffer is scattered. The row tables are cleared.
func (d *DVE) putRows(m *mem.Memory, o *operands, rows [][]byte, inPlace bool) {
	for c, row := range rows {
		if inPlace {
			m.MarkInit(o.dst.Start.Region, o.dst.Partition(c), o.dst.Offset(), len(row))
		} else {
			m.Scatter(o.dst, c, row)
		}
	}
	clear(rows)
	clear(d.ops.rows)
}

// foldRows is the fast TensorReduce (cumulative false: one result per group of G elements,
// negated when negate) and TensorCumulative (every running value).
func (d *DVE) foldRows(m *mem.Memory, o *operands, pre []byte, op isa.ALUOp, vk valueKind, G int, negate, cumulative bool) error {
	rows, srcInPlace, err := d.srcRows(m, o, pre)
	if err != nil {
		return err
	}
	orows, dstInPlace := d.dstRows(m, o, srcInPlace)
	if G > 0 && o.src.Elements() > 0 {
		d.runRows(o, rowJob{kind: jobFold, rows: rows, orows: orows, esIn: o.esIn, esOut: o.esOut,
			op: op, vk: vk, G: G, negate: negate, cumulative: cumulative})
	}
	d.putRows(m, o, orows, dstInPlace)
	return nil
}

// rowJob is the computation of a fast path, channel row by channel row: rows into orows.
type rowJob struct {
	kind        jobKind
	rows, orows [][]byte
	esIn, esOut int
	in, out     num.Kind // Cast, Reciprocal
	op          isa.ALUOp
	vk          valueKind
	G           int
	negate      bool
	cumulative  bool
}

type jobKind uint8

const (
	jobFold jobKind = iota // reduce or scan: foldGroups in the op class's lanes
	jobReciprocal
	jobCast // num.ConvertSlice, whose kinds the caller has checked
)

// laneSet is one worker's lanes, one per op class.
type laneSet struct {
	f32 lanes[float32]
	i64 lanes[int64]
	u64 lanes[uint64]
}

// runRows runs j over all channel rows: on the caller's goroutine, or, for an instruction as
// large as a transpose that would go parallel (d.procs), split by rows over that many workers,
// each with its own lanes (the rows are independent; each worker writes its own).
func (d *DVE) runRows(o *operands, job rowJob) {
	d.ops.job = job // in d, so that the workers' closure need not copy it to the heap
	defer func() { d.ops.job = rowJob{} }()
	j := &d.ops.job
	n := min(d.procs(o.nac*(o.src.Bytes()+o.dst.Bytes())), len(j.rows))
	if len(d.ops.sets) < n {
		d.ops.sets = append(d.ops.sets, make([]laneSet, n-len(d.ops.sets))...)
	}
	if n <= 1 {
		j.run(&d.ops.sets[0], 0, len(j.rows))
		return
	}
	sets, rows := d.ops.sets, len(j.rows)
	parallel(n, n, func(w int) { j.run(&sets[w], w*rows/n, (w+1)*rows/n) })
}

// run computes rows [lo, hi) of j in the lanes of s.
func (j *rowJob) run(s *laneSet, lo, hi int) {
	rows, orows := j.rows[lo:hi], j.orows[lo:hi]
	switch j.kind {
	case jobFold:
		op, vk, negate := j.op, j.vk, j.negate
		switch vk.class {
		case classFloat:
			s.f32.set(op, vk, negate, vk.in == num.FP32 || vk.in == num.FP32R, loadF32s, scanF32, storeF32s, putF32, negateAll[float32])
			s.f32.outRaw = vk.out == num.FP32
			foldGroups(&s.f32, rows, orows, j.esIn, j.esOut, j.G, j.cumulative)
		case classInt:
			store := storeI64s
			if vk.in == num.UINT64 {
				store = storeI64sUnsigned
			}
			s.i64.set(op, vk, negate, vk.in.Size() == 8, loadI64s, scanI64, store, putAsIs[int64], negateAll[int64])
			foldGroups(&s.i64, rows, orows, j.esIn, j.esOut, j.G, j.cumulative)
		default:
			s.u64.set(op, vk, false, vk.in.Size() == 8, loadU64s, scanU64, storeU64s, putAsIs[uint64], nil)
			foldGroups(&s.u64, rows, orows, j.esIn, j.esOut, j.G, j.cumulative)
		}
	case jobReciprocal:
		xs := s.f32.buffer()
		for c, row := range rows {
			for lo, E := 0, len(row)/j.esIn; lo < E; lo += len(xs) {
				x := xs[:min(len(xs), E-lo)]
				loadF32s(x, row[lo*j.esIn:], j.in)
				for i, v := range x {
					x[i] = num.CanonicalNaN(1 / v)
				}
				storeF32s(orows[c][lo*j.esOut:], x, j.out)
			}
		}
	case jobCast:
		for c, row := range rows {
			_ = num.ConvertSlice(orows[c], j.out, row, j.in, len(row)/j.esIn) // cannot fail: kinds checked, sizes exact
		}
	}
}

// laneChunk is how many elements of a group a lane decodes at a time: four lanes of int64
// are 16 KiB, which stays in L1 with the results beside them.
const laneChunk = 512

// laneValue is the value type an op class computes in: FP32, the integer band's int64, and
// raw bit vectors.
type laneValue interface{ float32 | int64 | uint64 }

// lanes is the element pipeline of one reduce or scan instruction in the value type T of its op
// class: the dtype and op specialised loops chosen for it, the four lanes the scan runs (x,
// from the accumulators acc, into y) and the buffer they are decoded into.
type lanes[T laneValue] struct {
	op      isa.ALUOp
	in, out num.Kind
	width   int
	negate  bool
	keep    bool                                         // scans keep every running value, in y (TensorCumulative)
	outRaw  bool                                         // out's bytes are T's own and store copies them: a scan writes the destination itself
	raw     bool                                         // the in dtype's bytes are T's own (FP32 for float32, 8-byte integers)
	load    func(xs []T, b []byte, k num.Kind)           // decode len(xs) elements of k from b
	scan    func(l *lanes[T])                            // per lane: acc = op(acc, x[i]); if keep, y[i] = acc
	store   func(b []byte, xs []T, k num.Kind)           // encode xs as k into b (may change xs)
	put     func(l *lanes[T], b []byte, xs []T, run int) // store results (see putF32)
	finish  func(xs []T)                                 // negate reduce results
	acc     [4]T
	res     []T // where a fold also writes its four results (the lanes' results of short groups), or nil
	x       [4][]T
	y       [4][]T // where a scan writes its running values: x[k] itself, the buffer, or the destination
	buf     []T    // 8 x laneChunk: decoded elements, then reduce results
	nans    []byte // laneChunk default NaNs encoded as nansOf (putF32)
	nansOf  num.Kind
}

func (l *lanes[T]) set(op isa.ALUOp, vk valueKind, negate, raw bool, load func([]T, []byte, num.Kind),
	scan func(*lanes[T]), store func([]byte, []T, num.Kind), put func(*lanes[T], []byte, []T, int), finish func([]T)) {
	l.op, l.in, l.out, l.width, l.negate, l.raw = op, vk.in, vk.out, vk.width, negate, raw
	l.load, l.scan, l.store, l.put, l.finish = load, scan, store, put, finish
	l.outRaw = false
}

// buffer returns the lanes' buffer, allocated on first use.
func (l *lanes[T]) buffer() []T {
	if l.buf == nil {
		l.buf = make([]T, 8*laneChunk)
	}
	return l.buf
}

// foldGroups folds (cumulative false) or scans every group of G consecutive elements of each
// source row into the destination rows. Groups of up to laneChunk elements are decoded (or
// viewed, raw) a block of whole groups of one row at a time and run four by four; larger groups
// run four at a time (consecutive groups, across rows) a chunk of each at a time. A scan writes
// its running values (y) to the lanes' buffer, or into the destination row itself when the out
// dtype holds them as they are (outRaw: FP32; no store then, but putF32's NaN patches). Lanes
// past the last group repeat the last real lane (the scans read all four lanes' x[i] before
// writing any).
func foldGroups[T laneValue](l *lanes[T], rows, orows [][]byte, es, esOut, G int, cumulative bool) {
	buf := l.buffer()
	l.keep = cumulative
	if G <= laneChunk {
		per := len(buf) / 2 / G // groups per block (at least 4)
		data, res := buf[:per*G], buf[len(buf)/2:]
		for c, row := range rows {
			R := len(row) / (es * G)
			for r0 := 0; r0 < R; r0 += per {
				n := min(per, R-r0)
				// A scan writes its running values (ys) into the buffer (over the decoded
				// elements, unless raw ones are read in place), or into the destination itself
				// when that holds them as they are (outRaw).
				xs, ys := l.read(data[:n*G], row[r0*G*es:]), data[:n*G]
				if cumulative && l.outRaw {
					if v, ok := view[T](orows[c][r0*G*esOut:], n*G); ok {
						ys = v
					}
				}
				if G > 1 {
					for j := 0; j < n && !cumulative; j += 4 { // a fold's four results go to res (l.res)
						for k := range 4 {
							q := min(j+k, n-1) * G
							l.acc[k], l.x[k] = xs[q], xs[q+1:q+G]
						}
						if j+4 <= n {
							l.res = res[j : j+4]
						}
						l.scan(l)
						if l.res = nil; j+4 > n {
							copy(res[j:n], l.acc[:])
						}
					}
					for j := 0; j < n && cumulative; j += 4 {
						for k := range 4 {
							q := min(j+k, n-1) * G
							l.acc[k], l.x[k], l.y[k], ys[q] = xs[q], xs[q+1:q+G], ys[q+1:q+G], xs[q]
						}
						l.scan(l)
					}
				} else {
					copy(res, xs)
					if cumulative {
						copy(ys, xs)
					}
				}
				if cumulative {
					l.put(l, orows[c][r0*G*esOut:], ys, G) // never xs, which may be the source
					continue
				}
				if l.negate {
					l.finish(res[:n])
				}
				l.put(l, orows[c][r0*esOut:], res[:n], 1)
			}
		}
		return
	}
	R := len(rows[0]) / (es * G)
	total := len(rows) * R
	for q0 := 0; q0 < total; q0 += 4 {
		real := min(4, total-q0)
		for off := 0; off < G; off += laneChunk {
			n := min(laneChunk, G-off)
			var ys [4][]T // each lane's running values (a scan): its buffer, or the destination (outRaw)
			for k := range 4 {
				if k >= real {
					l.x[k], l.y[k] = l.x[real-1], l.y[real-1]
					continue
				}
				q := q0 + k
				l.x[k] = l.read(buf[k*laneChunk:k*laneChunk+n], rows[q/R][(q%R*G+off)*es:])
				ys[k] = buf[k*laneChunk : k*laneChunk+n]
				if cumulative && l.outRaw {
					if v, ok := view[T](orows[q/R][(q%R*G+off)*esOut:], n); ok {
						ys[k] = v
					}
				}
				l.y[k] = ys[k]
			}
			if off == 0 {
				for k := range 4 {
					l.y[k][0] = l.x[k][0]
					l.acc[k], l.x[k], l.y[k] = l.x[k][0], l.x[k][1:], l.y[k][1:]
				}
			}
			l.scan(l)
			for k := 0; cumulative && k < real; k++ {
				q := q0 + k
				l.put(l, orows[q/R][(q%R*G+off)*esOut:], ys[k], n)
			}
		}
		if !cumulative {
			res := buf[4*laneChunk : 4*laneChunk+real]
			copy(res, l.acc[:])
			if l.negate {
				l.finish(res)
			}
			for k := range res {
				q := q0 + k
				l.put(l, orows[q/R][q%R*esOut:], res[k:k+1], 1)
			}
		}
	}
}

// read returns the len(dst) elements at b as values: b itself, viewed in place, when its bytes
// are the values' own encoding (raw; the scans write their running values to y, never to x),
// else decoded into dst.
func (l *lanes[T]) read(dst []T, b []byte) []T {
	if l.raw {
		if v, ok := view[T](b, len(dst)); ok {
			return v
		}
	}
	l.load(dst, b, l.in)
	return dst
}

// lanes4 returns the four lanes, resliced to one length so that the scans index them without
// bounds checks.
func lanes4[T laneValue](l *lanes[T]) (x0, x1, x2, x3 []T) {
	x0 = l.x[0]
	return x0, l.x[1][:len(x0)], l.x[2][:len(x0)], l.x[3][:len(x0)]
}

// outs4 returns where the four lanes' running values go (y), resliced to the lanes' length n.
func outs4[T laneValue](l *lanes[T], n int) (y0, y1, y2, y3 []T) {
	return l.y[0][:n], l.y[1][:n], l.y[2][:n], l.y[3][:n]
}

// The scans run the four lanes in one loop: a fold (a reduce) only updates the accumulators, a
// scan (keep) also writes each running value to y; the two are separate loops, so that a fold
// keeps its lanes and accumulators in registers.

// scanF32 is the FP32 op class: evalFloat, with the common ops written out.
func scanF32(l *lanes[float32]) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	switch l.op {
	case isa.ALUAdd:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUSubtract:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0-v, a1-x1[i], a2-x2[i], a3-x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0-v, a1-x1[i], a2-x2[i], a3-x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMult:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0*v, a1*x1[i], a2*x2[i], a3*x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0*v, a1*x1[i], a2*x2[i], a3*x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMax:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = fmax(a0, v), fmax(a1, x1[i]), fmax(a2, x2[i]), fmax(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = fmax(a0, v), fmax(a1, x1[i]), fmax(a2, x2[i]), fmax(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMin:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = fmin(a0, v), fmin(a1, x1[i]), fmin(a2, x2[i]), fmin(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = fmin(a0, v), fmin(a1, x1[i]), fmin(a2, x2[i]), fmin(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	default:
		scanEach(l, func(a, b float32) float32 { return evalFloat(l.op, a, b) })
		return
	}
	l.acc = [4]float32{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 { // from the registers: a load of acc just stored would wait
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

// scanI64 is the integer band: evalInt, with the common ops written out.
func scanI64(l *lanes[int64]) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	switch l.op {
	case isa.ALUAddInt:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMaxInt:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = max(a0, v), max(a1, x1[i]), max(a2, x2[i]), max(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = max(a0, v), max(a1, x1[i]), max(a2, x2[i]), max(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMinInt:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = min(a0, v), min(a1, x1[i]), min(a2, x2[i]), min(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = min(a0, v), min(a1, x1[i]), min(a2, x2[i]), min(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	default:
		scanEach(l, func(a, b int64) int64 { return evalInt(l.op, a, b) })
		return
	}
	l.acc = [4]int64{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 { // from the registers: a load of acc just stored would wait
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

// scanU64 is the bitvec class on zero-extended values: evalBits, with AND, OR and XOR written
// out (their results stay inside the width, so they need no mask).
func scanU64(l *lanes[uint64]) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	switch l.op {
	case isa.ALUBitwiseAnd:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0&v, a1&x1[i], a2&x2[i], a3&x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0&v, a1&x1[i], a2&x2[i], a3&x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUBitwiseOr:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0|v, a1|x1[i], a2|x2[i], a3|x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0|v, a1|x1[i], a2|x2[i], a3|x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUBitwiseXor:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0^v, a1^x1[i], a2^x2[i], a3^x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0^v, a1^x1[i], a2^x2[i], a3^x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	default:
		scanEach(l, func(a, b uint64) uint64 { return evalBits(l.op, a, b, l.width) })
		return
	}
	l.acc = [4]uint64{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 { // from the registers: a load of acc just stored would wait
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

// scanEach is the scan of the ops without a loop of their own: f is the class's evaluator.
func scanEach[T laneValue](l *lanes[T], f func(acc, x T) T) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	if !l.keep {
		for i, v := range x0 {
			a0, a1, a2, a3 = f(a0, v), f(a1, x1[i]), f(a2, x2[i]), f(a3, x3[i])
		}
	} else {
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = f(a0, v), f(a1, x1[i]), f(a2, x2[i]), f(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	}
	l.acc = [4]T{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 {
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

func negateAll[T float32 | int64](xs []T) {
	for i, v := range xs {
		xs[i] = -v
	}
}

// hostLittleEndian: the host stores words as the device does, so a slice of float32 or of
// integers can be read and written as the device's bytes (asBytes, view).
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// asBytes is xs's memory as bytes (the device's encoding on a little-endian host).
func asBytes[E laneValue](xs []E) []byte {
	var e E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)*int(unsafe.Sizeof(e)))
}

// view is b's first n elements as a []E in place, when the host is little-endian and b holds
// them aligned for E; ok is false otherwise.
func view[E any](b []byte, n int) (v []E, ok bool) {
	var e E
	p := unsafe.Pointer(unsafe.SliceData(b))
	if !hostLittleEndian || n == 0 || len(b) < n*int(unsafe.Sizeof(e)) || uintptr(p)%unsafe.Alignof(e) != 0 {
		return nil, false
	}
	return unsafe.Slice((*E)(p), n), true
}

// loadF32s decodes len(xs) elements of k from b as num.LoadF32 does: num.ConvertSlice to FP32
// is LoadF32 element by element, with loops specialised on k.
func loadF32s(xs []float32, b []byte, k num.Kind) {
	if !hostLittleEndian || num.ConvertSlice(asBytes(xs), num.FP32, b, k, len(xs)) != nil {
		sz := k.Size()
		for i := range xs {
			xs[i] = num.LoadF32(k, b[i*sz:])
		}
	}
}

// storeF32s encodes xs as elements of k into b as num.StoreF32 does (num.ConvertSlice from FP32
// is StoreF32 element by element).
func storeF32s(b []byte, xs []float32, k num.Kind) {
	if !hostLittleEndian || num.ConvertSlice(b, k, asBytes(xs), num.FP32, len(xs)) != nil {
		sz := k.Size()
		for i, v := range xs {
			num.StoreF32(k, b[i*sz:], v)
		}
	}
}

// putAsIs stores xs as they are (the integer band and bit vectors have no NaN).
func putAsIs[T laneValue](l *lanes[T], b []byte, xs []T, run int) {
	if !inPlace(b, xs) {
		l.store(b, xs, l.out)
	}
}

// inPlace reports xs written where b is (a scan's running values written to the destination).
func inPlace[T laneValue](b []byte, xs []T) bool {
	return len(xs) > 0 && len(b) > 0 && unsafe.Pointer(unsafe.SliceData(xs)) == unsafe.Pointer(unsafe.SliceData(b))
}

// putF32 stores FP32 ALU results with every NaN the default NaN (Provenance num.alu_nan), or
// only makes their NaNs so when xs is the destination itself (inPlace). xs is whole runs of run
// consecutive running values of one group each (a scan; reduce results are runs of one).
// Checking every value would cost a scan about as much as its FP32 add, so under an op for which
// a NaN accumulator stays a NaN (nanSticky) the NaNs of a run are its suffix: one look at the
// run's last value; when that is a NaN, a short run is patched from its end back, a long one
// searched (firstNaN) and its suffix patched when short, else stored from l's block of default
// NaNs already encoded (the bytes stored stay those of one store). Other ops: value by value.
func putF32(l *lanes[float32], b []byte, xs []float32, run int) {
	direct := inPlace(b, xs) // xs is the destination: nothing to store but the NaNs
	if run <= 1 || !nanSticky(l.op) {
		num.CanonicalNaNs(xs)
		if !direct {
			l.store(b, xs, l.out)
		}
		return
	}
	es, start := l.out.Size(), 0
	nan := math.Float32frombits(num.DefaultNaNF32)
	for end := run; end <= len(xs); end += run {
		if v := xs[end-1]; v == v {
			continue
		}
		r := xs[end-run : end]
		if run <= putPatchMax { // short: patched from the end back
			for i := run - 1; i >= 0 && r[i] != r[i]; i-- {
				r[i] = nan
			}
			continue
		}
		first := 0
		if v := r[0]; v == v { // else the whole run is NaN (a long group's later lane chunks)
			first = firstNaN(r)
		}
		if run-first <= putPatchMax {
			for i := range r[first:] {
				r[first+i] = nan
			}
			continue
		}
		if s := end - run + first; s > start && !direct {
			l.store(b[start*es:], xs[start:s], l.out)
		}
		l.storeNaNs(b[(end-run+first)*es:], run-first)
		start = end
	}
	if start < len(xs) && !direct {
		l.store(b[start*es:], xs[start:], l.out)
	}
}

// firstNaN is the index of the first NaN of r, whose NaNs are a suffix that is not empty: a
// binary search whose steps select rather than branch (the data decides them at random).
func firstNaN(r []float32) int {
	first, n := 0, len(r) // the first NaN is in r[first:first+n]
	for n > 1 {
		half := n >> 1
		nan := int(int32(0x7F800000-math.Float32bits(r[first+half-1])&0x7FFFFFFF) >> 31) // -1 for a NaN, else 0
		first += half &^ nan
		n -= half
	}
	return first
}

// putPatchMax is the longest run putF32 patches from its end back, and the longest NaN suffix
// of a longer run it patches in place rather than storing apart.
const putPatchMax = 64

// nanSticky reports an FP32 op whose result is a NaN whenever its accumulator (src0) is: every
// float-class op but POW (pow(NaN, 0) is 1) and the comparisons and logic ops (0 or 1).
func nanSticky(op isa.ALUOp) bool {
	switch op {
	case isa.ALUBypass, isa.ALUAdd, isa.ALUSubtract, isa.ALUMult, isa.ALUDivide, isa.ALUMax, isa.ALUMin, isa.ALUAbsoluteDiff,
		isa.ALUAbsoluteValue, isa.ALUMod, isa.ALURsqrt, isa.ALUAbsMax, isa.ALUAbsMin, isa.ALUReLU, isa.ALUSquare:
		return true
	}
	return false
}

// storeNaNs writes n default NaNs encoded as l.out at b, from a block encoded once per out kind.
func (l *lanes[T]) storeNaNs(b []byte, n int) {
	es := l.out.Size()
	if l.nans == nil || l.nansOf != l.out {
		if l.nans == nil {
			l.nans = make([]byte, laneChunk*8)
		}
		for i := 0; i < laneChunk; i++ {
			num.StoreF32(l.out, l.nans[i*es:], math.Float32frombits(num.DefaultNaNF32))
		}
		l.nansOf = l.out
	}
	for n > 0 {
		k := min(n, laneChunk)
		copy(b[:k*es], l.nans)
		b, n = b[k*es:], n-k
	}
}

// loadI64s decodes integer elements as valueKind.loadI does: sign-extended where k is signed,
// UINT64 as its bits.
func loadI64s(xs []int64, b []byte, k num.Kind) {
	switch k {
	case num.INT8:
		widen[int8](xs, b)
	case num.UINT8:
		widen[uint8](xs, b)
	case num.INT16:
		widen[int16](xs, b)
	case num.UINT16:
		widen[uint16](xs, b)
	case num.INT32:
		widen[int32](xs, b)
	case num.UINT32:
		widen[uint32](xs, b)
	default: // INT64, UINT64
		widen[uint64](xs, b)
	}
}

// loadU64s decodes integer elements as valueKind.loadB does: raw bits, zero-extended.
func loadU64s(xs []uint64, b []byte, k num.Kind) {
	switch k.Size() {
	case 1:
		widen[uint8](xs, b)
	case 2:
		widen[uint16](xs, b)
	case 4:
		widen[uint32](xs, b)
	default:
		widen[uint64](xs, b)
	}
}

// intElem is the in-memory type of an integer element.
type intElem interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64
}

// widen decodes len(xs) little-endian elements of type S from b, extended to T by S's sign.
func widen[S intElem, T int64 | uint64](xs []T, b []byte) {
	if v, ok := view[S](b, len(xs)); ok {
		for i, x := range v {
			xs[i] = T(x)
		}
		return
	}
	sz := int(unsafe.Sizeof(S(0)))
	var w [8]byte
	for i := range xs {
		copy(w[:], b[i*sz:(i+1)*sz])
		xs[i] = T(S(binary.LittleEndian.Uint64(w[:])))
	}
}

// narrow encodes xs as little-endian elements of type S into b: the low bits of each.
func narrow[S intElem, T int64 | uint64](b []byte, xs []T) {
	if v, ok := view[S](b, len(xs)); ok {
		for i, x := range xs {
			v[i] = S(x)
		}
		return
	}
	sz := int(unsafe.Sizeof(S(0)))
	var w [8]byte
	for i, x := range xs {
		binary.LittleEndian.PutUint64(w[:], uint64(S(x)))
		copy(b[i*sz:(i+1)*sz], w[:sz])
	}
}

// storeI64s encodes integer-band results as storeInt does for a signed input: each int64
// saturated to k's range. k is an integer kind (opFor).
func storeI64s(b []byte, xs []int64, k num.Kind) {
	if k != num.INT64 {
		w := uint(k.SizeBits())
		lo, hi := int64(0), int64(1)<<w-1
		switch {
		case k == num.UINT64:
			hi = math.MaxInt64
		case k.IsSigned():
			lo, hi = -1<<(w-1), 1<<(w-1)-1
		}
		for i, v := range xs {
			xs[i] = max(lo, min(hi, v))
		}
	}
	storeInts(b, xs, k.Size())
}

// storeI64sUnsigned encodes integer-band results as storeInt does for a UINT64 input: each
// int64's bits read as a uint64, saturated to k's largest value.
func storeI64sUnsigned(b []byte, xs []int64, k num.Kind) {
	if k != num.UINT64 {
		hi := uint64(math.MaxInt64)
		if w := uint(k.SizeBits()); w < 64 {
			hi = 1<<w - 1
			if k.IsSigned() {
				hi >>= 1
			}
		}
		for i, v := range xs {
			xs[i] = int64(min(hi, uint64(v)))
		}
	}
	storeInts(b, xs, k.Size())
}

// storeU64s encodes bit vectors as num.StoreBits does: the low bits of each.
func storeU64s(b []byte, xs []uint64, k num.Kind) { storeInts(b, xs, k.Size()) }

func storeInts[T int64 | uint64](b []byte, xs []T, es int) {
	switch es {
	case 1:
		narrow[uint8](b, xs)
	case 2:
		narrow[uint16](b, xs)
	case 4:
		narrow[uint32](b, xs)
	default:
		narrow[uint64](b, xs)
	}
}
