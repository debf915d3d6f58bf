package dma_test

import (
	"bytes"
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

func TestDstRangeAndEnginesShareDst(t *testing.T) {
	d := rowsTo(0, 0x10000, 4, 1024)
	if lo, hi, ok := d.DstRange(); !ok || lo != 0x10000 || hi != 0x10000+4096 {
		t.Errorf("DstRange = [0x%x, 0x%x) %v", lo, hi, ok)
	}
	back := rowsTo(0, 0x10000, 4, -1024)
	if lo, hi, ok := back.DstRange(); !ok || lo != 0x10000-3*1024 || hi != 0x10000+1024 {
		t.Errorf("backward DstRange = [0x%x, 0x%x) %v", lo, hi, ok)
	}
	gx := dma.Descriptor{Kind: dma.KindGatherXpose, Dst: dma.Side{Addr: 0x1000, ElemSize: 2, Step: [4]int64{1, 64}},
		GatherXpose: &dma.GatherXpose{First: 16, Count: 16, Cols: 8, IdxPartitions: 16}}
	// dst[f][j] at 0x1000 + (64f + j)*2, f < 8, 16 <= j < 32
	if lo, hi, ok := gx.DstRange(); !ok || lo != 0x1000+32 || hi != 0x1000+2*(7*64+31)+2 {
		t.Errorf("gather-transpose DstRange = [0x%x, 0x%x) %v", lo, hi, ok)
	}
	scatter := dma.Descriptor{Kind: dma.KindGather, Dst: dma.Side{Addr: 0x1000, ElemSize: 4}, Indirect: &dma.Indirect{Mode: isa.DstIndirection, Count: 4}}
	if _, _, ok := scatter.DstRange(); ok {
		t.Error("a scatter's destination is bounded without reading its indices")
	}
	job := func(ds ...dma.Descriptor) *dma.Job {
		j := &dma.Job{Queues: make([][]dma.Descriptor, len(ds))}
		for i, d := range ds {
			j.Queues[i] = []dma.Descriptor{d}
		}
		return j
	}
	if job(rowsTo(0, 0x10000, 4, 1024), rowsTo(4096, 0x11000, 4, 1024)).EnginesShareDst() {
		t.Error("adjacent destinations reported shared")
	}
	if !job(rowsTo(0, 0x10000, 4, 0), rowsTo(4096, 0x10000, 4, 0)).EnginesShareDst() {
		t.Error("one row written by two engines not reported shared")
	}
	if !job(rowsTo(0, 0x10000, 4, 1024), scatter).EnginesShareDst() {
		t.Error("a scatter beside another engine not reported shared")
	}
	if job(scatter).EnginesShareDst() {
		t.Error("one engine shares with itself")
	}
}

// With SerialSharedDst a job whose engines write the same bytes runs in job order: the last
// engine's last row wins on every run, even when the job is large enough for parallel workers.
func TestSerialSharedDstDeterministic(t *testing.T) {
	g := isa.CAYMAN
	src := make([]byte, 4<<20)
	for i := range src {
		src[i] = byte(i*7 + i>>12)
	}
	var first []byte
	for trial := 0; trial < 8; trial++ {
		m := dmatest.New(g)
		if err := m.WriteAt(0, src); err != nil {
			t.Fatal(err)
		}
		var j dma.Job
		for e := 0; e < 16; e++ {
			j.Queues = append(j.Queues, []dma.Descriptor{rowsTo(uint64(e)*256*1024, 1<<30, 256, 0)})
		}
		eng := dma.New(g)
		eng.Workers, eng.SerialSharedDst = 2, true
		if _, err := eng.Run(m, &j); err != nil {
			t.Fatal(err)
		}
		out := make([]byte, 1024)
		if err := m.ReadAt(1<<30, out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, src[len(src)-1024:]) {
			t.Fatalf("run %d: the last row did not win", trial)
		}
		if first != nil && !bytes.Equal(out, first) {
			t.Fatalf("run %d differs from run 0", trial)
		}
		first = out
	}
}
