package isa

import "testing"

// TestLookupForInferredApplication: a HIGH/OBSERVED rule applied to an opcode by inference only
// reports MED/INFERRED on that opcode and its own grade elsewhere; every listed rule exists.
func TestLookupForInferredApplication(t *testing.T) {
	for id, ops := range inferredFor {
		t.Run(id, func(t *testing.T) {
			p, ok := Lookup(id)
			if !ok {
				t.Fatalf("inferredFor names unregistered rule %s", id)
			}
			for _, op := range ops {
				q, _ := LookupFor(id, op)
				if q.Confidence != MedInferred {
					t.Errorf("on %v: %v, want %v", op, q.Confidence, MedInferred)
				}
			}
			if q, _ := LookupFor(id, OpSTREAM_TRANSPOSE); q.Confidence != p.Confidence {
				t.Errorf("on STREAM_TRANSPOSE: %v, want the rule's own %v", q.Confidence, p.Confidence)
			}
		})
	}
	if _, ok := LookupFor("no_such_rule", OpCOPY); ok {
		t.Error("LookupFor found an unregistered rule")
	}
}
