package ucode

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the fixture files under testdata/ucode")

//go:generate go test -run TestFixtureFiles -update

func mustFixture(t testing.TB, name string) *TableSet {
	t.Helper()
	s, err := BuildFixture(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func fixturePath(name string, tb Table) string {
	gen, set, _ := strings.Cut(name, "/")
	return filepath.Join("..", "testdata", "ucode", "dve_bin_"+gen, tb.FileName(set))
}

// TestFixtureFiles checks the committed .bin files are what BuildFixture makes (go test -update
// rewrites them).
func TestFixtureFiles(t *testing.T) {
	for _, name := range FixtureNames() {
		s := mustFixture(t, name)
		for tb, data := range s.Files() {
			p := fixturePath(name, tb)
			if *update {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (run go test ./ucode -run TestFixtureFiles -update)", err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%s differs from the generator", p)
			}
		}
	}
}

type censusWant struct {
	off, pt, allIdle, idleZero, active   int
	nonzero, idle, activeWords, terminal int
	highest, usedCtl, usedSlow, enabled  int
	depthBlocks                          [9]int
}

// The census each synthetic set must have. gen2 default reproduces every count seed 004 and
// FACTS §E.4 publish for the real blob (13/16/99, 6 all-idle + 10 idle+zero, 657 nonzero words,
// 256 idle, the 401-word per-bit histogram, 127 terminal lanes, highest bit 26, 127 used control
// rows, 51 enabled slots); gen3/gen4 reproduce the published active blocks, nonzero and idle
// words, used rows and slots. The depth histograms and gen3/gen4 OFF/PASSTHRU counts follow from
// the filler plan in fixture.go.
var censusWants = map[string]censusWant{
	"gen2/default":     {13, 16, 6, 10, 99, 657, 256, 401, 127, 26, 127, -1, 51, [9]int{29, 20, 13, 11, 12, 12, 11, 12, 8}},
	"gen2/transformer": {13, 16, 6, 10, 99, 671, 270, 401, 127, 26, 127, -1, 51, [9]int{29, 20, 13, 11, 12, 12, 11, 12, 8}},
	"gen3/default":     {145, 12, 5, 7, 99, 664, 221, 443, 155, 38, 182, 182, 53, [9]int{157, 14, 14, 10, 13, 10, 11, 13, 14}},
	"gen4/default":     {87, 14, 6, 8, 155, 1068, 233, 835, 257, 59, 182, 182, 60, [9]int{101, 9, 16, 13, 14, 18, 24, 23, 38}},
	"gen4/saturate":    {87, 14, 6, 8, 155, 1068, 233, 835, 257, 60, 182, 182, 60, [9]int{101, 9, 16, 13, 14, 18, 24, 23, 38}},
}

func TestFixtureCensus(t *testing.T) {
	for _, name := range FixtureNames() {
		t.Run(name, func(t *testing.T) {
			c, err := mustFixture(t, name).Census()
			if err != nil {
				t.Fatal(err)
			}
			var depths [9]int
			for _, d := range c.Depths {
				depths[d.K] = len(d.Blocks)
			}
			got := censusWant{c.Off, c.Passthru, c.PassthruAllIdle, c.PassthruIdleZero, c.Active,
				c.NonzeroWords, c.IdleWords, c.ActiveWords, c.TerminalLanes, c.HighestBit,
				c.UsedControlRows, c.UsedSlowRows, c.EnabledOpcodes, depths}
			if want := censusWants[name]; got != want {
				t.Errorf("census\n got %+v\nwant %+v", got, want)
			}
			if len(c.PackingViolations) != 0 || len(c.OrphanBlocks) != 0 {
				t.Errorf("packing violations %v, orphans %v", c.PackingViolations, c.OrphanBlocks)
			}
			if name == "gen2/default" {
				if !reflect.DeepEqual(c.BitCounts[:27], gen2BitCounts[:]) {
					t.Errorf("bit counts %v", c.BitCounts[:27])
				}
				if !reflect.DeepEqual(c.AllIdleRows, []int{1, 36, 39, 45, 48, 105}) {
					t.Errorf("all-idle rows %v", c.AllIdleRows)
				}
			}
		})
	}
}

func TestFixtureQuotedFacts(t *testing.T) {
	g2 := mustFixture(t, "gen2/default")
	// Block 41 bytes at file offset 0xA40 exactly as the seed's xxd (seed 004 §8).
	xxd := []byte{0x00, 0x60, 0x1d, 0x07, 0, 0, 0, 0, 0x00, 0x60, 0x1d, 0x07, 0, 0, 0, 0,
		0x00, 0x60, 0x1d, 0x07, 0, 0, 0, 0, 0x00, 0x60, 0x7d, 0x07, 0, 0, 0, 0,
		0x00, 0x60, 0x1d, 0x07, 0, 0, 0, 0, 0x00, 0x60, 0x1d, 0x07, 0, 0, 0, 0,
		0x00, 0x60, 0x1d, 0x07, 0, 0, 0, 0, 0x00, 0x60, 0x7d, 0x07, 0, 0, 0, 0}
	if got := g2.Datapath.Bytes()[0xa40 : 0xa40+64]; !bytes.Equal(got, xxd) {
		t.Errorf("block 41 bytes % x", got)
	}
	for op, want := range map[uint8]struct {
		row   int
		class BlockClass
	}{65: {3, ClassActive}, 67: {2, ClassActive}, 88: {8, ClassActive}, 97: {41, ClassActive},
		70: {1, ClassPassthru}, 71: {1, ClassPassthru}, 106: {1, ClassPassthru}, 73: {36, ClassPassthru},
		78: {39, ClassPassthru}, 107: {105, ClassPassthru}, 240: {105, ClassPassthru},
		72: {10, ClassOff}, 77: {37, ClassOff}, 102: {79, ClassOff}, 105: {79, ClassOff}, 110: {98, ClassOff},
		111: {102, ClassOff}, 127: {77, ClassActive}, 108: {80, ClassActive}} {
		r, ok := g2.Lookup(op)
		if !ok || r.FastRow != want.row || r.Class() != want.class {
			t.Errorf("gen2 op%d: row %d class %s, want %d %s", op, r.FastRow, r.Class(), want.row, want.class)
		}
	}
	for op, k := range Gen2Depths() {
		if r, _ := g2.Lookup(op); r.Depth() != k {
			t.Errorf("gen2 op%d %s: k=%d, want %d (FACTS §E.4)", op, r.Name, r.Depth(), k)
		}
	}
	r67, _ := g2.Lookup(67)
	if f := r67.Block[0].Decode(Gen2); f.OPA != 0x1c || f.OPB != 4 || f.MUX != 0x028 || f.STAGE != 2 {
		t.Errorf("op67 lane0 %+v", f)
	}
	if !r67.TwinRow || r67.Twin != 83 || !reflect.DeepEqual(r67.SharesRow, []uint8{83}) {
		t.Errorf("op67 twin %+v", r67)
	}
	r88, _ := g2.Lookup(88)
	if !reflect.DeepEqual(r88.Info.Terminal, []int{2}) {
		t.Errorf("op88 terminal lanes %v", r88.Info.Terminal)
	}
	if r, _ := g2.Lookup(102); r.SlowRow != 19 || r.Slow != nil || len(r.Notes) != 1 {
		t.Errorf("gen2 op102 slow %d %v", r.SlowRow, r.Notes)
	}
	if g2.Control.Rows[1][0] != 0x55 || g2.Control.Rows[1][1] != 0x55 || !g2.Control.Rows[127].IsZero() {
		t.Errorf("gen2 control rows 1 / 127: %s / %s", g2.Control.Rows[1].Hex(), g2.Control.Rows[127].Hex())
	}

	g4 := mustFixture(t, "gen4/default")
	if h := g4.Control.Rows[111].Hex(); !strings.HasPrefix(h, "00 00 e8 00 a0 82 08 00") {
		t.Errorf("gen4 row111 %s", h)
	}
	r107, _ := g4.Lookup(107)
	if r107.Entry.Raw != 0x46f || r107.FastRow != 111 || r107.SlowRow != 4 || r107.Slow == nil {
		t.Errorf("gen4 op107 %+v", r107)
	}
	r65, _ := g4.Lookup(65)
	if r65.Slow == nil || r65.Slow.SlowSteps()[1] != 0x30c || r65.Block[0] != Op65Lane0Gen4 {
		t.Errorf("gen4 op65 %+v", r65)
	}
	if r, _ := g4.Lookup(106); !reflect.DeepEqual(r.SharesRow, []uint8{70, 71}) {
		t.Errorf("gen4 StreamShuffle shares %v", r.SharesRow)
	}
	g3 := mustFixture(t, "gen3/default")
	if r, _ := g3.Lookup(81); r.Entry.Raw != 0x3008 || !r.TwinRow {
		t.Errorf("gen3 op81 %+v", r)
	}
	if r, _ := g3.Lookup(97); r.Block[0] != BNStats2MeanGen3 || r.Block[3] != BNStats2M2Gen3 {
		t.Errorf("gen3 BNStats2 block %x", r.Block)
	}
}

func TestFixtureDiffs(t *testing.T) {
	d, err := DiffSets(mustFixture(t, "gen2/default"), mustFixture(t, "gen2/transformer"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Words) != 588 || len(d.Blocks) != 93 {
		t.Errorf("transformer: %d words in %d blocks, want 588 in 93", len(d.Words), len(d.Blocks))
	}
	d, err = DiffSets(mustFixture(t, "gen4/default"), mustFixture(t, "gen4/saturate"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Words) != 134 || len(d.Blocks) != 29 || len(d.Deltas) != 65 {
		t.Errorf("saturate: %d words, %d blocks, %d deltas; want 134, 29, 65", len(d.Words), len(d.Blocks), len(d.Deltas))
	}
	if d.Blocks[0] < 143 || d.Blocks[len(d.Blocks)-1] > 182 {
		t.Errorf("saturate blocks %v outside 143..182", d.Blocks)
	}
	found := false
	for _, x := range d.Deltas {
		found = found || x.XOR == 0x0001800001540000
	}
	if !found {
		t.Error("saturate: delta 0x0001800001540000 missing")
	}
	if len(d.ControlRows) != 28 || len(d.SlowRows) != 17 || len(d.OpcodeSlots) != 0 {
		t.Errorf("saturate: %d fast rows, %d slow rows, %d slots differ", len(d.ControlRows), len(d.SlowRows), len(d.OpcodeSlots))
	}
	for _, op := range []uint8{225, 227, 234} {
		if !bytes.Contains(d.Opcodes, []byte{op}) {
			t.Errorf("saturate: op%d not among affected %v", op, d.Opcodes)
		}
	}
	if _, err := DiffSets(mustFixture(t, "gen2/default"), mustFixture(t, "gen3/default")); err == nil {
		t.Error("cross-gen word diff accepted")
	}
}

func TestFixtureCrossGen(t *testing.T) {
	g2 := mustFixture(t, "gen2/default")
	for _, name := range []string{"gen3/default", "gen4/default"} {
		other := mustFixture(t, name)
		for _, op := range []uint8{65, 66, 67, 88, 97} {
			r, err := CrossGenCheck(g2, other, op)
			if err != nil {
				t.Fatal(err)
			}
			if !r.OK {
				t.Errorf("%s op%d: %+v", name, op, r.Lanes)
			}
		}
		r, _ := CrossGenCheck(g2, other, 65)
		if !reflect.DeepEqual(r.Lanes[0].LowDiffers, []string{"OPA", "MUX"}) {
			t.Errorf("%s op65 lane0 low fields differ in %v", name, r.Lanes[0].LowDiffers)
		}
	}
	// Every op the synthetic sets share passes (their unquoted lanes are relocated gen2 lanes).
	g3, g4 := mustFixture(t, "gen3/default"), mustFixture(t, "gen4/default")
	for _, pair := range [][2]*TableSet{{g2, g3}, {g2, g4}, {g3, g4}} {
		for _, op := range pair[0].Opcodes.Enabled() {
			if op == 0 || !pair[1].Opcodes.Entries[op].Enabled() {
				continue
			}
			if r, err := CrossGenCheck(pair[0], pair[1], op); err != nil || !r.OK {
				t.Errorf("%s vs %s op%d: %v %+v", pair[0].Gen, pair[1].Gen, op, err, r.Lanes)
			}
		}
	}
	// A relocation failure is caught: swap in a lane whose STAGE differs.
	r, _ := g3.Lookup(88)
	g3.Datapath.Blocks[r.FastRow][0] = Op88Lane0Gen3 ^ (1 << 37)
	if res, _ := CrossGenCheck(g2, g3, 88); res.OK || res.Lanes[0].Relocated {
		t.Errorf("changed STAGE not caught: %+v", res.Lanes[0])
	}
}
