package sim

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// The errors of a run speak package fault's vocabulary from every layer: each unwraps to
// exactly one category, names its rule (fault.Rule) and where it happened (fault.Path: the
// engine queue and instruction index, then the inner path), and errors.As reaches the typed
// error of the layer that refused (an isa violation, a dve error around a mem error, a DMA
// error) through the machine's.
func TestErrorsAcrossLayers(t *testing.T) {
	g := isa.CAYMAN
	active := g.Geometry().StateBufPartitionActive
	ok := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x2000), 32, isa.Events{})
	nac48 := s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeFP32, 48, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x100), 32, isa.Events{})
	// 32 fp32 from 64 bytes before the end of the active area: the walk leaves it (the
	// instruction layer's footprint rule, before the run).
	past := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, active-64), sbufAddr(g, 0, 0x100), 32, isa.Events{})
	dmaPast := dmaLoad(g, 0, 64, 64, 1, isa.Events{})
	dmaPast.DstStartAddr = isa.LocalAddr8(active - 16) // rows pass the active area
	evtWait := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x100), 32, isa.Events{WaitMode: isa.WaitForEvt6})
	deadlock := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x100), 32, waitGE(7, 1))
	for _, tc := range []struct {
		name  string
		cfg   Config
		p     *Program
		kind  error
		rule  string
		path  string // fault.Path of the error
		wants string // in the message
	}{
		{"isa violation", Config{Gen: g}, prog(q(isa.EngineDVE, ok, nac48)), fault.ErrInvalid, "has_multiple_32_channels",
			"DVE[1]: num_active_channels", "has_multiple_32_channels: num_active_channels"},
		{"isa footprint", Config{Gen: g}, prog(q(isa.EngineDVE, ok, past)), fault.ErrInvalid, "tensor4d_footprint",
			"DVE[1]: src_mem_pattern", "active sbuf partition size"},
		{"mem uninit through dve", Config{Gen: g, CheckUninit: true}, prog(q(isa.EngineDVE, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0x8000), sbufAddr(g, 0, 0x100), 32, isa.Events{}))),
			fault.ErrUninit, mem.RuleReadInitialised, "DVE[0]: src_mem_pattern", "never written"},
		{"DMA bounds", Config{Gen: g}, prog(q(isa.EngineTPB_SP, dmaPast)), fault.ErrBounds, "", "SP[0]", "Failed bounds check"},
		{"unmodelled wait", Config{Gen: g}, prog(q(isa.EngineDVE, evtWait)), fault.ErrUnsupported, RuleExecutableWaitMode,
			"DVE[0]: events.wait_mode", "WAIT_FOR_EVT_0x06"},
		{"work limit", Config{Gen: g, MaxElements: 16}, prog(q(isa.EngineDVE, ok)), fault.ErrLimit, RuleMaxElements, "DVE[0]", "--max-elements"},
		{"deadlock", Config{Gen: g}, prog(q(isa.EngineDVE, ok, deadlock)), fault.ErrDeadlock, RuleDeadlock, "DVE[1]", "deadlock"},
		{"race", Config{Gen: g}, prog(q(isa.EngineDVE, ok), q(isa.EnginePOOL, ok)), fault.ErrRace, RuleRace, "DVE[0], POOL[0]", "data race"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			fillRandom(t, m, 3)
			_, err = m.Run(tc.p)
			if err == nil {
				t.Fatal("the run did not fail")
			}
			var cats []error
			for _, c := range fault.Categories {
				if errors.Is(err, c) {
					cats = append(cats, c)
				}
			}
			if len(cats) != 1 || cats[0] != tc.kind {
				t.Errorf("categories %v, want exactly %v: %v", cats, tc.kind, err)
			}
			if tc.rule != "" && fault.Rule(err) != tc.rule {
				t.Errorf("fault.Rule = %q, want %q: %v", fault.Rule(err), tc.rule, err)
			}
			if !strings.HasPrefix(fault.Path(err), tc.path) {
				t.Errorf("fault.Path = %q, want it to start with %q", fault.Path(err), tc.path)
			}
			if !strings.Contains(err.Error(), tc.wants) {
				t.Errorf("message lacks %q: %v", tc.wants, err)
			}
			// a caller's wrapping keeps the category, the rule and the path, its own in front
			wrapped := fmt.Errorf("run: %w", fault.Wrap("k.tpb", err))
			if fault.Category(wrapped) != tc.kind || fault.Rule(wrapped) != fault.Rule(err) || fault.Path(wrapped) != "k.tpb: "+fault.Path(err) {
				t.Errorf("wrapped: category %v rule %q path %q", fault.Category(wrapped), fault.Rule(wrapped), fault.Path(wrapped))
			}
		})
	}
}

// errors.As reaches each layer's own typed error through the machine's.
func TestErrorsAsReachesTheLayer(t *testing.T) {
	g := isa.CAYMAN
	active := g.Geometry().StateBufPartitionActive
	m, _ := New(Config{Gen: g})
	fillRandom(t, m, 3)
	_, err := m.Run(prog(q(isa.EngineDVE, s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeFP32, 48, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x100), 32, isa.Events{}))))
	var pe *ProgramError
	var ie *InstError
	var iv isa.Violation
	if !errors.As(err, &pe) || !errors.As(err, &ie) || !errors.As(err, &iv) || iv.Rule != "has_multiple_32_channels" || ie.Violations[0] != iv.Fault() {
		t.Errorf("isa violation through sim: %v (%+v)", err, iv)
	}
	mu, _ := New(Config{Gen: g, CheckUninit: true})
	_, err = mu.Run(prog(q(isa.EngineDVE, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0x8000), sbufAddr(g, 0, 0x100), 32, isa.Events{}))))
	var de *dve.Error
	var me *mem.Error
	if !errors.As(err, &ie) || !errors.As(err, &de) || !errors.As(err, &me) || me.Rule != mem.RuleReadInitialised || me.Field != "src_mem_pattern" ||
		!errors.Is(err, fault.ErrUninit) {
		t.Errorf("mem error through dve through sim: %v", err)
	}
	ld := dmaLoad(g, 0, 64, 64, 1, isa.Events{})
	ld.DstStartAddr = isa.LocalAddr8(active - 16)
	_, err = m.Run(prog(q(isa.EngineTPB_SP, ld)))
	if !errors.As(err, &ie) || !errors.Is(err, fault.ErrBounds) || ie.Engine != "SP" || ie.Rule == "" {
		t.Errorf("DMA error through sim: %v", err)
	}
}

// The memory's refusals: ErrPSUMWrite and ErrHBMCap are rules of their own under one category
// each; the old sentinel names are fault's.
func TestMemoryErrorCategories(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		kind error
	}{
		{"PSUM write", mem.ErrPSUMWrite, fault.ErrInvalid},
		{"HBM cap", mem.ErrHBMCap, fault.ErrCapacity},
		{"bounds", fault.ErrBounds, fault.ErrBounds},
		{"uninit", fault.ErrUninit, fault.ErrUninit},
		{"unsupported address", fault.ErrUnsupported, fault.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if fault.Category(tc.err) != tc.kind {
				t.Errorf("category %v, want %v", fault.Category(tc.err), tc.kind)
			}
			wrapped := &mem.Error{Rule: "r", Field: "dst", Err: tc.err}
			if !errors.Is(wrapped, tc.err) || !errors.Is(wrapped, tc.kind) || fault.Rule(wrapped) != "r" || fault.Path(wrapped) != "dst" {
				t.Errorf("a mem.Error around it: rule %q path %q, Is %v", fault.Rule(wrapped), fault.Path(wrapped), errors.Is(wrapped, tc.kind))
			}
		})
	}
}

// An invalid generation is an error of every entry point, never a default.
func TestInvalidGeneration(t *testing.T) {
	for _, g := range []isa.Generation{isa.GenInvalid, isa.Generation(200)} {
		t.Run(g.String(), func(t *testing.T) {
			if _, err := New(Config{Gen: g}); !errors.Is(err, fault.ErrInvalid) {
				t.Errorf("New: %v", err)
			}
			if _, err := CheckProgram(&Program{}, Config{Gen: g}); !errors.Is(err, fault.ErrInvalid) {
				t.Errorf("CheckProgram: %v", err)
			}
			if _, err := CheckInst(Config{Gen: g}, isa.EngineDVE, transposeWord()); !errors.Is(err, fault.ErrInvalid) {
				t.Errorf("CheckInst: %v", err)
			}
		})
	}
}

// The UNORDERED wait (0xFE) is in the ISA of MAVERICK only (isa.Features.RegOffsetWaits), where
// the machine executes it as no wait; elsewhere the instruction layer refuses it.
func TestUnorderedWaitByGeneration(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			f, err := g.Features()
			if err != nil {
				t.Fatal(err)
			}
			in := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x100), 32, isa.Events{WaitMode: isa.WaitUnordered})
			r, err := CheckInst(Config{Gen: g}, isa.EngineDVE, in)
			if err != nil {
				t.Fatal(err)
			}
			if r.Executable() != f.RegOffsetWaits {
				t.Errorf("executable %v, want %v: %v", r.Executable(), f.RegOffsetWaits, r.Err(""))
			}
		})
	}
}

// mem.New refuses an invalid generation as the machine does.
func TestMemoryInvalidGeneration(t *testing.T) {
	if _, err := mem.New(isa.GenInvalid, mem.Options{}); !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != isa.RuleGeneration {
		t.Errorf("mem.New(GenInvalid): %v", err)
	}
}
