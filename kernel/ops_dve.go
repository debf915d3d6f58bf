package kernel

import (
	"fmt"
	"math"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// Vector Engine calls: each becomes S4D4_TR words (or MEMSET) on the DVE queue (POOL / ACT for
// tensor_copy with engine=gpsimd / scalar), with the NKI view mapped onto the partition axis
// (num_active_channels from the start partition) and up to four free dims, steps in elements.

// freeDims is the side's free walk innermost first, 1-extents dropped, contiguous levels merged.
func freeDims(s *side) []dim {
	var out []dim
	for i := len(s.free) - 1; i >= 0; i-- {
		d := s.free[i]
		if d.n == 1 {
			continue
		}
		if n := len(out); n > 0 && d.step == out[n-1].step*out[n-1].n {
			out[n-1].n *= d.n
			continue
		}
		out = append(out, d)
	}
	return out
}

// splitLong splits free dims of more than 65535 elements (TENSOR4D counts are uint16) into two
// levels, for the elementwise ops, where the walk's shape does not matter, only its order.
func splitLong(ds []dim, es int) []dim {
	var out []dim
	for _, d := range ds {
		if d.n <= math.MaxUint16 {
			out = append(out, d)
			continue
		}
		// the inner level f as small as lets the outer one's count fit, its step f elements
		// apart fitting int16
		f := int64(0)
		for c := (d.n + math.MaxUint16 - 1) / math.MaxUint16; c <= math.MaxUint16; c++ {
			if d.n%c == 0 && abs64(d.step/int64(es))*c <= math.MaxInt16 {
				f = c
				break
			}
		}
		if f == 0 {
			out = append(out, d) // t4d names it
			continue
		}
		out = append(out, dim{n: f, step: d.step}, dim{n: d.n / f, step: d.step * f})
	}
	return out
}

// t4d builds the TENSOR4D of side s with the given free dims (innermost first, bytes).
func (l *lowerer) t4d(c *Call, arg string, s *side, ds []dim) (isa.Tensor4D, error) {
	t := isa.Tensor4D{StartAddr: isa.Addr4(l.chipAddr(s, s.part0, s.off0)), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{1, 1, 1, 1}}
	if len(ds) > 4 {
		return t, callErr(c, fault.ErrInvalid, arg, "nki.access_pattern_dims", "at most 4 free dims after merging contiguous ones",
			"the view %v of %q walks %d free dims", s.shape, s.t.Name, len(ds))
	}
	es := int64(s.es)
	for i, d := range ds {
		if d.step%es != 0 || d.step/es > math.MaxInt16 || d.step/es < math.MinInt16 {
			return t, callErr(c, fault.ErrInvalid, arg, "nki.access_pattern_stride", "strides of int16 elements",
				"a stride of %d elements in the view %v of %q", d.step/es, s.shape, s.t.Name)
		}
		if d.n > math.MaxUint16 {
			return t, callErr(c, fault.ErrInvalid, arg, "nki.access_pattern_size", "sizes of at most 65535 (uint16)",
				"a free dim of %d elements in the view %v of %q (tile the free axis, e.g. with nl.affine_range over nl.ds slices)", d.n, s.shape, s.t.Name)
		}
		t.StepElem[i], t.NumElem[i] = int16(d.step/es), uint16(d.n)
	}
	return t, nil
}

// vectorSide resolves a DVE operand: on chip, partitions consecutive, the start-partition rule.
func (l *lowerer) vectorSide(c *Call, arg string, v *View, write bool) (*side, error) {
	s, err := l.resolve(c, arg, v)
	if err != nil {
		return nil, err
	}
	if v.Indirect != nil {
		return nil, callErr(c, fault.ErrInvalid, arg, "nki.compute_indirect", "a direct SBUF/PSUM view", "an indirect view (only DMA calls gather or scatter)")
	}
	if !s.onchip {
		return nil, callErr(c, fault.ErrInvalid, arg, "nki.compute_on_chip", "a tile in SBUF or PSUM", "%q is in %s: compute engines read and write on-chip memory", s.t.Name, s.t.Buffer)
	}
	if s.nparts > 1 && s.pstep != 1 {
		return nil, callErr(c, fault.ErrInvalid, arg, "nki.partition_stride", "consecutive partitions (no striding along the partition axis)",
			"the view %v of %q steps %d partitions", s.shape, s.t.Name, s.pstep)
	}
	if err := checkStartPartition(c, arg, s.part0, s.nparts); err != nil {
		return nil, err
	}
	if write && s.pl.Space == isa.SpacePSUM && s.es != 4 {
		return nil, callErr(c, fault.ErrInvalid, arg, isa.RuleTensor4DValid, "a 4-byte dtype (float32, int32, uint32) for a PSUM destination",
			"the Vector Engine writes PSUM in whole 4-byte words; %q is %s", s.t.Name, s.t.DType)
	}
	return s, nil
}

// checkStartPartition is the start-partition rule of every engine (NKI.md §4).
func checkStartPartition(c *Call, arg string, start, P int) error {
	for _, s := range startPartitions(P) {
		if s == start {
			return nil
		}
	}
	return callErr(c, fault.ErrInvalid, arg, "nki.start_partition", fmt.Sprintf("a start partition in %v for %d partitions", startPartitions(P), P),
		"the access starts at partition %d", start)
}

func s4(op isa.Opcode, in, out isa.DType, nac int, src, dst isa.Tensor4D) *isa.S4D4TR {
	return &isa.S4D4TR{Header: isa.Header{Opcode: op, InstWordLen: isa.InstWordLen}, InDtype: in, OutDtype: out,
		NumActiveChannels: uint8(nac), SrcMemPattern: src, DstMemPattern: dst}
}

// computeEngine maps an NKI engine argument of a compute call onto a queue: one that executes
// every opcode the call may lower to (isa's opcode table, Opcode.Engines). A queue the ISA
// gives none of them is refused, never swapped for another (the call's parallelism, races and
// timing depend on its queue).
func computeEngine(c *Call, ops ...isa.Opcode) (isa.Engine, error) {
	allowed := ^isa.EngineSet(0)
	for _, op := range ops {
		allowed &= op.Engines()
	}
	e := isa.EngineDVE
	if c.Engine != nil {
		switch *c.Engine {
		case "vector", "unknown", "":
			e = isa.EngineDVE
		case "gpsimd", "pool":
			e = isa.EnginePOOL
		case "scalar", "act", "activation":
			e = isa.EngineACT
		case "tensor":
			return 0, callErr(c, fault.ErrUnsupported, "engine", "kernel.engine_modelled", "vector (the Vector Engine)", "the Tensor Engine (PE) is not modelled by tpbsim")
		default:
			return 0, callErr(c, fault.ErrInvalid, "engine", "nki.engine", "vector, gpsimd, scalar", "engine %q", *c.Engine)
		}
	}
	if allowed.Has(e) {
		return e, nil
	}
	return 0, callErr(c, fault.ErrUnsupported, "engine", "kernel.engine_modelled", fmt.Sprint("an engine of ", allowed),
		"%s does not run %s: the ISA gives %v to %v only", e, c.name(), ops, allowed)
}

// elementwise checks the common shape rule of copy-like calls: same partitions, same elements
// per partition.
func elementwise(c *Call, dst, src *side, srcArg string) error {
	if dst.nparts != src.nparts {
		return callErr(c, fault.ErrInvalid, "dst", "nki.same_partitions", fmt.Sprintf("%d partitions, as %s %v", src.nparts, srcArg, src.about()),
			"%s has %d partitions", dst.about(), dst.nparts)
	}
	if dst.freeElems() != src.freeElems() {
		return callErr(c, fault.ErrInvalid, "dst", "nki.same_free_elements", fmt.Sprintf("%d elements per partition, as %s %v", src.freeElems(), srcArg, src.about()),
			"%s has %d elements per partition", dst.about(), dst.freeElems())
	}
	return nil
}

func (l *lowerer) vectorAcc(in *isa.S4D4TR, srcES, dstES, nac int) []access {
	return []access{{b: l.t4dBox(in.SrcMemPattern, srcES, nac)}, {b: l.t4dBox(in.DstMemPattern, dstES, nac), write: true}}
}

func (l *lowerer) tensorCopy(c *Call) error {
	eng, err := computeEngine(c, isa.OpCOPY, isa.OpCAST)
	if err != nil {
		return err
	}
	dst, src, err := l.vectorOperands(c, "src", c.Src)
	if err != nil {
		return err
	}
	if err := elementwise(c, dst, src, "src"); err != nil {
		return err
	}
	if eng == isa.EnginePOOL && (dst.pl.Space == isa.SpacePSUM || src.pl.Space == isa.SpacePSUM) {
		return callErr(c, fault.ErrInvalid, "engine", "gpsimd_cannot_access_psum", "SBUF operands on GpSimd", "GpSimd cannot access PSUM")
	}
	op := isa.OpCOPY
	if dst.dtype != src.dtype {
		op = isa.OpCAST
	}
	return l.vectorOp(c, eng, op, dst, src)
}

// vectorOperands applies the release's rules to call c and resolves its destination and its
// source operand (named srcArg: "src" or "data") as Vector Engine operands.
func (l *lowerer) vectorOperands(c *Call, srcArg string, sv *View) (dst, src *side, err error) {
	if err := l.rules.check(l, c); err != nil {
		return nil, nil, err
	}
	if dst, err = l.vectorSide(c, "dst", c.Dst, true); err != nil {
		return nil, nil, err
	}
	if src, err = l.vectorSide(c, srcArg, sv, false); err != nil {
		return nil, nil, err
	}
	return dst, src, nil
}

// vectorOp emits one elementwise S4D4_TR word src -> dst.
func (l *lowerer) vectorOp(c *Call, eng isa.Engine, op isa.Opcode, dst, src *side) error {
	st, err := l.t4d(c, "src", src, splitLong(freeDims(src), src.es))
	if err != nil {
		return err
	}
	dt, err := l.t4d(c, "dst", dst, splitLong(freeDims(dst), dst.es))
	if err != nil {
		return err
	}
	in := s4(op, src.dtype, dst.dtype, dst.nparts, st, dt)
	l.emit(eng, in, l.vectorAcc(in, src.es, dst.es, dst.nparts), "")
	return nil
}

func (l *lowerer) reciprocal(c *Call) error {
	dst, src, err := l.vectorOperands(c, "data", c.Data)
	if err != nil {
		return err
	}
	if err := elementwise(c, dst, src, "data"); err != nil {
		return err
	}
	return l.vectorOp(c, isa.EngineDVE, isa.OpRECIPROCAL, dst, src)
}

// memsetBits is value as the raw bits of dtype d (floats rounded to nearest even through the
// machine's conversion; integers must be exact and in range).
func memsetBits(c *Call, d isa.DType, v float64) (uint32, error) {
	k := num.Kind(d)
	var b [8]byte
	if k.IsFloat() {
		num.StoreF64(k, b[:], v)
		return uint32(num.LoadBits(k, b[:])), nil
	}
	if v != math.Trunc(v) || math.IsNaN(v) {
		return 0, callErr(c, fault.ErrInvalid, "value", "nki.memset.value", "an integer for an integer dtype", "%v", v)
	}
	bitsN := d.Bits()
	lo, hi := 0.0, math.Ldexp(1, bitsN)-1
	if k.IsSigned() {
		lo, hi = -math.Ldexp(1, bitsN-1), math.Ldexp(1, bitsN-1)-1
	}
	if v < lo || v > hi {
		return 0, callErr(c, fault.ErrInvalid, "value", "nki.memset.value", fmt.Sprintf("%v..%v for %v", lo, hi, d), "%v", v)
	}
	return uint32(int64(v)) & uint32(math.Ldexp(1, bitsN)-1), nil
}

func (l *lowerer) memset(c *Call) error {
	if err := l.rules.check(l, c); err != nil {
		return err
	}
	if _, err := computeEngine(c, isa.OpMEMSET); err != nil {
		return err
	}
	dst, err := l.vectorSide(c, "dst", c.Dst, true)
	if err != nil {
		return err
	}
	bitsV, err := memsetBits(c, dst.dtype, float64(*c.Value))
	if err != nil {
		return err
	}
	return l.emitMemset(c, dst, splitLong(freeDims(dst), dst.es), bitsV)
}

func (l *lowerer) emitMemset(c *Call, dst *side, ds []dim, value uint32) error {
	dt, err := l.t4d(c, "dst", dst, ds)
	if err != nil {
		return err
	}
	in := &isa.Memset{Header: isa.Header{Opcode: isa.OpMEMSET, InstWordLen: isa.InstWordLen}, Dtype: dst.dtype, NumActiveChannels: uint8(dst.nparts),
		SerializationMode: isa.MemsetSerial, SetValue: value, DstElementCount: uint32(dt.ElementCount()), DstMemPattern: dt}
	l.emit(isa.EngineDVE, in, []access{{b: l.t4dBox(dt, dst.es, dst.nparts), write: true}}, "")
	return nil
}

// reduceOps maps NKI reduce op names onto the DVE's ALU ops: arithmetic and logical ones (the
// logical ops are arith ops of the ALU, FACTS §A.2: 0 or 1) fold in FP32
// (TENSOR_REDUCE_ARITH_OP), bitwise ones on integers (TENSOR_REDUCE_BITVEC_OP).
var reduceOps = map[string]struct {
	op     isa.ALUOp
	bitvec bool
}{
	"add": {isa.ALUAdd, false}, "subtract": {isa.ALUSubtract, false}, "multiply": {isa.ALUMult, false},
	"maximum": {isa.ALUMax, false}, "minimum": {isa.ALUMin, false}, "max": {isa.ALUMax, false}, "min": {isa.ALUMin, false},
	"bitwise_and": {isa.ALUBitwiseAnd, true}, "bitwise_or": {isa.ALUBitwiseOr, true}, "bitwise_xor": {isa.ALUBitwiseXor, true},
	"logical_and": {isa.ALULogicalAnd, false}, "logical_or": {isa.ALULogicalOr, false}, "logical_xor": {isa.ALULogicalXor, false},
}

const reduceOpsLegal = "add, subtract, multiply, maximum, minimum, bitwise_and, bitwise_or, bitwise_xor, logical_and, logical_or, logical_xor"

func (l *lowerer) tensorReduce(c *Call) error {
	ro, ok := reduceOps[c.ReduceOp]
	if !ok {
		return callErr(c, fault.ErrInvalid, "op", "nki.tensor_reduce.op", reduceOpsLegal, "%q", c.ReduceOp)
	}
	dst, src, err := l.vectorOperands(c, "data", c.Data)
	if err != nil {
		return err
	}
	if dst.nparts != src.nparts {
		return callErr(c, fault.ErrInvalid, "dst", "nki.same_partitions", fmt.Sprintf("%d partitions, as data", src.nparts), "dst %v has %d", dst.shape, dst.nparts)
	}
	if ro.bitvec {
		if num.Kind(src.dtype).IsFloat() || num.Kind(dst.dtype).IsFloat() {
			return callErr(c, fault.ErrInvalid, "data", "bitvec_integer_dtype", "integer dtypes for a bitwise reduce", "%s is %s (dst %s %s)", src.about(), src.dtypeName(), dst.about(), dst.dtypeName())
		}
		if src.dtype != dst.dtype {
			return callErr(c, fault.ErrInvalid, "dst", isa.RuleS4D4TRSameSrcDstType, fmt.Sprintf("%s, as data %s (a bitvec reduce does not cast)", src.dtypeName(), src.about()), "%s is %s", dst.about(), dst.dtypeName())
		}
		if c.Negate {
			return callErr(c, fault.ErrInvalid, "negate", "nki.tensor_reduce.negate", "negate only with an arithmetic op", "negate with %s", c.ReduceOp)
		}
	}
	// The data view's axes: 0 is the partition axis, the rest free. Reduced free axes go
	// innermost in the walk (op_dim X/XY/XYZ/XYZW reduces the innermost dims), kept ones outside.
	rank := len(c.Data.Pattern)
	for a, p := range c.Data.Pattern {
		// resolve took the axis that steps whole partition rows as the partition axis, wherever
		// it stands; the axis numbers of the call need it first (the first pair of an access
		// pattern is the partition axis), else a free axis would be dropped or partitions
		// walked as a free axis (a word the check refuses, or a wrong sum)
		walks := p[0] != 0 && p[0]%src.pl.FreeElems == 0
		if p[1] > 1 && walks != (a == 0) {
			what := "stays in a partition"
			if walks {
				what = "walks partitions"
			}
			return callErr(c, fault.ErrInvalid, "data", "nki.tensor_reduce.partition_axis", "a data view whose axis 0, and no other, walks partitions",
				"axis %d of the data view %v (step %d, %d positions) %s", a, src.shape, p[0], p[1], what)
		}
	}
	red := map[int]bool{}
	for _, a := range c.Axis {
		if a < 0 {
			a += rank
		}
		if a <= 0 || a >= rank {
			return callErr(c, fault.ErrInvalid, "axis", "nki.tensor_reduce.axis", fmt.Sprintf("free axes 1..%d of the %d-D data", rank-1, rank), "axis %d", a)
		}
		red[a] = true
	}
	if len(red) == 0 {
		return callErr(c, fault.ErrInvalid, "axis", "nki.tensor_reduce.axis", "at least one free axis", "no axis")
	}
	merge := func(axes []int) []dim {
		var out []dim
		for i := len(axes) - 1; i >= 0; i-- {
			p := c.Data.Pattern[axes[i]]
			if p[1] == 1 {
				continue
			}
			d := dim{n: p[1], step: p[0] * int64(src.es)}
			if n := len(out); n > 0 && d.step == out[n-1].step*out[n-1].n {
				out[n-1].n *= d.n
				continue
			}
			out = append(out, d)
		}
		return out
	}
	var rAxes, kAxes []int
	for a := 1; a < rank; a++ {
		if red[a] {
			rAxes = append(rAxes, a)
		} else {
			kAxes = append(kAxes, a)
		}
	}
	rd, kd := merge(rAxes), merge(kAxes)
	if len(rd) == 0 {
		rd = []dim{{n: 1, step: int64(src.es)}}
	}
	all := append(append([]dim{}, rd...), kd...)
	st, err := l.t4d(c, "data", src, all)
	if err != nil {
		return err
	}
	dt, err := l.t4d(c, "dst", dst, freeDims(dst))
	if err != nil {
		return err
	}
	kept := int64(1)
	for _, d := range kd {
		kept *= d.n
	}
	if int64(dt.ElementCount()) != kept {
		return callErr(c, fault.ErrInvalid, "dst", isa.RuleTensorReduceDstCount, fmt.Sprintf("%d elements per partition (the kept axes of data %v)", kept, src.about()),
			"%s has %d elements per partition", dst.about(), dt.ElementCount())
	}
	op := isa.OpTENSOR_REDUCE_ARITH_OP
	if ro.bitvec {
		op = isa.OpTENSOR_REDUCE_BITVEC_OP
	}
	in := s4(op, src.dtype, dst.dtype, src.nparts, st, dt)
	in.Op = ro.op
	in.OpDim = [...]isa.TensorSubdim{isa.SubdimX, isa.SubdimXY, isa.SubdimXYZ, isa.SubdimXYZW}[len(rd)-1]
	if c.Negate {
		in.Negated = 1
	}
	l.emit(isa.EngineDVE, in, l.vectorAcc(in, src.es, dst.es, src.nparts), "")
	return nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
