package ucode

import (
	"errors"
	"reflect"
	"testing"
)

// Block 41 of the gen2 default blob, seed 004 §8 (file 0xA40).
func TestBlock41BatchNormStats2(t *testing.T) {
	b := DatapathBlock{BNStats2MeanGen2, BNStats2MeanGen2, BNStats2MeanGen2, BNStats2M2Gen2,
		BNStats2MeanGen2, BNStats2MeanGen2, BNStats2MeanGen2, BNStats2M2Gen2}
	for L, w := range b {
		f := w.Decode(Gen2)
		wantMode := uint8(0)
		if L == 3 || L == 7 {
			wantMode = 3
		}
		want := LaneFields{OPA: 0, OPB: 0, MUX: 0x1ac, VALID: true, MODE: wantMode, STAGE: 7}
		if f != want {
			t.Errorf("lane %d: %+v, want %+v", L, f, want)
		}
	}
	in := b.Analyze(Gen2)
	if in.Class != ClassActive || in.Depth != 8 || !in.LeftPacked || len(in.Terminal) != 0 {
		t.Errorf("block 41: %+v", in)
	}
}

func TestWorkedBlocksGen2(t *testing.T) {
	idle := Gen2.IdleWord()
	cases := []struct {
		name  string
		w     LaneWord
		want  LaneFields
		term  bool
		print string
	}{
		{"op65 lane0", 0x0010041c, LaneFields{OPA: 0x1c, OPB: 4, VALID: true}, false, "OPA=0x1c OPB=4 MUX=0x000 VALID MODE=0 STAGE=0"},
		{"op67 lane0", 0x0211441c, LaneFields{OPA: 0x1c, OPB: 4, MUX: 0x028, VALID: true, STAGE: 2}, false, "OPA=0x1c OPB=4 MUX=0x028 VALID MODE=0 STAGE=2"},
		{"op67 lane1", 0x0010051d, LaneFields{OPA: 0x1d, OPB: 5, VALID: true}, false, ""},
		{"op88 lane0", 0x01102000, LaneFields{MUX: 0x004, VALID: true, STAGE: 1}, false, ""},
		{"op88 lane2", 0x01002000, LaneFields{MUX: 0x004, STAGE: 1}, true, "OPA=0x00 OPB=0 MUX=0x004 valid=0 MODE=0 STAGE=1"},
		{"op88 lane3", 0x00100480, LaneFields{OPA: 0x80, OPB: 4, VALID: true}, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.w.Decode(Gen2); got != c.want {
				t.Errorf("%#x: %+v, want %+v", uint64(c.w), got, c.want)
			}
			if got := c.w.Terminal(Gen2); got != c.term {
				t.Errorf("terminal %v, want %v", got, c.term)
			}
			if c.print != "" && c.w.Format(Gen2) != c.print {
				t.Errorf("Format %q, want %q", c.w.Format(Gen2), c.print)
			}
		})
	}
	op88 := DatapathBlock{0x01102000, 0x01102000, 0x01002000, 0x00100480, idle, idle, idle, idle}
	if in := op88.Analyze(Gen2); in.Depth != 4 || !reflect.DeepEqual(in.Terminal, []int{2}) {
		t.Errorf("op88 block: %+v", in)
	}
}

// The seed 004 §5 XOR proof: mean and M2 differ only in MODE, and MODE sits 12 bits higher in gen3.
func TestXORProofPlus12(t *testing.T) {
	if x := BNStats2MeanGen2 ^ BNStats2M2Gen2; x != 0x600000 {
		t.Errorf("gen2 xor %#x", uint64(x))
	}
	// The seed prints 0x6000000000; the words give 0x600000000 = bits {33,34} (its own bit list).
	if x := BNStats2MeanGen3 ^ BNStats2M2Gen3; x != 0x600000000 {
		t.Errorf("gen3 xor %#x", uint64(x))
	}
	for _, g := range []TableGen{Gen2, Gen3} {
		mean, m2 := BNStats2MeanGen2, BNStats2M2Gen2
		if g == Gen3 {
			mean, m2 = BNStats2MeanGen3, BNStats2M2Gen3
		}
		if got := FieldsDiffering(mean, m2, g); !reflect.DeepEqual(got, []string{"MODE"}) {
			t.Errorf("%s: fields differing %v, want [MODE]", g, got)
		}
		fm, f2 := mean.Decode(g), m2.Decode(g)
		if fm.MODE != 0 || f2.MODE != 3 || fm.STAGE != 7 || f2.STAGE != 7 || !fm.VALID || !f2.VALID {
			t.Errorf("%s: mean %+v M2 %+v", g, fm, f2)
		}
	}
	if d := LayoutOf(Gen3).MODE.Lo - LayoutOf(Gen2).MODE.Lo; d != 12 {
		t.Errorf("MODE moved %d bits", d)
	}
	if d := LayoutOf(Gen4).VALID.Lo - LayoutOf(Gen2).VALID.Lo; d != 22 {
		t.Errorf("gen4 VALID moved %d bits", d)
	}
}

func TestCrossGenWords(t *testing.T) {
	cases := []struct {
		name    string
		w       [3]LaneWord
		opb     uint8
		stage   uint8
		opa     [3]uint8
		high4   uint64
		mux     [3]uint16
		lowSame bool
	}{
		{"op88 lane0", [3]LaneWord{Op88Lane0Gen2, Op88Lane0Gen3, Op88Lane0Gen4}, 0, 1, [3]uint8{0, 0, 0}, 0, [3]uint16{0x004, 0x028, 0x028}, false},
		{"op65 lane0", [3]LaneWord{Op65Lane0Gen2, Op65Lane0Gen3, Op65Lane0Gen4}, 4, 0, [3]uint8{0x1c, 0x20, 0x38}, 0xa00000000000000, [3]uint16{0, 2, 2}, false},
		{"op66 lane1", [3]LaneWord{Op66Lane1Gen2, Op66Lane1Gen3, Op66Lane1Gen4}, 4, 0, [3]uint8{0x0c, 0x0c, 0x06}, 0xa00000000000000, [3]uint16{0, 2, 2}, false},
	}
	for _, c := range cases {
		for i, g := range TableGens {
			f := c.w[i].Decode(g)
			if !f.VALID || f.MODE != 0 || f.STAGE != c.stage || f.OPB != c.opb || f.OPA != c.opa[i] || f.MUX != c.mux[i] {
				t.Errorf("%s %s: %+v", c.name, g, f)
			}
			if g == Gen4 && f.HIGH != c.high4 {
				t.Errorf("%s gen4 HIGH %#x, want %#x", c.name, f.HIGH, c.high4)
			}
			if back, err := f.Encode(g); err != nil || back != c.w[i] {
				t.Errorf("%s %s: re-encode %#x, %v", c.name, g, uint64(back), err)
			}
		}
	}
}

func TestIdleWords(t *testing.T) {
	for g, want := range map[TableGen]LaneWord{Gen2: 0x00100000, Gen3: 0x100000000, Gen4: 0x40000000000} {
		if g.IdleWord() != want {
			t.Errorf("%s idle %#x", g, uint64(g.IdleWord()))
		}
		if f := want.Decode(g); f != (LaneFields{VALID: true}) {
			t.Errorf("%s idle decodes to %+v", g, f)
		}
		if want.Kind(g) != LaneIdle || LaneWord(0).Kind(g) != LaneZero {
			t.Errorf("%s kinds", g)
		}
	}
}

func TestLayoutsPartitionTheWord(t *testing.T) {
	for _, g := range TableGens {
		var all uint64
		for _, f := range LayoutOf(g).Fields() {
			if all&f.Mask() != 0 {
				t.Errorf("%s: %s overlaps", g, f.Name)
			}
			all |= f.Mask()
		}
		if all != ^uint64(0) {
			t.Errorf("%s: fields cover %#x", g, all)
		}
	}
}

func TestLaneEncodeErrors(t *testing.T) {
	cases := []struct {
		g TableGen
		f LaneFields
	}{
		{Gen2, LaneFields{OPB: 8}},
		{Gen2, LaneFields{MUX: 0x200}},
		{Gen2, LaneFields{EXT3: 1}},
		{Gen3, LaneFields{EXT4: 1}},
		{Gen4, LaneFields{HIGH: 1 << 48}},
		{Gen3, LaneFields{STAGE: 8}},
	}
	for _, c := range cases {
		if _, err := c.f.Encode(c.g); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s %+v: err %v", c.g, c.f, err)
		}
	}
}

func TestRelocate(t *testing.T) {
	for _, g := range []TableGen{Gen3, Gen4} {
		got := Relocate(BNStats2M2Gen2, g).Decode(g)
		want := BNStats2M2Gen2.Decode(Gen2)
		if got != want {
			t.Errorf("%s: %+v, want %+v", g, got, want)
		}
	}
	// Only the relocated fields agree with the real gen3 word; the route field differs.
	r := Relocate(BNStats2MeanGen2, Gen3)
	if got := FieldsDiffering(r, BNStats2MeanGen3, Gen3); !reflect.DeepEqual(got, []string{"MUX", "EXT3"}) {
		t.Errorf("relocated vs real gen3 BNStats2 differ in %v", got)
	}
}
