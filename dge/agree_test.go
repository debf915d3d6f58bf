package dge

import (
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
)

// xposeWord is a DMA_TRANSPOSE (0xBD) word.
func xposeWord(in, out isa.DType, src, dst uint64, rows, cols int, srcRowStep, dstRowStep int32) *isa.DMADirect2DXpose {
	return &isa.DMADirect2DXpose{Header: isa.Header{Opcode: isa.OpDMA_TRANSPOSE, InstWordLen: 16}, InDtype: in, OutDtype: out,
		SrcStartAddr: isa.Addr8(src), DstStartAddr: isa.Addr8(dst), TileSrcRows: uint8(rows), TileSrcCols: uint8(cols),
		TileSrcRowStep: srcRowStep, DstRowStep: dstRowStep, Semaphore: 1}
}

// gatherXposeWord is a DMA_GATHER_TRANSPOSE (0xF1) word gathering n rows of f 2-byte elements.
func gatherXposeWord(d isa.DType, dst uint64, n, f int, dstStep int32) *isa.DMAGatherXpose {
	return &isa.DMAGatherXpose{Header: isa.Header{Opcode: isa.OpDMA_GATHER_TRANSPOSE, InstWordLen: 16}, Semaphore: 2, IdxNumActiveChannels: 128,
		SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: [2]int32{1, int32(f)}, SrcNumElem: [2]uint16{uint16(f), uint16(n)},
		SrcIdxStartAddr: isa.Addr4(0x200), DstStartAddr: isa.Addr8(dst), DstStepElem1: dstStep,
		DstNumElem: [2]uint16{uint16(n), uint16(f)}, ElemSize: uint16(2 * f),
		Dtype: isa.MakeDTypePair(d, d), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}
}

// agree fails t when the planner accepts a word the ISA validator refuses: check and run
// validate every word first, so a word the planner plans must be one they accept.
func agree(t *testing.T, g isa.Generation, w isa.Inst) bool {
	t.Helper()
	_, perr := PlanInst(g, w, Config{}, Options{Quiet: true})
	vs := isa.Validate(w, g)
	if perr == nil && len(vs) > 0 {
		t.Errorf("%v: the planner plans a word the ISA refuses: %v\n%+v", g, vs[0], w)
		return false
	}
	return perr == nil
}

// TestPlannerWordsPassISA: every DMA_TRANSPOSE and DMA_GATHER_TRANSPOSE word the planner
// accepts, over a grid of dtypes, tiles, source and destination placements and row steps, on
// every generation, passes isa.Validate; so does every cast DMAMEMCPY it accepts (the CCE
// alignment: src 0x1 / dst 0x3 is refused by both). And the crossbar tiles it makes for
// requests, written as DMA_TRANSPOSE words, pass both.
func TestPlannerWordsPassISA(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			geo := g.Geometry()
			sb := func(off uint64) uint64 { return isa.DMALocalBase + off }
			planned := 0
			t.Run("DMA_TRANSPOSE", func(t *testing.T) {
				srcs := []uint64{0x4000, sb(0x8000), sb(uint64(geo.PSUMOffset))}
				dsts := []uint64{sb(0x100), sb(0x110), sb(0x120), sb(uint64(geo.PSUMOffset)), 0x100000}
				for _, dt := range [][2]isa.DType{{isa.DTypeFP16, isa.DTypeFP16}, {isa.DTypeFP32, isa.DTypeFP32}, {isa.DTypeINT8, isa.DTypeINT8}, {isa.DTypeFP32, isa.DTypeBFLOAT16}} {
					for _, rows := range []int{8, 15, 16} {
						for _, cols := range []int{1, 16, 64, 100, 128} {
							for _, src := range srcs {
								for _, dst := range dsts {
									for _, step := range []int32{0, 8, 16, 24, 32, 64} {
										if agree(t, g, xposeWord(dt[0], dt[1], src, dst, rows, cols, 200, step)) {
											planned++
										}
									}
								}
							}
						}
					}
				}
			})
			t.Run("DMA_GATHER_TRANSPOSE", func(t *testing.T) {
				for _, d := range []isa.DType{isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeFP32} {
					for _, dst := range []uint64{sb(0x10000), sb(0x10010), sb(uint64(geo.PSUMOffset)), 0x200000} {
						for _, f := range []int{1, 16, 128} {
							for _, step := range []int32{8, 16, 24, 32, int32(geo.StateBufPartitionSize / 2)} {
								if agree(t, g, gatherXposeWord(d, dst, 32, f, step)) {
									planned++
								}
							}
						}
					}
				}
			})
			t.Run("cast DMAMEMCPY", func(t *testing.T) {
				for _, a := range [][2]uint64{{0x1, 0x3}, {0x2, 0x4}, {0x1000, 0x2002}, {0x1000, 0x2000}} {
					for _, dt := range [][2]isa.DType{{isa.DTypeBFLOAT16, isa.DTypeFP32}, {isa.DTypeFP32, isa.DTypeBFLOAT16}, {isa.DTypeINT8, isa.DTypeFP16}} {
						w := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16}, Semaphore: 1, SemIncrement: 1,
							SrcStartAddr: isa.Addr8(a[0]), SrcStepElem: [2]int32{1, 16}, SrcNumElem: [2]uint16{16, 4}, SrcElemSize: uint16(dt[0].Size()),
							DstStartAddr: isa.Addr8(0x100000 + a[1]), DstStepElem: [2]int32{1, 16}, DstNumElem: [2]uint16{16, 4}, DstElemSize: uint16(dt[1].Size()),
							InDtype: dt[0], OutDtype: dt[1]}
						if agree(t, g, w) {
							planned++
						}
					}
				}
			})
			t.Run("request tiles", func(t *testing.T) {
				planned += requestTilesAgree(t, g)
			})
			if g != isa.SUNDA && planned == 0 {
				t.Error("no word planned: the grid tests nothing")
			}
		})
	}
}

// requestTilesAgree plans random transposes of g and writes the first full (16-row) tile of
// every crossbar descriptor as the DMA_TRANSPOSE word that moves it: the ISA and the planner
// must both accept it. (A row-edge tile of fewer than 16 rows has no instruction form: the
// instruction's tile_src_rows is 16, FACTS §C.5.) It returns the words checked.
func requestTilesAgree(t *testing.T, g isa.Generation) int {
	rng := rand.New(rand.NewSource(int64(g)))
	words := 0
	for i := 0; i < 60; i++ {
		rows, cols := []int{16, 32, 48, 40}[rng.Intn(4)], []int{16, 64, 128, 200}[rng.Intn(4)]
		dt := []isa.DType{isa.DTypeBFLOAT16, isa.DTypeFP32}[rng.Intn(2)]
		src := []uint64{0x1000, isa.DMALocalBase + 0x8000}[rng.Intn(2)]
		dst := isa.DMALocalBase + uint64(g.Geometry().StateBufPartitionSize)*uint64(rng.Intn(2)) + []uint64{0x40000 - 0x40000, 0x20, 0x1000}[rng.Intn(3)]
		r, err := TensorRequest(g, src, dst, []int{rows, cols}, []int{1, 0}, dt)
		if err != nil {
			continue
		}
		p, err := PlanRequest(r, Options{Quiet: true})
		if err != nil || (p.Kind != KindXbarTranspose && p.Kind != KindSB2SBTranspose) {
			continue
		}
		for _, q := range p.Job.Queues {
			for k := range q {
				d := &q[k]
				if d.Kind != dma.KindXbar || d.Num[0] != dma.XbarRows {
					continue
				}
				w := xposeWord(dt, dt, d.Src.Addr, d.Dst.Addr, int(d.Num[0]), int(d.Num[1]), int32(d.Src.Step[0]), int32(d.Dst.Step[1]))
				if vs := isa.Validate(w, g); len(vs) > 0 {
					t.Errorf("%v: a tile of %v %dx%d -> dst 0x%x is a word the ISA refuses: %v", g, dt, rows, cols, dst, vs[0])
				}
				if _, err := PlanInst(g, w, Config{}, Options{Quiet: true}); err != nil {
					t.Errorf("%v: a tile of %v %dx%d -> dst 0x%x is a word the planner refuses: %v", g, dt, rows, cols, dst, err)
				}
				words++
			}
		}
	}
	if g != isa.SUNDA && words == 0 {
		t.Error(fmt.Sprintf("%v: no crossbar tile checked", g))
	}
	return words
}

// A DMA_TRANSPOSE the crossbar cannot place is refused under dge_xpose_placement naming the
// planner's reason alone (Plan.Fallback): the plan's other notes (MEMCOPY_DMA_CFG read as every
// engine, ...) stay notes and never enter a violation's message.
func TestXposePlacementNamesOnlyTheReason(t *testing.T) {
	g := isa.CAYMAN
	dst := isa.DMALocalBase + 0x110 // not 32-byte aligned
	_, err := PlanInst(g, xposeWord(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, 0x4000, dst, 16, 16, 200, 0), Config{}, Options{Quiet: true})
	var de *Error
	if !errors.As(err, &de) || de.Rule != RuleXposePlacement {
		t.Fatalf("PlanInst: %v, want rule %s", err, RuleXposePlacement)
	}
	want := fmt.Sprintf("DMA_TRANSPOSE: the crossbar writes 32-byte aligned destinations (dst_start_addr %% 32 == 0, seed 003 §3.3) and dst 0x%x is not", dst)
	if de.Msg != want {
		t.Errorf("message %q\nwant    %q", de.Msg, want)
	}
	// The request asking for the same transpose plans element-strided, with the reason as its
	// own field and every note kept.
	r, err := TensorRequest(g, 0x4000, dst, []int{16, 16}, []int{1, 0}, isa.DTypeBFLOAT16)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanRequest(r, Options{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindElementStrided || !strings.HasPrefix(p.Fallback, "the crossbar writes 32-byte aligned destinations") {
		t.Errorf("kind %v, fallback %q", p.Kind, p.Fallback)
	}
	if !slices.Contains(p.Notes, p.Fallback) || len(p.Notes) < 2 {
		t.Errorf("notes %q: want the reason among the other notes", p.Notes)
	}
}
