// Package fuzzin makes the fixed fuzz inputs that the benchmarks of fuzz bodies and the tests of
// what a fuzz generator makes draw on, the same on every run.
package fuzzin

import "math/rand/v2"

// Random returns n inputs of 0 to maxLen bytes each (length and bytes uniform), from the PCG
// seeded with s1, s2.
func Random(s1, s2 uint64, n, maxLen int) [][]byte {
	r := rand.New(rand.NewPCG(s1, s2))
	out := make([][]byte, n)
	for i := range out {
		d := make([]byte, r.IntN(maxLen+1))
		for j := range d {
			d[j] = byte(r.Uint32())
		}
		out[i] = d
	}
	return out
}
