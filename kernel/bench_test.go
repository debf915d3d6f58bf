package kernel

import (
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// BenchmarkLower1000 / BenchmarkLowerRun1000: a 1,000-call random kernel (loads, copies and
// casts on three engines, VE transposes, reduces, shuffles, gathers, stores; see randomKernel)
// lowered, and lowered and run with race detection and timing (the figures are in BENCHMARKS.md).
func BenchmarkLower1000(b *testing.B) {
	k, _ := randomKernel(rand.New(rand.NewSource(1)), 1000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Lower(k, Options{Gen: isa.CAYMAN}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(k.Calls))*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

func BenchmarkLowerRun1000(b *testing.B) {
	k, inputs := randomKernel(rand.New(rand.NewSource(1)), 1000)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		lw, err := Lower(k, Options{Gen: isa.CAYMAN})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := lw.Run(sim.Config{}, inputs); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(float64(len(lw.Insts)), "instructions")
		}
	}
	b.ReportMetric(float64(len(k.Calls))*float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}
