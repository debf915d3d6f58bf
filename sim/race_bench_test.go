package sim

import (
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// program40k is the 40,000-instruction program of BENCHMARKS.md (the assembler's benchmark
// source, ten times over): 20,000 StreamTransposes on DVE and 20,000 COPYs on ACT, 128 channels.
func program40k() *Program {
	g := isa.CAYMAN
	var dve, act []isa.Inst
	for i := 0; i < 20000; i++ {
		dve = append(dve, s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeBFLOAT16, 128, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 64, isa.Events{}))
		act = append(act, s4(isa.OpCOPY, isa.DTypeFP32, 128, sbufAddr(g, 0, 0x2000), sbufAddr(g, 0, 0x3000), 64, isa.Events{}))
	}
	return prog(q(isa.EngineDVE, dve...), q(isa.EngineACT, act...))
}

// BenchmarkRun40k runs the 40,000-instruction program with race detection off and on: the
// detection should cost at most as much as the run itself.
func BenchmarkRun40k(b *testing.B) {
	p := program40k()
	for _, mode := range []RaceMode{RacesOff, RacesError} {
		b.Run("races="+mode.String(), func(b *testing.B) {
			m, err := New(Config{Gen: isa.CAYMAN, Races: mode, HugePages: true})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Reset()
				if _, err := m.Run(p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.Len())*float64(b.N)/b.Elapsed().Seconds(), "inst/s")
		})
	}
}

// BenchmarkRaceFanOut: many DMAs fanned over engines, each waited for by a compute queue, the
// detector's DMA path (task clocks, descriptor footprints).
func BenchmarkRaceFanOut(b *testing.B) {
	g := isa.CAYMAN
	var sp, dve []isa.Inst
	for i := 0; i < 500; i++ {
		dve = append(dve, s4(isa.OpCOPY, isa.DTypeFP32, 64, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 64,
			isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: 7, SemaphoreValue: uint32(4 * (i + 1)), UpdateMode: isa.SemIncComplete, UpdateIdx: 8}))
	}
	// every DMA after the first overwrites what the COPY before it read: it waits for it
	for i := 0; i < 500; i++ {
		ev := isa.Events{}
		if i > 0 {
			ev = isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: 8, SemaphoreValue: uint32(i)}
		}
		d := dmaLoad(g, 0x10000, 64, 64, 7, ev)
		d.SemIncrement = 4
		sp = append(sp, d)
	}
	p := prog(q(isa.EngineTPB_SP, sp...), q(isa.EngineDVE, dve...))
	for _, mode := range []RaceMode{RacesOff, RacesError} {
		b.Run("races="+mode.String(), func(b *testing.B) {
			m, err := New(Config{Gen: g, Races: mode})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				m.Reset()
				if res, err := m.Run(p); err != nil || len(res.Races) > 0 {
					b.Fatal(err, res.Races)
				}
			}
		})
	}
}
