package dge

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// TestPlanInstRefusalIsTheValidators: a word PlanInst refuses because it breaks an ISA rule is
// refused with the ISA validator's violation of that rule (rule, field, value and legal set), not
// with words of the planner's own, so a library caller that skips validation reads what `tpbsim
// check` prints; a refusal of the planner's own rule on an ISA-valid word keeps its rule.
func TestPlanInstRefusalIsTheValidators(t *testing.T) {
	g := isa.CAYMAN
	sb := func(off uint64) uint64 { return isa.DMALocalBase + off }
	cases := []struct {
		name string
		word isa.Inst
		rule string // the ISA rule the word breaks
	}{
		{"gather_xpose dst step 8 elements", gatherXposeWord(isa.DTypeBFLOAT16, sb(0x100), 16, 8, 8), isa.RuleGatherXposeDstStep},
		{"gather_xpose dst unaligned", gatherXposeWord(isa.DTypeBFLOAT16, sb(0x110), 16, 8, 16), isa.RuleGatherXposeDstAligned},
		{"gather_xpose 4-byte dtype", gatherXposeWord(isa.DTypeFP32, sb(0x100), 16, 8, 16), ""},
		{"gather_xpose 8 indices", gatherXposeWord(isa.DTypeBFLOAT16, sb(0x100), 8, 8, 16), isa.RuleGatherXposeSrcRowsMultiple16},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := isa.Validate(c.word, g)
			if len(vs) == 0 {
				t.Fatalf("the fixture is ISA-valid: %+v", c.word)
			}
			want := vs[0]
			for _, v := range vs {
				if v.Rule == c.rule {
					want = v
				}
			}
			if c.rule != "" && want.Rule != c.rule {
				t.Fatalf("the validator does not report %s: %v", c.rule, vs)
			}
			_, err := PlanInst(g, c.word, Config{}, Options{Quiet: true})
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, fault.ErrInvalid) {
				t.Fatalf("PlanInst: %v, want an invalid *Error", err)
			}
			found := false
			for _, v := range vs {
				if de.Rule == v.Rule && de.Path == v.Field && de.Value == v.Value && de.Legal == v.Legal {
					found = true
				}
			}
			if !found {
				t.Fatalf("PlanInst refuses with %q at %q (%q, legal %q); the validator's violations: %v", de.Rule, de.Path, de.Value, de.Legal, vs)
			}
			if got := de.Violation(); got.Legal != de.Legal || got.Value != de.Value || got.Rule != de.Rule {
				t.Errorf("Violation() = %+v, want the validator's value and legal set", got)
			}
		})
	}
	// The planner's own rule on an ISA-valid word: a DMA_TRANSPOSE whose destination the
	// crossbar cannot place (dge_xpose_placement) is refused under that rule.
	w := xposeWord(isa.DTypeFP16, isa.DTypeFP16, 0x4000, 0x100000, 16, 16, 16, 0)
	if vs := isa.Validate(w, g); len(vs) > 0 {
		t.Fatalf("the DMA_TRANSPOSE fixture is ISA-invalid: %v", vs)
	}
	if _, err := PlanInst(g, w, Config{}, Options{Quiet: true}); fault.Rule(err) != RuleXposePlacement {
		t.Errorf("DMA_TRANSPOSE to HBM: %v, want rule %s", err, RuleXposePlacement)
	}
}
