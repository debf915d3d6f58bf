package main

import (
	"strings"
	"testing"
)

// TestProvenanceRegistryWhole checks the union that `tpbsim explain` prints: ids are unique,
// every entry names its source and confidence, and every INFERRED or INVENTED entry says why.
func TestProvenanceRegistryWhole(t *testing.T) {
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, p := range allProvenance() {
		if p.ID == "" {
			t.Errorf("entry with no id: %+v", p)
			continue
		}
		if seen[p.ID] {
			t.Errorf("%s: registered twice", p.ID)
		}
		seen[p.ID] = true
		if p.Kind != "rule" && p.Kind != "behaviour" {
			t.Errorf("%s: kind %q, want rule or behaviour", p.ID, p.Kind)
		}
		if strings.TrimSpace(p.Source) == "" || strings.TrimSpace(p.Text) == "" {
			t.Errorf("%s: missing source or text", p.ID)
		}
		switch p.Confidence.Kind {
		case "OBSERVED", "CARRIED":
		case "INFERRED", "INVENTED":
			if strings.TrimSpace(p.Reason) == "" {
				t.Errorf("%s: %s entry without a reason", p.ID, p.Confidence)
			}
		default:
			t.Errorf("%s: confidence kind %q", p.ID, p.Confidence.Kind)
		}
		switch p.Confidence.Level {
		case "HIGH", "MED", "LOW":
		default:
			t.Errorf("%s: confidence level %q", p.ID, p.Confidence.Level)
		}
		kinds[strings.SplitN(p.ID, ".", 2)[0]]++
	}
	// Every modelling package contributes behaviour entries.
	for _, pkg := range []string{"num", "mem", "dve", "dma", "dge", "sim", "ucode", "isa"} {
		if kinds[pkg] == 0 {
			t.Errorf("no provenance entries with the %q prefix", pkg)
		}
	}
}

func TestExplainFindsBehavioursOfEveryPackage(t *testing.T) {
	for _, id := range []string{"num.cast.via_fp32"} {
		var out, errb strings.Builder
		if code := run([]string{"explain", id}, &out, &errb); code != 0 {
			t.Fatalf("explain %s: exit %d: %s", id, code, errb.String())
		}
		if !strings.Contains(out.String(), id) {
			t.Errorf("explain %s printed %q", id, out.String())
		}
	}
}
