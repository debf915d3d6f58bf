package main

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

func TestExplain(t *testing.T) {
	code, out, _ := runISACLI(t, "explain", "has_multiple_32_channels")
	if code != 0 || !strings.Contains(out, "seed 000 §4.2") || !strings.Contains(out, "applies to: STREAM_SHUFFLE, STREAM_TRANSPOSE") {
		t.Fatalf("%d\n%s", code, out)
	}
	code, out, _ = runISACLI(t, "explain", "STREAM_TRANSPOSE")
	if code != 0 || !strings.Contains(out, "38  1      mask_enable") || !strings.Contains(out, "has_multiple_32_channels") {
		t.Fatalf("%d\n%s", code, out)
	}
	code, out, _ = runISACLI(t, "explain", "0xf1")
	if code != 0 || !strings.Contains(out, "rules on CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK") {
		t.Fatalf("%d\n%s", code, out)
	}
	if code, out, _ := runISACLI(t, "explain", "isa.addr8_address_map"); code != 0 || !strings.Contains(out, "INVENTED") {
		t.Fatalf("%d\n%s", code, out)
	}
	if code, _, e := runISACLI(t, "explain", "no_such_rule"); code != 2 || !strings.Contains(e, "neither a rule") {
		t.Fatalf("%d %s", code, e)
	}
	// every registered id explains
	for _, p := range allProvenance() {
		if code, _, e := runISACLI(t, "explain", p.ID); code != 0 {
			t.Errorf("%s: %s", p.ID, e)
		}
	}
	for _, op := range isa.AllOpcodes {
		if code, _, e := runISACLI(t, "explain", op.String()); code != 0 {
			t.Errorf("%v: %s", op, e)
		}
	}
	if code, out, _ := runISACLI(t, "explain", "rules"); code != 0 || len(strings.Split(out, "\n")) < 60 {
		t.Fatalf("rules list: %d", code)
	}
}
