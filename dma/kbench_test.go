package dma

import (
	"os"
	"testing"
	"time"
)

// TestKernelTiming is a timing probe of the crossbar kernel against copy() on one core (run
// with TPBSIM_KTIME=1 -v); it also spot-checks the result.
func TestKernelTiming(t *testing.T) {
	if testing.Short() || os.Getenv("TPBSIM_KTIME") == "" {
		t.Skip("timing probe; set TPBSIM_KTIME=1")
	}
	const R, C = 131072, 128 // src rows x cols, 2-byte
	src := make([]byte, R*C*2)
	dstStride := int64(256 << 10)
	dst := make([]byte, 128*dstStride)
	for i := range src {
		src[i] = byte(i)
	}
	cp := make([]byte, len(src))
	best := func(f func()) time.Duration {
		b := time.Duration(1 << 62)
		for i := 0; i < 7; i++ {
			s := time.Now()
			f()
			b = min(b, time.Since(s))
		}
		return b
	}
	tc := best(func() { copy(cp, src) })
	// nest: [16 rows][128 cols][8192 row tiles]
	n := [MaxLevels]uint32{16, 128, 8192, 1}
	ss := [MaxLevels]int64{C * 2, 2, 16 * C * 2, 0}
	ds := [MaxLevels]int64{2, dstStride, 32, 0}
	tx := best(func() { copyNest(dst, src, 0, 0, n, ds, ss, 2) })
	t.Logf("copy %v xpose %v ratio %.3f", tc, tx, float64(tc)/float64(tx))
	for c := 0; c < 128; c += 37 {
		for r := 0; r < R; r += 999 {
			if dst[int64(c)*dstStride+int64(r)*2] != src[(r*C+c)*2] {
				t.Fatalf("wrong at %d %d", r, c)
			}
		}
	}
}
