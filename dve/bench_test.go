package dve

import (
	"fmt"
	"testing"
	"time"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Benchmarks of issue 3 item 8: StreamTranspose on [128 x N] tiles of 1-, 2- and 4-byte cells at
// 1 MiB and at the largest transpose one instruction can do on CAYMAN (source and destination
// filling the SBUF active area: 112 KiB per partition each, 14 MiB each), reporting GB/s
// (SetBytes = source bytes) and the ratio to copy() of the same number of bytes measured in
// the same process: "x-copy" against copies interleaved with the transposes (same load, same
// cache state: at full size both run from DRAM), "x-copy-warm" against the best copy() rate of
// buffers kept warm in cache (the conservative figure). Run with -cpu 1,2 for one and two cores.
//
//	go test -run '^$' -bench StreamTranspose -cpu 1,2 ./dve/

// warmCopyRate times copy() of n bytes between two buffers it keeps warm (best of three 50 ms
// rounds): the most favourable copy() figure, for the conservative "x-copy-warm" metric.
func warmCopyRate(n int) float64 {
	src, dst := make([]byte, n), make([]byte, n)
	copy(dst, src)
	best := 0.0
	for round := 0; round < 3; round++ {
		iters, start := 0, time.Now()
		for time.Since(start) < 50*time.Millisecond {
			copy(dst, src)
			iters++
		}
		best = max(best, float64(n)*float64(iters)/time.Since(start).Seconds())
	}
	return best
}

// benchPattern is a contiguous walk of E elements, split over two dims when E passes uint16.
func benchPattern(a isa.Addr4, E int) isa.Tensor4D {
	n0, n1 := E, 1
	for n0 > 65535 {
		n0, n1 = n0/2, n1*2
	}
	return pat(a, [4]int16{1, int16(min(n0, 32767)), 1, 1}, [4]uint16{uint16(n0), uint16(n1), 1, 1})
}

func benchTranspose(b *testing.B, es int, perPart int, impl TransposeImpl) {
	g := isa.CAYMAN
	m, err := mem.New(g, mem.Options{})
	if err != nil {
		b.Fatal(err)
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
	in := s4(isa.OpSTREAM_TRANSPOSE, src, dst, dt, dt, 128)
	for p := 0; p < 128; p++ {
		copy(m.Partition(mem.SBUF, p), noise[p*1000:])
	}
	d := DVE{Transpose: impl}
	if _, err := d.Execute(m, in, g); err != nil {
		b.Fatal(err)
	}
	n := 128 * E * es
	// The copy() baseline runs interleaved with the transposes (timer stopped), so both see
	// the same machine load.
	csrc, cdst := make([]byte, n), make([]byte, n)
	copy(csrc, noise)
	copy(cdst, csrc)
	var copyTime time.Duration
	warm := warmCopyRate(n)
	b.SetBytes(int64(n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := d.Execute(m, in, g); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		t0 := time.Now()
		copy(cdst, csrc)
		copyTime += time.Since(t0)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(copyTime.Seconds()/b.Elapsed().Seconds(), "x-copy")
	b.ReportMetric(float64(n)*float64(b.N)/copyTime.Seconds()/1e9, "copy-GB/s")
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/warm, "x-copy-warm")
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

// BenchmarkCopy1MiB is the copy() baseline on its own, for comparison with the x-copy metric.
func BenchmarkCopy(b *testing.B) {
	for _, n := range []int{1 << 20, 128 * 112 << 10} {
		b.Run(fmt.Sprintf("%dKiB", n>>10), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
			b.SetBytes(int64(n))
			for i := 0; i < b.N; i++ {
				copy(dst, src)
			}
		})
	}
}
