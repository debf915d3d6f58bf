package dma_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
)

// rowsTo is a copy descriptor of rows x 1024 bytes from src (row-major) to dst with the given
// destination row step (0: every row onto the same bytes).
func rowsTo(src, dst uint64, rows uint32, dstRowStep int64) dma.Descriptor {
	d := dma.Descriptor{Kind: dma.KindCopy, Num: [4]uint32{1024, rows, 1, 1}, Sem: -1}
	d.Src = dma.Side{Addr: src, ElemSize: 1, Step: [4]int64{1, 1024}}
	d.Dst = dma.Side{Addr: dst, ElemSize: 1, Step: [4]int64{1, dstRowStep}}
	return d
}

// xbarRows is the crossbar descriptor of a block of 16 source rows from row first of a
// row-major source of cols two-byte columns, written transposed (source column c to partition
// c, source row r to element r): engines' blocks interleave in every partition without sharing
// a byte.
func xbarRows(src, dst uint64, cols, first uint32, pstride int64) dma.Descriptor {
	d := dma.Descriptor{Kind: dma.KindXbar, Num: [4]uint32{16, cols, 1, 1}, Sem: -1}
	d.Src = dma.Side{Addr: src + uint64(first)*2*uint64(cols), ElemSize: 2, Step: [4]int64{int64(cols), 1}}
	d.Dst = dma.Side{Addr: dst + uint64(first)*2, ElemSize: 2, Step: [4]int64{1, pstride / 2}}
	return d
}

// Footprint merges a walk's bytes into sorted runs whatever its level order and step signs, and
// gives up beyond its run budget.
func TestFootprint(t *testing.T) {
	for _, c := range []struct {
		name string
		s    dma.Side
		n    [4]uint32
		want []dma.Run
	}{
		{"two rows of 4 x 4 bytes", dma.Side{Addr: 8, ElemSize: 4, Step: [4]int64{1, 8}}, [4]uint32{4, 2, 1, 1}, []dma.Run{{Lo: 8, Hi: 24}, {Lo: 40, Hi: 56}}},
		{"outer level first, walked backwards", dma.Side{Addr: 40, ElemSize: 4, Step: [4]int64{-8, 1}}, [4]uint32{2, 4, 1, 1}, []dma.Run{{Lo: 8, Hi: 24}, {Lo: 40, Hi: 56}}},
		{"step 0 and overlapping rows", dma.Side{Addr: 100, ElemSize: 1, Step: [4]int64{1, 0, 3}}, [4]uint32{4, 5, 3, 1}, []dma.Run{{Lo: 100, Hi: 110}}},
		{"crossbar tiles in partitions", dma.Side{Addr: 0, ElemSize: 2, Step: [4]int64{1, 1000, 16}}, [4]uint32{16, 3, 4, 1}, []dma.Run{{Lo: 0, Hi: 128}, {Lo: 2000, Hi: 2128}, {Lo: 4000, Hi: 4128}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := dma.Footprint(c.s, c.n, 100)
			if !ok || len(got) != len(c.want) {
				t.Errorf("%s: Footprint = %v %v, want %v", c.name, got, ok, c.want)
				return
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s: Footprint = %v, want %v", c.name, got, c.want)
					break
				}
			}
		})
	}
	if _, ok := dma.Footprint(dma.Side{ElemSize: 1, Step: [4]int64{2}}, [4]uint32{101, 1, 1, 1}, 100); ok {
		t.Error("101 runs enumerated with a budget of 100")
	}
	if _, ok := dma.Footprint(dma.Side{Addr: math.MaxUint64 - 8, ElemSize: 1, Step: [4]int64{4}}, [4]uint32{4, 1, 1, 1}, 100); ok {
		t.Error("a walk past the address space enumerated")
	}
}

// job puts one descriptor on each engine.
func job(ds ...dma.Descriptor) *dma.Job {
	j := &dma.Job{Queues: make([][]dma.Descriptor, len(ds))}
	for i, d := range ds {
		j.Queues[i] = []dma.Descriptor{d}
	}
	return j
}

// The overlap test compares the exact bytes: interleaved but disjoint footprints (which the old
// bounding-range test reported shared) do not conflict; one shared byte does, and so does a
// byte one descriptor writes and another reads.
func TestConflictsExact(t *testing.T) {
	strided := rowsTo(0, 0x100000, 1, 1024)
	strided.Num, strided.Dst.Step = [4]uint32{1 << 19, 1, 1, 1}, [4]int64{2, 0} // 2^19 one-byte runs
	sameEngine := &dma.Job{Queues: [][]dma.Descriptor{{rowsTo(0, 0x10000, 4, 1024), rowsTo(4096, 0x10c00, 4, 1024)}, {rowsTo(0, 0x20000, 4, 1024)}}}
	scatter := dma.Descriptor{Kind: dma.KindGather, Dst: dma.Side{Addr: 0x1000, ElemSize: 4}, Indirect: &dma.Indirect{Mode: isa.DstIndirection, Count: 4}}
	for _, c := range []struct {
		name string
		j    *dma.Job
		want bool
	}{
		{"adjacent destinations", job(rowsTo(0, 0x10000, 4, 1024), rowsTo(4096, 0x11000, 4, 1024)), false},
		{"one row written by two engines", job(rowsTo(0, 0x10000, 4, 0), rowsTo(4096, 0x10000, 4, 0)), true},
		{"interleaved rows", job(rowsTo(0, 0x10000, 8, 2048), rowsTo(8192, 0x10400, 8, 2048)), false},
		{"interleaved rows sharing a byte", job(rowsTo(0, 0x10000, 8, 2048), rowsTo(8192, 0x103ff, 8, 2048)), true},
		{"interleaved backward rows", job(rowsTo(0, 0x13c00, 4, -2048), rowsTo(4096, 0x12800, 4, 2048)), false},
		{"interleaved backward rows sharing a byte", job(rowsTo(0, 0x13c00, 4, -2048), rowsTo(4096, 0x127ff, 4, 2048)), true},
		{"transpose row blocks", job(xbarRows(0, 1<<47, 128, 0, 0x40000), xbarRows(0, 1<<47, 128, 16, 0x40000), xbarRows(0, 1<<47, 128, 32, 0x40000)), false},
		{"transpose row blocks sharing a column", job(xbarRows(0, 1<<47, 128, 0, 0x40000), xbarRows(0, 1<<47, 128, 15, 0x40000)), true},
		{"a source another engine writes", job(rowsTo(0, 0x10000, 4, 1024), rowsTo(0x10800, 0x20000, 4, 1024)), true},
		{"a source another engine reads", job(rowsTo(0, 0x10000, 4, 1024), rowsTo(0x800, 0x20000, 4, 1024)), false},
		{"in place, one block per engine", job(rowsTo(0, 0, 4, 1024), rowsTo(4096, 4096, 4, 1024)), false},
		{"two descriptors of one engine", sameEngine, true},
		{"a scatter beside another engine", job(rowsTo(0, 0x10000, 4, 1024), scatter), true},
		{"one descriptor", job(scatter), false},
		{"more runs than MaxOverlapRuns", job(strided, rowsTo(0, 0x400000, 4, 1024)), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.j.Conflicts(); got != c.want {
				t.Errorf("%s: Conflicts() = %v, want %v", c.name, got, c.want)
			}
		})
	}
	sameEngine.Queues[0][1].Dst.Addr = 0x11000
	if sameEngine.Conflicts() {
		t.Error("two disjoint descriptors of one engine conflict")
	}
}

// runJob runs the job on fresh memory holding src at 0 and returns the engines' result and
// the memory.
func runJob(t *testing.T, g isa.Generation, src []byte, j *dma.Job, workers int) (*dma.Result, *dmatest.Memory) {
	t.Helper()
	m := dmatest.New(g)
	if err := m.WriteAt(0, src); err != nil {
		t.Fatal(err)
	}
	eng := dma.New(g)
	eng.Workers, eng.SerialSharedDst = workers, true
	res, err := eng.Run(m, j)
	if err != nil {
		t.Fatal(err)
	}
	return res, m
}

func pattern(n int) []byte {
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + i>>12)
	}
	return src
}

// With SerialSharedDst a job whose descriptors write the same bytes, or read bytes another
// writes, runs in job order: the same bytes on every run (also under -race), even when the job
// is large enough for parallel workers.
func TestSerialSharedDstDeterministic(t *testing.T) {
	g := isa.CAYMAN
	src := pattern(4 << 20)
	for _, c := range []struct {
		name string
		desc func(e int) dma.Descriptor
		out  uint64 // bytes compared at 1<<30
		want []byte
	}{
		// every engine's rows onto one row: the last engine's last row wins
		{"rows onto one row", func(e int) dma.Descriptor { return rowsTo(uint64(e)*256*1024, 1<<30, 256, 0) }, 1024, src[len(src)-1024:]},
		// rows 1023 bytes apart: each engine's block shares one byte with the next engine's
		{"blocks sharing a byte", func(e int) dma.Descriptor {
			return rowsTo(uint64(e)*256*1024, 1<<30+uint64(e)*256*1023, 256, 1023)
		}, 16 * 256 * 1023, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var first []byte
			for trial := 0; trial < 50; trial++ {
				var j dma.Job
				for e := 0; e < 16; e++ {
					j.Queues = append(j.Queues, []dma.Descriptor{c.desc(e)})
				}
				res, m := runJob(t, g, src, &j, 2)
				if res.Workers != 1 {
					t.Fatalf("%s: ran on %d workers", c.name, res.Workers)
				}
				out := make([]byte, c.out)
				if err := m.ReadAt(1<<30, out); err != nil {
					t.Fatal(err)
				}
				if c.want != nil && !bytes.Equal(out, c.want) {
					t.Fatalf("%s: run %d: the last row did not win", c.name, trial)
				}
				if first != nil && !bytes.Equal(out, first) {
					t.Fatalf("%s: run %d differs from run 0", c.name, trial)
				}
				first = out
			}
		})
	}
	// A copy whose destination is the next engine's source (a shift by 512 bytes) runs in job
	// order: each engine reads its source before any later engine writes it, and after every
	// earlier engine did.
	var first []byte
	for trial := 0; trial < 50; trial++ {
		var j dma.Job
		for e := 0; e < 16; e++ {
			j.Queues = append(j.Queues, []dma.Descriptor{rowsTo(uint64(e)*256*1024, uint64(e)*256*1024+512, 256, 1024)})
		}
		res, m := runJob(t, g, src, &j, 2)
		if res.Workers != 1 {
			t.Fatalf("shift: ran on %d workers", res.Workers)
		}
		out := make([]byte, len(src)+512)
		if err := m.ReadAt(0, out); err != nil {
			t.Fatal(err)
		}
		if first != nil && !bytes.Equal(out, first) {
			t.Fatalf("shift: run %d differs from run 0", trial)
		}
		first = out
	}
}

// A crossbar transpose whose engines' column blocks interleave in every partition, and a gather
// whose rows land in disjoint places, run on parallel workers with SerialSharedDst (the old
// bounding-range test serialised them), and give the same bytes as a run on one worker.
func TestSerialSharedDstKeepsDisjointJobsParallel(t *testing.T) {
	g := isa.CAYMAN
	pstride := int64(g.Geometry().StateBufPartitionSize)
	const rows, cols = 8192, 128 // HBM source rows x cols bf16 (2 MiB); SBUF gets cols partitions of rows elements
	src := pattern(rows * cols * 2)
	xbar := &dma.Job{Queues: make([][]dma.Descriptor, 16)}
	for e := 0; e < 16; e++ {
		for h := 0; h < 2; h++ { // two descriptors per engine, 16 row tiles each
			d := xbarRows(0, isa.DMALocalBase, cols, uint32(e*rows/16+h*rows/32), pstride)
			d.Num[2], d.Src.Step[2], d.Dst.Step[2] = rows/32/16, 16*cols, 16
			xbar.Queues[e] = append(xbar.Queues[e], d)
		}
	}
	if xbar.Conflicts() {
		t.Fatal("the transpose's column blocks conflict")
	}
	// gather: 16 engines x 256 rows of 1 KiB, engine e's rows from index list e (reversed rows)
	gather := &dma.Job{Queues: make([][]dma.Descriptor, 16)}
	const idx = 4 << 20
	idxBytes := make([]byte, 16*256*4)
	for i := 0; i < 16*256; i++ {
		binary.LittleEndian.PutUint32(idxBytes[4*i:], uint32(16*256-1-i))
	}
	for e := 0; e < 16; e++ {
		d := dma.Descriptor{Kind: dma.KindGather, Sem: -1, Indirect: &dma.Indirect{Mode: isa.SrcIndirection, SrcIdx: idx + uint64(e)*1024, Count: 256, SrcExtent: 16 * 256}}
		d.Src = dma.Side{Addr: 0, ElemSize: 1024, Step: [4]int64{1}}
		d.Dst = dma.Side{Addr: 1<<30 + uint64(e)*256*1024, ElemSize: 1024, Step: [4]int64{1}}
		gather.Queues[e] = []dma.Descriptor{d}
	}
	if !gather.Conflicts() {
		t.Fatal("a gather is bounded without its indices")
	}
	for _, c := range []struct {
		name              string
		j                 *dma.Job
		src               []byte
		at, lines, stride uint64 // what to compare: lines of stride bytes from at (the written part of each)
		size              uint64
	}{
		{"crossbar transpose", xbar, src, isa.DMALocalBase, cols, uint64(pstride), rows * 2},
		{"gather", gather, append(pattern(4<<20), idxBytes...), 1 << 30, 1, 0, 4 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want []byte
			for _, workers := range []int{1, 4} {
				res, m := runJob(t, g, c.src, c.j, workers)
				if workers > 1 && res.Workers < 2 {
					t.Errorf("ran on %d worker(s), want several", res.Workers)
				}
				out := make([]byte, c.lines*c.size)
				for l := uint64(0); l < c.lines; l++ {
					if err := m.ReadAt(c.at+l*c.stride, out[l*c.size:(l+1)*c.size]); err != nil {
						t.Fatal(err)
					}
				}
				if want == nil {
					want = out
				} else if !bytes.Equal(out, want) {
					t.Errorf("parallel result differs from one worker's")
				}
			}
		})
	}
}
