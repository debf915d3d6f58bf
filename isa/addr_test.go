package isa

import (
	"strings"
	"testing"
)

// psum: on a generation without PSUM (MAVERICK) would encode to an SBUF address (its SBUF
// covers the on-chip window PSUM has elsewhere); ParseAddress refuses it, and refuses
// partitions and offsets outside the generation's regions.
func TestParseAddressRegions(t *testing.T) {
	for _, c := range []struct {
		s    string
		g    Generation
		want string // error substring; "" = ok
	}{
		{"psum:0:0x0", MAVERICK, "MAVERICK has no PSUM (PSUM_BUF_SZ = 0)"},
		{"PSUM:5:0x10", MAVERICK, "MAVERICK has no PSUM (PSUM_BUF_SZ = 0)"},
		{"psum:0:0x0", CAYMAN, ""},
		{"psum:127:0x7fff", SUNDA, ""},
		{"psum:128:0x0", CAYMAN, "partition 128 out of range (0..127)"},
		{"psum:0:0x8000", CAYMAN, "offset 0x8000 beyond the psum partition stride 0x8000"},
		{"sbuf:128:0x0", MAVERICK, "partition 128 out of range (0..127)"},
		{"sbuf:128:0x0", CAYMAN, "partition 128 out of range (0..127)"},
		{"sbuf:0:0x40000", CAYMAN, "offset 0x40000 beyond the sbuf partition stride 0x40000"},
		{"sbuf:0:0x40000", MAVERICK, ""},
		{"sbuf:0:0x100000", MAVERICK, "offset 0x100000 beyond the sbuf partition stride 0x100000"},
		{"sbuf:127:0xfffff", MAVERICK, ""},
	} {
		t.Run(c.s+"@"+c.g.String(), func(t *testing.T) {
			_, err := ParseAddress(c.s, c.g)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// Every generation: a located on-chip address prints in a space the generation has, and reads
// back (ParseAddress) to the same ADDR4; on MAVERICK 0x2000000 is SBUF partition 32.
func TestLocateNeverPSUMWithoutPSUM(t *testing.T) {
	l, ok := LocateOnChip(0x2000000, MAVERICK)
	if !ok || l.String() != "sbuf:32:0x0" {
		t.Fatalf("MAVERICK 0x2000000 = %v %v, want sbuf:32:0x0", l, ok)
	}
	for _, g := range Generations {
		t.Run(g.String(), func(t *testing.T) {
			geo := g.Geometry()
			for a := uint32(0); a < 0x9000000; a += 0x1f3 * 61 {
				l := LocateAddr4(Addr4(a), g)
				if l.Space == SpacePSUM && geo.PSUMSize == 0 {
					t.Fatalf("0x%x prints as %v", a, l)
				}
				back, err := ParseAddress(l.String(), g)
				if err != nil {
					t.Fatalf("0x%x prints as %v, which does not parse: %v", a, l, err)
				}
				if w, err := back.Addr4(g); err != nil || w != Addr4(a) {
					t.Fatalf("0x%x -> %v -> 0x%x %v", a, l, w, err)
				}
			}
		})
	}
}
