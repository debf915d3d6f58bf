package kernel

import (
	"testing"

	"github.com/tpbsim/tpbsim/internal/fuzzin"
)

// BenchmarkRandomKernelBody is FuzzRandomKernel's body without Go's fuzzing harness, on a fixed
// set of inputs (seed i, 0-32 choice bytes): the cost of one exec that the fuzz rate of
// BENCHMARKS.md is bounded by.
func BenchmarkRandomKernelBody(b *testing.B) {
	ins := fuzzin.Random(3, 4, 256, 32)
	randomKernelFuzz(b, 0, nil) // make the machine, as a campaign's first exec does
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		randomKernelFuzz(b, int64(i%len(ins)), ins[i%len(ins)])
	}
}
