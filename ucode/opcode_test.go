package ucode

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// FACTS §E.2 opcode -> row examples.
func TestOpcodeEntries(t *testing.T) {
	cases := []struct {
		g    TableGen
		op   int
		raw  uint64
		fast int
		slow uint64
	}{
		{Gen2, 102, 0x9cf, 79, 19}, {Gen2, 105, 0x5cf, 79, 11}, {Gen2, 106, 0x281, 1, 5},
		{Gen2, 73, 0x1a4, 36, 3}, {Gen2, 77, 0x1a5, 37, 3}, {Gen2, 0, 0x180, 0, 3},
		{Gen3, 65, 0x3008, 8, 48}, {Gen3, 70, 0x20, 32, 0}, {Gen3, 73, 0x630, 48, 6},
		{Gen3, 102, 0x2645, 69, 38}, {Gen3, 234, 0x7d, 125, 0},
		{Gen4, 48, 0x8, 8, 0}, {Gen4, 65, 0x3010, 16, 48}, {Gen4, 66, 0x18, 24, 0}, {Gen4, 69, 0x1, 1, 0},
		{Gen4, 70, 0x30, 48, 0}, {Gen4, 73, 0x640, 64, 6}, {Gen4, 77, 0x648, 72, 6},
		{Gen4, 102, 0x264c, 76, 38}, {Gen4, 105, 0x164c, 76, 22}, {Gen4, 106, 0xa30, 48, 10},
		{Gen4, 107, 0x46f, 111, 4}, {Gen4, 127, 0x70, 112, 0}, {Gen4, 227, 0x8f, 143, 0}, {Gen4, 234, 0xb4, 180, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s op%d", c.g, c.op), func(t *testing.T) {
			e, err := DecodeOpcodeEntry(c.raw, c.g)
			if err != nil || e.FastRow != c.fast || e.SlowRow != c.slow {
				t.Errorf("%#x: fast %d slow %d (%v), want %d %d", c.raw, e.FastRow, e.SlowRow, err, c.fast, c.slow)
			}
			m, err := MakeOpcodeEntry(c.g, c.fast, c.slow)
			if err != nil || m != e {
				t.Errorf("MakeOpcodeEntry %+v %v", m, err)
			}
		})
	}
}

func TestOpcodeEntryErrors(t *testing.T) {
	cases := []struct {
		name, path string
		err        func() error
	}{
		{"gen2 row 128", "fast_row", func() error { _, err := MakeOpcodeEntry(Gen2, 128, 0); return err }},
		{"negative row", "fast_row", func() error { _, err := MakeOpcodeEntry(Gen4, -1, 0); return err }},
		{"gen3 slow 1<<24", "slow_row", func() error { _, err := MakeOpcodeEntry(Gen3, 1, 1<<24); return err }},
		{"gen4 raw over 32 bits", "raw", func() error { _, err := DecodeOpcodeEntry(1<<32, Gen4); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.err(); fault.Rule(err) != RuleOpcodeEntry || fault.Path(err) != c.path {
				t.Errorf("err %v (path %q), want rule %s at %s", err, fault.Path(err), RuleOpcodeEntry, c.path)
			}
		})
	}
}

// The roster sizes and deltas of FACTS §E.1-§E.2.
func TestRoster(t *testing.T) {
	for _, c := range []struct {
		g TableGen
		n int
	}{{Gen2, 46}, {Gen3, 52}, {Gen4, 59}} {
		t.Run(c.g.String(), func(t *testing.T) {
			r, err := Roster(c.g)
			if err != nil || len(r) != c.n {
				t.Errorf("%d ops (%v), want %d", len(r), err, c.n)
			}
		})
	}
	for _, c := range []struct {
		a, b          TableGen
		added, remove []uint8
	}{
		{Gen2, Gen3, []uint8{96, 147, 152, 154, 155, 188, 230, 233, 240}, []uint8{140, 141, 159}},
		{Gen3, Gen4, []uint8{48, 119, 120, 224, 225, 226, 227}, nil},
	} {
		t.Run(fmt.Sprintf("%s->%s", c.a, c.b), func(t *testing.T) {
			add, rem, err := RosterDelta(c.a, c.b)
			if err != nil || !reflect.DeepEqual(add, c.added) || !reflect.DeepEqual(rem, c.remove) {
				t.Errorf("+%v -%v (%v)", add, rem, err)
			}
		})
	}
	t.Run("stable core", func(t *testing.T) {
		stable := 0
		for _, r := range roster {
			if r.InRoster(Gen2) && r.InRoster(Gen3) && r.InRoster(Gen4) {
				stable++
			}
		}
		if stable != 43 {
			t.Errorf("stable core %d, want 43", stable)
		}
	})
}

func TestOpcodeNames(t *testing.T) {
	cases := []struct {
		op   uint8
		name string
	}{{0, "idle"}, {65, "TensorTensorArithOp"}, {97, "BatchNormStats2"}, {107, "StreamTranspose"}, {227, "QuantizeMX"}, {3, "Opcode(0x03)"}, {96, "BatchNorm(96)"}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := OpcodeName(c.op); got != c.name {
				t.Errorf("OpcodeName(%d) = %q", c.op, got)
			}
			for _, s := range []string{c.name, fmt.Sprint(c.op), fmt.Sprintf("%#x", c.op)} {
				if got, err := ParseOpcode(s); err != nil || got != c.op {
					t.Errorf("ParseOpcode(%q) = %d %v", s, got, err)
				}
			}
		})
	}
	t.Run("twins", func(t *testing.T) {
		if tw, ok := Twin(81); !ok || tw != 65 {
			t.Errorf("Twin(81) = %d %v", tw, ok)
		}
	})
	t.Run("lists", func(t *testing.T) {
		ops, err := ParseOpcodes("65, MaxPoolSelect", "0x61")
		if err != nil || !reflect.DeepEqual(ops, []uint8{65, 88, 97}) || FormatOpcodes(ops) != "65 TensorTensorArithOp, 88 MaxPoolSelect, 97 BatchNormStats2" {
			t.Errorf("%v %v %q", ops, err, FormatOpcodes(ops))
		}
	})
}
