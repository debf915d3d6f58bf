package dma_test

import (
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
)

// DescriptorFootprint gives a descriptor's exact written and read runs, its extent past the run
// budget, and a gather's rows as its indices in memory name them.
func TestDescriptorFootprint(t *testing.T) {
	g := isa.CAYMAN
	e := dma.New(g)
	m := dmatest.New(g)
	// 3 rows of 1 KiB from 0x10000 to every other KiB from 0x100000
	d := rowsTo(0x10000, 0x100000, 3, 2048)
	f, err := e.DescriptorFootprint(m, &d, 0, 0, 100)
	if err != nil || !f.Exact || len(f.Reads) != 1 || f.Reads[0] != (dma.Run{Lo: 0x10000, Hi: 0x10000 + 3*1024}) ||
		len(f.Writes) != 3 || f.Writes[2] != (dma.Run{Lo: 0x100000 + 2*2048, Hi: 0x100000 + 2*2048 + 1024}) {
		t.Errorf("copy: %+v %v", f, err)
	}
	// over a budget of 2 runs: the destination's extent, marked inexact
	f, err = e.DescriptorFootprint(m, &d, 0, 0, 2)
	if err != nil || f.Exact || len(f.Writes) != 1 || f.Writes[0] != (dma.Run{Lo: 0x100000, Hi: 0x100000 + 2*2048 + 1024}) {
		t.Errorf("over budget: %+v %v", f, err)
	}
	// a gather of 4 rows of 16 bytes, rows 3, 0, 7, 1 of a source at 0x20000, indices at 0x30000
	idx := make([]byte, 16)
	for i, r := range []uint32{3, 0, 7, 1} {
		binary.LittleEndian.PutUint32(idx[4*i:], r)
	}
	m.WriteAt(0x30000, idx)
	m.WriteAt(0x20000, make([]byte, 8*16))
	gd := dma.Descriptor{Kind: dma.KindGather, Sem: -1, Indirect: &dma.Indirect{Mode: isa.SrcIndirection, SrcIdx: 0x30000, Count: 4, SrcExtent: 8}}
	gd.Src = dma.Side{Addr: 0x20000, ElemSize: 16, Step: [4]int64{1}}
	gd.Dst = dma.Side{Addr: 0x40000, ElemSize: 16, Step: [4]int64{1}}
	f, err = e.DescriptorFootprint(m, &gd, 0, 0, 100)
	want := []dma.Run{{Lo: 0x20000, Hi: 0x20020}, {Lo: 0x20030, Hi: 0x20040}, {Lo: 0x20070, Hi: 0x20080}}
	if err != nil || !f.Exact || len(f.Reads) != len(want) || len(f.Writes) != 1 || f.Writes[0] != (dma.Run{Lo: 0x40000, Hi: 0x40040}) {
		t.Fatalf("gather: %+v %v", f, err)
	}
	for i := range want {
		if f.Reads[i] != want[i] {
			t.Errorf("gather reads %v, want %v", f.Reads, want)
		}
	}
	// over budget: the rows' extent
	f, err = e.DescriptorFootprint(m, &gd, 0, 0, 2)
	if err != nil || f.Exact || len(f.Reads) != 1 || f.Reads[0] != (dma.Run{Lo: 0x20000, Hi: 0x20080}) {
		t.Errorf("gather over budget: %+v %v", f, err)
	}
}

// JobFootprints gives each descriptor of a job what DescriptorFootprint gives it, in slices that
// do not share room: appending to one footprint's runs leaves the others as they were.
func TestJobFootprints(t *testing.T) {
	g := isa.CAYMAN
	e := dma.New(g)
	m := dmatest.New(g)
	job := &dma.Job{Queues: [][]dma.Descriptor{
		{rowsTo(0x10000, 0x100000, 3, 2048), rowsTo(0x20000, 0x200000, 1, 1024)},
		nil,
		{rowsTo(0x30000, 0x300000, 2, 4096)},
	}}
	got, err := e.JobFootprints(m, job, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(job.Queues) {
		t.Fatalf("%d queues of footprints for %d queues", len(got), len(job.Queues))
	}
	for q := range job.Queues {
		if len(got[q]) != len(job.Queues[q]) {
			t.Fatalf("queue %d: %d footprints for %d descriptors", q, len(got[q]), len(job.Queues[q]))
		}
		for i := range job.Queues[q] {
			want, err := e.DescriptorFootprint(m, &job.Queues[q][i], q, i, 100)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got[q][i], want) {
				t.Errorf("queue %d descriptor %d: %+v, alone %+v", q, i, got[q][i], want)
			}
		}
	}
	before := fmt.Sprint(got)
	_ = append(got[0][0].Writes, dma.Run{Lo: 1, Hi: 2})
	_ = append(got[0][0].Reads, dma.Run{Lo: 1, Hi: 2})
	if after := fmt.Sprint(got); after != before {
		t.Errorf("an append to one footprint changed another:\n%s\n%s", before, after)
	}
}
