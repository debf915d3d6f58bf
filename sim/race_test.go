package sim

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/timing"
)

// cp is a COPY (or CAST on ACT: same bytes) of 32 fp32 elements over 32 partitions.
func cp(src, dst uint32, ev isa.Events) *isa.S4D4TR {
	g := isa.CAYMAN
	return s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, src), sbufAddr(g, 0, dst), 32, ev)
}

func evs(wait isa.WaitMode, widx uint8, upd isa.UpdateMode, uidx uint8, v uint32) isa.Events {
	return isa.Events{WaitMode: wait, WaitIdx: widx, UpdateMode: upd, UpdateIdx: uidx, SemaphoreValue: v}
}

var (
	none  = isa.Events{}
	incC  = func(s uint8) isa.Events { return evs(0, 0, isa.SemIncComplete, s, 0) }
	incR  = func(s uint8) isa.Events { return evs(0, 0, isa.SemIncRead, s, 0) }
	ge    = func(s uint8, v uint32) isa.Events { return evs(isa.WaitForSemGEImm, s, 0, 0, v) }
	eq    = func(s uint8, v uint32) isa.Events { return evs(isa.WaitForSemEQImm, s, 0, 0, v) }
	wrImm = func(s uint8, v uint32) isa.Events { return evs(0, 0, isa.SemWrImmComplete, s, v) }
)

// memsetEven fills the even fp32 elements of 32 x 32 from off in 32 partitions.
func memsetEven(off uint32) *isa.Memset {
	return &isa.Memset{Header: isa.Header{Opcode: isa.OpMEMSET, InstWordLen: 16}, Dtype: isa.DTypeFP32, NumActiveChannels: 32, SetValue: 7,
		DstElementCount: 32, DstMemPattern: isa.Tensor4D{StartAddr: sbufAddr(isa.CAYMAN, 0, off), StepElem: [4]int16{2, 1, 1, 1}, NumElem: [4]uint16{32, 1, 1, 1}}}
}

// oddCopy copies 32 fp32 elements into every other element from off (the odd ones of memsetEven).
func oddCopy(off uint32) *isa.S4D4TR {
	x := cp(0, off, none)
	x.DstMemPattern.StepElem[0] = 2
	return x
}

// toHBM points a DMA load's destination at HBM 0x200000, row-major.
func toHBM(d *isa.DMADirect2D) *isa.DMADirect2D {
	d.DstStartAddr, d.DstStepElem[1] = isa.Addr8(0x200000), int32(d.DstNumElem[0])
	return d
}

// raceMachine is a CAYMAN machine with every SBUF byte written (so reads are defined).
func raceMachine(t testing.TB, mode RaceMode) *Machine {
	t.Helper()
	m, err := New(Config{Gen: isa.CAYMAN, Races: mode, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRaceClasses runs small programs of each race class and their ordered controls, and checks
// the pairs found: which engines, which kind, which bytes.
func TestRaceClasses(t *testing.T) {
	g := isa.CAYMAN
	dmaEv := func(ev isa.Events) *isa.DMADirect2D { return dmaLoad(g, 0x10000, 64, 64, 7, ev) }
	type want struct{ first, second, kind string }
	cases := []struct {
		name  string
		p     *Program
		init  map[int]uint32
		races []want
	}{
		{"write-write, no semaphore", prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EnginePOOL, cp(0x800, 0x100, none))),
			nil, []want{{"DVE", "POOL", "write-write"}}},
		{"write-write ordered", prog(q(isa.EngineDVE, cp(0, 0x100, incC(1))), q(isa.EnginePOOL, cp(0x800, 0x100, ge(1, 1)))), nil, nil},
		{"read-read", prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EnginePOOL, cp(0, 0x200, none))), nil, nil},
		{"write-read", prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EngineACT, cp(0x100, 0x200, none))),
			nil, []want{{"DVE", "ACT", "write-read"}}},
		{"read-write", prog(q(isa.EngineDVE, cp(0x100, 0x200, none)), q(isa.EngineACT, cp(0, 0x100, none))),
			nil, []want{{"DVE", "ACT", "read-write"}}},
		{"in place on one engine", prog(q(isa.EngineDVE, cp(0x100, 0x100, none), cp(0x100, 0x100, none))), nil, nil},
		{"disjoint bytes", prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EnginePOOL, cp(0, 0x180, none))), nil, nil},
		// counts: the wait for >= 1 is ordered after DVE's first update only, not its second
		{"wait for 1 of 2 updates", prog(q(isa.EngineDVE, cp(0, 0x100, incC(1)), cp(0, 0x200, incC(1))),
			q(isa.EngineACT, cp(0x200, 0x300, ge(1, 1)))), nil, []want{{"DVE", "ACT", "write-read"}}},
		{"wait for 2 of 2 updates", prog(q(isa.EngineDVE, cp(0, 0x100, incC(1)), cp(0, 0x200, incC(1))),
			q(isa.EngineACT, cp(0x200, 0x300, ge(1, 2)))), nil, nil},
		{"EQ wait after both", prog(q(isa.EngineDVE, cp(0, 0x100, incC(1)), cp(0, 0x200, incC(1))),
			q(isa.EngineACT, cp(0x200, 0x300, eq(1, 2)))), nil, nil},
		{"two producers, one counted", prog(q(isa.EngineDVE, cp(0, 0x100, incC(1))), q(isa.EnginePOOL, cp(0, 0x2000, none), cp(0, 0x200, incC(1))),
			q(isa.EngineACT, cp(0x100, 0x300, ge(1, 1)), cp(0x200, 0x400, none))), nil, []want{{"POOL", "ACT", "write-read"}}},
		{"write immediate", prog(q(isa.EngineDVE, cp(0, 0x100, wrImm(1, 5))), q(isa.EngineACT, cp(0x100, 0x300, ge(1, 5)))), nil, nil},
		{"initial value orders nothing", prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EngineACT, cp(0x100, 0x300, ge(1, 1)))),
			map[int]uint32{1: 1}, []want{{"DVE", "ACT", "write-read"}}},
		// SEM_INC_READ orders the reads (ACT may overwrite DVE's source) but not the writes
		{"INC_READ orders reads", prog(q(isa.EngineDVE, cp(0x100, 0x200, incR(1))), q(isa.EngineACT, cp(0, 0x100, ge(1, 1)))), nil, nil},
		{"INC_READ does not order writes", prog(q(isa.EngineDVE, cp(0x100, 0x200, incR(1))), q(isa.EngineACT, cp(0x200, 0x300, ge(1, 1)))),
			nil, []want{{"DVE", "ACT", "write-read"}}},
		// DMA: its writes are unordered before the queue's later instructions, ordered by its update
		{"DMA then reader, no wait", prog(q(isa.EngineTPB_SP, dmaEv(none)), q(isa.EngineDVE, cp(0x2000, 0x3000, none), cp(0, 0x100, none))),
			nil, []want{{"SP", "DVE", "write-read"}}},
		{"DMA then reader, waits its update", prog(q(isa.EngineTPB_SP, dmaEv(incC(2))), q(isa.EngineDVE, cp(0, 0x100, ge(2, 1)))), nil, nil},
		{"DMA then reader, waits its completion semaphore", prog(q(isa.EngineTPB_SP, dmaEv(none)), q(isa.EngineDVE, cp(0, 0x100, ge(7, 1)))), nil, nil},
		{"MEMSET interleaved with a COPY", prog(q(isa.EngineDVE, memsetEven(0x1000)), q(isa.EnginePOOL, cp(0, 0x1000, none))),
			nil, []want{{"DVE", "POOL", "write-write"}}},
		{"MEMSET of even elements beside odd ones", prog(q(isa.EngineDVE, memsetEven(0x1000)), q(isa.EnginePOOL, oddCopy(0x1004))), nil, nil},
		{"two DMAs into the same HBM", prog(q(isa.EngineTPB_SP, toHBM(dmaEv(none))), q(isa.EngineACT, toHBM(dmaEv(none)))),
			nil, []want{{"ACT", "SP", "write-write"}}},
		{"two DMAs into the same HBM, ordered", prog(q(isa.EngineTPB_SP, toHBM(dmaEv(ge(7, 1)))), q(isa.EngineACT, toHBM(dmaEv(none)))), nil, nil},
		{"DMA not ordered before its own queue", prog(q(isa.EngineACT, dmaEv(none), cp(0, 0x100, none))),
			nil, []want{{"ACT", "ACT", "write-read"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []RaceMode{RacesError, RacesWarn, RacesOff} {
				m := raceMachine(t, mode)
				for i, v := range c.init {
					m.SetSemaphore(i, v)
				}
				res, err := m.Run(c.p)
				switch {
				case mode == RacesError && len(c.races) > 0:
					var re *RaceError
					if !errors.As(err, &re) || !errors.Is(err, fault.ErrRace) || len(re.Races) != len(res.Races) {
						t.Fatalf("%v: err = %v, want a *RaceError", mode, err)
					}
				case err != nil:
					t.Fatalf("%v: %v", mode, err)
				}
				if mode == RacesOff {
					if len(res.Races) != 0 {
						t.Errorf("off: %d races", len(res.Races))
					}
					continue
				}
				if len(res.Races) != len(c.races) {
					t.Fatalf("%v: %d races, want %d: %v", mode, len(res.Races), len(c.races), res.Races)
				}
				for i, w := range c.races {
					r := res.Races[i]
					if r.First.Engine != w.first || r.Second.Engine != w.second || r.Kind() != w.kind {
						t.Errorf("race %d: %s then %s (%s), want %s then %s (%s)", i, r.First.Engine, r.Second.Engine, r.Kind(), w.first, w.second, w.kind)
					}
					if len(r.Ranges) == 0 || r.Bytes == 0 || r.Hint == "" {
						t.Errorf("race %d lacks bytes or hint: %+v", i, r)
					}
				}
			}
		})
	}
}

// The bytes of a race are the overlap, per region and partition range, in the user's syntax.
func TestRaceRanges(t *testing.T) {
	g := isa.CAYMAN
	m := raceMachine(t, RacesWarn)
	// DVE writes 32 partitions x [0x100, 0x180); POOL 16 partitions from 8 x [0x140, 0x1c0)
	pool := s4(isa.OpCOPY, isa.DTypeFP32, 16, sbufAddr(g, 8, 0x800), sbufAddr(g, 8, 0x140), 32, none)
	res, err := m.Run(prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EnginePOOL, pool)))
	if err != nil || len(res.Races) != 1 {
		t.Fatalf("err %v, races %v", err, res.Races)
	}
	r := res.Races[0]
	want := RaceRange{Region: mem.SBUF, FirstPartition: 8, LastPartition: 23, Lo: 0x140, Hi: 0x180}
	if len(r.Ranges) != 1 || r.Ranges[0] != want || r.Bytes != 16*0x40 {
		t.Errorf("ranges %v (%d bytes), want %v (%d)", r.Ranges, r.Bytes, want, 16*0x40)
	}
	if s := want.String(); s != "sbuf:8..23:0x140..0x17f" {
		t.Errorf("range prints %q", s)
	}
	if s := (RaceRange{Region: mem.HBM, Lo: 0x1000, Hi: 0x1100}).String(); s != "hbm:0x1000..0x10ff" {
		t.Errorf("hbm range prints %q", s)
	}
	// a lowered instruction's origin (the NKI call) reaches the report
	p := prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EnginePOOL, cp(0x800, 0x100, none)))
	p.Queues[1].Insts[0].Origin = "k.py:7 nl.store"
	if res, _ := raceMachine(t, RacesWarn).Run(p); len(res.Races) != 1 || res.Races[0].Second.Origin != "k.py:7 nl.store" || res.Races[0].First.Origin != "" {
		t.Errorf("origins: %+v", res.Races)
	}
	// interleaved walks that share no byte do not race: even elements and odd elements
	even := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 32, none)
	even.DstMemPattern.StepElem[0] = 2
	odd := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1004), 32, none)
	odd.DstMemPattern.StepElem[0] = 2
	m = raceMachine(t, RacesError)
	if res, err := m.Run(prog(q(isa.EngineDVE, even), q(isa.EnginePOOL, odd))); err != nil || len(res.Races) != 0 {
		t.Errorf("interleaved walks: %v %v", err, res.Races)
	}
}

// A too-small wait on a DMA fanned over two engines names the engine it did not count.
func TestRaceDMAFanOut(t *testing.T) {
	g := isa.CAYMAN
	d := dmaLoad(g, 0x10000, 64, 64, 7, none)
	d.SemIncrement = 2
	for _, c := range []struct {
		wait  uint32
		races int
	}{{1, 1}, {2, 0}} {
		t.Run(fmt.Sprintf("wait >= %d", c.wait), func(t *testing.T) {
			m := raceMachine(t, RacesWarn)
			res, err := m.Run(prog(q(isa.EngineTPB_SP, d), q(isa.EngineDVE, s4(isa.OpCOPY, isa.DTypeFP32, 64, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 64, ge(7, c.wait)))))
			if err != nil || len(res.Races) != c.races {
				t.Fatalf("wait >= %d: err %v, %d races, want %d: %v", c.wait, err, len(res.Races), c.races, res.Races)
			}
			if c.races > 0 {
				r := res.Races[0]
				if r.First.Engine != "SP" || len(r.First.DMAEngines) != 1 || r.Second.Engine != "DVE" || r.Ranges[0].LastPartition-r.Ranges[0].FirstPartition+1 != 32 {
					t.Errorf("race %+v, want one DMA engine's 32 rows", r)
				}
			}
		})
	}
}

// raceFreeProgram draws a program that is race-free by construction: phases separated by
// barriers (every queue's last instruction of a phase adds 1 to the phase's semaphore, every
// queue's first instruction of the next waits for all of them); within a phase each queue writes
// buffers no other queue touches in that phase and reads any buffer nobody writes in it. SP
// loads a buffer by DMA from HBM once a phase.
func raceFreeProgram(r *rand.Rand, g isa.Generation) *Program {
	const bufs = 12
	bufOff := func(b int) uint32 { return uint32(0x200 * b) } // 32 fp32 = 128 B each, 0x200 apart
	engines := []isa.Engine{isa.EngineDVE, isa.EnginePOOL, isa.EngineACT, isa.EngineTPB_SP}
	qs := make([]Queue, len(engines))
	for i, e := range engines {
		qs[i].Engine = e
	}
	phases := 2 + r.IntN(4)
	for p := 0; p < phases; p++ {
		owner := make([]int, bufs) // buffer -> engine writing it this phase (-1 none)
		for b := range owner {
			owner[b] = -1
			if r.IntN(2) == 0 {
				owner[b] = r.IntN(len(engines))
			}
		}
		readable := []int{}
		for b, o := range owner {
			if o < 0 {
				readable = append(readable, b)
			}
		}
		for ei, e := range engines {
			var mine []int
			for b, o := range owner {
				if o == ei {
					mine = append(mine, b)
				}
			}
			n := 1 + r.IntN(3)
			if e == isa.EngineTPB_SP {
				// one DMA a phase: a queue's DMAs are not ordered with each other nor with the
				// barrier unless their own update is the one it counts
				n = 1
			}
			for k := 0; k < n; k++ {
				var ev isa.Events
				if k == 0 && p > 0 {
					ev.WaitMode, ev.WaitIdx, ev.SemaphoreValue = isa.WaitForSemGEImm, uint8(p), uint32(len(engines))
				}
				if k == n-1 && p < phases-1 {
					ev.UpdateMode, ev.UpdateIdx = isa.SemIncComplete, uint8(p+1)
				}
				var in isa.Inst
				if e == isa.EngineTPB_SP {
					// a DMA into one of SP's buffers, or (none owned) an HBM-to-HBM copy
					d := dmaLoad(g, 0x10000+uint64(r.IntN(4))*0x1000, 32, 32, 0, ev)
					d.SemIncrement = 0
					if len(mine) > 0 {
						d.DstStartAddr = isa.LocalAddr8(bufOff(mine[r.IntN(len(mine))]))
					} else {
						d.DstStartAddr = isa.Addr8(0x100000 + uint64(p)*0x10000)
						d.DstStepElem[1] = 32
					}
					in = d
				} else {
					src := bufOff(readable[r.IntN(len(readable))])
					dst := uint32(0x8000 + 0x200*ei) // scratch of this engine when it owns nothing
					if len(mine) > 0 {
						dst = bufOff(mine[r.IntN(len(mine))])
					}
					op := isa.OpCOPY
					if e == isa.EngineACT || r.IntN(2) == 0 {
						op = isa.OpCAST
					}
					x := s4(op, isa.DTypeFP32, 32, sbufAddr(g, 0, src), sbufAddr(g, 0, dst), 32, ev)
					if op == isa.OpCAST {
						x.OutDtype = isa.DTypeBFLOAT16
						x.DstMemPattern.NumElem[0] = 32
					}
					in = x
				}
				qs[ei].Insts = append(qs[ei].Insts, Instr{Inst: in})
			}
		}
		if len(readable) == 0 { // every queue read something: give them a buffer nobody writes
			return raceFreeProgram(r, g)
		}
	}
	return prog(qs...)
}

// perturbed returns a machine whose instruction costs are scaled at random (1/4 to 4 times,
// per instruction) and whose DMA and semaphore figures are scaled per run.
func perturbed(t testing.TB, seed uint64) *Machine {
	r := rand.New(rand.NewPCG(seed, 7))
	tt := timing.Default(isa.CAYMAN)
	f := func() float64 { return 0.25 + 3.75*r.Float64() }
	tt.DMABytesPerNs *= f()
	tt.DMADescriptorNs *= f()
	tt.DGEIssueNs *= f()
	tt.DMASemToStartNs *= f()
	tt.EngineSemNs *= f()
	m, err := New(Config{Gen: isa.CAYMAN, Timing: &tt, Races: RacesWarn})
	if err != nil {
		t.Fatal(err)
	}
	m.perturb = func(in isa.Inst, readPS, totalPS int64) (int64, int64) {
		rd := max(1, int64(float64(readPS)*f()))
		return rd, rd + max(1, int64(float64(totalPS-readPS)*f()))
	}
	return m
}

func fillSBUFAndHBM(t testing.TB, m *Machine) {
	r := rand.New(rand.NewPCG(42, 42))
	mm := m.Memory()
	for p := 0; p < 32; p++ {
		row := make([]byte, 0x9000)
		for i := range row {
			row[i] = byte(r.Uint32())
		}
		if err := mm.Write(mem.Loc{Region: mem.SBUF, Partition: p}, row); err != nil {
			t.Fatal(err)
		}
	}
	h := make([]byte, 0x4000)
	for i := range h {
		h[i] = byte(r.Uint32())
	}
	if err := mm.WriteAt(0x10000, h); err != nil {
		t.Fatal(err)
	}
}

func raceSnapshot(t testing.TB, m *Machine) []byte {
	var b bytes.Buffer
	for p := 0; p < 32; p++ {
		b.Write(m.Memory().Partition(mem.SBUF, p)[:0x9000])
	}
	h := make([]byte, 0x60000)
	if err := m.Memory().ReadRaw(0x100000, h); err != nil {
		t.Fatal(err)
	}
	b.Write(h)
	return b.Bytes()
}

// TestRaceFreeIndependentOfTiming: random race-free programs give the same
// bytes under randomly perturbed costs, and are reported race-free every time; the same programs
// with one barrier wait removed are racy, and the detector says so whatever the timing.
func TestRaceFreeIndependentOfTiming(t *testing.T) {
	programs, timings := 24, 5
	if testing.Short() {
		programs = 8
	}
	racyRuns := 0
	ms := make([]*Machine, 2*timings) // Reset between programs: a new machine costs more than the run
	for i := range ms {
		ms[i] = perturbed(t, uint64(2000+i))
	}
	for pi := 0; pi < programs; pi++ {
		r := rand.New(rand.NewPCG(uint64(pi), 99))
		p := raceFreeProgram(r, isa.CAYMAN)
		var want []byte
		for ti := 0; ti < timings; ti++ {
			m := ms[ti]
			m.Reset()
			fillSBUFAndHBM(t, m)
			res, err := m.Run(p)
			if err != nil {
				t.Fatalf("program %d timing %d: %v", pi, ti, err)
			}
			if len(res.Races) > 0 {
				t.Fatalf("program %d timing %d: race-free by construction, reported %v", pi, ti, res.Races[0])
			}
			got := raceSnapshot(t, m)
			if want == nil {
				want = got
			} else if !bytes.Equal(got, want) {
				t.Fatalf("program %d: timing %d gives other bytes (first difference at %d)", pi, ti, firstDiffAt(got, want))
			}
		}
		// a racy variant: a queue of a later phase that reads a buffer another queue wrote in the
		// phase before, without the barrier wait
		racy := dropBarrier(p)
		if racy == nil {
			continue
		}
		for ti := 0; ti < timings; ti++ {
			m := ms[timings+ti]
			m.Reset()
			fillSBUFAndHBM(t, m)
			res, err := m.Run(racy.p)
			if err != nil {
				t.Fatalf("racy program %d timing %d: %v", pi, ti, err)
			}
			if len(res.Races) == 0 {
				t.Fatalf("racy program %d (%s) timing %d: no race reported", pi, racy.what, ti)
			}
			racyRuns++
		}
	}
	if racyRuns == 0 {
		t.Fatal("no racy variant was made: the test checks nothing of the detector's side")
	}
	t.Logf("%d programs x %d timings race-free with equal bytes; %d racy runs reported", programs, timings, racyRuns)
}

func firstDiffAt(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

type racyProgram struct {
	p    *Program
	what string
}

// dropBarrier makes a racy variant of a raceFreeProgram: a compute queue's first phase-1
// instruction that reads a buffer another queue wrote in phase 0 loses its barrier wait. The
// read is then unordered with that write in every timing. nil when no such pair exists.
func dropBarrier(p *Program) *racyProgram {
	type acc struct {
		qi, ii int
		phase  int
	}
	writes := map[uint32]acc{} // SBUF offset of partition 0 -> the phase-0 writer
	for qi, q := range p.Queues {
		phase := 0
		for ii, in := range q.Insts {
			if ev := in.Inst.Evt(); ev.WaitMode != isa.WaitNone {
				phase = int(ev.WaitIdx)
			}
			if phase != 0 {
				break
			}
			switch x := in.Inst.(type) {
			case *isa.S4D4TR:
				writes[x.DstMemPattern.StartAddr.ByteAddr()] = acc{qi, ii, 0}
			case *isa.DMADirect2D:
				if a := uint64(x.DstStartAddr); a >= isa.DMALocalBase {
					writes[uint32(a-isa.DMALocalBase)] = acc{qi, ii, 0}
				}
			}
		}
	}
	for qi, q := range p.Queues {
		if q.Engine == isa.EngineTPB_SP {
			continue
		}
		for ii, in := range q.Insts {
			ev := in.Inst.Evt()
			if ev.WaitMode == isa.WaitNone || ev.WaitIdx != 1 {
				continue
			}
			// the first instruction of phase 1: does it read a phase-0 write of another queue?
			x := in.Inst.(*isa.S4D4TR)
			w, ok := writes[x.SrcMemPattern.StartAddr.ByteAddr()]
			if !ok || w.qi == qi {
				break
			}
			out := &Program{File: p.File}
			for _, q2 := range p.Queues {
				out.Queues = append(out.Queues, Queue{Engine: q2.Engine, Insts: append([]Instr(nil), q2.Insts...)})
			}
			y := *x
			y.Events.WaitMode, y.Events.WaitIdx, y.Events.SemaphoreValue = isa.WaitNone, 0, 0
			out.Queues[qi].Insts[ii].Inst = &y
			return &racyProgram{out, fmt.Sprintf("%v instruction %d reads what %v instruction %d wrote", q.Engine, ii, p.Queues[w.qi].Engine, w.ii)}
		}
	}
	return nil
}

// randomSyncProgram draws a valid program with random synchronisation over a few shared
// buffers: compute copies on DVE, POOL and ACT, DMA loads on SP, random waits and updates. Many
// deadlock or race; some are race-free.
func randomSyncProgram(r *rand.Rand) *Program {
	g := isa.CAYMAN
	nbuf := 4 + r.IntN(28) // few buffers: many conflicts; many: few
	buf := func() uint32 { return uint32(0x200 * r.IntN(nbuf)) }
	sem := func() uint8 { return uint8(1 + r.IntN(3)) }
	randEv := func() isa.Events {
		var ev isa.Events
		if r.IntN(3) == 0 {
			ev.WaitMode, ev.WaitIdx, ev.SemaphoreValue = isa.WaitForSemGEImm, sem(), uint32(1+r.IntN(2))
		}
		if r.IntN(5) < 4 {
			ev.UpdateMode, ev.UpdateIdx = isa.SemIncComplete, sem()
			if r.IntN(3) == 0 {
				ev.UpdateMode = isa.SemIncRead
			}
		}
		return ev
	}
	var qs []Queue
	for _, e := range []isa.Engine{isa.EngineDVE, isa.EnginePOOL, isa.EngineACT, isa.EngineTPB_SP} {
		q := Queue{Engine: e}
		for k, n := 0, 1+r.IntN(2); k < n; k++ {
			ev := randEv()
			var in isa.Inst
			if e == isa.EngineTPB_SP {
				d := dmaLoad(g, 0x10000+uint64(r.IntN(4))*0x1000, 32, 32, 4, ev)
				d.SemIncrement = uint8(r.IntN(2))
				d.DstStartAddr = isa.LocalAddr8(buf())
				in = d
			} else {
				op := isa.OpCOPY
				if e == isa.EngineACT || r.IntN(3) == 0 {
					op = isa.OpCAST
				}
				x := s4(op, isa.DTypeFP32, 32, sbufAddr(g, 0, buf()), sbufAddr(g, 0, buf()), 32, ev)
				if op == isa.OpCAST {
					x.OutDtype = isa.DTypeBFLOAT16
				}
				in = x
			}
			q.Insts = append(q.Insts, Instr{Inst: in})
		}
		qs = append(qs, q)
	}
	return prog(qs...)
}

// TestNoRaceMeansSameBytes is the detector's soundness under timing: a random program that
// finishes without a reported race in every one of several random timings leaves the same bytes
// in all of them (a program whose bytes differ was reported racy in at least one).
func TestNoRaceMeansSameBytes(t *testing.T) {
	programs, timings := 300, 4
	if testing.Short() {
		programs = 150 // about one program in 40 has timing-dependent bytes: 50 held none
	}
	var clean, differing, stops int
	ms := make([]*Machine, timings) // one per timing, Reset between programs (a new one costs more than the run)
	for ti := range ms {
		ms[ti] = perturbed(t, uint64(1000+ti))
	}
	for pi := 0; pi < programs; pi++ {
		p := randomSyncProgram(rand.New(rand.NewPCG(uint64(pi), 5)))
		var snaps [][]byte
		racy, stopped := false, false
		for ti := 0; ti < timings; ti++ {
			m := ms[ti]
			m.Reset()
			fillSBUFAndHBM(t, m)
			res, err := m.Run(p)
			if err != nil {
				stopped = true // a deadlock in some timing: the bytes may differ with the stop
				break
			}
			racy = racy || len(res.Races) > 0
			snaps = append(snaps, raceSnapshot(t, m))
		}
		if stopped {
			stops++
			continue
		}
		same := true
		for _, s := range snaps[1:] {
			same = same && bytes.Equal(s, snaps[0])
		}
		if !same {
			differing++
			if !racy {
				t.Fatalf("program %d: the bytes depend on the timing, and no timing reported a race", pi)
			}
		}
		if !racy {
			clean++
		}
	}
	if clean == 0 || differing == 0 {
		t.Fatalf("%d race-free programs, %d whose bytes differ: the draw checks nothing", clean, differing)
	}
	t.Logf("%d programs: %d stopped, %d race-free in every timing (same bytes), %d with timing-dependent bytes (all reported)", programs, stops, clean, differing)
}

// TestRaceDetectorReused: a machine reuses its race detector's buffers from run to run
// (Machine.raceDetector). A chain of runs on one machine, racy and clean, finished, failed and
// deadlocked, Reset between them or not, gives the same results, errors, race reports and traces
// as the same chain on a machine that starts every run with a new detector; and a run's Races
// stay as they were when later runs reuse the detector.
func TestRaceDetectorReused(t *testing.T) {
	chains, runs := 12, 10
	if testing.Short() {
		chains, runs = 4, 6
	}
	races := 0
	for chain := uint64(0); chain < uint64(chains); chain++ {
		cfg := Config{Gen: isa.CAYMAN, Trace: chain%2 == 0, Races: RaceMode(chain % 2)} // RacesError, RacesWarn
		reused, fresh := machinePair(t, cfg)
		type kept struct {
			res  *Result
			text string
		}
		var earlier []kept
		for k := uint64(0); k < uint64(runs); k++ {
			if k%3 != 2 { // every third run on the machine the last one left
				reused.Reset()
				fresh.Reset()
			}
			fresh.hb = nil
			seed := chain<<32 | k
			var pr, pf *Program
			if k%2 == 0 {
				pr, pf = randomSyncProgram(rand.New(rand.NewPCG(seed, 5))), randomSyncProgram(rand.New(rand.NewPCG(seed, 5)))
			} else {
				rr, rf := rand.New(rand.NewPCG(seed, ^seed)), rand.New(rand.NewPCG(seed, ^seed))
				randomSemaphores(rr, reused)
				randomSemaphores(rf, fresh)
				pr, pf = randomProgram(rr, cfg.Gen), randomProgram(rf, cfg.Gen)
			}
			or, of := runOutcome(t, reused, pr), runOutcome(t, fresh, pf)
			if d := diffOutcomes(or, of); d != "" {
				t.Fatalf("chain %d run %d: reused detector vs new: %s", chain, k, d)
			}
			if d := diffMachines(reused, fresh); d != "" {
				t.Fatalf("chain %d run %d: after the run: %s", chain, k, d)
			}
			if reused.hb != nil {
				if d := detectorLeft(reused.hb); d != "" {
					t.Fatalf("chain %d run %d: the released detector keeps %s", chain, k, d)
				}
			}
			if or.res != nil {
				races += len(or.res.Races)
				earlier = append(earlier, kept{or.res, fmt.Sprintf("%#v", or.res.Races)})
			}
		}
		for i, e := range earlier {
			if s := fmt.Sprintf("%#v", e.res.Races); s != e.text {
				t.Fatalf("chain %d: the Races of result %d changed when later runs reused the detector:\n%s\nwas\n%s", chain, i, s, e.text)
			}
		}
	}
	if races == 0 {
		t.Fatal("no run reported a race: the test checks nothing")
	}
	t.Logf("%d races reported", races)
}

// machinePair returns two new machines of cfg: one whose state a test reuses from run to run,
// and one it keeps as new.
func machinePair(t *testing.T, cfg Config) (reused, fresh *Machine) {
	t.Helper()
	reused, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if fresh, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	return reused, fresh
}

// detectorLeft names what a released detector (raceDetector.release) still holds of its run, or
// returns "": every buffer empty and, up to its capacity, zero (nothing of the run kept alive),
// every other field zero, the pair map empty.
func detectorLeft(d *raceDetector) string {
	zeroUpToCap := func(name string, v reflect.Value) string {
		if v.Len() != 0 {
			return fmt.Sprintf("%s: %d entries", name, v.Len())
		}
		full := v.Slice(0, v.Cap())
		for i := 0; i < full.Len(); i++ {
			if !full.Index(i).IsZero() {
				return fmt.Sprintf("%s[%d] beyond its length: %+v", name, i, full.Index(i))
			}
		}
		return ""
	}
	for i := range d.sems {
		s := d.sems[i]
		if s.lastBreak != 0 || s.drawn != [numQueues]int{} {
			return fmt.Sprintf("sem[%d]'s history state %+v", i, s)
		}
		if msg := zeroUpToCap(fmt.Sprintf("sem[%d] history", i), reflect.ValueOf(s.h)); msg != "" {
			return msg
		}
	}
	for i := range d.shadow {
		if d.shadow[i].hw != 0 {
			return fmt.Sprintf("shadow %d's high-water mark %d", i, d.shadow[i].hw)
		}
		if msg := zeroUpToCap(fmt.Sprintf("shadow %d", i), reflect.ValueOf(d.shadow[i].segs)); msg != "" {
			return msg
		}
	}
	for name, v := range map[string]any{"actors": d.actors, "sides": d.sides, "boxes": d.boxes} {
		if name == "boxes" { // plain values, rewritten before every read
			if reflect.ValueOf(v).Len() != 0 {
				return "boxes"
			}
			continue
		}
		if msg := zeroUpToCap(name, reflect.ValueOf(v)); msg != "" {
			return msg
		}
	}
	if len(d.pairs) != 0 {
		return fmt.Sprintf("%d pairs", len(d.pairs))
	}
	rest := *d
	rest.sems, rest.shadow, rest.actors, rest.sides, rest.boxes, rest.pairs = [NumSemaphores]semHist{}, [numShadow]shadowMap{}, nil, nil, nil, nil
	if !reflect.ValueOf(rest).IsZero() {
		return fmt.Sprintf("state %+v", rest)
	}
	return ""
}
