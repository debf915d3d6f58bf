package num

import (
	"fmt"
	"math"
	"testing"
)

// The default NaN narrows by num.nan's rule to each float kind's own positive quiet NaN; every
// NaN, of either sign, with any payload, signalling or quiet, canonicalises to it, and nothing
// else changes.
func TestCanonicalNaN(t *testing.T) {
	for _, x := range []uint32{0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FBFFFFF, 0xFFFFFFFF, 0x7FC12345} {
		t.Run(fmt.Sprintf("NaN/%#08x", x), func(t *testing.T) {
			v := math.Float32frombits(x)
			if got := math.Float32bits(CanonicalNaN(v)); got != DefaultNaNF32 {
				t.Errorf("CanonicalNaN = %#08x", got)
			}
			xs := []float32{1, v, -2}
			CanonicalNaNs(xs)
			if math.Float32bits(xs[1]) != DefaultNaNF32 || xs[0] != 1 || xs[2] != -2 {
				t.Errorf("CanonicalNaNs = %v", xs)
			}
		})
	}
	for _, x := range []uint32{0, 0x80000000, 0x7F800000, 0xFF800000, 0x3F800000, 0x00000001} {
		t.Run(fmt.Sprintf("other/%#08x", x), func(t *testing.T) {
			if got := math.Float32bits(CanonicalNaN(math.Float32frombits(x))); got != x {
				t.Errorf("CanonicalNaN = %#08x", got)
			}
		})
	}
	for _, c := range []struct {
		k    Kind
		want uint64
	}{{FP32, 0x7FC00000}, {BFLOAT16, 0x7FC0}, {FP16, 0x7E00}, {FP32R, 0x7FC00000}} {
		t.Run("narrowed/"+c.k.String(), func(t *testing.T) {
			b := make([]byte, 4)
			StoreF32(c.k, b, CanonicalNaN(float32(math.Inf(1))-float32(math.Inf(1))))
			if got := LoadBits(c.k, b); got != c.want {
				t.Errorf("%#x, want %#x", got, c.want)
			}
		})
	}
}

// CanonicalNaNs (two values at a time) is CanonicalNaN value by value, at every length and
// alignment, on NaNs, infinities, the largest finite values and random words.
func TestCanonicalNaNsMatchesCanonicalNaN(t *testing.T) {
	words := []uint32{0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF, 0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000,
		0x7F7FFFFF, 0xFF7FFFFF, 0, 0x80000000, 1, 0x3F800000}
	buf := make([]float32, 40)
	for start := 0; start < 3; start++ {
		for n := 0; n <= 21; n++ {
			for rep := 0; rep < 20; rep++ {
				xs := buf[start : start+n]
				want := make([]uint32, n)
				for i := range xs {
					w := words[(i*7+rep*3+n)%len(words)]
					if (i+rep)%5 == 4 {
						w = uint32(i*0x9E3779B9 + rep*0x85EBCA6B + n)
					}
					xs[i] = math.Float32frombits(w)
					want[i] = math.Float32bits(CanonicalNaN(xs[i]))
				}
				CanonicalNaNs(xs)
				for i := range xs {
					if got := math.Float32bits(xs[i]); got != want[i] {
						t.Fatalf("start %d n %d value %d: got %#08x, want %#08x", start, n, i, got, want[i])
					}
				}
			}
		}
	}
}
