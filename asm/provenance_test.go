package asm

import "testing"

// TestProvenance: the rule the errors name is registered, with its source and reason.
func TestProvenance(t *testing.T) {
	for _, p := range Provenance() {
		t.Run(p.ID, func(t *testing.T) {
			if p.ID != RuleForm || p.Kind != "rule" || p.Source == "" || p.Reason == "" || len(p.Fields) == 0 {
				t.Errorf("incomplete entry %+v", p)
			}
		})
	}
	if len(Provenance()) != 1 {
		t.Errorf("%d entries, want the one rule %s", len(Provenance()), RuleForm)
	}
}
