package dve

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Benchmarks of StreamTranspose on [128 x N] tiles of 1-, 2- and 4-byte cells at
// 1 MiB and at the largest transpose one instruction can do on CAYMAN (source and destination
// filling the SBUF active area: 112 KiB per partition each, 14 MiB each), reporting GB/s
// (SetBytes = source bytes) and "x-copy", the ratio to copy() of the same number of bytes
// measured in the same process. Run with -cpu 1,2 for one and two cores:
//
//	go test -run '^$' -bench StreamTranspose -cpu 1,2 -count 5 ./dve/
//
// Methodology of the copy() baseline: the b.N transposes run in (at most) eight blocks, and
// after each block, with the timer stopped, the same number of copy() calls of a fully written
// n-byte source runs back to back. Both therefore run in their own steady state (the first call
// of each block cold, the rest as warm as the cache allows) under the same machine load. The
// earlier scheme, one copy() after every transpose, flushed each one's data with the other's and
// flattered the ratio at full size (a copy from L3-cold memory is slowed far more than a
// compute-bound transpose), and its source was mostly never-written pages (the shared zero
// page), which no real copy reads. copy() of >= 1 MiB uses non-temporal stores on amd64, both at
// 1 MiB and at full size. Butterfly runs also report "x-fast": their time over the fast path's on
// the same instruction, measured the same way.

// benchInst builds a CAYMAN memory with 128 partitions of noise and a contiguous [128 x E]
// StreamTranspose of es-byte cells, perPart bytes per partition on each side.
func benchInst(tb testing.TB, es, perPart int) (*mem.Memory, *isa.S4D4TR, int) {
	g := isa.CAYMAN
	// HugePages as `tpbsim run` sets it (mem.Options.HugePages); the copy() baseline measured
	// the same with and without them (one sequential stream takes few TLB misses).
	m, err := mem.New(g, mem.Options{HugePages: true})
	if err != nil {
		tb.Fatal(err)
	}
	E := perPart / es / 32 * 32
	if E > 32767*2 && es == 1 {
		// 1-byte at full size: 114688 = 16384 x 7 elements (a two-dim contiguous walk).
		E = 114688
	}
	src := pat(sbufAddr(g, 0, 0), [4]int16{1, 1, 1, 1}, [4]uint16{uint16(E), 1, 1, 1})
	dst := pat(sbufAddr(g, 0, E*es), [4]int16{1, 1, 1, 1}, [4]uint16{uint16(E), 1, 1, 1})
	if E > 65535 {
		src = pat(sbufAddr(g, 0, 0), [4]int16{1, 16384, 1, 1}, [4]uint16{16384, uint16(E / 16384), 1, 1})
		dst = pat(sbufAddr(g, 0, E*es), [4]int16{1, 16384, 1, 1}, [4]uint16{16384, uint16(E / 16384), 1, 1})
	}
	dt := map[int]isa.DType{1: isa.DTypeUINT8, 2: isa.DTypeBFLOAT16, 4: isa.DTypeFP32}[es]
	for p := 0; p < 128; p++ {
		copy(m.Partition(mem.SBUF, p), noise[p*1000:])
	}
	return m, s4(isa.OpSTREAM_TRANSPOSE, src, dst, dt, dt, 128), 128 * E * es
}

// filledPair returns a source of n bytes written in full (noise) and a destination.
func filledPair(n int) (src, dst []byte) {
	src, dst = make([]byte, n), make([]byte, n)
	for i := 0; i < n; i += len(noise) {
		copy(src[i:], noise)
	}
	copy(dst, src)
	return src, dst
}

func benchTranspose(b *testing.B, es int, perPart int, impl TransposeImpl) {
	g := isa.CAYMAN
	m, in, n := benchInst(b, es, perPart)
	d := DVE{Transpose: impl}
	fast := DVE{Transpose: TransposeFast}
	run := func(d *DVE) {
		if _, err := d.Execute(m, in, g); err != nil {
			b.Fatal(err)
		}
	}
	var fastTime time.Duration
	var between func(k int)
	if impl != TransposeFast {
		between = func(k int) {
			t0 := time.Now()
			for i := 0; i < k; i++ {
				run(&fast)
			}
			fastTime += time.Since(t0)
		}
	}
	copyTime := benchVsCopy(b, n, func() { run(&d) }, between)
	b.ReportMetric(float64(n)*float64(b.N)/copyTime.Seconds()/1e9, "copy-GB/s")
	if impl != TransposeFast {
		b.ReportMetric(b.Elapsed().Seconds()/fastTime.Seconds(), "x-fast")
	}
}

// benchVsCopy times b.N calls of run on n source bytes against copy() of n bytes, in blocks
// (the methodology above), reports GB/s and x-copy, and returns the copy() time. between, if
// not nil, runs after each block of k calls with the timer stopped.
func benchVsCopy(b *testing.B, n int, run func(), between func(k int)) time.Duration {
	run()
	csrc, cdst := filledPair(n)
	var copyTime time.Duration
	b.SetBytes(int64(n))
	b.ResetTimer()
	block := max(1, b.N/8)
	for done := 0; done < b.N; {
		k := min(block, b.N-done)
		for i := 0; i < k; i++ {
			run()
		}
		b.StopTimer()
		t0 := time.Now()
		for i := 0; i < k; i++ {
			copy(cdst, csrc)
		}
		copyTime += time.Since(t0)
		if between != nil {
			between(k)
		}
		done += k
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(copyTime.Seconds()/b.Elapsed().Seconds(), "x-copy")
	return copyTime
}

func BenchmarkStreamTranspose(b *testing.B) {
	full := int(isa.CAYMAN.Geometry().StateBufPartitionActive) / 2
	for _, es := range []int{1, 2, 4} {
		for _, sz := range []struct {
			name    string
			perPart int
		}{{"1MiB", (1 << 20) / 128}, {"full", full}} {
			b.Run(fmt.Sprintf("%dB/%s/fast", es, sz.name), func(b *testing.B) { benchTranspose(b, es, sz.perPart, TransposeFast) })
			b.Run(fmt.Sprintf("%dB/%s/butterfly", es, sz.name), func(b *testing.B) { benchTranspose(b, es, sz.perPart, TransposeButterfly) })
		}
	}
}

// BenchmarkCopy is the copy() baseline on its own (fully written sources), for comparison with
// the copy-GB/s metric.
func BenchmarkCopy(b *testing.B) {
	for _, n := range []int{1 << 20, 128 * 112 << 10} {
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			src, dst := filledPair(n)
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				copy(dst, src)
			}
		})
	}
}

// BenchmarkCopySplit is copy() of the full-size 14 MiB split over GOMAXPROCS goroutines: with
// -cpu 1,2 it shows how much a second core can add to a memory-bound copy on this machine, the
// ceiling for the two-core StreamTranspose figures.
func BenchmarkCopySplit(b *testing.B) {
	n := 128 * 112 << 10
	src, dst := filledPair(n)
	benchSplit(b, n, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// BenchmarkReadSplit reads the same 14 MiB (every 8-byte word) split over GOMAXPROCS goroutines.
// Beside CopySplit it separates the two halves of a transpose's memory traffic: whether a second
// core adds read bandwidth, write bandwidth (copy()'s non-temporal stores), both or neither on
// the machine at hand (BENCHMARKS.md has the figures of the VM the project runs on).
func BenchmarkReadSplit(b *testing.B) {
	n := 128 * 112 << 10
	src, _ := filledPair(n)
	var sum atomic.Uint64 // keeps the loads live
	benchSplit(b, n, func(lo, hi int) {
		var s uint64
		for _, w := range unsafe.Slice((*uint64)(unsafe.Pointer(&src[lo])), (hi-lo)/8) {
			s += w
		}
		sum.Add(s)
	})
}

// benchSplit runs fn over [0, n) in GOMAXPROCS pieces, one per goroutine, b.N times.
func benchSplit(b *testing.B, n int, fn func(lo, hi int)) {
	procs := runtime.GOMAXPROCS(0)
	per := (n + procs - 1) / procs
	b.SetBytes(int64(n))
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for lo := per; lo < n; lo += per {
			wg.Add(1)
			go func(lo int) {
				defer wg.Done()
				fn(lo, min(n, lo+per))
			}(lo)
		}
		fn(0, min(n, per))
		wg.Wait()
	}
}

// BenchmarkStreamTransposeSmall: [128 x N] transposes of a few tiles per row, the size most
// kernel instructions have, where per-call overhead (operands, staging) rather than memory
// traffic sets the speed.
func BenchmarkStreamTransposeSmall(b *testing.B) {
	for _, es := range []int{1, 2, 4} {
		for _, perPart := range []int{32 * es, 8 * 32 * es} {
			b.Run(fmt.Sprintf("%dB/%dx%d", es, 128, perPart/es), func(b *testing.B) {
				g := isa.CAYMAN
				m, in, n := benchInst(b, es, perPart)
				d := DVE{Transpose: TransposeFast}
				b.SetBytes(int64(n))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := d.Execute(m, in, g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
