package dve

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
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
	if _, err := d.Execute(m, in, g); !errors.Is(err, ErrNoMask) {
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
	if !errors.Is(err, mem.ErrUninit) || !errors.As(err, &me) || me.Addr != 64 {
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
	if _, err := d.Execute(m, tr, g); !errors.Is(err, mem.ErrUninit) {
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
// a failing instruction leaves memory unchanged and fails with a rule and a category.
//
// Every exec starts from the same memory state for its (generation, uninit tracking) pair: a
// memory is kept across execs only while the instructions run on it fail (which, checked here,
// changes none of the bytes the snapshot covers), and a fresh one replaces it after a success.
// So coverage does not depend on earlier execs and the fuzzer's minimisation reproduces it.
func FuzzExecute(f *testing.F) {
	f.Add(make([]byte, 64), int64(1))
	seed := make([]byte, 64)
	seed[0] = byte(isa.OpSTREAM_TRANSPOSE)
	seed[34] = 32
	f.Add(seed, int64(2))
	type memKey struct {
		g     isa.Generation
		track bool
	}
	mems := map[memKey]*mem.Memory{}
	const snapBytes = 4096 // the bytes checked: the first 4 KiB of every SBUF and PSUM partition
	var before []byte
	f.Fuzz(func(t *testing.T, word []byte, r int64) {
		if len(word) < 64 {
			word = append(word, make([]byte, 64-len(word))...)
		}
		rng := rand.New(rand.NewSource(r))
		key := memKey{isa.Generations[rng.Intn(len(isa.Generations))], rng.Intn(2) == 0}
		g := key.g
		m := mems[key]
		if m == nil {
			// A fixed pattern in the checked bytes; under tracking, the first half of each
			// partition's checked bytes counts as written, the rest does not.
			m = newMem(t, g, mem.Options{TrackUninit: key.track})
			for _, rg := range []mem.Region{mem.SBUF, mem.PSUM} {
				for p := 0; p < m.NumPartitions(rg); p++ {
					part := m.Partition(rg, p)[:snapBytes]
					for i := range part {
						part[i] = byte(i*7 + p*13)
					}
					m.MarkInit(rg, p, 0, snapBytes/2)
				}
			}
			mems[key] = m
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
		// Snapshot the checked bytes into a buffer reused across execs (building a fresh 1 MiB
		// snapshot twice per exec took 90% of the time).
		before = before[:0]
		for _, rg := range []mem.Region{mem.SBUF, mem.PSUM} {
			for p := 0; p < m.NumPartitions(rg); p++ {
				before = append(before, m.Partition(rg, p)[:snapBytes]...)
			}
		}
		_, err := d.Execute(m, in, g)
		if err == nil {
			delete(mems, key) // it may have written: the next exec on this key starts afresh
		} else {
			var e *Error
			if !errors.As(err, &e) || e.Rule == "" {
				t.Fatalf("error without rule: %v", err)
			}
			known := false
			for _, s := range []error{ErrInvalid, ErrBounds, ErrUnsupported, ErrNoMask, ErrLimit, mem.ErrPSUMWrite, mem.ErrUninit, mem.ErrUnsupported} {
				known = known || errors.Is(err, s)
			}
			if !known {
				t.Fatalf("error of no category: %v", err)
			}
			at := 0
			for _, rg := range []mem.Region{mem.SBUF, mem.PSUM} {
				for p := 0; p < m.NumPartitions(rg); p++ {
					if !bytes.Equal(m.Partition(rg, p)[:snapBytes], before[at:at+snapBytes]) {
						t.Fatalf("failed instruction changed %v partition %d: %v", rg, p, err)
					}
					at += snapBytes
				}
			}
		}
	})
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
