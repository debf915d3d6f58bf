package sim

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

func sbufAddr(g isa.Generation, p int, off uint32) isa.Addr4 {
	return isa.Addr4(uint32(p)*g.Geometry().StateBufPartitionSize + off)
}

// s4 builds an S4D4_TR instruction over nac channels with contiguous 1-D patterns of n elements.
func s4(op isa.Opcode, dt isa.DType, nac uint8, src, dst isa.Addr4, n uint16, ev isa.Events) *isa.S4D4TR {
	t := func(a isa.Addr4) isa.Tensor4D {
		return isa.Tensor4D{StartAddr: a, StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{n, 1, 1, 1}}
	}
	return &isa.S4D4TR{Header: isa.Header{Opcode: op, InstWordLen: 16}, Events: ev, SrcMemPattern: t(src), DstMemPattern: t(dst),
		InDtype: dt, OutDtype: dt, NumActiveChannels: nac}
}

func fillRandom(t *testing.T, m *Machine, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	mm := m.Memory()
	for p := 0; p < mm.NumPartitions(mem.SBUF); p++ {
		part := make([]byte, 4096)
		for i := range part {
			part[i] = byte(r.Uint32())
		}
		if err := mm.Write(mem.Loc{Region: mem.SBUF, Partition: p}, part); err != nil {
			t.Fatal(err)
		}
	}
}

func snapshot(m *Machine) []byte {
	var b bytes.Buffer
	mm := m.Memory()
	for _, r := range []mem.Region{mem.SBUF, mem.PSUM} {
		for p := 0; p < mm.NumPartitions(r); p++ {
			b.Write(mm.Partition(r, p))
		}
	}
	return b.Bytes()
}

// TestAtomicFailure: the instruction that fails a bounds check changes no memory and no
// semaphore; everything before it took effect, nothing after it ran.
func TestAtomicFailure(t *testing.T) {
	g := isa.CAYMAN
	good := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x2000), 64, incOn(5, true))
	// src reads bytes never written (a run-time check, with CheckUninit): must fail whole.
	bad := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0x10000), sbufAddr(g, 0, 0x100), 64,
		isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: 5, SemaphoreValue: 1, UpdateMode: isa.SemWrImmRead, UpdateIdx: 6})
	bad.Events.SemaphoreValue = 1
	after := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x4000), 64, incOn(7, false))

	ref, _ := New(Config{Gen: g, CheckUninit: true})
	fillRandom(t, ref, 1)
	if _, err := ref.Run(prog(q(isa.EngineDVE, good))); err != nil {
		t.Fatal(err)
	}
	m, _ := New(Config{Gen: g, CheckUninit: true})
	fillRandom(t, m, 1)
	_, err := m.Run(prog(q(isa.EngineDVE, good, bad, after)))
	if !errors.Is(err, fault.ErrUninit) || !errors.Is(err, fault.ErrUninit) {
		t.Fatalf("err = %v, want fault.ErrUninit", err)
	}
	var ie *InstError
	if !errors.As(err, &ie) || ie.Engine != "DVE" || ie.Index != 1 || ie.Offset != 64 || ie.Opcode != isa.OpCOPY || ie.Rule == "" {
		t.Fatalf("InstError %+v", ie)
	}
	if !bytes.Equal(snapshot(ref), snapshot(m)) {
		t.Error("memory differs from the state before the failing instruction")
	}
	if m.Semaphores() != ref.Semaphores() {
		t.Errorf("semaphores changed: sem[5]=%d sem[6]=%d sem[7]=%d", m.Semaphore(5), m.Semaphore(6), m.Semaphore(7))
	}
	t.Log(err)
}

// TestAtomicFailureAcrossEngines: an engine that fails stops the whole machine at that instant
// (Provenance sim.stop_on_error): the failing instruction changes nothing, no engine issues
// again, and instructions already issued complete, their semaphore updates included (a COPY's
// EVENTS update and a DMA's completion semaphore were dropped, leaving their data written and
// their semaphores 0). The outcome is the same run to run, trace bytes included.
func TestAtomicFailureAcrossEngines(t *testing.T) {
	g := isa.CAYMAN
	run := func() (*Machine, *Result, error) {
		m, _ := New(Config{Gen: g, CheckUninit: true, Trace: true})
		fillRandom(t, m, 3)
		if err := m.Memory().WriteAt(1<<40, make([]byte, 32*32*4)); err != nil {
			t.Fatal(err)
		}
		long := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x2000), 1000, incOn(5, true))
		short := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x3000), 32, isa.Events{})
		bad := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0x10000), sbufAddr(g, 0, 0x100), 64, incOn(6, false))
		ld := dmaLoad(g, 1<<40, 32, 32, 7, incOn(8, true))
		ld.DstStartAddr = isa.LocalAddr8(0x8000)
		p := prog(q(isa.EngineDVE, long), q(isa.EnginePOOL, copyInst(0, 1, waitGE(9, 1))),
			q(isa.EngineACT, short, bad, short), q(isa.EngineTPB_SP, ld, ld))
		res, err := m.Run(p)
		return m, res, err
	}
	m, res, err := run()
	var ie *InstError
	if !errors.As(err, &ie) || ie.Engine != "ACT" || ie.Index != 1 || !errors.Is(err, fault.ErrUninit) {
		t.Fatalf("err = %v, want ACT instruction 1 reading never-written bytes", err)
	}
	shortPS, _ := testCost(isa.EngineACT, s4(isa.OpCOPY, isa.DTypeFP32, 32, 0, 0, 32, isa.Events{}), false)
	if ie.TimePS != shortPS {
		t.Errorf("failed at %d ps, want %d (after ACT's first COPY)", ie.TimePS, shortPS)
	}
	// DVE's COPY (issued at 0, done at 760 ns) and SP's first DMA (issued at 0, its descriptors
	// after 600 ns) complete; the failing COPY's update and SP's second DMA (due at 600 ns) do not.
	if got := [4]uint32{m.Semaphore(5), m.Semaphore(6), m.Semaphore(7), m.Semaphore(8)}; got != [4]uint32{1, 0, 1, 1} {
		t.Errorf("sem[5..8] = %v, want [1 0 1 1]", got)
	}
	stats := map[string]EngineStats{}
	for _, s := range res.Engines {
		stats[s.Engine] = s
	}
	if s := stats["POOL"]; s.Waits != 1 || s.WaitPS != ie.TimePS {
		t.Errorf("POOL, waiting when the run stopped: %+v", s)
	}
	if s := stats["SP"]; s.Instructions != 1 {
		t.Errorf("SP issued %d instructions, want 1", s.Instructions)
	}
	counters := 0
	var b1 bytes.Buffer
	if err := res.Trace.Write(&b1); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b1.Bytes(), []byte(`{"name":"sem[7]","ph":"C","ts":0.000000,`)) {
		t.Errorf("the DMA's completion semaphore has no initial sample:\n%s", b1.String())
	}
	for _, c := range []string{`"sem[5]","ph":"C"`, `"sem[7]","ph":"C"`, `"sem[8]","ph":"C"`} {
		counters += bytes.Count(b1.Bytes(), []byte(c))
	}
	if counters != 6 {
		t.Errorf("%d samples of sem[5], sem[7], sem[8], want 6 (initial and final each)", counters)
	}
	m2, res2, err2 := run()
	var b2 bytes.Buffer
	res2.Trace.Write(&b2)
	if err2.Error() != err.Error() || !bytes.Equal(snapshot(m), snapshot(m2)) || m.Semaphores() != m2.Semaphores() || !bytes.Equal(b1.Bytes(), b2.Bytes()) {
		t.Error("a second run of the failing program differs")
	}
}

func TestTransposeGatedBySemaphore(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g, Trace: true})
	mm := m.Memory()
	// POOL copies a 32x32 uint16 tile from offset 0 to 0x400 and bumps sem[1] on completion; the
	// DVE waits for it and transposes 0x400 -> 0x800.
	src := make([][]byte, 32)
	for c := range src {
		src[c] = make([]byte, 64)
		for e := 0; e < 32; e++ {
			src[c][2*e], src[c][2*e+1] = byte(c), byte(e)
		}
		mm.Write(mem.Loc{Region: mem.SBUF, Partition: c}, src[c])
	}
	p := prog(
		q(isa.EnginePOOL, s4(isa.OpCOPY, isa.DTypeUINT16, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x400), 32, incOn(1, true))),
		q(isa.EngineDVE, s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeUINT16, 32, sbufAddr(g, 0, 0x400), sbufAddr(g, 0, 0x800), 32, waitGE(1, 1))),
	)
	res, err := m.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 32; c++ {
		got := mm.Partition(mem.SBUF, c)[0x800 : 0x800+64]
		for e := 0; e < 32; e++ {
			// O[c][e] = S[e][c]: channel c element e holds (channel e, element c) of the source.
			if got[2*e] != byte(e) || got[2*e+1] != byte(c) {
				t.Fatalf("dst channel %d element %d = (%d,%d), want (%d,%d)", c, e, got[2*e], got[2*e+1], e, c)
			}
		}
	}
	var b bytes.Buffer
	res.Trace.Write(&b)
	checkTraceJSON(t, b.Bytes(), []string{"DVE", "POOL"})
}
