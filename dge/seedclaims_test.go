package dge

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// D27: the backend selector (seed 003 §7): "After analyze/reshape resolves Kind + #DMA, the DGE
// selects a backend. [...] f9b3: const16 a10, 0x3197 ; -> "DGE: Select backend Pool" [...] The
// bytes at MP NX DRAM file-offset 0x3197 read S: DGE: Select backend Pool [...] the backend
// selector (Pool | RTL | software | NO-BACKEND)"; backend[Pool].available is the first test
// (f9b8: l32i.n a3, a4, 0 ; backend[Pool].available). SUNDA has no DGE setup, backend or
// emitter (§6.1: "the full transpose-reshape engine + the DGE setup/backend/emit arrive with
// CAYMAN"). On every generation and every path into the planner (a reshape request, a
// transpose request, each DMA instruction), the line is the seed's bytes, printed once, after
// every analyze / assess / transpose line (§4: analyze -> assess -> transpose) and before the
// spray and the emission; SUNDA selects NO-BACKEND and prints no line.
func TestSeedD27BackendSelector(t *testing.T) {
	const seedLine = "S: DGE: Select backend Pool" // seed 003 §7, quoted
	for b, want := range map[Backend]string{BackendPool: "Pool", BackendRTL: "RTL", BackendSoftware: "software", BackendNone: "NO-BACKEND"} {
		if b.String() != want {
			t.Errorf("backend %d prints %q, the seed's %q", b, b.String(), want)
		}
	}
	// stage orders a log line in the seed's pipeline; -1 is a line of no stage.
	stage := func(l string) int {
		switch {
		case strings.HasPrefix(l, "P0: DGE "):
			return 0 // the Q7 kind
		case strings.HasPrefix(l, "S: DGE Reshape: Analyzed"):
			return 1
		case strings.HasPrefix(l, "S: DGE Reshape: Assessed"):
			return 2
		case strings.HasPrefix(l, "S: tensor_reshape_"):
			return 3 // BEFORE / AFTER and the tile line
		case l == seedLine:
			return 4
		case strings.HasPrefix(l, "gen_spray_info"), strings.HasPrefix(l, "make_gather_pattern"),
			strings.HasPrefix(l, "Generating "), strings.HasPrefix(l, "S: push "), strings.HasPrefix(l, "tpbsim: wait_for_credit"):
			return 5
		}
		return -1
	}
	type path struct {
		name string
		plan func(t *testing.T, g isa.Generation) *Plan
	}
	inst := func(in isa.Inst) func(*testing.T, isa.Generation) *Plan {
		return func(t *testing.T, g isa.Generation) *Plan {
			p, err := PlanInst(g, in, Config{}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
	}
	paths := []path{
		{"copy request", func(t *testing.T, g isa.Generation) *Plan {
			return mustPlan(t, tensorReq(t, g, 0, 0x100000, []int{64, 64}, nil, isa.DTypeFP32))
		}},
		{"transpose request", func(t *testing.T, g isa.Generation) *Plan {
			return mustPlan(t, tensorReq(t, g, 0, 0x100000, []int{64, 64}, []int{1, 0}, isa.DTypeBFLOAT16))
		}},
		{"SBUF transpose request", func(t *testing.T, g isa.Generation) *Plan {
			return mustPlan(t, tensorReq(t, g, sbufAddr(g, 0, 0), 0x100000, []int{32, 64}, []int{1, 0}, isa.DTypeBFLOAT16))
		}},
		{"DIRECT2D", inst(&isa.DMADirect2D{Header: isa.Header{Opcode: 0xb8, InstWordLen: 16}, Semaphore: 3, SemIncrement: 1,
			SrcStartAddr: 0x1000, SrcStepElem: [2]int32{1, 16}, SrcNumElem: [2]uint16{8, 5}, SrcElemSize: 4,
			DstStartAddr: 0x9000, DstStepElem: [2]int32{1, 8}, DstNumElem: [2]uint16{8, 5}, DstElemSize: 4,
			InDtype: isa.DTypeUINT32, OutDtype: isa.DTypeUINT32})},
		{"INDIRECT1D", inst(&isa.DMAIndirect1D{Semaphore: 1, SemIncrement: 4, IdxNumActiveChannels: 128,
			Flags:        isa.MakeDMAIndirectFlags(isa.SrcIndirection, false, false, isa.IndirectDimX, isa.IndirectDimX),
			SrcStartAddr: 0x100000, SrcStepElem: 1, SrcNumElem: 100, SrcElemSize: 8,
			DstStartAddr: 0x200000, DstStepElem: 1, DstNumElem: 8, DstElemSize: 8,
			SrcIdxStartAddr: 0x100, InDtype: isa.DTypeUINT32, OutDtype: isa.DTypeUINT32})},
		{"GATHER_XPOSE", func(t *testing.T, g isa.Generation) *Plan {
			return inst(&isa.DMAGatherXpose{Semaphore: 4, IdxNumActiveChannels: 16,
				SrcStartAddr: 0x1000, SrcStepElem: [2]int32{1, 8}, SrcNumElem: [2]uint16{8, 32},
				SrcIdxStartAddr: 0x200, DstStartAddr: isa.LocalAddr8(0x10000), DstStepElem1: int32(g.Geometry().StateBufPartitionSize / 2),
				DstNumElem: [2]uint16{32, 8}, ElemSize: 16,
				Dtype: isa.MakeDTypePair(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)})(t, g)
		}},
	}
	for _, g := range isa.Generations {
		for _, pt := range paths {
			t.Run(g.String()+"/"+pt.name, func(t *testing.T) {
				f, err := FeaturesOf(g)
				if err != nil {
					t.Fatal(err)
				}
				if pt.name == "GATHER_XPOSE" && !f.GatherXpose {
					t.Skipf("%v has no DmaGatherTranspose (seed 003 §3.3)", g)
				}
				p := pt.plan(t, g)
				at, count, last, before, after := -1, 0, -1, 0, 0
				for i, l := range p.Log {
					s := stage(l)
					if strings.Contains(l, "Select backend") && l != seedLine {
						t.Errorf("line %d %q is not the seed's %q", i, l, seedLine)
					}
					if s < 0 {
						continue
					}
					if s < last {
						t.Errorf("line %d %q (stage %d) after a stage %d line: the seed's order is kind, analyze, assess, transpose, select, spray and emit\n%s", i, l, s, last, strings.Join(p.Log, "\n"))
					}
					last = max(last, s)
					switch {
					case s == 4:
						at, count = i, count+1
					case s >= 1 && s <= 3:
						before++
					case s == 5:
						after++
					}
				}
				if g == isa.SUNDA {
					if count != 0 || p.Backend != BackendNone {
						t.Errorf("SUNDA (no DGE backend) selects %v with %d lines", p.Backend, count)
					}
					return
				}
				if count != 1 || p.Backend != BackendPool || after == 0 {
					t.Errorf("%d select lines (at %d), backend %v, %d spray/emit lines after it\n%s", count, at, p.Backend, after, strings.Join(p.Log, "\n"))
				}
				if strings.HasSuffix(pt.name, "request") && before < 3 { // two analyze lines and an assessment
					t.Errorf("%d analyze / assess / transpose lines before the selection\n%s", before, strings.Join(p.Log, "\n"))
				}
			})
		}
	}
}

// D26: the DGE registers' numbers (seed 003 §7: "MEMCOPY_DMA_CFG local reg
// (AWS_NEURON_ISA_XT_MEMCOPY_DMA_CFG = 40 ...)", "MEMCOPY_CARVEOUT_CFG = 39").
func TestSeedD26RegisterNumbers(t *testing.T) {
	if RegMemcopyDMACfg != 40 || RegMemcopyCarveoutCfg != 39 {
		t.Errorf("MEMCOPY_DMA_CFG %d, MEMCOPY_CARVEOUT_CFG %d; the seed's 40 and 39", RegMemcopyDMACfg, RegMemcopyCarveoutCfg)
	}
}
