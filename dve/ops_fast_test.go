package dve

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"runtime/debug"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// The fast paths of the reduce, scan, cast, reciprocal and shuffle ops against the
// element-by-element reference they replace (DVE.reference): the same instruction on the same
// memory must leave the same bytes, the same Effect and the same error, for every (opcode, ALU
// op, in dtype, out dtype) the executor takes and for the shapes and placements that select the
// fast paths' branches.

// fastOpcodes are the opcodes with a fast path (COPY's: row to row, see copyOp).
var fastOpcodes = []isa.Opcode{
	isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16,
	isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP,
	isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_BITVEC_OP,
	isa.OpCAST, isa.OpRECIPROCAL, isa.OpSTREAM_SHUFFLE, isa.OpCOPY,
}

// diffShape is a source walk of R groups of G elements per channel (for the opcodes without
// op_dim, E = G x R elements).
type diffShape struct{ G, R int }

var (
	// diffShapes cover single elements, groups of 1-3 (four lanes of few elements, padded
	// lanes), blocks of whole groups longer than one block, groups of 32, groups of exactly one
	// lane chunk, and groups of one or more chunks plus a remainder (the lanes across rows).
	diffShapes = []diffShape{{1, 1}, {1, 7}, {1, 2500}, {2, 3}, {2, 1100}, {3, 5}, {3, 700}, {32, 1}, {32, 9}, {32, 70},
		{laneChunk, 5}, {laneChunk + 3, 2}, {2*laneChunk + 1, 3}}
	// transposeShapes: E = G x R a multiple of 32.
	transposeShapes = []diffShape{{1, 32}, {2, 16}, {3, 32}, {32, 1}, {32, 3}, {96, 2}, {laneChunk + 32, 1}}
)

func isTransposeReduce(op isa.Opcode) bool {
	return op == isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP || op == isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP
}

func isReduce(op isa.Opcode) bool {
	switch op {
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16:
		return true
	}
	return isTransposeReduce(op)
}

func hasALUOp(op isa.Opcode) bool {
	return isReduce(op) || op == isa.OpTENSOR_CUMULATIVE_ARITH_OP || op == isa.OpTENSOR_CUMULATIVE_BITVEC_OP
}

// diffALUOps lists the ALU ops to run an opcode with: every op of the class its opcode computes
// and one the model refuses; Bypass alone for the opcodes without an op (or whose op is fixed).
func diffALUOps(op isa.Opcode) []isa.ALUOp {
	if !hasALUOp(op) || op == isa.OpTENSOR_REDUCE_ADD_BF16 || op == isa.OpTENSOR_REDUCE_MAX_BF16 { // these two ignore op
		return []isa.ALUOp{isa.ALUBypass}
	}
	ops := []isa.ALUOp{isa.ALUCrc32}
	for a := 0; a < 256; a++ {
		if arithClass(isa.ALUOp(a)) != classNone && isArithOpcode(op) || bitvecClass(isa.ALUOp(a)) != classNone && !isArithOpcode(op) {
			ops = append(ops, isa.ALUOp(a))
		}
	}
	return ops
}

// executable reports a dtype the executor takes on g (execS4D4TR's is_valid_dtype check).
func executable(d isa.DType, g isa.Generation) bool {
	return d.Size() > 0 && d.InGen(g) && d.Bits()%8 == 0 && !d.IsCPTC()
}

// diffGen is the generation to run (op, in, out) on: the first of CAYMAN, MAVERICK, MARIANA,
// SUNDA that has the opcode and takes both dtypes.
func diffGen(op isa.Opcode, in, out isa.DType) (isa.Generation, bool) {
	for _, g := range []isa.Generation{isa.CAYMAN, isa.MAVERICK, isa.MARIANA, isa.SUNDA} {
		if op.InGen(g) && executable(in, g) && executable(out, g) {
			return g, true
		}
	}
	return 0, false
}

// diffHarness holds a pair of memories (fast, reference) per generation and tracking mode, and
// the two DVEs, kept across cases so that the fast path's buffers are reused at every size.
type diffHarness struct {
	t        *testing.T
	rng      *rand.Rand
	mems     map[[2]int][2]*mem.Memory
	pools    map[isa.DType][]byte // fillElements output per dtype, copied from at random
	fast     DVE
	ref      DVE
	cases    int
	perClass map[string]int
}

func newDiffHarness(t *testing.T, seed int64) *diffHarness {
	h := &diffHarness{t: t, rng: rand.New(rand.NewSource(seed)), mems: map[[2]int][2]*mem.Memory{},
		pools: map[isa.DType][]byte{}, perClass: map[string]int{}}
	h.ref.reference = true
	return h
}

func (h *diffHarness) memories(g isa.Generation, track bool) [2]*mem.Memory {
	key := [2]int{int(g), 0}
	if track {
		key[1] = 1
	}
	if ms, ok := h.mems[key]; ok {
		return ms
	}
	ms := [2]*mem.Memory{newMem(h.t, g, mem.Options{TrackUninit: track}), newMem(h.t, g, mem.Options{TrackUninit: track})}
	h.mems[key] = ms
	return ms
}

// specialF32 are FP32 values each float dtype is given (stored through num.StoreF32, so each
// format gets its own infinities, NaNs, zeros, denormals and extremes).
var specialF32 = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fbfffff,
	0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x33800000, 0x38800000, 0x477fe000}

// fillElements writes n elements of dt from b: a mix of random bits, the kind's specials (for
// floats, specialF32 converted; for integers 0, -1, 1 and the extremes) and small values, which
// keep folds finite and exact for a while.
func fillElements(rng *rand.Rand, b []byte, dt isa.DType) {
	k, es := num.Kind(dt), dt.Size()
	for i := 0; i+es <= len(b); i += es {
		e := b[i : i+es]
		switch r := rng.Intn(8); {
		case r < 2:
			rng.Read(e)
		case r < 4 && dt.IsFloat():
			num.StoreF32(k, e, math.Float32frombits(specialF32[rng.Intn(len(specialF32))]))
		case r < 4:
			w := uint(dt.Bits())
			top := uint64(1) << (w - 1)
			vals := []uint64{0, 1, ^uint64(0), top, top - 1, top + 1, 2}
			num.StoreBits(k, e, vals[rng.Intn(len(vals))])
		case dt.IsFloat():
			num.StoreF32(k, e, float32(rng.Float64()*8-4))
		default:
			num.StoreInt(k, e, int64(rng.Intn(201)-100))
		}
	}
}

// diffCase builds one instruction of op on g: shape s, nac channels, and a random layout (source
// contiguous, strided or reversed; destination contiguous, strided, over the source, or in
// PSUM).
func (h *diffHarness) diffCase(op isa.Opcode, alu isa.ALUOp, in, out isa.DType, g isa.Generation, s diffShape, nac int) *isa.S4D4TR {
	rng := h.rng
	esIn, esOut := in.Size(), out.Size()
	E := s.G * s.R
	// Source: op_dim X over [G, R], or XY over [a, G/a, R].
	opDim := isa.SubdimX
	sn, ss := [4]int{s.G, s.R, 1, 1}, [4]int{1, s.G, 1, 1}
	for _, a := range []int{2, 3} {
		if s.G%a == 0 && s.G > a && rng.Intn(2) == 0 {
			opDim = isa.SubdimXY
			sn, ss = [4]int{a, s.G / a, s.R, 1}, [4]int{1, a, s.G, 1}
			break
		}
	}
	switch rng.Intn(4) {
	case 0: // strided: every other element
		for d := range ss {
			ss[d] *= 2
		}
	case 1: // reversed
		for d := range ss {
			ss[d] = -ss[d]
		}
	}
	D := E
	if isReduce(op) {
		D = s.R
	}
	dn, ds := [4]int{D, 1, 1, 1}, [4]int{1, 1, 1, 1}
	if D > 65535 || D == E && rng.Intn(3) == 0 {
		dn = [4]int{s.G, s.R, 1, 1}
		ds = [4]int{1, s.G, 1, 1}
	}
	if rng.Intn(4) == 0 {
		for d := range ds {
			ds[d] *= 3
		}
	}
	active := int(g.Geometry().StateBufPartitionActive)
	srcLo, srcHi := extent(sn, ss)
	dstLo, dstHi := extent(dn, ds)
	p0 := rng.Intn(129 - nac)
	soff := (8 + rng.Intn(64)) * 8
	if rng.Intn(8) == 0 {
		soff += 1 + rng.Intn(7) // a start not aligned for the dtype
	}
	src := isa.Tensor4D{StartAddr: sbufAddr(g, p0, soff-srcLo*esIn)}
	doff := soff + (srcHi-srcLo+1)*esIn + 8*rng.Intn(16)
	doff = (doff + 7) / 8 * 8
	p1 := rng.Intn(129 - nac)
	switch r := rng.Intn(8); {
	case r == 0 && esIn == esOut && D == E: // over the source
		doff, p1 = soff+esIn*rng.Intn(3), p0
	case r == 1 && esOut == 4 && g == isa.CAYMAN && (dstHi-dstLo+1)*4+64 < int(g.Geometry().PSUMPartitionActive):
		doff = -1
	}
	var dst isa.Tensor4D
	if doff < 0 {
		dst.StartAddr = psumAddr(p1, 32-dstLo*4)
	} else {
		dst.StartAddr = sbufAddr(g, p1, doff-dstLo*esOut)
	}
	if doff+(dstHi-dstLo+1)*esOut > active {
		h.t.Fatalf("shape %v does not fit: dst ends at %d", s, doff+(dstHi-dstLo+1)*esOut)
	}
	for d := 0; d < 4; d++ {
		src.StepElem[d], src.NumElem[d] = int16(ss[d]), uint16(sn[d])
		dst.StepElem[d], dst.NumElem[d] = int16(ds[d]), uint16(dn[d])
	}
	inst := s4(op, src, dst, in, out, nac)
	inst.Op = alu
	if hasALUOp(op) {
		inst.OpDim = opDim
		inst.Negated = uint8(rng.Intn(2))
	}
	return inst
}

// run executes inst on both memories of g (filled alike) and fails on any difference.
func (h *diffHarness) run(inst *isa.S4D4TR, g isa.Generation) {
	h.t.Helper()
	rng := h.rng
	track := rng.Intn(4) == 0
	ms := h.memories(g, track)
	spans := instSpans(ms[0], inst)
	pool, ok := h.pools[inst.InDtype]
	if !ok {
		pool = make([]byte, 256<<10)
		fillElements(rng, pool, inst.InDtype)
		h.pools[inst.InDtype] = pool
	}
	es := inst.InDtype.Size()
	for _, m := range ms {
		m.Reset() // so that what each execution marks written can be compared
	}
	for i, s := range spans {
		w := int(s.Hi - s.Lo)
		for p := s.FirstPartition; p < s.FirstPartition+s.NumPartitions; p++ {
			row := noise[rng.Intn(len(noise)-w):][:w]
			if i == 0 { // the source: elements of its dtype, at element boundaries
				row = pool[rng.Intn((len(pool)-w)/es)*es:][:w]
			}
			// The destination's old bytes are left unmarked (never written, not to be
			// cleared by Reset), and now and then the source's too (an uninitialised read).
			mark := i == 0 && !(track && rng.Intn(40) == 0)
			for _, m := range ms {
				copy(m.Partition(s.Region, p)[s.Lo:s.Hi], row)
				if mark {
					m.MarkInit(s.Region, p, int(s.Lo), w)
				}
			}
		}
	}
	if inst.Header.Opcode == isa.OpSTREAM_SHUFFLE {
		lm := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: isa.InstWordLen}}
		for i := range lm.Immediate {
			lm.Immediate[i] = uint8(rng.Intn(64))
			if rng.Intn(5) == 0 {
				lm.Immediate[i] = 0xFF
			}
		}
		for _, d := range []*DVE{&h.fast, &h.ref} {
			if _, err := d.Execute(ms[0], lm, g); err != nil {
				h.t.Fatal(err)
			}
		}
	}
	effF, errF := h.fast.Execute(ms[0], inst, g)
	effR, errR := h.ref.Execute(ms[1], inst, g)
	desc := func() string {
		return fmt.Sprintf("%v %v %v->%v nac %d op_dim %v neg %d src %+v dst %+v on %v (tracking %v)",
			inst.Header.Opcode, inst.Op, inst.InDtype, inst.OutDtype, inst.NumActiveChannels, inst.OpDim, inst.Negated,
			inst.SrcMemPattern, inst.DstMemPattern, g, track)
	}
	if (errF == nil) != (errR == nil) || errF != nil && errF.Error() != errR.Error() {
		h.t.Fatalf("%s:\nfast error:      %v\nreference error: %v", desc(), errF, errR)
	}
	if !reflect.DeepEqual(effF, effR) {
		h.t.Fatalf("%s:\nfast effect:      %+v\nreference effect: %+v", desc(), effF, effR)
	}
	if msg := diffSpans(spans, ms[0], ms[1]); msg != "" { // NaNs included: num.alu_nan makes them one pattern
		h.t.Fatalf("%s: %s", desc(), msg)
	}
	// The same bytes marked written (initialised, and recorded for Reset).
	for _, s := range spans {
		for p := s.FirstPartition; p < s.FirstPartition+s.NumPartitions; p++ {
			e0, e1 := ms[0].CheckInit(s.Region, p, int(s.Lo), int(s.Hi-s.Lo)), ms[1].CheckInit(s.Region, p, int(s.Lo), int(s.Hi-s.Lo))
			if fmt.Sprint(e0) != fmt.Sprint(e1) {
				h.t.Fatalf("%s: never-written bytes differ: fast %v, reference %v", desc(), e0, e1)
			}
		}
	}
	if w0, w1 := writtenRuns(ms[0]), writtenRuns(ms[1]); !reflect.DeepEqual(w0, w1) {
		h.t.Fatalf("%s: bytes recorded written differ:\nfast      %v\nreference %v", desc(), w0, w1)
	}
	h.cases++
	if errF == nil {
		h.perClass[inst.Header.Opcode.String()]++
	}
}

// writtenRun is a run of bytes a memory records as written.
type writtenRun struct {
	r         mem.Region
	p, off, n int
}

// writtenRuns lists the runs of bytes m records as written since its last Reset.
func writtenRuns(m *mem.Memory) []writtenRun {
	var w []writtenRun
	m.Written(func(r mem.Region, p, off int, b []byte) { w = append(w, writtenRun{r, p, off, len(b)}) })
	return w
}

// pickNac is a channel count for op: multiples of 32 for the opcodes that need them, else
// anything (non-multiples of 32 included), fewer for long rows. small favours few channels.
func (h *diffHarness) pickNac(op isa.Opcode, E int, small bool) int {
	rare := h.rng.Intn(16) == 0
	if isTransposeReduce(op) || op == isa.OpSTREAM_SHUFFLE {
		if small && !rare {
			return 32
		}
		return 32 * (1 + h.rng.Intn(min(4, max(1, 8192/E))))
	}
	nacs := []int{1, 2, 3, 5, 31, 33, 64, 100, 128}
	if small && !rare {
		nacs = nacs[:6]
	}
	n := nacs[h.rng.Intn(len(nacs))]
	return max(1, min(n, 4096/E))
}

// pickShape is a shape for op. small favours short rows: the enumeration is long, and
// TestFastMatchesReferenceShapes runs every shape.
func (h *diffHarness) pickShape(op isa.Opcode, small bool) diffShape {
	shapes, short := diffShapes, []diffShape{{1, 1}, {1, 7}, {2, 3}, {3, 5}, {32, 1}}
	if isTransposeReduce(op) {
		shapes, short = transposeShapes, []diffShape{{1, 32}, {2, 16}, {32, 1}}
	}
	if small && h.rng.Intn(16) != 0 {
		return short[h.rng.Intn(len(short))]
	}
	return shapes[h.rng.Intn(len(shapes))]
}

// raceBuild reports a test binary built with -race.
func raceBuild() bool {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" {
				return s.Value == "true"
			}
		}
	}
	return false
}

// TestFastMatchesReference runs every (opcode, ALU op, in dtype, out dtype) the executor takes
// (and the ops it refuses, whose errors must agree too) once, on a random shape and layout.
// Under the race detector, about 40 times slower here, it runs a random eighth of them.
func TestFastMatchesReference(t *testing.T) {
	h := newDiffHarness(t, 1)
	sample := 1
	if raceBuild() {
		sample = 8
	}
	for _, op := range fastOpcodes {
		t.Run(op.String(), func(t *testing.T) {
			for _, alu := range diffALUOps(op) {
				for in := isa.DType(0); in < 32; in++ {
					for out := isa.DType(0); out < 32; out++ {
						g, ok := diffGen(op, in, out)
						if !ok || h.rng.Intn(sample) != 0 {
							continue
						}
						s := h.pickShape(op, true)
						h.run(h.diffCase(op, alu, in, out, g, s, h.pickNac(op, s.G*s.R, true)), g)
					}
				}
			}
		})
	}
	t.Logf("%d cases; executed without error per opcode: %v", h.cases, h.perClass)
}

// TestFastMatchesReferenceShapes runs every shape class with every channel count class on the
// ops with a written-out kernel and on one op per class that takes the generic one.
func TestFastMatchesReferenceShapes(t *testing.T) {
	h := newDiffHarness(t, 2)
	type combo struct {
		op      isa.Opcode
		alu     isa.ALUOp
		in, out isa.DType
	}
	var combos []combo
	for _, op := range []isa.Opcode{isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP} {
		combos = append(combos,
			combo{op, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32},
			combo{op, isa.ALUSubtract, isa.DTypeBFLOAT16, isa.DTypeFP32},
			combo{op, isa.ALUMult, isa.DTypeFP16, isa.DTypeBFLOAT16},
			combo{op, isa.ALUMax, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16},
			combo{op, isa.ALUMin, isa.DTypeFP32, isa.DTypeINT8},
			combo{op, isa.ALUAbsMax, isa.DTypeINT32, isa.DTypeFP32},
			combo{op, isa.ALUAddInt, isa.DTypeINT32, isa.DTypeINT32},
			combo{op, isa.ALUMaxInt, isa.DTypeINT8, isa.DTypeUINT16},
			combo{op, isa.ALUMinInt, isa.DTypeUINT16, isa.DTypeINT8},
			combo{op, isa.ALUDivideInt, isa.DTypeINT16, isa.DTypeINT32},
		)
	}
	for _, op := range []isa.Opcode{isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTENSOR_CUMULATIVE_BITVEC_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP} {
		combos = append(combos,
			combo{op, isa.ALUBitwiseAnd, isa.DTypeUINT32, isa.DTypeUINT32},
			combo{op, isa.ALUBitwiseOr, isa.DTypeINT8, isa.DTypeUINT16},
			combo{op, isa.ALUBitwiseXor, isa.DTypeUINT16, isa.DTypeINT8},
			combo{op, isa.ALUArithShiftRight, isa.DTypeINT16, isa.DTypeINT32},
		)
	}
	combos = append(combos,
		combo{isa.OpCAST, isa.ALUBypass, isa.DTypeFP32, isa.DTypeBFLOAT16},
		combo{isa.OpCAST, isa.ALUBypass, isa.DTypeFP32, isa.DTypeINT8},
		combo{isa.OpRECIPROCAL, isa.ALUBypass, isa.DTypeFP32, isa.DTypeFP32},
		combo{isa.OpRECIPROCAL, isa.ALUBypass, isa.DTypeBFLOAT16, isa.DTypeFP32},
		combo{isa.OpSTREAM_SHUFFLE, isa.ALUBypass, isa.DTypeFP32, isa.DTypeFP32},
		combo{isa.OpSTREAM_SHUFFLE, isa.ALUBypass, isa.DTypeUINT8, isa.DTypeUINT8},
	)
	for _, c := range combos {
		shapes := diffShapes
		if isTransposeReduce(c.op) {
			shapes = transposeShapes
		}
		g, _ := diffGen(c.op, c.in, c.out)
		for _, s := range shapes {
			for rep := 0; rep < 3; rep++ {
				h.run(h.diffCase(c.op, c.alu, c.in, c.out, g, s, h.pickNac(c.op, s.G*s.R, false)), g)
			}
		}
	}
	t.Logf("%d cases", h.cases)
}

// TestFastOpsDoNotAllocate: with its buffers grown, a DVE runs these instructions of up to
// scratchMax bytes without a heap allocation, both reading rows in place and gathering
// (Execute's own operand bookkeeping aside, which allocates for every opcode: the ops are
// called directly here).
func TestFastOpsDoNotAllocate(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	fillRandom(rand.New(rand.NewSource(3)), m)
	for p := 0; p < 128; p++ {
		m.MarkInit(mem.SBUF, p, 0, m.PartitionActive(mem.SBUF))
	}
	var d DVE
	lm := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: isa.InstWordLen}}
	if _, err := d.Execute(m, lm, g); err != nil {
		t.Fatal(err)
	}
	const E = 1024 // [128 x 1024] of 4 bytes: 512 KiB
	for _, ob := range []opBench{
		{"reduce fp32 add X", isa.OpTENSOR_REDUCE_ARITH_OP, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 0},
		{"reduce bf16 max XY32", isa.OpTENSOR_REDUCE_ARITH_OP, isa.ALUMax, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, 32},
		{"reduce int32 pow XY32", isa.OpTENSOR_REDUCE_ARITH_OP, isa.ALUPow, isa.DTypeINT32, isa.DTypeFP32, 32},
		{"reduce int32 add_int X", isa.OpTENSOR_REDUCE_ARITH_OP, isa.ALUAddInt, isa.DTypeINT32, isa.DTypeINT32, 0},
		{"reduce uint32 xor XY32", isa.OpTENSOR_REDUCE_BITVEC_OP, isa.ALUBitwiseXor, isa.DTypeUINT32, isa.DTypeUINT16, 32},
		{"transpose reduce fp32 add X", isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 0},
		{"cumulative fp32 add X", isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 0},
		{"cumulative int16 max_int XY32", isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.ALUMaxInt, isa.DTypeINT16, isa.DTypeINT16, 32},
		{"reciprocal bf16 fp32", isa.OpRECIPROCAL, 0, isa.DTypeBFLOAT16, isa.DTypeFP32, 0},
		{"cast fp32 int8", isa.OpCAST, 0, isa.DTypeFP32, isa.DTypeINT8, 0},
		{"shuffle fp32", isa.OpSTREAM_SHUFFLE, 0, isa.DTypeFP32, isa.DTypeFP32, 0},
	} {
		for _, gathered := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/gathered=%v", ob.name, gathered), func(t *testing.T) {
				in := opInst(ob, 128*E*ob.in.Size())
				if gathered { // every other element: not contiguous
					in.SrcMemPattern.StepElem[0] *= 2
					in.SrcMemPattern.StepElem[1] *= 2
					in.SrcMemPattern.StepElem[2] *= 2
				}
				o := testOperands(t, m, in, g)
				exec := func() {
					var err error
					switch ob.opcode {
					case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP:
						err = d.tensorReduce(m, in, o, nil)
					case isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP:
						err = d.transposeReduce(m, in, o)
					case isa.OpTENSOR_CUMULATIVE_ARITH_OP:
						err = d.tensorCumulative(m, in, o)
					case isa.OpRECIPROCAL:
						err = d.reciprocal(m, in, o)
					case isa.OpCAST:
						err = d.castOp(m, in, o)
					case isa.OpSTREAM_SHUFFLE:
						_, err = d.streamShuffle(m, in, o)
					}
					if err != nil {
						t.Fatalf("%s: %v", ob.name, err)
					}
				}
				exec() // grows the buffers
				allowed := 0.0
				if ob.opcode == isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP && raceBuild() {
					// The plain-Go transpose (purego) takes its staging buffer from a sync.Pool,
					// which the race detector empties at random.
					allowed = 128 / 32 // a staging buffer per group of 32 channels
				}
				if n := testing.AllocsPerRun(5, exec); n > allowed {
					t.Errorf("%v allocations per instruction", n)
				}
			})
		}
	}
}

// testOperands checks in's operands as execS4D4TR does.
func testOperands(t *testing.T, m *mem.Memory, in *isa.S4D4TR, g isa.Generation) *operands {
	t.Helper()
	nac := int(in.NumActiveChannels)
	src, err := m.Pattern(in.SrcMemPattern, in.InDtype.Size(), nac, false)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := m.Pattern(in.DstMemPattern, in.OutDtype.Size(), nac, true)
	if err != nil {
		t.Fatal(err)
	}
	return &operands{op: in.Header.Opcode, src: src, dst: dst, nac: nac, esIn: in.InDtype.Size(), esOut: in.OutDtype.Size()}
}

// TestFastMatchesReferenceParallel: instructions large enough for the fast paths to split their
// rows over goroutines (d.procs) match the reference too, with the source read in place and
// gathered. The race detector checks the workers share nothing they write.
func TestFastMatchesReferenceParallel(t *testing.T) {
	h := newDiffHarness(t, 3)
	h.fast.MaxProcs = 3 // three workers over 128 rows: uneven splits
	benches := []opBench{
		{"", isa.OpTENSOR_REDUCE_ARITH_OP, isa.ALUAdd, isa.DTypeFP32, isa.DTypeFP32, 0},
		{"", isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.ALUMax, isa.DTypeBFLOAT16, isa.DTypeFP32, 32},
		{"", isa.OpTENSOR_REDUCE_BITVEC_OP, isa.ALUBitwiseXor, isa.DTypeUINT16, isa.DTypeUINT16, 32},
		{"", isa.OpTENSOR_REDUCE_ARITH_OP, isa.ALUMaxInt, isa.DTypeINT32, isa.DTypeINT8, 0},
		{"", isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.ALUMin, isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, 0},
		{"", isa.OpRECIPROCAL, 0, isa.DTypeFP32, isa.DTypeFP16, 0},
		{"", isa.OpCAST, 0, isa.DTypeFP32, isa.DTypeINT8, 0},
	}
	if raceBuild() {
		benches = benches[:3]
	}
	for _, ob := range benches {
		t.Run(ob.name, func(t *testing.T) {
			for _, strided := range []bool{false, true} {
				in := opInst(ob, 4<<20)
				if strided { // every other element: gathered
					for d := range in.SrcMemPattern.StepElem {
						in.SrcMemPattern.StepElem[d] *= 2
					}
				}
				h.run(in, isa.CAYMAN)
			}
		})
	}
}
