package sim

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkFuzzRunBody is FuzzRun's body without Go's fuzzing harness, on a fixed set of
// generated inputs (seed i, 0-128 choice bytes from a PCG): the cost of one exec that the fuzz
// rate of BENCHMARKS.md is bounded by.
func BenchmarkFuzzRunBody(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	type input struct {
		seed uint64
		data []byte
	}
	ins := make([]input, 512)
	for i := range ins {
		d := make([]byte, r.IntN(maxChoiceBytes+1))
		for j := range d {
			d[j] = byte(r.Uint32())
		}
		ins[i] = input{uint64(i), d}
	}
	for _, in := range ins { // fill the machine pool, as a campaign's first execs do
		runFuzz(b, in.seed, in.data)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		in := ins[i%len(ins)]
		runFuzz(b, in.seed, in.data)
	}
}
