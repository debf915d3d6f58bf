package ucode

import (
	"reflect"
	"testing"
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
		e := DecodeOpcodeEntry(c.raw, c.g)
		if e.FastRow != c.fast || e.SlowRow != c.slow {
			t.Errorf("%s op%d %#x: fast %d slow %d, want %d %d", c.g, c.op, c.raw, e.FastRow, e.SlowRow, c.fast, c.slow)
		}
		m, err := MakeOpcodeEntry(c.g, c.fast, c.slow)
		if err != nil || m != e {
			t.Errorf("%s op%d: MakeOpcodeEntry %+v %v", c.g, c.op, m, err)
		}
	}
	if _, err := MakeOpcodeEntry(Gen2, 128, 0); err == nil {
		t.Error("gen2 row 128 accepted")
	}
	if _, err := MakeOpcodeEntry(Gen3, 1, 1<<24); err == nil {
		t.Error("gen3 slow 1<<24 accepted")
	}
}

func TestRoster(t *testing.T) {
	for g, n := range map[TableGen]int{Gen2: 46, Gen3: 52, Gen4: 59} {
		if got := len(Roster(g)); got != n {
			t.Errorf("%s roster %d ops, want %d", g, got, n)
		}
	}
	add, rem := RosterDelta(Gen2, Gen3)
	if !reflect.DeepEqual(add, []uint8{96, 147, 152, 154, 155, 188, 230, 233, 240}) || !reflect.DeepEqual(rem, []uint8{140, 141, 159}) {
		t.Errorf("gen2->gen3 +%v -%v", add, rem)
	}
	add, rem = RosterDelta(Gen3, Gen4)
	if !reflect.DeepEqual(add, []uint8{48, 119, 120, 224, 225, 226, 227}) || len(rem) != 0 {
		t.Errorf("gen3->gen4 +%v -%v", add, rem)
	}
	stable := 0
	for _, r := range roster {
		if r.InRoster(Gen2) && r.InRoster(Gen3) && r.InRoster(Gen4) {
			stable++
		}
	}
	if stable != 43 {
		t.Errorf("stable core %d, want 43", stable)
	}
	for op, name := range map[uint8]string{0: "idle", 65: "TensorTensorArithOp", 97: "BatchNormStats2", 107: "StreamTranspose", 227: "QuantizeMX", 3: "Opcode(0x03)"} {
		if got := OpcodeName(op); got != name {
			t.Errorf("OpcodeName(%d) = %q, want %q", op, got, name)
		}
	}
	if tw, ok := Twin(81); !ok || tw != 65 {
		t.Errorf("Twin(81) = %d %v", tw, ok)
	}
}
