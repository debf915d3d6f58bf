package main

import (
	"strings"
	"testing"
)

// `tpbsim explain` as a command: what it prints and its exit status (the rendering itself is
// package explain's, tested there).
func TestExplainCommand(t *testing.T) {
	for _, c := range []struct {
		name      string
		args      []string
		code      int
		out, errs string
	}{
		{"rule", []string{"explain", "has_multiple_32_channels"}, 0, "applies to: STREAM_SHUFFLE, STREAM_TRANSPOSE", ""},
		{"opcode", []string{"explain", "STREAM_TRANSPOSE"}, 0, "38  1      mask_enable", ""},
		{"opcode number", []string{"explain", "0xf1"}, 0, "rules on CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK", ""},
		{"behaviour", []string{"explain", "isa.addr8_address_map"}, 0, "INVENTED", ""},
		{"behaviour of num", []string{"explain", "num.cast.via_fp32"}, 0, "num.cast.via_fp32 (behaviour)", ""},
		{"rules", []string{"explain", "rules"}, 0, "has_multiple_32_channels", ""},
		{"timing", []string{"explain", "timing"}, 0, "MAVERICK 66*", ""},
		{"timing one gen", []string{"explain", "timing", "--gen", "SUNDA"}, 0, "\n  SUNDA 17\n", ""},
		{"timing json", []string{"explain", "timing", "--json", "--gen", "MARIANA"}, 0, `"gen": "MARIANA"`, ""},
		{"unknown", []string{"explain", "no_such_rule"}, 2, "", "neither a rule"},
		{"json elsewhere", []string{"explain", "rules", "--json"}, 2, "", "--json and --gen apply to 'explain timing' only"},
		{"bad gen", []string{"explain", "timing", "--gen", "NOPE"}, 2, "", "unknown generation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := simCLI(c.args...)
			if code != c.code || !strings.Contains(out, c.out) || !strings.Contains(errs, c.errs) {
				t.Errorf("%v: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", c.args, code, c.code, out, errs)
			}
		})
	}
}
