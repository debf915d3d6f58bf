package dve

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

func TestShuffleMask(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	for p := 0; p < 64; p++ {
		m.Partition(mem.SBUF, p)[0] = byte(p)
		m.Partition(mem.SBUF, p)[100] = 0xEE
	}
	var d DVE
	in := s4(isa.OpSTREAM_SHUFFLE, lin(sbufAddr(g, 0, 0), 1), lin(sbufAddr(g, 0, 100), 1), isa.DTypeUINT8, isa.DTypeUINT8, 64)
	if _, err := d.Execute(m, in, g); !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != RuleStreamShuffleMaskLoaded {
		t.Fatalf("no mask: %v", err)
	}
	if m.Partition(mem.SBUF, 0)[100] != 0xEE {
		t.Fatal("failed shuffle wrote")
	}
	lm := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: isa.InstWordLen}}
	for i := range lm.Immediate {
		lm.Immediate[i] = uint8(31 - i)
	}
	lm.Immediate[3] = 0xFF
	lm.Immediate[4] = 33 // entry 33 -> channel 1 of the group
	bad := *lm
	bad.Immediate[0] = 64
	if _, err := d.Execute(m, &bad, g); err == nil {
		t.Fatal("mask entry 64 accepted")
	}
	if _, ok := d.Mask(); ok {
		t.Fatal("failed LOAD_MASK_SELECT loaded the mask")
	}
	if eff, err := d.Execute(m, lm, g); err != nil || !eff.MaskLoaded {
		t.Fatal(err)
	}
	eff, err := d.Execute(m, in, g)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 64; c++ {
		want := byte(c/32*32 + 31 - c%32)
		switch c % 32 {
		case 3:
			want = 0xEE
		case 4:
			want = byte(c/32*32 + 1)
		}
		if got := m.Partition(mem.SBUF, c)[100]; got != want {
			t.Errorf("channel %d = %d, want %d", c, got, want)
		}
	}
	if eff.BytesWritten != 62 {
		t.Errorf("bytes written %d, want 62", eff.BytesWritten)
	}
}

func TestReduceAndCumulative(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	// channel c: fp32 values 1..12 (+c), shaped num [3, 4]
	for c := 0; c < 2; c++ {
		p := m.Partition(mem.SBUF, c)
		for i := 0; i < 12; i++ {
			binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(float32(i+1+c)))
		}
	}
	var d DVE
	src := pat(sbufAddr(g, 0, 0), [4]int16{1, 3, 1, 1}, [4]uint16{3, 4, 1, 1})
	in := s4(isa.OpTENSOR_REDUCE_ARITH_OP, src, lin(sbufAddr(g, 0, 1024), 4), isa.DTypeFP32, isa.DTypeINT32, 2)
	in.Op, in.OpDim, in.Negated = isa.ALUAdd, isa.SubdimX, 1
	if _, err := d.Execute(m, in, g); err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 2; c++ {
		for r := 0; r < 4; r++ {
			want := -int32(3*(3*r+1+c) + 3)
			if got := int32(binary.LittleEndian.Uint32(m.Partition(mem.SBUF, c)[1024+4*r:])); got != want {
				t.Errorf("c%d r%d = %d, want %d", c, r, got, want)
			}
		}
	}
	// XY reduces everything: dst must have 1 element.
	in.OpDim = isa.SubdimXY
	var e *Error
	if _, err := d.Execute(m, in, g); !errors.As(err, &e) || e.Rule != "tensor_reduce_dst_count" {
		t.Errorf("dst count: %v", err)
	}
	// Cumulative max over XY on bytes.
	cum := s4(isa.OpTENSOR_CUMULATIVE_ARITH_OP, lin(sbufAddr(g, 0, 0), 12), lin(sbufAddr(g, 0, 2048), 12), isa.DTypeFP32, isa.DTypeFP32, 1)
	cum.Op, cum.OpDim = isa.ALUAdd, isa.SubdimX
	if _, err := d.Execute(m, cum, g); err != nil {
		t.Fatal(err)
	}
	if got := math.Float32frombits(binary.LittleEndian.Uint32(m.Partition(mem.SBUF, 0)[2048+44:])); got != 78 {
		t.Errorf("prefix sum = %v, want 78", got)
	}
}

func TestUninitTracking(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{TrackUninit: true})
	m.WriteAt(isa.DMALocalBase, make([]byte, 64))
	var d DVE
	in := s4(isa.OpCOPY, lin(sbufAddr(g, 0, 0), 65), lin(sbufAddr(g, 0, 512), 65), isa.DTypeUINT8, isa.DTypeUINT8, 1)
	_, err := d.Execute(m, in, g)
	var me *mem.Error
	if !errors.Is(err, fault.ErrUninit) || !errors.As(err, &me) || me.Addr != 64 {
		t.Fatalf("uninit copy: %v", err)
	}
	in.SrcMemPattern.NumElem[0], in.DstMemPattern.NumElem[0] = 64, 64
	if _, err := d.Execute(m, in, g); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckInit(mem.SBUF, 0, 512, 64); err != nil {
		t.Errorf("copy did not mark its writes: %v", err)
	}
	tr := s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 32), lin(sbufAddr(g, 0, 1024), 32), isa.DTypeUINT8, isa.DTypeUINT8, 32)
	if _, err := d.Execute(m, tr, g); !errors.Is(err, fault.ErrUninit) {
		t.Errorf("transpose reading unwritten partitions: %v", err)
	}
}

func TestProvenance(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range append(Provenance(), mem.Provenance()...) {
		if p.ID == "" || p.Text == "" || p.Source == "" || seen[p.ID] {
			t.Errorf("bad or duplicate entry %+v", p)
		}
		if p.Confidence.Kind != "OBSERVED" && p.Reason == "" {
			t.Errorf("%s: %s without a reason", p.ID, p.Confidence)
		}
		seen[p.ID] = true
	}
}

// FuzzExecute runs random S4D4_TR words (and mask loads) on random memory: never a panic, and
// a failing instruction fails with a rule and a category and leaves memory unchanged (every
// byte of the first 4 KiB of every SBUF and PSUM partition compared with what it held before).
//
// Every exec starts from the same memory state for its (generation, uninit tracking) pair, a
// fixed pattern (executePattern): a memory is kept across execs only while the instructions run
// on it fail (which, checked here, changes none of the bytes the check covers), and a fresh one
// replaces it after a success. So coverage does not depend on earlier execs and the fuzzer's
// minimisation reproduces it, and the bytes before an exec are the pattern, never copied.
func FuzzExecute(f *testing.F) {
	f.Add(make([]byte, 64), int64(1))
	seed := make([]byte, 64)
	seed[0] = byte(isa.OpSTREAM_TRANSPOSE)
	seed[34] = 32
	f.Add(seed, int64(2))
	x := &executeFuzzer{mems: map[executeMemKey]*mem.Memory{}}
	f.Fuzz(x.exec)
}

type executeMemKey struct {
	g     isa.Generation
	track bool
}

// executeFuzzer is FuzzExecute's state kept across execs: a memory per key in the pattern's
// state.
type executeFuzzer struct {
	mems map[executeMemKey]*mem.Memory
}

// snapBytes is the bytes FuzzExecute checks: the first 4 KiB of every SBUF and PSUM partition.
const snapBytes = 4096

// executePattern is the first snapBytes of partition p of every FuzzExecute memory (SBUF and
// PSUM alike): byte i is i*7 + p*13 (mod 256), which is pattern[(i + p*13*183) mod 256 + i]
// of one 7-step sequence (183 is 7's inverse mod 256), so one buffer serves every partition.
func executePattern(p int) []byte {
	k := p * 13 * 183 % 256
	return executeSequence()[k : k+snapBytes]
}

var executeSequence = sync.OnceValue(func() []byte {
	b := make([]byte, snapBytes+256)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
})

func (x *executeFuzzer) exec(t *testing.T, word []byte, r int64) {
	if len(word) < 64 {
		word = append(word, make([]byte, 64-len(word))...)
	}
	// r chooses the generation and the tracking (the rest of its bits are unused).
	ng := uint64(len(isa.Generations))
	key := executeMemKey{isa.Generations[uint64(r)%ng], uint64(r)/ng%2 == 0}
	g := key.g
	m := x.mems[key]
	if m == nil {
		// Under tracking, the first half of each partition's checked bytes counts as
		// written, the rest does not.
		m = newMem(t, g, mem.Options{TrackUninit: key.track})
		for _, rg := range []mem.Region{mem.SBUF, mem.PSUM} {
			for p := 0; p < m.NumPartitions(rg); p++ {
				copy(m.Partition(rg, p)[:snapBytes], executePattern(p))
				m.MarkInit(rg, p, 0, snapBytes/2)
			}
		}
		x.mems[key] = m
	}
	le := binary.LittleEndian
	ops := isa.S4D4TROpcodes(g)
	in := &isa.S4D4TR{Header: isa.Header{Opcode: ops[int(word[0])%len(ops)], InstWordLen: 16}}
	t4 := func(b []byte) isa.Tensor4D {
		var t isa.Tensor4D
		t.StartAddr = isa.Addr4(le.Uint32(b))
		if b[3]&0x80 == 0 { // keep most addresses near the start of SBUF/PSUM partitions
			t.StartAddr &= 0x0207FFFF
		}
		for d := 0; d < 4; d++ {
			t.StepElem[d] = int16(le.Uint16(b[4+2*d:])) % 64
			t.NumElem[d] = le.Uint16(b[12+2*d:]) % 48
		}
		return t
	}
	in.SrcMemPattern, in.DstMemPattern = t4(word[12:32]), t4(word[44:64])
	in.InDtype, in.OutDtype = isa.DType(word[32]%0x20), isa.DType(word[33]%0x20)
	in.NumActiveChannels, in.Negated, in.Op, in.OpDim, in.MaskEnable = word[34], word[35]%2, isa.ALUOp(word[36]), isa.TensorSubdim(word[37]%6), word[38]%2
	// A small stream limit: at the default (1 GiB) a pattern with step-0 dims can stream
	// hundreds of MiB in bounds (~0.1 s an exec); the limit is itself a checked failure.
	d := DVE{Transpose: TransposeImpl(word[1] % 2), MaxProcs: 1 + int(word[2]%3), MaxStreamBytes: 1 << 22}
	if word[3]%4 == 0 {
		lm := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: 16}}
		copy(lm.Immediate[:], word[32:64])
		d.Execute(m, lm, g)
	}
	_, err := d.Execute(m, in, g)
	if err == nil {
		delete(x.mems, key) // it may have written: the next exec on this key starts afresh
	} else {
		var e *Error
		if !errors.As(err, &e) || e.Rule == "" {
			t.Fatalf("error without rule: %v", err)
		}
		if fault.Category(err) == nil {
			t.Fatalf("error of no category: %v", err)
		}
		for _, rg := range []mem.Region{mem.SBUF, mem.PSUM} {
			for p := 0; p < m.NumPartitions(rg); p++ {
				if !bytes.Equal(m.Partition(rg, p)[:snapBytes], executePattern(p)) {
					t.Fatalf("failed instruction changed %v partition %d: %v", rg, p, err)
				}
			}
		}
	}
}

// TestSingleSourceOpFold pins Provenance dve.alu_fold for single-source ops used as reduce /
// scan ops: acc = x0, then acc = op(acc) for every later element (the elements are ignored),
// so a group of one is x0 unchanged. A change to this rule must be deliberate (and the
// provenance text and testdata/dve/oracle.py changed with it).
func TestSingleSourceOpFold(t *testing.T) {
	g := isa.MARIANA
	vals := []float32{-3, 5, -7}
	cases := []struct {
		op   isa.ALUOp
		want [3]float32 // reduce over the first 1, 2, 3 elements
	}{
		{isa.ALUBypass, [3]float32{-3, -3, -3}},
		{isa.ALUAbsoluteValue, [3]float32{-3, 3, 3}},
		{isa.ALUSquare, [3]float32{-3, 9, 81}},
		{isa.ALUReLU, [3]float32{-3, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.op.String(), func(t *testing.T) {
			for n := 1; n <= 3; n++ {
				m := newMem(t, g, mem.Options{})
				p := m.Partition(mem.SBUF, 0)
				for i, v := range vals {
					binary.LittleEndian.PutUint32(p[4*i:], math.Float32bits(v))
				}
				red := s4(isa.OpTENSOR_REDUCE_ARITH_OP, lin(sbufAddr(g, 0, 0), n), lin(sbufAddr(g, 0, 64), 1), isa.DTypeFP32, isa.DTypeFP32, 1)
				red.Op, red.OpDim = c.op, isa.SubdimX
				scan := s4(isa.OpTENSOR_CUMULATIVE_ARITH_OP, lin(sbufAddr(g, 0, 0), n), lin(sbufAddr(g, 0, 128), n), isa.DTypeFP32, isa.DTypeFP32, 1)
				scan.Op, scan.OpDim = c.op, isa.SubdimX
				for _, in := range []*isa.S4D4TR{red, scan} {
					if errs := isa.Validate(in, g); len(errs) > 0 {
						t.Fatalf("%v %v: %v", in.Header.Opcode, c.op, errs)
					}
					var d DVE
					if _, err := d.Execute(m, in, g); err != nil {
						t.Fatal(err)
					}
				}
				if got := math.Float32frombits(binary.LittleEndian.Uint32(p[64:])); got != c.want[n-1] {
					t.Errorf("reduce %v over %v = %v, want %v", c.op, vals[:n], got, c.want[n-1])
				}
				for i := 0; i < n; i++ {
					if got := math.Float32frombits(binary.LittleEndian.Uint32(p[128+4*i:])); got != c.want[i] {
						t.Errorf("scan %v over %v: element %d = %v, want %v", c.op, vals[:n], i, got, c.want[i])
					}
				}
			}
		})
	}
}

// TestCopyDirectMatchesGather: a COPY of contiguous, non-overlapping rows (copied row to row)
// leaves the same memory as the gather/scatter path (taken under never-written tracking), for
// every width, channel counts and SBUF/PSUM placements, and overlapping rows still go through
// the gather (read everything first).
func TestCopyDirectMatchesGather(t *testing.T) {
	rng := rand.New(rand.NewSource(43))
	g := isa.CAYMAN
	for trial := 0; trial < 60; trial++ {
		dt := []isa.DType{isa.DTypeUINT8, isa.DTypeBFLOAT16, isa.DTypeFP32}[trial%3]
		es := dt.Size()
		nac := 1 + rng.Intn(128)
		n := 1 + rng.Intn(200)
		soff := es * rng.Intn(300)
		doff := es * rng.Intn(300)
		if trial%4 == 0 {
			doff = soff + es*rng.Intn(2*n) // often overlapping the source
		}
		src := lin(sbufAddr(g, rng.Intn(129-nac), soff), n)
		dst := lin(sbufAddr(g, rng.Intn(129-nac), doff), n)
		if dt == isa.DTypeFP32 && trial%5 == 1 {
			dst = lin(psumAddr(rng.Intn(129-nac), doff), n)
		}
		in := s4(isa.OpCOPY, src, dst, dt, dt, nac)
		if errs := isa.Validate(in, g); len(errs) > 0 {
			continue
		}
		direct, gathered := newMem(t, g, mem.Options{}), newMem(t, g, mem.Options{TrackUninit: true})
		fillRandom(rng, direct, gathered)
		var d1, d2 DVE
		_, err1 := d1.Execute(direct, in, g)
		_, err2 := d2.Execute(gathered, in, g)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("trial %d: direct %v, gathered %v", trial, err1, err2)
		}
		if msg := diffSpans(instSpans(direct, in), direct, gathered); msg != "" {
			t.Fatalf("trial %d (%v nac %d n %d src %d dst %d): %s", trial, dt, nac, n, soff, doff, msg)
		}
	}
}

// aluNaNInputs are FP32 words the ALU NaN tests combine: NaNs of both signs, quiet and
// signalling, with payloads; infinities; signed zeros; finite values.
var aluNaNInputs = []uint32{0x7FC12345, 0xFFC00001, 0x7F800001, 0xFFBFFFFF, 0x7F800000, 0xFF800000, 0, 0x80000000, 0x3F800000, 0xBF800000}

// aluNaNDtypes are the in and out dtypes of the ALU NaN tests (INT8: a NaN stores 0).
var aluNaNIn, aluNaNOut = []isa.DType{isa.DTypeFP32, isa.DTypeBFLOAT16, isa.DTypeFP16}, []isa.DType{isa.DTypeFP32, isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeFP32R, isa.DTypeINT8}

// aluWant is what an FP32 ALU result v stores as k: the default NaN (narrowed to k) when v is
// a NaN, whatever its sign or payload (Provenance num.alu_nan).
func aluWant(k num.Kind, v float32) []byte {
	b := make([]byte, k.Size())
	if v != v {
		v = math.Float32frombits(num.DefaultNaNF32)
	}
	num.StoreF32(k, b, v)
	return b
}

// runALUNaN executes in on m (CAYMAN) after writing src at offset 0 of partition 0 and filling
// the n bytes at the destination (offset 8192) with 0xA5, and returns those n bytes, on the
// fast path or the reference.
func runALUNaN(t *testing.T, m *mem.Memory, in *isa.S4D4TR, src []byte, n int, reference bool) []byte {
	t.Helper()
	g := isa.CAYMAN
	p := m.Partition(mem.SBUF, 0)
	copy(p, src)
	for i := range n {
		p[8192+i] = 0xA5
	}
	d := DVE{reference: reference}
	if _, err := d.Execute(m, in, g); err != nil {
		t.Fatalf("%v %v %v->%v: %v", in.Header.Opcode, in.Op, in.InDtype, in.OutDtype, err)
	}
	return append([]byte(nil), m.Partition(mem.SBUF, 0)[8192:8192+n]...)
}

// TestALUNaNIsDefault pins Provenance num.alu_nan on the DVE: every NaN a float-class reduce or
// scan (every op, negated or not) or a reciprocal stores is the default NaN 0x7FC00000, narrowed
// to the out dtype (BF16 0x7FC0, FP16 0x7E00; INT8 0), whether it comes from a NaN operand of
// either sign with any payload, or from an invalid operation (Inf-Inf, 0*Inf, 0/0, rsqrt of a
// negative, ...), on the fast path and on the reference alike; every other result is unchanged.
func TestALUNaNIsDefault(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	for _, c := range []struct {
		op   isa.ALUOp
		a, b uint32
	}{
		{isa.ALUAdd, 0x7F800000, 0xFF800000}, {isa.ALUSubtract, 0xFF800000, 0xFF800000}, {isa.ALUMult, 0, 0x7F800000},
		{isa.ALUMult, 0xFF800000, 0x80000000}, {isa.ALUDivide, 0, 0x80000000}, {isa.ALUDivide, 0x7F800000, 0xFF800000},
		{isa.ALUMod, 0x7F800000, 0x3F800000}, {isa.ALURsqrt, 0xBF800000, 0}, {isa.ALUAbsoluteDiff, 0x7F800000, 0x7F800000},
	} { // the invalid operations among the pairs: NaN on every host, with the host's own bits
		t.Run(fmt.Sprintf("invalid/%v(%#x,%#x)", c.op, c.a, c.b), func(t *testing.T) {
			if v := evalFloat(c.op, math.Float32frombits(c.a), math.Float32frombits(c.b)); v == v {
				t.Fatalf("%v, not a NaN", v)
			}
		})
	}
	var ops []isa.ALUOp
	for a := 0; a < 256; a++ {
		if arithClass(isa.ALUOp(a)) == classFloat {
			ops = append(ops, isa.ALUOp(a))
		}
	}
	for _, op := range ops { // the fast scans' store relies on it (putF32)
		if !nanSticky(op) {
			continue
		}
		for _, w := range aluNaNInputs {
			if v := evalFloat(op, math.Float32frombits(0xFFC00001), math.Float32frombits(w)); v == v {
				t.Fatalf("nanSticky(%v), but %v(NaN, %#x) = %v", op, op, w, v)
			}
		}
	}
	nS := len(aluNaNInputs)
	nans := 0
	for _, ik := range aluNaNIn {
		in, esIn := num.Kind(ik), ik.Size()
		// Every ordered pair of inputs, as groups of two.
		src := make([]byte, 2*nS*nS*esIn)
		vals := make([]float32, 2*nS*nS)
		for i := range vals {
			w := aluNaNInputs[i/2/nS]
			if i%2 == 1 {
				w = aluNaNInputs[i/2%nS]
			}
			num.StoreF32(in, src[i*esIn:], math.Float32frombits(w))
			vals[i] = num.LoadF32(in, src[i*esIn:])
		}
		for _, ok := range aluNaNOut {
			out, esOut := num.Kind(ok), ok.Size()
			for _, op := range ops {
				for _, cumulative := range []bool{false, true} {
					opcode, D := isa.OpTENSOR_REDUCE_ARITH_OP, nS*nS
					if cumulative {
						opcode, D = isa.OpTENSOR_CUMULATIVE_ARITH_OP, 2*nS*nS
					}
					inst := s4(opcode, pat(sbufAddr(g, 0, 0), [4]int16{1, 2, 1, 1}, [4]uint16{2, uint16(nS * nS), 1, 1}),
						lin(sbufAddr(g, 0, 8192), D), ik, ok, 1)
					inst.Op, inst.OpDim = op, isa.SubdimX
					if !cumulative && op%2 == 0 {
						inst.Negated = 1
					}
					var want []byte
					for p := 0; p < nS*nS; p++ {
						a, b := vals[2*p], vals[2*p+1]
						v := evalFloat(op, a, b)
						if inst.Negated != 0 {
							v = -v
						}
						if cumulative {
							want = append(want, aluWant(out, a)...)
						}
						want = append(want, aluWant(out, v)...)
						if v != v {
							nans++
						}
					}
					for _, ref := range []bool{false, true} {
						got := runALUNaN(t, m, inst, src, D*esOut, ref)
						if !bytes.Equal(got, want) {
							for i := 0; i < D; i++ {
								if g, w := got[i*esOut:(i+1)*esOut], want[i*esOut:(i+1)*esOut]; !bytes.Equal(g, w) {
									t.Fatalf("%v %v neg %d %v->%v (reference %v) result %d: got % x, want % x", opcode, op, inst.Negated, ik, ok, ref, i, g, w)
								}
							}
						}
					}
				}
			}
			// Reciprocal of every input.
			inst := s4(isa.OpRECIPROCAL, lin(sbufAddr(g, 0, 0), nS), lin(sbufAddr(g, 0, 8192), nS), ik, ok, 1)
			var want []byte
			for i := 0; i < nS; i++ {
				x := num.LoadF32(in, src[2*i*nS*esIn:])
				want = append(want, aluWant(out, 1/x)...)
			}
			rsrc := make([]byte, nS*esIn)
			for i := 0; i < nS; i++ {
				copy(rsrc[i*esIn:], src[2*i*nS*esIn:(2*i*nS+1)*esIn])
			}
			for _, ref := range []bool{false, true} {
				if got := runALUNaN(t, m, inst, rsrc, nS*esOut, ref); !bytes.Equal(got, want) {
					t.Fatalf("RECIPROCAL %v->%v (reference %v): got % x, want % x", ik, ok, ref, got, want)
				}
			}
		}
	}
	if nans == 0 {
		t.Fatal("no NaN results")
	}

	// A group of one, a group of a whole lane chunk (blocks of groups) and one longer (the
	// lanes across rows): a NaN with a negative payload among ones (the scans' NaN suffixes
	// patched in place and stored apart).
	for _, G := range []int{1, laneChunk, 2*laneChunk + 1} {
		src := make([]byte, 4*G)
		for i := 0; i < G; i++ {
			binary.LittleEndian.PutUint32(src[4*i:], 0x3F800000)
		}
		binary.LittleEndian.PutUint32(src[4*(G/2):], 0xFFC0BEEF)
		for _, opcode := range []isa.Opcode{isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_ARITH_OP} {
			D := 1
			if opcode == isa.OpTENSOR_CUMULATIVE_ARITH_OP {
				D = G
			}
			for _, op := range []isa.ALUOp{isa.ALUAdd, isa.ALUBypass, isa.ALUMax, isa.ALUAbsMin} {
				inst := s4(opcode, lin(sbufAddr(g, 0, 0), G), lin(sbufAddr(g, 0, 8192), D), isa.DTypeFP32, isa.DTypeBFLOAT16, 1)
				inst.Op, inst.OpDim = op, isa.SubdimX
				var want []byte
				acc := float32(0)
				for i := 0; i < G; i++ {
					x := math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))
					if i == 0 {
						acc = x
					} else {
						acc = evalFloat(op, acc, x)
					}
					if D == G || i == G-1 {
						want = append(want, aluWant(num.BFLOAT16, acc)...)
					}
				}
				for _, ref := range []bool{false, true} {
					if got := runALUNaN(t, m, inst, src, 2*D, ref); !bytes.Equal(got, want) {
						t.Fatalf("%v %v over %d elements (reference %v): got % x, want % x", opcode, op, G, ref, got[:min(len(got), 16)], want[:min(len(want), 16)])
					}
				}
			}
		}
	}
}

// TestUint64IntegerBand pins Provenance dve.int_band_ops for UINT64 inputs at and above 2^63
// (words the int64 lanes hold as negative numbers): the _UINT ops compare and compute unsigned,
// the _INT ops signed, and a result stores as the unsigned value it is, saturating into
// narrower and signed out dtypes (not to 0); a signed input's negative result stores 0 into
// UINT64. Reduces and scans, fast path and reference.
func TestUint64IntegerBand(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	const top = uint64(1) << 63
	cases := []struct {
		op  isa.ALUOp
		in  isa.DType
		xs  []uint64 // the group, as the input's bits
		acc []uint64 // the running values, as 64-bit words
	}{
		{isa.ALUMaxUint, isa.DTypeUINT64, []uint64{top + 5, 7, top + 1}, []uint64{top + 5, top + 5, top + 5}},
		{isa.ALUMinUint, isa.DTypeUINT64, []uint64{^uint64(0), top, 3}, []uint64{^uint64(0), top, 3}},
		{isa.ALUMaxInt, isa.DTypeUINT64, []uint64{top, 1, ^uint64(0)}, []uint64{top, 1, 1}},
		{isa.ALUMinInt, isa.DTypeUINT64, []uint64{1, top, 5}, []uint64{1, top, top}},
		{isa.ALUIsGTUint, isa.DTypeUINT64, []uint64{top, 1}, []uint64{top, 1}},
		{isa.ALUIsLTUint, isa.DTypeUINT64, []uint64{top, 1}, []uint64{top, 0}},
		{isa.ALUIsGEUint, isa.DTypeUINT64, []uint64{1, top}, []uint64{1, 0}},
		{isa.ALUIsLEUint, isa.DTypeUINT64, []uint64{1, top}, []uint64{1, 1}},
		{isa.ALUIsGTInt, isa.DTypeUINT64, []uint64{top, 1}, []uint64{top, 0}},
		{isa.ALUDivideUint, isa.DTypeUINT64, []uint64{^uint64(0) - 1, 2, 0}, []uint64{^uint64(0) - 1, top - 1, 0}},
		{isa.ALUModUint, isa.DTypeUINT64, []uint64{^uint64(0), 10}, []uint64{^uint64(0), 5}},
		{isa.ALUMultUint, isa.DTypeUINT64, []uint64{top + 1, 3}, []uint64{top + 1, top + 3}},
		{isa.ALUAddInt, isa.DTypeUINT64, []uint64{^uint64(0), 0, 2}, []uint64{^uint64(0), ^uint64(0), 1}},
		{isa.ALUSubtractInt, isa.DTypeUINT64, []uint64{5, 7}, []uint64{5, ^uint64(1)}},
		{isa.ALUMaxInt, isa.DTypeINT32, []uint64{0xFFFFFFFB, 0xFFFFFFF9}, []uint64{^uint64(4), ^uint64(4)}}, // -5, -7
		{isa.ALUSubtractInt, isa.DTypeUINT32, []uint64{5, 7}, []uint64{5, ^uint64(1)}},                      // -2, signed
	}
	outs := []isa.DType{isa.DTypeUINT64, isa.DTypeINT64, isa.DTypeUINT32, isa.DTypeINT32, isa.DTypeUINT16, isa.DTypeUINT8, isa.DTypeINT8}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v/%v", c.op, c.in), func(t *testing.T) {
			k, es, n := num.Kind(c.in), c.in.Size(), len(c.xs)
			src := make([]byte, n*es)
			for i, x := range c.xs {
				num.StoreBits(k, src[i*es:], x)
			}
			for i := 1; i < n; i++ { // the expectations agree with the ALU itself
				x := int64(c.xs[i])
				if c.in != isa.DTypeUINT64 {
					x = num.LoadInt(k, src[i*es:])
				}
				if got := uint64(evalInt(c.op, int64(c.acc[i-1]), x)); got != c.acc[i] {
					t.Fatalf("%v step %d: evalInt gives %#x, the case says %#x", c.op, i, got, c.acc[i])
				}
			}
			for _, out := range outs {
				ko, eo := num.Kind(out), out.Size()
				word := func(w uint64) []byte { // w stored as out: saturated, read unsigned for a UINT64 input
					b := make([]byte, eo)
					if c.in == isa.DTypeUINT64 {
						num.StoreUint(ko, b, w)
					} else {
						num.StoreInt(ko, b, int64(w))
					}
					return b
				}
				for _, cumulative := range []bool{false, true} {
					opcode, D := isa.OpTENSOR_REDUCE_ARITH_OP, 1
					var want []byte
					if cumulative {
						opcode, D = isa.OpTENSOR_CUMULATIVE_ARITH_OP, n
						for _, w := range c.acc {
							want = append(want, word(w)...)
						}
					} else {
						want = word(c.acc[n-1])
					}
					inst := s4(opcode, lin(sbufAddr(g, 0, 0), n), lin(sbufAddr(g, 0, 8192), D), c.in, out, 1)
					inst.Op, inst.OpDim = c.op, isa.SubdimX
					for _, ref := range []bool{false, true} {
						if got := runALUNaN(t, m, inst, src, D*eo, ref); !bytes.Equal(got, want) {
							t.Errorf("%v %v %v over %#x -> %v (reference %v): got % x, want % x", opcode, c.op, c.in, c.xs, out, ref, got, want)
						}
					}
				}
			}
		})
	}
	// The headline case, written out: MAX_UINT of UINT64 2^63 + 5 into UINT32 is 0xFFFFFFFF.
	inst := s4(isa.OpTENSOR_REDUCE_ARITH_OP, lin(sbufAddr(g, 0, 0), 2), lin(sbufAddr(g, 0, 8192), 1), isa.DTypeUINT64, isa.DTypeUINT32, 1)
	inst.Op, inst.OpDim = isa.ALUMaxUint, isa.SubdimX
	src := make([]byte, 16)
	binary.LittleEndian.PutUint64(src, top+5)
	binary.LittleEndian.PutUint64(src[8:], 7)
	for _, ref := range []bool{false, true} {
		if got := binary.LittleEndian.Uint32(runALUNaN(t, m, inst, src, 4, ref)); got != 0xFFFFFFFF {
			t.Errorf("MAX_UINT(2^63+5, 7) into UINT32 (reference %v) = %#x, want 0xffffffff", ref, got)
		}
	}
}

func TestMemsetFillsEveryChannel(t *testing.T) {
	m, err := mem.New(isa.CAYMAN, mem.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		dtype isa.DType
		value uint32
		want  []byte
	}{
		{"bf16 one", isa.DTypeBFLOAT16, 0x3f80, []byte{0x80, 0x3f}},
		{"fp32", isa.DTypeFP32, 0x40490fdb, []byte{0xdb, 0x0f, 0x49, 0x40}},
		{"int8", isa.DTypeINT8, 0xfe, []byte{0xfe}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := &isa.Memset{Header: isa.Header{Opcode: isa.OpMEMSET, InstWordLen: 16}, Dtype: tc.dtype, NumActiveChannels: 3, SetValue: tc.value, DstElementCount: 5,
				DstMemPattern: isa.Tensor4D{StartAddr: isa.Addr4(0x400), StepElem: [4]int16{2, 0, 0, 0}, NumElem: [4]uint16{5, 1, 1, 1}}}
			var d DVE
			if _, err := d.Execute(m, in, isa.CAYMAN); err != nil {
				t.Fatal(err)
			}
			es := len(tc.want)
			for c := 0; c < 4; c++ {
				row := m.Partition(mem.SBUF, c)[0x400 : 0x400+10*es]
				for i := 0; i < 10; i++ {
					got := row[i*es : (i+1)*es]
					wantSet := c < 3 && i%2 == 0
					if wantSet != bytes.Equal(got, tc.want) {
						t.Fatalf("partition %d element %d = % x; set %v", c, i, got, wantSet)
					}
				}
			}
			m.Reset()
		})
	}
}
