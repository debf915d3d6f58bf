package ucode

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	def, sat := mustFixture(t, "gen4/default"), mustFixture(t, "gen4/saturate")
	var b strings.Builder
	if err := WriteReport(&b, def, sat); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"<svg", `data-b="255"`, "Census", "<th>ACTIVE</th><td>155</td>", "distinct XOR deltas</th><td>65</td>",
		`stroke="#d0006f"`, "0x0001800001540000", "QuantizeMX"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if n := strings.Count(out, `stroke="#d0006f"`); n != 29 {
		t.Errorf("%d changed blocks outlined, want 29", n)
	}
	for _, bad := range []string{"http://", "https://", " src=", "<link"} {
		if strings.Contains(out, bad) {
			t.Errorf("report is not self-contained: has %q", bad)
		}
	}
	b.Reset()
	if err := WriteReport(&b, mustFixture(t, "gen2/default"), nil); err != nil || !strings.Contains(b.String(), "all-idle rows [1 36 39 45 48 105]") {
		t.Errorf("gen2 report: %v", err)
	}
}

func TestProvenance(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Provenance() {
		if p.ID == "" || p.Kind != "behaviour" || p.Source == "" || p.Text == "" || seen[p.ID] {
			t.Errorf("bad entry %+v", p)
		}
		seen[p.ID] = true
		if (p.Confidence.Kind == "INFERRED" || p.Confidence.Kind == "INVENTED") && p.Reason == "" {
			t.Errorf("%s: %s without a reason", p.ID, p.Confidence)
		}
	}
}
