package dge

import (
	"encoding/json"
	"math/rand"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
)

// copyBaseline is the best time of copy() over n bytes in this process (the "x-copy" reference).
func copyBaseline(n int) time.Duration {
	a, b := make([]byte, n), make([]byte, n)
	rand.New(rand.NewSource(1)).Read(a)
	copy(b, a)
	best := time.Duration(1 << 62)
	for i := 0; i < 5; i++ {
		s := time.Now()
		copy(b, a)
		best = min(best, time.Since(s))
	}
	return best
}

var (
	numpyOnce  sync.Once
	numpyTimes map[string]float64
)

// numpyTime runs testdata/dge/bench_numpy.py once per process (when numpy is there) and returns
// its best time for a case in seconds, 0 when unavailable.
func numpyTime(name string) float64 {
	numpyOnce.Do(func() {
		if !haveNumpy() {
			return
		}
		out, err := exec.Command("/usr/bin/python3", filepath.Join("..", "testdata", "dge", "bench_numpy.py"), "--json").Output()
		if err == nil {
			json.Unmarshal(out, &numpyTimes)
		}
	})
	return numpyTimes[name]
}

type benchSetup struct {
	m   *dmatest.Memory
	p   *Plan
	eng *dma.Engines
	n   int
}

func setup(b *testing.B, g isa.Generation, src, dst uint64, shape, perm []int, d isa.DType) *benchSetup {
	b.Helper()
	m := dmatest.New(g)
	n := d.Size()
	for _, x := range shape {
		n *= x
	}
	if src < isa.DMALocalBase {
		m.Map(src, n)
		s, _ := m.Slice(src, n)
		rand.New(rand.NewSource(1)).Read(s)
	}
	if dst < isa.DMALocalBase {
		m.Map(dst, n)
	}
	req, err := TensorRequest(g, src, dst, shape, perm, d)
	if err != nil {
		b.Fatal(err)
	}
	p, err := PlanRequest(req, Options{Quiet: true})
	if err != nil {
		b.Fatal(err)
	}
	eng := dma.New(g)
	if _, err := eng.Run(m, &p.Job); err != nil { // warm up: touch every page
		b.Fatal(err)
	}
	return &benchSetup{m: m, p: p, eng: eng, n: n}
}

func (s *benchSetup) run(b *testing.B, numpyCase string) {
	base := copyBaseline(s.n)
	b.SetBytes(int64(s.n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.eng.Run(s.m, &s.p.Job); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(base.Nanoseconds())/per, "x-copy")
	b.ReportMetric(float64(s.p.Descriptors), "descriptors")
	if numpyCase != "" {
		if t := numpyTime(numpyCase); t > 0 {
			b.ReportMetric(t*1e9/per, "x-numpy")
		}
	}
}

// BenchmarkPlan: planning rate in descriptors per second (firmware log and micro-ops off).
func BenchmarkPlan(b *testing.B) {
	cases := []struct {
		name  string
		shape []int
		perm  []int
		dst   uint64
	}{
		{"contiguous", []int{64 << 20}, nil, 0x40000000},
		{"transpose2d", []int{131072, 128}, []int{1, 0}, 0},
		{"perm3120_edges", []int{100, 7, 5, 100}, []int{3, 1, 2, 0}, 0},
		{"perm3210_unrolled", []int{100, 5, 7, 100}, []int{3, 2, 1, 0}, 0},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			g := isa.MARIANA
			dst := c.dst
			if dst == 0 {
				dst = sbufAddr(g, 0, 0)
			}
			req, err := TensorRequest(g, 0x1000, dst, c.shape, c.perm, isa.DTypeBFLOAT16)
			if err != nil {
				b.Fatal(err)
			}
			var desc int
			for i := 0; i < b.N; i++ {
				p, err := PlanRequest(req, Options{Quiet: true})
				if err != nil {
					b.Fatal(err)
				}
				desc += p.Descriptors
			}
			b.ReportMetric(float64(desc)/b.Elapsed().Seconds(), "descriptors/s")
		})
	}
}

// BenchmarkContiguous64MiB: one 64 MiB HBM->HBM copy through the DGE and 16 engines (>= 0.8x copy()).
func BenchmarkContiguous64MiB(b *testing.B) {
	setup(b, isa.CAYMAN, 0x10000000, 0x80000000, []int{64 << 20}, nil, isa.DTypeUINT8).run(b, "contiguous64MiB")
}

// BenchmarkNDKeepInner: a 3-D (1,0,2) permutation of fp32 that keeps the innermost axis, 32 MiB (>= 0.3x copy()).
func BenchmarkNDKeepInner(b *testing.B) {
	setup(b, isa.CAYMAN, 0x10000000, 0x80000000, []int{64, 64, 2048}, []int{1, 0, 2}, isa.DTypeFP32).run(b, "nd_keep_inner")
}

// BenchmarkTranspose2D: a 32 MiB bf16 HBM->SBUF transpose in 16x128 crossbar tiles (>= 0.08x copy(), >= 2x numpy).
func BenchmarkTranspose2D(b *testing.B) {
	g := isa.MARIANA
	setup(b, g, 0x10000000, sbufAddr(g, 0, 0), []int{131072, 128}, []int{1, 0}, isa.DTypeBFLOAT16).run(b, "transpose2d")
}

// BenchmarkPerm3120: NKI's 4-D dma_transpose permutation (3,1,2,0), 32 MiB bf16 HBM->SBUF (>= 1.5x numpy).
func BenchmarkPerm3120(b *testing.B) {
	g := isa.MARIANA
	setup(b, g, 0x10000000, sbufAddr(g, 0, 0), []int{2048, 8, 8, 128}, []int{3, 1, 2, 0}, isa.DTypeBFLOAT16).run(b, "perm3120")
}

// BenchmarkEnginesParallel: the 2-D transpose with the engines on all cores vs one worker; the
// "x-serial" metric is the speedup (>= 1.5x on 2 cores).
func BenchmarkEnginesParallel(b *testing.B) {
	g := isa.MARIANA
	s := setup(b, g, 0x10000000, sbufAddr(g, 0, 0), []int{131072, 128}, []int{1, 0}, isa.DTypeBFLOAT16)
	serial := *s.eng
	serial.Workers = 1
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		st := time.Now()
		if _, err := serial.Run(s.m, &s.p.Job); err != nil {
			b.Fatal(err)
		}
		best = min(best, time.Since(st))
	}
	b.SetBytes(int64(s.n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.eng.Run(s.m, &s.p.Job); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	per := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(best.Nanoseconds())/per, "x-serial")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "cores")
}
