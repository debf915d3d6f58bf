package ucode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

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

// TestFixtureFiles checks the committed .bin files are what BuildFixture makes (go generate
// ./ucode writes them; TestCommittedFixtureFacts checks them against the sources, not against
// the generator).
func TestFixtureFiles(t *testing.T) {
	for _, name := range FixtureNames() {
		s := mustFixture(t, name)
		files, err := s.Files()
		if err != nil {
			t.Fatal(err)
		}
		for tb, data := range files {
			p := fixturePath(name, tb)
			t.Run(p, func(t *testing.T) {
				got, err := os.ReadFile(p)
				if err != nil {
					t.Fatalf("%v (go generate ./ucode writes the fixture files)", err)
				}
				if !bytes.Equal(got, data) {
					t.Errorf("%s differs from the generator (go generate ./ucode)", p)
				}
			})
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
			if !c.OK() {
				t.Errorf("packing violations %v, orphans %v", c.PackingViolations, c.OrphanBlocks)
			}
			if name == "gen2/default" {
				// seed 004 §4 / FACTS §E.4, written out here rather than read from fixture.go.
				seed := []int{102, 119, 120, 102, 72, 111, 92, 146, 54, 77, 180, 4, 2, 128, 74, 0, 73, 2, 87, 84, 274, 14, 21, 54, 164, 94, 104}
				if !reflect.DeepEqual(c.BitCounts[:27], seed) {
					t.Errorf("bit counts %v", c.BitCounts[:27])
				}
				if !reflect.DeepEqual(c.AllIdleRows, []int{1, 36, 39, 45, 48, 105}) {
					t.Errorf("all-idle rows %v", c.AllIdleRows)
				}
			}
		})
	}
}

// TestFixtureResolutions follows the opcodes whose rows, classes and depths FACTS §E.2 and §E.4
// quote through the synthetic sets.
func TestFixtureResolutions(t *testing.T) {
	g2 := mustFixture(t, "gen2/default")
	cases := []struct {
		op    uint8
		row   int
		class BlockClass
	}{{65, 3, ClassActive}, {67, 2, ClassActive}, {88, 8, ClassActive}, {97, 41, ClassActive},
		{70, 1, ClassPassthru}, {71, 1, ClassPassthru}, {106, 1, ClassPassthru}, {73, 36, ClassPassthru},
		{78, 39, ClassPassthru}, {107, 105, ClassPassthru}, {240, 105, ClassPassthru},
		{72, 10, ClassOff}, {77, 37, ClassOff}, {102, 79, ClassOff}, {105, 79, ClassOff}, {110, 98, ClassOff},
		{111, 102, ClassOff}, {127, 77, ClassActive}, {108, 80, ClassActive}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("gen2 op%d", c.op), func(t *testing.T) {
			if r, ok := g2.Lookup(c.op); !ok || r.FastRow != c.row || r.Class() != c.class {
				t.Errorf("row %d class %s, want %d %s", r.FastRow, r.Class(), c.row, c.class)
			}
		})
	}
	// FACTS §E.4's k list, by opcode (the ops it names by number).
	for op, k := range map[uint8]int{70: 0, 71: 0, 106: 0, 78: 0, 94: 0, 73: 0, 107: 0, 240: 0, 65: 1, 81: 1, 108: 1,
		67: 2, 83: 2, 68: 2, 84: 2, 66: 2, 82: 2, 69: 2, 88: 4, 142: 4, 140: 5, 141: 5, 148: 7, 127: 7, 109: 7,
		97: 8, 114: 8, 157: 8, 158: 8, 234: 8} {
		t.Run(fmt.Sprintf("gen2 op%d k", op), func(t *testing.T) {
			if r, _ := g2.Lookup(op); r.Depth() != k {
				t.Errorf("%s: k=%d, want %d (FACTS §E.4)", r.Name, r.Depth(), k)
			}
		})
	}
	t.Run("gen2 op67 lane0 and twin", func(t *testing.T) {
		r67, _ := g2.Lookup(67)
		if f := mustDecode(t, r67.Block[0], Gen2); f.OPA != 0x1c || f.OPB != 4 || f.MUX != 0x028 || f.STAGE != 2 {
			t.Errorf("op67 lane0 %+v", f)
		}
		if !r67.TwinRow || r67.Twin != 83 || !reflect.DeepEqual(r67.SharesRow, []uint8{83}) {
			t.Errorf("op67 twin %+v", r67)
		}
	})
	t.Run("gen2 op88 terminal lane", func(t *testing.T) {
		if r88, _ := g2.Lookup(88); !reflect.DeepEqual(r88.Info.Terminal, []int{2}) {
			t.Errorf("op88 terminal lanes %v", r88.Info.Terminal)
		}
	})
	t.Run("gen2 op102 slow field", func(t *testing.T) {
		if r, _ := g2.Lookup(102); r.SlowRow != 19 || r.Slow != nil || len(r.Notes) != 1 {
			t.Errorf("gen2 op102 slow %d %v", r.SlowRow, r.Notes)
		}
	})
	g4 := mustFixture(t, "gen4/default")
	t.Run("gen4 op107", func(t *testing.T) {
		if r, _ := g4.Lookup(107); r.Entry.Raw != 0x46f || r.FastRow != 111 || r.SlowRow != 4 || r.Slow == nil || r.Fast.Hex()[:23] != "00 00 e8 00 a0 82 08 00" {
			t.Errorf("gen4 op107 %+v", r)
		}
	})
	t.Run("gen4 op65", func(t *testing.T) {
		if r, _ := g4.Lookup(65); r.Slow == nil || r.Slow.SlowSteps()[1] != 0x30c || r.Block[0] != 0xa00040000001438 {
			t.Errorf("gen4 op65 %+v", r)
		}
	})
	t.Run("gen4 StreamShuffle shares Copy's row", func(t *testing.T) {
		if r, _ := g4.Lookup(106); !reflect.DeepEqual(r.SharesRow, []uint8{70, 71}) {
			t.Errorf("gen4 StreamShuffle shares %v", r.SharesRow)
		}
	})
	g3 := mustFixture(t, "gen3/default")
	t.Run("gen3 op81 twin", func(t *testing.T) {
		if r, _ := g3.Lookup(81); r.Entry.Raw != 0x3008 || !r.TwinRow {
			t.Errorf("gen3 op81 %+v", r)
		}
	})
	t.Run("gen3 BNStats2", func(t *testing.T) {
		if r, _ := g3.Lookup(97); r.Block[0] != 0x71005b4000 || r.Block[3] != 0x77005b4000 {
			t.Errorf("gen3 BNStats2 block %x", r.Block)
		}
	})
}

// TestFixtureDiffs: the set diffs FACTS §E.3-§E.4 and seed 004 §9 publish.
func TestFixtureDiffs(t *testing.T) {
	cases := []struct {
		a, b                  string
		words, blocks, deltas int
		fast, slow, slots     int
		blocksIn              [2]int
		affected              []uint8
		delta                 LaneWord
	}{
		{"gen2/default", "gen2/transformer", 588, 93, -1, 0, 0, 0, [2]int{0, 127}, nil, 0},
		{"gen4/default", "gen4/saturate", 134, 29, 65, 28, 17, 0, [2]int{143, 182}, []uint8{225, 227, 234}, 0x0001800001540000},
	}
	for _, c := range cases {
		t.Run(c.b, func(t *testing.T) {
			d, err := DiffSets(mustFixture(t, c.a), mustFixture(t, c.b))
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Words) != c.words || len(d.Blocks) != c.blocks || (c.deltas >= 0 && len(d.Deltas) != c.deltas) {
				t.Errorf("%d words, %d blocks, %d deltas; want %d, %d, %d", len(d.Words), len(d.Blocks), len(d.Deltas), c.words, c.blocks, c.deltas)
			}
			if d.Blocks[0] < c.blocksIn[0] || d.Blocks[len(d.Blocks)-1] > c.blocksIn[1] {
				t.Errorf("blocks %v outside %v", d.Blocks, c.blocksIn)
			}
			if len(d.ControlRows) != c.fast || len(d.SlowRows) != c.slow || len(d.OpcodeSlots) != c.slots {
				t.Errorf("%d fast rows, %d slow rows, %d slots differ", len(d.ControlRows), len(d.SlowRows), len(d.OpcodeSlots))
			}
			for _, op := range c.affected {
				if !bytes.Contains(d.Opcodes, []byte{op}) {
					t.Errorf("op%d not among affected %v", op, d.Opcodes)
				}
			}
			if c.delta != 0 && !slices.ContainsFunc(d.Deltas, func(x XORDelta) bool { return x.XOR == c.delta }) {
				t.Errorf("delta %#x missing", uint64(c.delta))
			}
		})
	}
	t.Run("across generations", func(t *testing.T) {
		if _, err := DiffSets(mustFixture(t, "gen2/default"), mustFixture(t, "gen3/default")); fault.Rule(err) != RuleDiffSameGen {
			t.Errorf("cross-gen word diff: %v", err)
		}
	})
}

func TestFixtureCrossGen(t *testing.T) {
	g2, g3, g4 := mustFixture(t, "gen2/default"), mustFixture(t, "gen3/default"), mustFixture(t, "gen4/default")
	for _, other := range []*TableSet{g3, g4} {
		for _, op := range []uint8{65, 66, 67, 88, 97} {
			t.Run(fmt.Sprintf("gen2 vs %s op%d", other.Gen, op), func(t *testing.T) {
				r, err := CrossGenCheck(g2, other, op)
				if err != nil || !r.OK {
					t.Errorf("%v %+v", err, r.Lanes)
				}
				// seed 004 §5: op65 lane0 OPA 0x1c -> 0x20 -> 0x38 and MUX 0 -> 2.
				if op == 65 && !reflect.DeepEqual(r.Lanes[0].LowDiffers, []string{"OPA", "MUX"}) {
					t.Errorf("op65 lane0 low fields differ in %v", r.Lanes[0].LowDiffers)
				}
			})
		}
	}
	t.Run("a changed STAGE is caught", func(t *testing.T) {
		c := cloneSet(g3)
		r, _ := c.Lookup(88)
		c.Datapath.Blocks[r.FastRow][0] = 0x1100014000 ^ (1 << 37)
		if res, _ := CrossGenCheck(g2, c, 88); res.OK || res.Lanes[0].Relocated || !reflect.DeepEqual(res.Lanes[0].Differs, []string{"STAGE"}) {
			t.Errorf("%+v", res.Lanes[0])
		}
	})
}
