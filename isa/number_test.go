package isa

import (
	"strings"
	"testing"
)

func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		err  string
	}{
		{"0", 0, ""},
		{"1_000", 1000, ""},
		{"0x10", 16, ""},
		{"18446744073709551615", 1<<64 - 1, ""},
		{"0xffff_ffff_ffff_ffff", 1<<64 - 1, ""},
		{"18446744073709551616", 0, "overflows 64 bits"},
		{"99999999999999999999", 0, "overflows 64 bits"},
		{"0x1_0000_0000_0000_0000", 0, "overflows 64 bits"},
		{"12q", 0, "bad number"},
		{"-1", 0, "bad number"},
		{"", 0, "bad number"},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseNumber(c.in)
			if c.err == "" {
				if err != nil || got != c.want {
					t.Errorf("ParseNumber(%q) = %d, %v; want %d", c.in, got, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseNumber(%q) error = %v; want one saying %q", c.in, err, c.err)
			} else if c.err == "bad number" && strings.Contains(err.Error(), "overflow") {
				t.Errorf("ParseNumber(%q) = %v: a malformed number is not an overflow", c.in, err)
			}
		})
	}
}
