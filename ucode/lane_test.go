package ucode

import (
	"reflect"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// mustDecode decodes w in a valid generation (a test helper: the generations are literals).
func mustDecode(t testing.TB, w LaneWord, g TableGen) LaneFields {
	t.Helper()
	f, err := w.Decode(g)
	if err != nil {
		t.Fatalf("%s %#x: %v", g, uint64(w), err)
	}
	return f
}

// Block 41 of the gen2 default blob, seed 004 §8 (file 0xA40): every lane MUX 0x1ac, STAGE 7,
// VALID; MODE 3 on the M2 lanes 3 and 7, 0 on the mean lanes.
func TestBlock41BatchNormStats2(t *testing.T) {
	b := DatapathBlock{0x071d6000, 0x071d6000, 0x071d6000, 0x077d6000, 0x071d6000, 0x071d6000, 0x071d6000, 0x077d6000}
	for L, w := range b {
		t.Run("lane"+string(rune('0'+L)), func(t *testing.T) {
			wantMode := uint8(0)
			if L == 3 || L == 7 {
				wantMode = 3
			}
			want := LaneFields{MUX: 0x1ac, VALID: true, MODE: wantMode, STAGE: 7}
			if f := mustDecode(t, w, Gen2); f != want {
				t.Errorf("%+v, want %+v", f, want)
			}
		})
	}
	if in := b.Analyze(Gen2); in.Class != ClassActive || in.Depth != 8 || !in.LeftPacked || len(in.Terminal) != 0 {
		t.Errorf("block 41: %+v", in)
	}
}

// The worked gen2 words of seed 004 §4-§8 and FACTS §E.4.
func TestWorkedWordsGen2(t *testing.T) {
	cases := []struct {
		name  string
		w     LaneWord
		want  LaneFields
		term  bool
		print string
	}{
		{"op65 lane0", 0x0010041c, LaneFields{OPA: 0x1c, OPB: 4, VALID: true}, false, "OPA=0x1c OPB=4 MUX=0x000 VALID MODE=0 STAGE=0"},
		{"op67 lane0", 0x0211441c, LaneFields{OPA: 0x1c, OPB: 4, MUX: 0x028, VALID: true, STAGE: 2}, false, "OPA=0x1c OPB=4 MUX=0x028 VALID MODE=0 STAGE=2"},
		{"op67 lane1", 0x0010051d, LaneFields{OPA: 0x1d, OPB: 5, VALID: true}, false, "OPA=0x1d OPB=5 MUX=0x000 VALID MODE=0 STAGE=0"},
		{"op88 lane0", 0x01102000, LaneFields{MUX: 0x004, VALID: true, STAGE: 1}, false, "OPA=0x00 OPB=0 MUX=0x004 VALID MODE=0 STAGE=1"},
		{"op88 lane2", 0x01002000, LaneFields{MUX: 0x004, STAGE: 1}, true, "OPA=0x00 OPB=0 MUX=0x004 valid=0 MODE=0 STAGE=1"},
		{"op88 lane3", 0x00100480, LaneFields{OPA: 0x80, OPB: 4, VALID: true}, false, "OPA=0x80 OPB=4 MUX=0x000 VALID MODE=0 STAGE=0"},
		{"idle", 0x00100000, LaneFields{VALID: true}, false, "idle"},
		{"zero", 0, LaneFields{}, false, "zero"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := mustDecode(t, c.w, Gen2); got != c.want {
				t.Errorf("%#x: %+v, want %+v", uint64(c.w), got, c.want)
			}
			if got := c.w.Terminal(Gen2); got != c.term {
				t.Errorf("terminal %v, want %v", got, c.term)
			}
			if got := c.w.Format(Gen2); got != c.print {
				t.Errorf("Format %q, want %q", got, c.print)
			}
		})
	}
	t.Run("op88 block", func(t *testing.T) {
		op88 := DatapathBlock{0x01102000, 0x01102000, 0x01002000, 0x00100480, 0x100000, 0x100000, 0x100000, 0x100000}
		if in := op88.Analyze(Gen2); in.Depth != 4 || !reflect.DeepEqual(in.Terminal, []int{2}) {
			t.Errorf("op88 block: %+v", in)
		}
	})
}

// The seed 004 §5 XOR proof: mean and M2 differ only in MODE, and MODE sits 12 bits higher in
// gen3. The seed prints the gen3 XOR as 0x6000000000; the words give 0x600000000 = bits {33,34}
// (its own bit list).
func TestXORProofPlus12(t *testing.T) {
	cases := []struct {
		g        TableGen
		mean, m2 LaneWord
		xor      LaneWord
	}{
		{Gen2, 0x071d6000, 0x077d6000, 0x600000},
		{Gen3, 0x71005b4000, 0x77005b4000, 0x600000000},
	}
	for _, c := range cases {
		t.Run(c.g.String(), func(t *testing.T) {
			if x := c.mean ^ c.m2; x != c.xor {
				t.Errorf("xor %#x, want %#x", uint64(x), uint64(c.xor))
			}
			if got, err := FieldsDiffering(c.mean, c.m2, c.g); err != nil || !reflect.DeepEqual(got, []string{"MODE"}) {
				t.Errorf("fields differing %v %v, want [MODE]", got, err)
			}
			fm, f2 := mustDecode(t, c.mean, c.g), mustDecode(t, c.m2, c.g)
			if fm.MODE != 0 || f2.MODE != 3 || fm.STAGE != 7 || f2.STAGE != 7 || !fm.VALID || !f2.VALID {
				t.Errorf("mean %+v M2 %+v", fm, f2)
			}
		})
	}
}

// The layouts' bit positions, written from the seed's text (seed 004 §4, §5; FACTS §E.4) rather
// than read back from the package.
func TestLayouts(t *testing.T) {
	cases := []struct {
		g                                                  TableGen
		opa, opb, mux, ext3, ext4, valid, mode, stage, hgh BitField
	}{
		{Gen2, BitField{0, 8}, BitField{8, 3}, BitField{11, 9}, BitField{}, BitField{}, BitField{20, 1}, BitField{21, 3}, BitField{24, 3}, BitField{27, 37}},
		{Gen3, BitField{0, 8}, BitField{8, 3}, BitField{11, 9}, BitField{20, 12}, BitField{}, BitField{32, 1}, BitField{33, 3}, BitField{36, 3}, BitField{39, 25}},
		{Gen4, BitField{0, 8}, BitField{8, 3}, BitField{11, 9}, BitField{20, 12}, BitField{32, 10}, BitField{42, 1}, BitField{43, 3}, BitField{46, 3}, BitField{49, 15}},
	}
	for _, c := range cases {
		t.Run(c.g.String(), func(t *testing.T) {
			l, err := LayoutOf(c.g)
			if err != nil {
				t.Fatal(err)
			}
			want := LaneLayout{c.g, c.opa, c.opb, c.mux, c.ext3, c.ext4, c.valid, c.mode, c.stage, c.hgh}
			if l != want {
				t.Errorf("%+v\nwant %+v", l, want)
			}
			var all uint64
			for _, f := range l.Fields() {
				if all&f.Mask() != 0 {
					t.Errorf("%s overlaps", f.Name)
				}
				all |= f.Mask()
			}
			if all != ^uint64(0) {
				t.Errorf("fields cover %#x, not all 64 bits", all)
			}
		})
	}
}

// The quoted cross-generation words (seed 004 §5): the relocated fields agree in all three
// generations, the low fields do not always.
func TestCrossGenWords(t *testing.T) {
	cases := []struct {
		name  string
		w     [3]LaneWord
		opb   uint8
		stage uint8
		opa   [3]uint8
		high4 uint64
		mux   [3]uint16
	}{
		{"op88 lane0", [3]LaneWord{0x1102000, 0x1100014000, 0x440000014000}, 0, 1, [3]uint8{0, 0, 0}, 0, [3]uint16{0x004, 0x028, 0x028}},
		{"op65 lane0", [3]LaneWord{0x10041c, 0x100001420, 0xa00040000001438}, 4, 0, [3]uint8{0x1c, 0x20, 0x38}, 0xa00000000000000, [3]uint16{0, 2, 2}},
		{"op66 lane1", [3]LaneWord{0x10040c, 0x10000140c, 0xa00040000001406}, 4, 0, [3]uint8{0x0c, 0x0c, 0x06}, 0xa00000000000000, [3]uint16{0, 2, 2}},
	}
	for _, c := range cases {
		for i, g := range TableGens {
			t.Run(c.name+" "+g.String(), func(t *testing.T) {
				f := mustDecode(t, c.w[i], g)
				if !f.VALID || f.MODE != 0 || f.STAGE != c.stage || f.OPB != c.opb || f.OPA != c.opa[i] || f.MUX != c.mux[i] {
					t.Errorf("%+v", f)
				}
				if g == Gen4 && f.HIGH != c.high4 {
					t.Errorf("HIGH %#x, want %#x", f.HIGH, c.high4)
				}
				if back, err := f.Encode(g); err != nil || back != c.w[i] {
					t.Errorf("re-encode %#x, %v", uint64(back), err)
				}
			})
		}
	}
}

func TestIdleWords(t *testing.T) {
	for _, c := range []struct {
		g    TableGen
		idle LaneWord
	}{{Gen2, 0x00100000}, {Gen3, 0x100000000}, {Gen4, 0x40000000000}} {
		t.Run(c.g.String(), func(t *testing.T) {
			if c.g.IdleWord() != c.idle {
				t.Errorf("idle %#x, want %#x", uint64(c.g.IdleWord()), uint64(c.idle))
			}
			if f := mustDecode(t, c.idle, c.g); f != (LaneFields{VALID: true}) {
				t.Errorf("idle decodes to %+v", f)
			}
			if c.idle.Kind(c.g) != LaneIdle || LaneWord(0).Kind(c.g) != LaneZero || (c.idle|1).Kind(c.g) != LaneActive {
				t.Error("kinds")
			}
		})
	}
}

func TestLaneEncodeErrors(t *testing.T) {
	cases := []struct {
		name, path string
		g          TableGen
		f          LaneFields
	}{
		{"OPB wide", "OPB", Gen2, LaneFields{OPB: 8}},
		{"MUX wide", "MUX", Gen2, LaneFields{MUX: 0x200}},
		{"no EXT3 in gen2", "EXT3", Gen2, LaneFields{EXT3: 1}},
		{"no EXT4 in gen3", "EXT4", Gen3, LaneFields{EXT4: 1}},
		{"HIGH below bit 49", "HIGH", Gen4, LaneFields{HIGH: 1 << 48}},
		{"STAGE wide", "STAGE", Gen3, LaneFields{STAGE: 8}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.f.Encode(c.g)
			if fault.Category(err) != fault.ErrInvalid || fault.Rule(err) != RuleLaneField || fault.Path(err) != c.path {
				t.Errorf("err %v: category %v rule %q path %q, want invalid %s %q", err, fault.Category(err), fault.Rule(err), fault.Path(err), RuleLaneField, c.path)
			}
		})
	}
}

func TestRelocate(t *testing.T) {
	mean2, m22, mean3 := LaneWord(0x071d6000), LaneWord(0x077d6000), LaneWord(0x71005b4000)
	for _, g := range []TableGen{Gen3, Gen4} {
		t.Run(g.String(), func(t *testing.T) {
			r, err := Relocate(m22, g)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := mustDecode(t, r, g), mustDecode(t, m22, Gen2); got != want {
				t.Errorf("%+v, want %+v", got, want)
			}
		})
	}
	t.Run("vs real gen3", func(t *testing.T) {
		// Only the relocated fields agree with the real gen3 word; the route field differs.
		r, err := Relocate(mean2, Gen3)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := FieldsDiffering(r, mean3, Gen3); !reflect.DeepEqual(got, []string{"MUX", "EXT3"}) {
			t.Errorf("relocated vs real gen3 BNStats2 differ in %v", got)
		}
	})
	t.Run("back loses EXT3", func(t *testing.T) {
		if _, err := RelocateFrom(mean3, Gen3, Gen2); fault.Rule(err) != RuleLaneField || fault.Path(err) != "EXT3" {
			t.Errorf("gen3 word with EXT3 to gen2: %v", err)
		}
	})
}
