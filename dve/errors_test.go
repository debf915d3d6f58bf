package dve

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Every error of Execute reaches its fault category, its rule and its field through any wrapping
// layer (fault.Wrap stands for the machine's), and a rule of the ISA is reported as isa.Validate
// reports it: the same rule id, path, value and legal set.
func TestErrorsReachFaultFromAnyLayer(t *testing.T) {
	g := isa.CAYMAN
	active := int(g.Geometry().StateBufPartitionActive)
	tr := func(src, dst isa.Tensor4D, nac int) *isa.S4D4TR {
		return s4(isa.OpSTREAM_TRANSPOSE, src, dst, isa.DTypeUINT8, isa.DTypeUINT8, nac)
	}
	reduce := s4(isa.OpTENSOR_REDUCE_ARITH_OP, lin(sbufAddr(g, 0, 0), 64), lin(sbufAddr(g, 0, 4096), 2), isa.DTypeFP32, isa.DTypeFP32, 32)
	reduce.OpDim = isa.SubdimX
	badMask := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: isa.InstWordLen}}
	badMask.Immediate[5] = 70
	shuffle := s4(isa.OpSTREAM_SHUFFLE, lin(sbufAddr(g, 0, 0), 8), lin(sbufAddr(g, 0, 4096), 8), isa.DTypeUINT8, isa.DTypeUINT8, 32)
	cases := []struct {
		name     string
		inst     isa.Inst
		category error
		rule     string
		path     string
		isaRule  bool // the rule is the validator's: its violation is the error's
	}{
		{"channels", tr(lin(sbufAddr(g, 0, 0), 64), lin(sbufAddr(g, 0, 4096), 64), 48),
			fault.ErrInvalid, "has_multiple_32_channels", "num_active_channels", true},
		{"same_or_fewer", tr(lin(sbufAddr(g, 0, 0), 32), lin(sbufAddr(g, 0, 4096), 64), 32),
			fault.ErrInvalid, "s4d4_tr_transpose_src_dst_count", "dst_mem_pattern.num_elem", true},
		{"reduce_dst_count", reduce, fault.ErrInvalid, "tensor_reduce_dst_count", "dst_mem_pattern.num_elem", true},
		{"mask_entry", badMask, fault.ErrInvalid, "load_mask_select_valid_mask", "immediate[5]", true},
		{"no_mask", shuffle, fault.ErrInvalid, RuleStreamShuffleMaskLoaded, "", false},
		{"bounds", tr(lin(sbufAddr(g, 0, 0), 64), lin(sbufAddr(g, 0, active-32), 64), 32),
			fault.ErrBounds, "pattern_in_active_area", "dst_mem_pattern", false},
		{"nil", nil, fault.ErrInvalid, RuleInstGiven, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMem(t, g, mem.Options{})
			var d DVE
			_, err := d.Execute(m, c.inst, g)
			wrapped := fault.Wrap("DVE[3]", err)
			var de *Error
			if !errors.Is(wrapped, c.category) || !errors.As(wrapped, &de) {
				t.Fatalf("want %v as a *dve.Error through a wrapping layer, got %v", c.category, err)
			}
			if fault.Category(wrapped) != c.category {
				t.Errorf("category %v, want %v", fault.Category(wrapped), c.category)
			}
			if got := fault.Rule(wrapped); got != c.rule || de.RuleID() != c.rule {
				t.Errorf("rule %q, want %q", got, c.rule)
			}
			wantPath := "DVE[3]"
			if c.path != "" {
				wantPath += ": " + c.path
			}
			if got := fault.Path(wrapped); got != wantPath {
				t.Errorf("path %q, want %q", got, wantPath)
			}
			if !c.isaRule {
				if de.Violation != nil {
					t.Errorf("executor's own rule carries a violation: %+v", de.Violation)
				}
				return
			}
			var want *isa.Violation
			for _, v := range isa.Validate(c.inst, g) {
				if v.Rule == c.rule {
					want = &v
					break
				}
			}
			if want == nil {
				t.Fatalf("isa.Validate does not report %s", c.rule)
			}
			if v := de.Violation; v == nil || v.Rule != want.Rule || v.Path != want.Field || v.Value != want.Value || v.Legal != want.Legal {
				t.Errorf("violation %+v, isa.Validate's %+v", de.Violation, *want)
			}
			if !strings.HasSuffix(err.Error(), want.String()) {
				t.Errorf("message %q does not end with the validator's %q", err.Error(), want.String())
			}
		})
	}
}

// An instruction the validator accepts but the executor cannot run (a disagreement, never
// expected) is the executor's own dve_executable, unsupported, naming the rule it relied on.
func TestRefuseWithoutViolation(t *testing.T) {
	g := isa.CAYMAN
	valid := s4(isa.OpCOPY, lin(sbufAddr(g, 0, 0), 8), lin(sbufAddr(g, 0, 4096), 8), isa.DTypeUINT8, isa.DTypeUINT8, 32)
	if vs := isa.Validate(valid, g); len(vs) != 0 {
		t.Fatalf("test instruction invalid: %v", vs)
	}
	err := refuse(valid, g, "s4d4_tr_same_src_dst_count", "dst_mem_pattern.num_elem", "dst walks %d elements", 9)
	if !errors.Is(err, fault.ErrUnsupported) || err.RuleID() != RuleExecutable || err.Violation != nil ||
		!strings.Contains(err.Error(), "s4d4_tr_same_src_dst_count") {
		t.Fatalf("got %v", err)
	}
}
