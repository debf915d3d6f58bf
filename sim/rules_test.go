package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// A DMA reading never-written HBM with CheckUninit names the uninitialised-read rule and the
// address, not a failed bounds check (that wording is kept for real bounds failures).
func TestDMAUninitIsNotABoundsFailure(t *testing.T) {
	g := isa.CAYMAN
	m, _ := New(Config{Gen: g, CheckUninit: true})
	_, err := m.Run(prog(q(isa.EngineTPB_SP, dmaLoad(g, 0x10000, 4, 64, 1, isa.Events{}))))
	var ie *InstError
	if !errors.As(err, &ie) || ie.Rule != mem.RuleReadInitialised || !errors.Is(err, fault.ErrUninit) {
		t.Fatalf("want rule %s (fault.ErrUninit), got %v", mem.RuleReadInitialised, err)
	}
	if s := err.Error(); strings.Contains(s, "Failed bounds check") || !strings.Contains(s, "0x10000") {
		t.Errorf("error should name the address and not the firmware bounds wording: %s", s)
	}
	if errors.Is(err, fault.ErrBounds) || errors.Is(err, fault.ErrBounds) {
		t.Errorf("an uninitialised read matches a bounds sentinel: %v", err)
	}
	// a real bounds failure keeps the firmware wording and the memory's rule
	m2, _ := New(Config{Gen: g})
	ld := dmaLoad(g, 0, 64, 64, 1, isa.Events{})
	ld.DstStartAddr = isa.LocalAddr8(g.Geometry().StateBufPartitionActive - 16) // rows pass the active area
	_, err = m2.Run(prog(q(isa.EngineTPB_SP, ld)))
	if !errors.As(err, &ie) || !errors.Is(err, fault.ErrBounds) || !strings.Contains(err.Error(), "Failed bounds check") {
		t.Fatalf("want a failed bounds check, got %v", err)
	}
	if ie.Rule == "" || ie.Rule == "dge_plan" {
		t.Errorf("bounds failure rule %q", ie.Rule)
	}
}

// DMA_TRANSPOSE (0xBD) is not in the SUNDA ISA: the machine refuses it with the rule check uses.
func TestDMATransposeAbsentOnSUNDA(t *testing.T) {
	in := &isa.DMADirect2DXpose{Header: isa.Header{Opcode: isa.OpDMA_TRANSPOSE, InstWordLen: 16},
		InDtype: isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16, TileSrcRows: 16, TileSrcCols: 128}
	if isa.OpDMA_TRANSPOSE.InGen(isa.SUNDA) {
		t.Fatal("0xBD is in the SUNDA opcode table")
	}
	found := false
	for _, v := range isa.Validate(in, isa.SUNDA) {
		found = found || v.Rule == "opcode_on_generation"
	}
	if !found {
		t.Errorf("isa.Validate on SUNDA does not report opcode_on_generation")
	}
	m, _ := New(Config{Gen: isa.SUNDA})
	_, err := m.Run(prog(q(isa.EngineTPB_SP, in)))
	var pe *ProgramError
	if !errors.As(err, &pe) || pe.Errs[0].Rule != "opcode_on_generation" {
		t.Fatalf("want opcode_on_generation, got %v", err)
	}
	if _, err := dge.PlanInst(isa.SUNDA, in, dge.Config{}, dge.Options{Quiet: true}); err == nil || ruleOf(err, "") != "opcode_on_generation" {
		t.Errorf("dge.PlanInst on SUNDA: %v", err)
	}
}

// A DMA whose source and destination overlap is refused before anything runs; an identical
// plain copy (a no-op) is accepted.
func TestDMAOverlapRefused(t *testing.T) {
	g := isa.CAYMAN
	cp := func(src, dst uint64) *isa.DMADirect2D {
		return &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: 16}, SemIncrement: 1,
			SrcStartAddr: isa.Addr8(src), SrcStepElem: [2]int32{1, 64}, SrcNumElem: [2]uint16{64, 64}, SrcElemSize: 2,
			DstStartAddr: isa.Addr8(dst), DstStepElem: [2]int32{1, 64}, DstNumElem: [2]uint16{64, 64}, DstElemSize: 2,
			InDtype: isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16}
	}
	m, _ := New(Config{Gen: g})
	if err := m.Memory().WriteAt(0, make([]byte, 1<<14)); err != nil {
		t.Fatal(err)
	}
	_, err := m.Run(prog(q(isa.EngineTPB_SP, cp(0, 0x10))))
	var pe *ProgramError
	if !errors.As(err, &pe) || pe.Errs[0].Rule != dge.RuleSrcDstDisjoint || !errors.Is(err, fault.ErrInvalid) {
		t.Fatalf("want %s, got %v", dge.RuleSrcDstDisjoint, err)
	}
	// The refusal is the DGE's broken rule as the DGE gives it, field path and why included, and
	// reads as the DGE prints it.
	_, planErr := dge.PlanInst(g, cp(0, 0x10), dge.Config{}, dge.Options{Quiet: true})
	var de *dge.Error
	if !errors.As(planErr, &de) {
		t.Fatalf("dge.PlanInst: %v, want a *dge.Error", planErr)
	}
	if got, want := pe.Errs[0].Violations[0], de.Violation(); got != want || want.Path == "" || want.Msg == "" {
		t.Errorf("check's violation %+v, the DGE's %+v", got, want)
	}
	if got, want := pe.Errs[0].Error(), "rule "+de.Violation().String(); !strings.HasSuffix(got, want) {
		t.Errorf("check: %q, want it to end in the DGE's %q", got, want)
	}
	m, _ = New(Config{Gen: g})
	if _, err := m.Run(prog(q(isa.EngineTPB_SP, cp(0, 0)))); err != nil {
		t.Errorf("identical plain copy: %v", err)
	}
	m, _ = New(Config{Gen: g})
	if _, err := m.Run(prog(q(isa.EngineTPB_SP, cp(0, 0x2000)))); err != nil {
		t.Errorf("adjacent, disjoint copy: %v", err)
	}
}

// Every rule id the machine's packages list is registered (cmd/tpbsim checks `explain` finds it).
func TestRuleIDsNonEmpty(t *testing.T) {
	seen := map[string]bool{}
	for _, id := range RuleIDs() {
		if id == "" {
			t.Error("empty rule id")
		}
		seen[id] = true
	}
	for _, id := range []string{"stream_shuffle_mask_loaded", "read_initialised", "dma_bounds_check", "hbm_cap", "opcode_has_engine", "dge_src_dst_disjoint"} {
		t.Run(id, func(t *testing.T) {
			if !seen[id] {
				t.Errorf("RuleIDs lacks %s", id)
			}
		})
	}
}
