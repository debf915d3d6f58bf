package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// diffMachines describes the first difference between the states of a and b (configuration,
// semaphores, memory, DMA engines, executors), or returns "".
func diffMachines(a, b *Machine) string {
	if keyOf(a.cfg) != keyOf(b.cfg) || keyOf(a.chk.cfg) != keyOf(b.chk.cfg) || a.chk.derived != b.chk.derived {
		return fmt.Sprintf("configuration %+v, other %+v", a.cfg, b.cfg)
	}
	if a.sems != b.sems {
		return fmt.Sprintf("semaphores %v, other %v", a.sems, b.sems)
	}
	if d := a.mem.Diff(b.mem); d != "" {
		return "memory: " + d
	}
	if !reflect.DeepEqual(a.dma, b.dma) {
		return fmt.Sprintf("DMA state %+v %+v, other %+v %+v", a.dma, a.dma.engines, b.dma, b.dma.engines)
	}
	for _, e := range queueEngines {
		if ua, ub := a.newUnit(e), b.newUnit(e); !reflect.DeepEqual(ua, ub) {
			return fmt.Sprintf("%v unit %+v, other %+v", e, ua, ub)
		}
	}
	return ""
}

// outcome is everything a run shows but the machine: its result (summary, semaphores,
// annotations), its trace as written, and its error.
type outcome struct {
	res   *Result
	trace []byte
	err   error
}

func runOutcome(t *testing.T, m *Machine, p *Program) outcome {
	t.Helper()
	res, err := m.Run(p)
	o := outcome{res: res, err: err}
	if res != nil && res.Trace != nil {
		var b bytes.Buffer
		if err := res.Trace.Write(&b); err != nil {
			t.Fatal(err)
		}
		o.trace = b.Bytes()
	}
	return o
}

func diffOutcomes(a, b outcome) string {
	switch {
	case fmt.Sprint(a.err) != fmt.Sprint(b.err):
		return fmt.Sprintf("error %v, other %v", a.err, b.err)
	case !reflect.DeepEqual(a.err, b.err):
		return fmt.Sprintf("error %#v, other %#v", a.err, b.err)
	case !bytes.Equal(a.trace, b.trace):
		return "traces differ"
	case !reflect.DeepEqual(a.res, b.res):
		return fmt.Sprintf("result %+v, other %+v", a.res, b.res)
	}
	return ""
}

// TestResetMatchesNew runs chains of random programs (the fuzz generators) on one machine,
// Reset between runs, and each program also on a new machine: right after Reset the machine
// is the new one (every byte of memory, the never-written bits, HBM pages, semaphores, DMA
// engines), and the two runs give the same result, error, trace and summary, and leave the
// same state.
func TestResetMatchesNew(t *testing.T) {
	chains, runs := 24, 12
	if testing.Short() {
		chains, runs = 8, 6
	}
	for chain := uint64(0); chain < uint64(chains); chain++ {
		cfg := randomConfig(rand.New(rand.NewPCG(chain, 0xC0FFEE)))
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for k := uint64(0); k < uint64(runs); k++ {
			fresh, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if k > 0 {
				m.Reset()
			}
			if d := diffMachines(m, fresh); d != "" {
				t.Fatalf("chain %d run %d (%v): after Reset: %s", chain, k, cfg.Gen, d)
			}
			seed := chain<<32 | k
			rm, rf := rand.New(rand.NewPCG(seed, ^seed)), rand.New(rand.NewPCG(seed, ^seed))
			randomStart(rm, m)
			randomStart(rf, fresh)
			om, of := runOutcome(t, m, randomProgram(rm, cfg.Gen)), runOutcome(t, fresh, randomProgram(rf, cfg.Gen))
			if d := diffOutcomes(om, of); d != "" {
				t.Fatalf("chain %d run %d (%v): reset machine vs new: %s", chain, k, cfg.Gen, d)
			}
			if d := diffMachines(m, fresh); d != "" {
				t.Fatalf("chain %d run %d (%v): after the run: reset machine vs new: %s", chain, k, cfg.Gen, d)
			}
		}
	}
}

// fillEverywhere writes nonzero bytes to every active byte of SBUF and PSUM through WriteAt
// (so they count as initialised when tracking), sets every semaphore and allocates HBM.
func fillEverywhere(t *testing.T, m *Machine) {
	t.Helper()
	mm := m.Memory()
	r := rand.New(rand.NewPCG(1, 2))
	for _, reg := range []mem.Region{mem.SBUF, mem.PSUM} {
		for p := 0; p < mm.NumPartitions(reg); p++ {
			b := make([]byte, mm.PartitionActive(reg))
			for i := range b {
				b[i] = byte(1 + r.IntN(255))
			}
			a := isa.DMALocalBase + uint64(mm.OnChipAddr(mem.Loc{Region: reg, Partition: p}))
			if err := mm.WriteAt(a, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := mm.WriteAt(3<<20, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < NumSemaphores; i++ {
		m.SetSemaphore(i, uint32(i+1))
	}
}

// TestResetAfterWritingEverywhere: after every byte of SBUF and PSUM was written (with and
// without the never-written tracking, on every generation), HBM allocated, semaphores set and
// a program run, Reset leaves the machine as New makes it.
func TestResetAfterWritingEverywhere(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			for _, uninit := range []bool{false, true} {
				cfg := Config{Gen: g, CheckUninit: uninit, Trace: true}
				m, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				fillEverywhere(t, m)
				r := rand.New(rand.NewPCG(uint64(g), 7))
				for i := 0; i < 4; i++ {
					m.Run(randomProgram(r, g))
				}
				m.Reset()
				fresh, err := New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if d := diffMachines(m, fresh); d != "" {
					t.Fatalf("%v uninit %v: after Reset: %s", g, uninit, d)
				}
			}
		})
	}
}

// transposeAll is a StreamTranspose of fp32 on all 128 channels of region reg from the first
// half of each partition's active bytes to the second half.
func transposeAll(m *Machine, reg mem.Region) *Program {
	mm := m.Memory()
	half := mm.PartitionActive(reg) / 2 / 4 / 32 * 32 // fp32 elements, a multiple of 32
	base := mm.OnChipAddr(mem.Loc{Region: reg})
	src := isa.Tensor4D{StartAddr: isa.Addr4(base), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{uint16(half), 1, 1, 1}}
	if half > 65535 {
		src.NumElem = [4]uint16{uint16(half / 32), 32, 1, 1}
		src.StepElem = [4]int16{1, int16(half / 32), 1, 1}
	}
	dst := src
	dst.StartAddr = isa.Addr4(base + uint32(mm.PartitionActive(reg)/2))
	in := &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpSTREAM_TRANSPOSE, InstWordLen: 16}, SrcMemPattern: src, DstMemPattern: dst,
		InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: 128}
	return &Program{File: "t", Queues: []Queue{{Engine: isa.EngineDVE, Insts: []Instr{{Inst: in}}}}}
}

// TestResetAfterDirectTranspose: the fast StreamTranspose writes its destination through
// mem.Memory.Partition, which the memory does not see; the machine records it, so Reset
// clears it (the destination halves are written only by the transpose here).
func TestResetAfterDirectTranspose(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			cfg := Config{Gen: g}
			m, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			mm := m.Memory()
			for _, reg := range []mem.Region{mem.SBUF, mem.PSUM} {
				if mm.NumPartitions(reg) < 128 {
					continue
				}
				for p := 0; p < 128; p++ {
					part := mm.Partition(reg, p)
					for i := 0; i < len(part)/2; i++ {
						part[i] = byte(i%251 + 1)
					}
				}
				mm.MarkWritten(mem.Span{Region: reg, NumPartitions: 128, Hi: uint32(mm.PartitionActive(reg) / 2)})
				if _, err := m.Run(transposeAll(m, reg)); err != nil {
					t.Fatalf("%v %v: %v", g, reg, err)
				}
				if hi := mm.Partition(reg, 5)[mm.PartitionActive(reg)/2:]; bytes.Count(hi, []byte{0}) == len(hi) {
					t.Fatalf("%v %v: the transpose wrote nothing", g, reg)
				}
			}
			m.Reset()
			fresh, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffMachines(m, fresh); d != "" {
				t.Fatalf("%v: after Reset: %s", g, d)
			}
		})
	}
}

// TestUntouchedFails: the cheap check of FuzzRunWords (untouched) sees a write by each path
// (WriteAt, a DMA, the fast transpose, a semaphore, HBM) on a Reset machine.
func TestUntouchedFails(t *testing.T) {
	g := isa.CAYMAN
	m, err := New(Config{Gen: g})
	if err != nil {
		t.Fatal(err)
	}
	mm := m.Memory()
	sbuf := func(p int, off uint32) uint64 {
		return isa.DMALocalBase + uint64(mm.OnChipAddr(mem.Loc{Region: mem.SBUF, Partition: p, Offset: off}))
	}
	psum := isa.DMALocalBase + uint64(mm.OnChipAddr(mem.Loc{Region: mem.PSUM, Partition: 127, Offset: 0x40}))
	for _, c := range []struct {
		name    string
		memOnly bool // check SBUF and PSUM only (the case also allocates HBM)
		write   func()
	}{
		{"sbuf", false, func() { mm.WriteAt(sbuf(0, 0x123), []byte{0, 7}) }},
		{"psum", false, func() { mm.WriteAt(psum, []byte{0, 0, 0, 9}) }},
		{"hbm", false, func() { mm.WriteAt(0x1000, []byte{0}) }},
		{"sem", false, func() { m.SetSemaphore(255, 1) }},
		{"transpose", false, func() {
			mm.WriteAt(sbuf(3, 0x40), []byte{1})
			if _, err := m.Run(transposeAll(m, mem.SBUF)); err != nil {
				t.Fatal(err)
			}
			mm.Partition(mem.SBUF, 3)[0x40] = 0 // only the transpose's output is nonzero
		}},
		{"dma", true, func() {
			mm.WriteAt(0, []byte{0, 0, 0, 0, 5, 0, 0, 0})
			d := dmaLoad(g, 0, 1, 2, 0, isa.Events{})
			d.DstStartAddr = isa.LocalAddr8(3 * g.Geometry().StateBufPartitionSize)
			if _, err := m.Run(&Program{File: "d", Queues: []Queue{{Engine: isa.EngineTPB_SP, Insts: []Instr{{Inst: d}}}}}); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m.Reset()
			if err := untouched(m); err != nil {
				t.Fatalf("%s: a Reset machine: %v", c.name, err)
			}
			c.write()
			check := untouched
			if c.memOnly {
				check = func(m *Machine) error { return writtenNonzero(m.Memory()) }
			}
			if err := check(m); err == nil {
				t.Errorf("%s: untouched saw no write", c.name)
			} else {
				t.Logf("%s: %v", c.name, err)
			}
		})
	}
}
