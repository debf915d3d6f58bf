// Package dve executes the DVE (Decoupled Vector Engine) instructions of the S4D4_TR family
// (seed 000 §3-§5, FACTS §D, DESIGN.md §4) and LOAD_MASK_SELECT 0x69 on a mem.Memory:
// StreamTranspose 0x6B, TransposeTensorReduce 0x83/0x84, TensorReduce 0x42/0x52 (and SUNDA's
// 0x8C/0x8D), TensorCumulative 0x4E/0x5E, Copy 0x46, Cast 0x47, Reciprocal 0x48 and
// StreamShuffle 0x6A.
//
// Every instruction is checked whole before anything is written: a failing instruction changes
// no memory (and LOAD_MASK_SELECT leaves the mask register alone). Reads happen, logically,
// before writes: an instruction whose source and destination overlap behaves as if it read its
// whole source first (Provenance dve.overlap).
//
// StreamTranspose has two implementations that agree byte for byte: a fast tiled one (SWAR
// kernels on uint64 words, direct on partition memory when the walks are contiguous, parallel
// across channel groups and tiles when large) and a faithful model of the 5-stage dual-output
// select (dsel) butterfly on the 2NX8 / NX16 / N_2X32 lane widths (seed 000 §5.2-§5.4).
package dve

import (
	"math"
	"math/bits"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// DefaultMaxStreamBytes is the stream limit of a DVE whose MaxStreamBytes is 0: 1 GiB of source
// plus destination bytes over all channels (INVENTED, Provenance dve_max_stream_bytes). A
// pattern with step 0 names up to 65535^4 elements in a few bytes of memory, and the executor
// gathers the whole source walk (and builds the whole destination walk) in host buffers before
// it writes: without a bound one valid instruction could ask for tens of GiB.
const DefaultMaxStreamBytes = 1 << 30

// TransposeImpl selects the StreamTranspose implementation.
type TransposeImpl uint8

const (
	// TransposeFast is the tiled SWAR implementation (the default).
	TransposeFast TransposeImpl = iota
	// TransposeButterfly is the faithful 5-stage dsel butterfly model.
	TransposeButterfly
)

func (t TransposeImpl) String() string {
	if t == TransposeButterfly {
		return "butterfly"
	}
	return "fast"
}

// DVE is the state of one DVE engine: the shuffle mask register LOAD_MASK_SELECT loads, and the
// executor's settings. The zero value is ready to use (no mask loaded, fast transpose, all CPUs).
// Like the engine, it runs one instruction at a time: Execute must not be called concurrently
// on one DVE (its mask and its reused source buffer are per engine).
type DVE struct {
	mask    [32]uint8
	maskSet bool

	// Transpose selects the StreamTranspose / TransposeTensorReduce implementation.
	Transpose TransposeImpl
	// MaxProcs bounds the goroutines a large transpose, reduce, scan, cast or reciprocal uses; 0
	// means runtime.GOMAXPROCS(0).
	MaxProcs int
	// MaxStreamBytes bounds StreamBytes of one instruction (0: DefaultMaxStreamBytes). The
	// executor's host buffers for an instruction stay below about twice this bound.
	MaxStreamBytes uint64

	// src is the reusable buffer gatherAll fills (see (*DVE).gatherAll).
	src []byte
	// ops holds the other buffers the executor reuses (see opScratch).
	ops opScratch
	// reference runs the element-by-element reference implementations of the reduce, scan,
	// copy, cast, reciprocal and shuffle ops in place of their fast paths (the differential
	// tests).
	reference bool
}

// StreamBytes is what the stream limit counts for an S4D4_TR instruction over nac channels
// whose source walk is srcBytes and destination walk dstBytes per channel: nac x (srcBytes +
// dstBytes), the source and destination bytes of every channel. The executor's buffers (a
// gathered source, a built destination, and for TransposeTensorReduce the transposed source
// too) are at most about twice this.
func StreamBytes(nac int, srcBytes, dstBytes uint64) uint64 {
	return satMul(uint64(max(nac, 0)), satAdd(srcBytes, dstBytes))
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return math.MaxUint64
	}
	return a + b
}

func satMul(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}

func (d *DVE) maxStreamBytes() uint64 {
	if d.MaxStreamBytes == 0 {
		return DefaultMaxStreamBytes
	}
	return d.MaxStreamBytes
}

// Mask returns the mask register and whether a LOAD_MASK_SELECT has loaded it.
func (d *DVE) Mask() ([32]uint8, bool) { return d.mask, d.maskSet }

// Reset clears the mask register (as at power-on: no mask loaded): d then executes as a new
// DVE with the same settings does. It keeps its host buffers for reuse, and drops their
// references to memory (the row tables).
func (d *DVE) Reset() {
	d.mask, d.maskSet = [32]uint8{}, false
	clear(d.ops.rows[:cap(d.ops.rows)])
	clear(d.ops.orows[:cap(d.ops.orows)])
	clear(d.ops.tiles[:cap(d.ops.tiles)])
}

// Effect is what an executed instruction did, for traces and summaries.
type Effect struct {
	Opcode       isa.Opcode
	Elements     uint64     // elements written (all channels)
	BytesRead    uint64     // bytes read from memory (all channels)
	BytesWritten uint64     // bytes written to memory (all channels)
	Reads        []mem.Span // bounding boxes of the bytes read
	Writes       []mem.Span // bounding boxes of the bytes written
	MaskLoaded   bool       // LOAD_MASK_SELECT: the mask register changed
	Transpose    string     // StreamTranspose implementation used ("fast", "butterfly"), else ""
}

// Execute runs one instruction on m as generation g. inst is normally validated first
// (isa.Validate, as the machine's check pipeline does) and Execute trusts that: it does not
// validate again, but tests what it relies on not to fail (cheap conditions on the operands)
// and the whole memory footprint, so it never panics and a failing instruction changes
// nothing. When such a condition fails the instruction breaks an ISA rule, and the error is
// isa.Validate's own violation of it. The error is an *Error.
func (d *DVE) Execute(m *mem.Memory, inst isa.Inst, g isa.Generation) (Effect, error) {
	if inst == nil {
		return Effect{}, fail(0, fault.ErrInvalid, RuleInstGiven, "", "nil instruction")
	}
	op := inst.Hdr().Opcode
	eff := Effect{Opcode: op}
	if m == nil {
		return eff, fail(op, fault.ErrInvalid, RuleMemoryGiven, "", "nil memory")
	}
	if !g.Valid() {
		return eff, fail(op, fault.ErrInvalid, RuleGenerationMatches, "", "invalid generation %v", g)
	}
	if m.Gen() != g {
		return eff, fail(op, fault.ErrInvalid, RuleGenerationMatches, "", "memory is %v, instruction runs as %v", m.Gen(), g)
	}
	if !op.InGen(g) {
		return eff, refuse(inst, g, isa.RuleOpcodeOnGeneration, "opcode", "opcode 0x%02x is not in the %v ISA", uint8(op), g)
	}
	switch in := inst.(type) {
	case *isa.LoadMaskSelect:
		if op != isa.OpLOAD_MASK_SELECT {
			break
		}
		return d.loadMask(in, g, eff)
	case *isa.S4D4TR:
		if in.Header.Opcode.Struct() != isa.StructS4D4_TR {
			break
		}
		return d.execS4D4TR(m, in, g, eff)
	case *isa.Memset:
		if op != isa.OpMEMSET {
			break
		}
		return d.memset(m, in, g, eff)
	}
	return eff, fail(op, fault.ErrUnsupported, RuleOpcodeModelled, "header.opcode", "the DVE executor does not run %v (%T)", op, inst)
}

// operands holds an S4D4_TR instruction's checked memory operands.
type operands struct {
	op       isa.Opcode
	in       *isa.S4D4TR
	g        isa.Generation
	src, dst *mem.Pattern
	nac      int
	esIn     int
	esOut    int
}

func (d *DVE) execS4D4TR(m *mem.Memory, in *isa.S4D4TR, g isa.Generation, eff Effect) (Effect, error) {
	op := in.Header.Opcode
	esIn, esOut := in.InDtype.Size(), in.OutDtype.Size()
	if esIn == 0 || !in.InDtype.InGen(g) || in.InDtype.Bits()%8 != 0 || in.InDtype.IsCPTC() {
		return eff, refuse(in, g, isa.RuleIsValidDtype, "in_dtype", "%v has no byte-sized element encoding on %v", in.InDtype, g)
	}
	if esOut == 0 || !in.OutDtype.InGen(g) || in.OutDtype.Bits()%8 != 0 || in.OutDtype.IsCPTC() {
		return eff, refuse(in, g, isa.RuleIsValidDtype, "out_dtype", "%v has no byte-sized element encoding on %v", in.OutDtype, g)
	}
	nac := int(in.NumActiveChannels)
	if nac < 1 || nac > g.Geometry().DVENumChannels {
		return eff, refuse(in, g, isa.RuleHasValidActiveChannelRange, "num_active_channels", "%d channels of %d", nac, g.Geometry().DVENumChannels)
	}
	src, err := m.Pattern(in.SrcMemPattern, esIn, nac, false)
	if err != nil {
		return eff, memFail(op, "src_mem_pattern", err)
	}
	dst, err := m.Pattern(in.DstMemPattern, esOut, nac, true)
	if err != nil {
		return eff, memFail(op, "dst_mem_pattern", err)
	}
	if n, lim := StreamBytes(nac, uint64(src.Bytes()), uint64(dst.Bytes())), d.maxStreamBytes(); n > lim {
		return eff, fail(op, fault.ErrLimit, RuleMaxStreamBytes, "", "streams %d bytes (%d channels x (%d source + %d destination bytes)), "+
			"which the executor would hold in host memory; the limit is %d bytes (DVE.MaxStreamBytes)", n, nac, src.Bytes(), dst.Bytes(), lim)
	}
	o := &operands{op: op, in: in, g: g, src: src, dst: dst, nac: nac, esIn: esIn, esOut: esOut}
	eff.Reads = []mem.Span{src.Span()}
	eff.Writes = []mem.Span{dst.Span()}
	eff.BytesRead = uint64(nac) * uint64(src.Bytes())

	switch op {
	case isa.OpSTREAM_TRANSPOSE:
		err = d.streamTranspose(m, in, o)
		eff.Transpose = d.Transpose.String()
	case isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP:
		err = d.transposeReduce(m, in, o)
		eff.Transpose = d.Transpose.String()
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16:
		err = d.tensorReduce(m, in, o, nil)
	case isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_BITVEC_OP:
		err = d.tensorCumulative(m, in, o)
	case isa.OpCOPY:
		err = d.copyOp(m, in, o)
	case isa.OpCAST:
		err = d.castOp(m, in, o)
	case isa.OpRECIPROCAL:
		err = d.reciprocal(m, in, o)
	case isa.OpSTREAM_SHUFFLE:
		var written int
		written, err = d.streamShuffle(m, in, o)
		if err == nil {
			eff.Elements = uint64(written) * uint64(dst.Elements())
			eff.BytesWritten = eff.Elements * uint64(esOut)
		}
		return eff, errOrNil(err)
	default:
		return eff, fail(op, fault.ErrUnsupported, RuleOpcodeModelled, "header.opcode", "%v is not executed by the DVE model", op)
	}
	if err != nil {
		return eff, err
	}
	n := dst.Elements()
	if op == isa.OpSTREAM_TRANSPOSE {
		n = min(n, src.Elements())
	}
	eff.Elements = uint64(nac) * uint64(n)
	eff.BytesWritten = eff.Elements * uint64(esOut)
	return eff, nil
}

func errOrNil(e error) error {
	if e == nil {
		return nil
	}
	return e
}

// requireSameCount is the executor's need of s4d4_tr_same_src_dst_count.
func requireSameCount(o *operands) error {
	if o.src.Elements() != o.dst.Elements() {
		return o.refuse(isa.RuleS4D4TRSameSrcDstCount, "dst_mem_pattern.num_elem", "dst walks %d elements, src %d", o.dst.Elements(), o.src.Elements())
	}
	return nil
}

// refuse is refuse for o's instruction.
func (o *operands) refuse(rule, field, format string, args ...any) error {
	return refuse(o.in, o.g, rule, field, format, args...)
}

// gatherAll reads every channel's source walk into one buffer (channel-major, nac x src bytes)
// before anything is written, so uninitialised reads fail the instruction atomically.
//
// The buffer is d's, reused by the next instruction (it holds no data across instructions: every
// byte is gathered anew): allocated per instruction it was a fifth of the time of a program of
// small COPYs, with the clearing and GC of a fresh buffer each time. Buffers above
// scratchMax are allocated per instruction and not kept.
func (d *DVE) gatherAll(m *mem.Memory, o *operands) ([]byte, error) {
	n := o.src.Bytes()
	buf := scratch(&d.src, o.nac*n)
	for c := 0; c < o.nac; c++ {
		if err := m.Gather(o.src, c, buf[c*n:(c+1)*n]); err != nil {
			return nil, memFail(o.op, "src_mem_pattern", err)
		}
	}
	return buf, nil
}

// scratchMax is the largest gathered source a DVE keeps for reuse.
const scratchMax = 1 << 20

// scratch returns n bytes of *buf, grown to n and kept for the next instruction when n <=
// scratchMax, or a fresh buffer, not kept, above it. The bytes are not cleared.
func scratch(buf *[]byte, n int) []byte {
	switch {
	case n > scratchMax:
		return make([]byte, n)
	case cap(*buf) < n:
		*buf = make([]byte, n)
	}
	return (*buf)[:n]
}

// scatterAll writes every channel's destination walk from buf (channel-major).
func scatterAll(m *mem.Memory, o *operands, buf []byte) {
	n := o.dst.Bytes()
	for c := 0; c < o.nac; c++ {
		m.Scatter(o.dst, c, buf[c*n:(c+1)*n])
	}
}
