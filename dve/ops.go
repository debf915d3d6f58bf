package dve

import (
	"math"

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
			return op, vk, fail(o.op, ErrInvalid, RuleBitvecIntegerDtype, "in_dtype",
				"bitvec ops need integer dtypes: in %v, out %v", in.InDtype, in.OutDtype)
		}
	}
	if vk.class == classNone {
		return op, vk, fail(o.op, ErrUnsupported, RuleALUOpModelled, "op", "%v is not executed by the DVE model for %v", op, o.op)
	}
	if vk.class == classInt && (!in.InDtype.IsInteger() || !in.OutDtype.IsInteger()) {
		return op, vk, fail(o.op, ErrInvalid, RuleIntALUOpIntegerDtype, "op", "%v needs integer dtypes: in %v, out %v", op, in.InDtype, in.OutDtype)
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
		return 0, fail(o.op, ErrInvalid, RuleIsValidSubdim, "op_dim", "%v; legal X, XY, XYZ, XYZW", in.OpDim)
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
		return fail(o.op, ErrInvalid, RuleTensorReduceDstCount, "dst_mem_pattern.num_elem",
			"reducing %d elements in groups of %d (op_dim %v) gives %d results per channel; dst walks %d",
			E, G, in.OpDim, R, o.dst.Elements())
	}
	sbuf := pre
	if sbuf == nil {
		if sbuf, err = d.gatherAll(m, o); err != nil {
			return err
		}
	}
	negate := arith && in.Negated != 0
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
				num.StoreF32(vk.out, dstb, acc)
			case classInt:
				acc := vk.loadI(row, lo)
				for i := 1; i < G; i++ {
					acc = evalInt(op, acc, vk.loadI(row, lo+i))
				}
				if negate {
					acc = -acc
				}
				storeInt(vk.out, dstb, acc)
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

func storeInt(k num.Kind, b []byte, v int64) {
	if k == num.UINT64 {
		num.StoreBits(k, b, uint64(v))
		return
	}
	num.StoreInt(k, b, v)
}

func (d *DVE) transposeReduce(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if o.nac%32 != 0 {
		return fail(o.op, ErrInvalid, RuleHasMultiple32Channels, "num_active_channels", "%d; legal 32, 64, 96, 128", o.nac)
	}
	E := o.src.Elements()
	if E%32 != 0 {
		return fail(o.op, ErrInvalid, RuleTransposeSrcElementCount, "src_mem_pattern.num_elem",
			"src walks %d elements, not a multiple of 32", E)
	}
	es := o.esIn
	if es != 1 && es != 2 && es != 4 {
		return fail(o.op, ErrUnsupported, RuleTransposeCellWidth, "in_dtype", "transpose cells of %d bytes are not modelled", es)
	}
	// Check the reduce's operands before transposing (cheap), then transpose into a buffer.
	if _, _, err := opFor(o, in, isArithOpcode(o.op)); err != nil {
		return err
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	tbuf := make([]byte, len(sbuf))
	if d.Transpose == TransposeButterfly {
		butterflyTranspose(tbuf, sbuf, o.nac, E, es)
	} else {
		row := E * es
		groups := o.nac / 32
		src := make([][32][]byte, groups)
		dst := make([][32][]byte, groups)
		for c := 0; c < o.nac; c++ {
			src[c/32][c%32] = sbuf[c*row : (c+1)*row]
			dst[c/32][c%32] = tbuf[c*row : (c+1)*row]
		}
		transposeParallel(d.procs(len(sbuf)), dst, src, es, E/32, E)
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
					num.StoreF32(vk.out, orow[(lo+i)*o.esOut:], acc)
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
					storeInt(vk.out, orow[(lo+i)*o.esOut:], acc)
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
		return fail(o.op, ErrInvalid, RuleSameSrcDstType, "out_dtype", "COPY needs out_dtype == in_dtype: in %v, out %v", in.InDtype, in.OutDtype)
	}
	// Contiguous rows that do not overlap (and no never-written tracking, which the gather
	// does): one copy per channel, row to row, as the transposes read and write in place.
	if !m.Options().TrackUninit && o.src.Contiguous() && o.dst.Contiguous() && !o.src.Span().Overlaps(o.dst.Span()) {
		n, so, do := o.src.Bytes(), o.src.Offset(), o.dst.Offset()
		for c := 0; c < o.nac; c++ {
			copy(m.Partition(o.dst.Start.Region, o.dst.Partition(c))[do:do+n], m.Partition(o.src.Start.Region, o.src.Partition(c))[so:so+n])
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
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	n := o.nac * o.src.Elements()
	obuf := make([]byte, n*o.esOut)
	if err := num.ConvertSlice(obuf, num.Kind(in.OutDtype), sbuf, num.Kind(in.InDtype), n); err != nil {
		return fail(o.op, ErrInvalid, RuleIsValidDtype, "in_dtype", "%v", err)
	}
	scatterAll(m, o, obuf)
	return nil
}

func (d *DVE) reciprocal(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	n := o.nac * o.src.Elements()
	ik, ok := num.Kind(in.InDtype), num.Kind(in.OutDtype)
	obuf := make([]byte, n*o.esOut)
	for i := 0; i < n; i++ {
		x := num.LoadF32(ik, sbuf[i*o.esIn:])
		num.StoreF32(ok, obuf[i*o.esOut:], 1/x)
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
		return 0, fail(o.op, ErrInvalid, RuleHasMultiple32Channels, "num_active_channels", "%d; legal 32, 64, 96, 128", o.nac)
	}
	if err := requireSameCount(o); err != nil {
		return 0, err
	}
	if in.InDtype != in.OutDtype {
		return 0, fail(o.op, ErrInvalid, RuleSameSrcDstType, "out_dtype", "STREAM_SHUFFLE needs out_dtype == in_dtype")
	}
	if !d.maskSet {
		return 0, fail(o.op, ErrNoMask, RuleStreamShuffleMaskLoaded, "", "no LOAD_MASK_SELECT has run on this DVE")
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return 0, err
	}
	n := o.src.Bytes()
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
