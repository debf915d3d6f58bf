package ucode

import (
	"slices"
	"testing"
)

// P01, P15: the committed gen2 file, parsed, holds block 41 as the seed's xxd shows it (seed 004
// §8: file byte 41*64 = 0xA40, "0060 1d07 0000 0000 ..." read as u64-LE: six lanes 0x071d6000
// and lanes 3 and 7 0x077d6000), lane L of block b at bytes b*64 + L*8 (§1).
func TestSeedP01Block41FromFile(t *testing.T) {
	s, err := Load([]string{"../testdata/ucode/dve_bin_gen2"}, "", GenUnknown)
	if err != nil {
		t.Fatal(err)
	}
	want := DatapathBlock{0x071d6000, 0x071d6000, 0x071d6000, 0x077d6000, 0x071d6000, 0x071d6000, 0x071d6000, 0x077d6000}
	if s.Datapath == nil || len(s.Datapath.Blocks) != 128 || s.Datapath.Blocks[41] != want {
		t.Fatalf("block 41 of the parsed gen2 default table is not the seed's %x", want)
	}
}

// P05, P08, P10: the block classes (seed 004 §2: all-zero OFF, all-idle or idle + trailing zero
// PASSTHRU, any other lane ACTIVE; "A pass-through block is either all 8 lanes idle [...] or a
// mix of idle + trailing zero with no active lane") and left packing (§3: "lanes 0..k-1 carry
// config, lanes k..7 are the idle word (or zero)"), on literal gen2 blocks: idle 0x100000, the
// active word op65's lane 0 0x0010041c (§8).
func TestSeedP05P10BlockClasses(t *testing.T) {
	const idle, act = LaneWord(0x100000), LaneWord(0x0010041c)
	for _, c := range []struct {
		name   string
		b      DatapathBlock
		class  BlockClass
		form   PassthruForm
		depth  int
		packed bool
	}{
		{"all zero", DatapathBlock{}, ClassOff, FormNone, 0, true},
		{"all idle", DatapathBlock{idle, idle, idle, idle, idle, idle, idle, idle}, ClassPassthru, FormAllIdle, 0, true},
		{"7 idle + zero", DatapathBlock{idle, idle, idle, idle, idle, idle, idle, 0}, ClassPassthru, FormIdleZero, 0, true},
		{"1 idle + zero", DatapathBlock{idle}, ClassPassthru, FormIdleZero, 0, true},
		{"k=1", DatapathBlock{act, idle, idle, idle, idle, idle, idle, idle}, ClassActive, FormNone, 1, true},
		{"k=2 after an idle lane", DatapathBlock{act, idle, act, idle, idle, idle, idle, idle}, ClassActive, FormNone, 2, false},
		{"k=1 after zero", DatapathBlock{0, act}, ClassActive, FormNone, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := c.b.Analyze(Gen2)
			if in.Class != c.class || in.Form != c.form || in.Depth != c.depth || in.LeftPacked != c.packed {
				t.Errorf("%v %q depth %d packed %v; want %v %q %d %v", in.Class, in.Form, in.Depth, in.LeftPacked, c.class, c.form, c.depth, c.packed)
			}
		})
	}
}

// P24: saturate vs default (gen4) differ in 134 lane words of 29 blocks, 143..182, which include
// the rows of op227 (143), op225 (170) and op234 (180) (seed 004 §9).
func TestSeedP24SaturateBlocks(t *testing.T) {
	d, err := DiffSets(mustFixture(t, "gen4/default"), mustFixture(t, "gen4/saturate"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Words) != 134 || len(d.Blocks) != 29 || d.Blocks[0] != 143 || d.Blocks[len(d.Blocks)-1] > 182 {
		t.Errorf("%d words in blocks %v; the seed's 134 in 29 blocks from 143 to 182", len(d.Words), d.Blocks)
	}
	for _, b := range []int{143, 170, 180} {
		if !slices.Contains(d.Blocks, b) {
			t.Errorf("block %d (an op's row) does not differ: %v", b, d.Blocks)
		}
	}
	for _, w := range d.Words {
		if !slices.Contains(d.Blocks, w.Block) {
			t.Errorf("word %d.%d differs, its block is not listed", w.Block, w.Lane)
		}
	}
}
