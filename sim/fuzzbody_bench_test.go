package sim

import (
	"testing"

	"github.com/tpbsim/tpbsim/internal/fuzzin"
)

// BenchmarkFuzzRunBody is FuzzRun's body without Go's fuzzing harness, on a fixed set of inputs
// (seed i, 0-128 choice bytes): the cost of one exec that the fuzz rate of BENCHMARKS.md is
// bounded by.
func BenchmarkFuzzRunBody(b *testing.B) {
	ins := fuzzin.Random(1, 2, 512, maxChoiceBytes)
	for i, in := range ins { // fill the machine pool, as a campaign's first execs do
		runFuzz(b, uint64(i), in)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		runFuzz(b, uint64(i%len(ins)), ins[i%len(ins)])
	}
}
