package sim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// dmaLoad is a DMAMEMCPY of rows x cols fp32 from HBM (row-major) to SBUF (row r in partition r).
func dmaLoad(g isa.Generation, hbm uint64, rows, cols uint16, sem uint8, ev isa.Events) *isa.DMADirect2D {
	stride := int32(g.Geometry().StateBufPartitionSize / 4)
	return &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16}, Events: ev,
		Semaphore: sem, SemIncrement: 1,
		SrcStartAddr: isa.Addr8(hbm), SrcStepElem: [2]int32{1, int32(cols)}, SrcNumElem: [2]uint16{cols, rows}, SrcElemSize: 4,
		DstStartAddr: isa.LocalAddr8(0), DstStepElem: [2]int32{1, stride}, DstNumElem: [2]uint16{cols, rows}, DstElemSize: 4,
		InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32}
}

func TestDMAFeedsDVE(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g, Trace: true, CheckUninit: true})
	in := make([]byte, 32*32*4)
	for c := 0; c < 32; c++ {
		for e := 0; e < 32; e++ {
			binary.LittleEndian.PutUint32(in[(c*32+e)*4:], uint32(c<<8|e))
		}
	}
	if err := m.Memory().WriteAt(1<<40, in); err != nil {
		t.Fatal(err)
	}
	ld := dmaLoad(g, 1<<40, 32, 32, 7, isa.Events{})
	if vs := isa.Validate(ld, g); len(vs) > 0 {
		t.Fatalf("test DMA invalid: %v", vs)
	}
	tr := s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeUINT32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 32, waitGE(7, 1))
	res, err := m.Run(prog(q(isa.EngineTPB_SP, ld), q(isa.EngineDVE, tr)))
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 32; c++ {
		got := m.Memory().Partition(mem.SBUF, c)[0x1000 : 0x1000+128]
		for e := 0; e < 32; e++ {
			if v := binary.LittleEndian.Uint32(got[4*e:]); v != uint32(e<<8|c) {
				t.Fatalf("dst[%d][%d] = 0x%x, want 0x%x", c, e, v, e<<8|c)
			}
		}
	}
	dmaSlices := 0
	var dveStart, dmaEnd int64
	for _, e := range res.Trace.Events() {
		switch e.Cat {
		case "DMA":
			dmaSlices++
			dmaEnd = max(dmaEnd, e.TsPS+e.DurPS)
			for _, k := range []string{"engine", "queue", "bytes", "src", "dst"} {
				if _, ok := e.Args[k]; !ok {
					t.Errorf("DMA slice lacks %q: %v", k, e.Args)
				}
			}
		case "DVE":
			dveStart = e.TsPS
		}
	}
	if dmaSlices == 0 || dveStart < dmaEnd {
		t.Errorf("%d DMA slices; DVE starts at %d before the DMA ends at %d", dmaSlices, dveStart, dmaEnd)
	}
	var b bytes.Buffer
	res.Trace.Write(&b)
	checkTraceJSON(t, b.Bytes(), []string{"SP", "DVE", "DMA0"})
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	t.Log("\n" + sum.String())
}

// A DMA that fails its bounds check moves nothing and bumps no semaphore.
func TestDMAAtomicFailure(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g})
	fillRandom(t, m, 3)
	before := snapshot(m)
	ld := dmaLoad(g, 1<<40, 32, 32, 7, isa.Events{UpdateMode: isa.SemIncComplete, UpdateIdx: 8})
	ld.DstStartAddr = isa.LocalAddr8(g.Geometry().StateBufPartitionActive - 64) // rows run past the active area
	_, err := m.Run(prog(q(isa.EngineTPB_SP, ld)))
	if err == nil {
		t.Fatal("no error")
	}
	t.Log(err)
	if !bytes.Equal(before, snapshot(m)) || m.Semaphore(7) != 0 || m.Semaphore(8) != 0 {
		t.Error("a failing DMA changed memory or semaphores")
	}
	// the firmware's "$S[7]+=1" is quoted as not applied, since sem[7] is unchanged
	if msg := err.Error(); !strings.Contains(msg, "Failed bounds check. $S[7]+=1 not applied: the failed job changes no memory and no semaphore.") {
		t.Errorf("message does not say the increment was not applied: %s", msg)
	}
}

// A DMA that would pass the HBM cap is refused before any byte moves.
func TestDMAHBMCapAtomic(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g, HBMCapBytes: mem.HBMPageSize})
	fillRandom(t, m, 5)
	// SBUF -> HBM: 128 rows x 256 fp32 = 128 KiB = two pages, one more than the cap allows
	st := dmaLoad(g, 0, 128, 256, 1, isa.Events{UpdateMode: isa.SemIncComplete, UpdateIdx: 2})
	st.SrcStartAddr, st.DstStartAddr = st.DstStartAddr, st.SrcStartAddr
	st.SrcStepElem, st.DstStepElem = st.DstStepElem, st.SrcStepElem
	_, err := m.Run(prog(q(isa.EngineTPB_SP, st)))
	if !errors.Is(err, fault.ErrCapacity) || !errors.Is(err, mem.ErrHBMCap) || errors.Is(err, fault.ErrBounds) {
		t.Fatalf("err = %v, want fault.ErrCapacity (HBM cap), not fault.ErrBounds", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "capacity limit exceeded: rule hbm_cap") || strings.Contains(msg, "out of bounds") {
		t.Errorf("cap refusal reads %q, want it labelled a capacity limit", msg)
	}
	// worded like the memory's own cap message (mem.hbmCapCheck), with the page size
	if msg := err.Error(); !strings.Contains(msg, "needs 2 new HBM pages of 65536 bytes; 0 of the cap's 1 pages already allocated (a cap of 65536 bytes allows 1 whole pages, 65536 bytes)") {
		t.Errorf("cap refusal reads %q, want the pages, the page size and the cap", msg)
	}
	if n := m.Memory().HBMBytesAllocated(); n != 0 || m.Semaphore(1) != 0 || m.Semaphore(2) != 0 {
		t.Errorf("after the refused DMA: %d HBM bytes allocated, sem[1]=%d sem[2]=%d", n, m.Semaphore(1), m.Semaphore(2))
	}
	// half of it fits
	st.SrcNumElem[1], st.DstNumElem[1] = 64, 64
	if _, err := m.Run(prog(q(isa.EngineTPB_SP, st))); err != nil {
		t.Fatal(err)
	}
}

// HBM pages written through Memory().WriteAt count as allocated for the DMA's cap check (the
// memory answers it), and with CheckUninit a DMA from never-written HBM fails as fault.ErrUninit,
// reaching mem's sentinel through the engines' BoundsError, and changes nothing.
func TestDMACapAndUninitFromMemory(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g, HBMCapBytes: 2 * mem.HBMPageSize, CheckUninit: true})
	if err := m.Memory().WriteAt(0, make([]byte, 2*mem.HBMPageSize)); err != nil {
		t.Fatal(err)
	}
	fillRandom(t, m, 9)
	// SBUF -> HBM over the two existing pages: no new page, within the cap.
	st := dmaLoad(g, 0, 128, 256, 1, isa.Events{})
	st.SrcStartAddr, st.DstStartAddr = st.DstStartAddr, st.SrcStartAddr
	st.SrcStepElem, st.DstStepElem = st.DstStepElem, st.SrcStepElem
	if _, err := m.Run(prog(q(isa.EngineTPB_SP, st))); err != nil {
		t.Fatal(err)
	}
	for r := 0; r < 128; r++ {
		got := make([]byte, 1024)
		if err := m.Memory().ReadAt(uint64(r*1024), got); err != nil || !bytes.Equal(got, m.Memory().Partition(mem.SBUF, r)[:1024]) {
			t.Fatalf("row %d not stored (%v)", r, err)
		}
	}
	before := snapshot(m)
	ld := dmaLoad(g, 1<<40, 32, 32, 3, isa.Events{})
	_, err := m.Run(prog(q(isa.EngineTPB_SP, ld)))
	if !errors.Is(err, fault.ErrUninit) || !errors.Is(err, fault.ErrUninit) {
		t.Fatalf("err = %v, want fault.ErrUninit", err)
	}
	if !bytes.Equal(before, snapshot(m)) || m.Semaphore(3) != 0 {
		t.Error("the refused DMA changed memory or a semaphore")
	}
}

// The trace and the summary of a DMA: a casting descriptor (FP32 -> BF16) reads twice the bytes
// it writes, and the instruction's slice names where its walk starts, even when a busy engine
// makes another descriptor start first.
func TestDMATraceBytesAndAddresses(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g, Trace: true})
	stride := int32(g.Geometry().StateBufPartitionSize / 2)
	cast := dmaLoad(g, 1<<40, 64, 64, 0, isa.Events{})
	cast.SemIncrement = 0
	cast.DstStepElem[1], cast.DstElemSize, cast.OutDtype = stride, 2, isa.DTypeBFLOAT16
	cast.DstStartAddr = isa.LocalAddr8(0x100)
	first := dmaLoad(g, 1<<41, 2, 2048, 0, isa.Events{}) // keeps DMA0 and DMA1 busy when cast's descriptors arrive
	first.SemIncrement = 0
	first.DstStartAddr = isa.LocalAddr8(0x8000)
	res, err := m.Run(prog(q(isa.EngineACT, first), q(isa.EngineTPB_SP, cast)))
	if err != nil {
		t.Fatal(err)
	}
	var rd, wr int64
	for _, e := range res.Trace.Events() {
		switch e.Cat {
		case "SP":
			if e.Args["bytes_read"] != int64(64*64*4) || e.Args["bytes_written"] != int64(64*64*2) {
				t.Errorf("SP's DMA reads %v, writes %v bytes; want %d, %d", e.Args["bytes_read"], e.Args["bytes_written"], 64*64*4, 64*64*2)
			}
			if e.Args["src"] != "hbm:0x10000000000" || e.Args["dst"] != "sbuf:0:0x100" {
				t.Errorf("SP's DMA from %v to %v, want hbm:0x10000000000 to sbuf:0:0x100", e.Args["src"], e.Args["dst"])
			}
		case "DMA":
			if e.Args["issued_by"] == "SP instruction 0 (DMAMEMCPY)" {
				r, _ := e.Args["bytes_read"].(int64)
				w, _ := e.Args["bytes_written"].(uint64)
				rd, wr = rd+r, wr+int64(w)
			}
		}
	}
	if rd != 64*64*4 || wr != 64*64*2 {
		t.Errorf("SP's descriptors read %d, write %d bytes", rd, wr)
	}
	var sr, sw int64
	for _, s := range res.Engines {
		if strings.HasPrefix(s.Engine, "DMA") {
			sr += s.BytesRead
			sw += s.BytesWritten
		}
	}
	if want := int64(64*64*4 + 2*2048*4); sr != want || sw != int64(64*64*2+2*2048*4) {
		t.Errorf("DMA rows read %d, write %d bytes; want %d, %d", sr, sw, want, 64*64*2+2*2048*4)
	}
}
