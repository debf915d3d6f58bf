package ucode_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/ucode"
)

// The synthetic table sets of the repository (testdata/ucode), as dtable reads them.
var (
	gen2Dir = filepath.Join("..", ucode.FixtureDir(ucode.Gen2))
	gen3Dir = filepath.Join("..", ucode.FixtureDir(ucode.Gen3))
	gen4Dir = filepath.Join("..", ucode.FixtureDir(ucode.Gen4))
)

// mustLoad is ucode.Load of one folder's set, for the examples after the first.
func mustLoad(dir, set string) *ucode.TableSet {
	s, err := ucode.Load([]string{dir}, set, ucode.GenUnknown)
	if err != nil {
		panic(err)
	}
	return s
}

// Decoding the seed 004 §8 words: block 41's M2 lane, and op88's terminal lane.
func ExampleLaneWord_Format() {
	fmt.Println(ucode.LaneWord(0x077d6000).Format(ucode.Gen2))
	fmt.Println(ucode.LaneWord(0x77005b4000).Format(ucode.Gen3))
	fmt.Println(ucode.LaneWord(0xa00040000001438).Format(ucode.Gen4))
	fmt.Println(ucode.LaneWord(0x01002000).Terminal(ucode.Gen2))
	// Output:
	// OPA=0x00 OPB=0 MUX=0x1ac VALID MODE=3 STAGE=7
	// OPA=0x00 OPB=0 MUX=0x168 EXT3=0x005 VALID MODE=3 STAGE=7
	// OPA=0x38 OPB=4 MUX=0x002 EXT3=0x000 EXT4=0x000 VALID MODE=0 STAGE=0 HIGH=0x0a00000000000000
	// true
}

// Following one opcode through a synthetic gen4 set (FACTS §E.2-§E.3: StreamTranspose's slot
// 0x46f, fast row 111, slow row 4, control word 00 00 e8 00 a0 82 08 00).
func ExampleTableSet_Lookup() {
	s, err := ucode.BuildFixture("gen4/default")
	if err != nil {
		panic(err)
	}
	r, _ := s.Lookup(107)
	fmt.Printf("%s: entry %#x fast row %d slow row %d, block %s k=%d\n", r.Name, r.Entry.Raw, r.FastRow, r.SlowRow, r.Class(), r.Depth())
	fmt.Println("control:", r.Fast.Hex())
	fmt.Println("missing:", s.MissingOpcodes([]uint8{65, 140, 107}))
	// Output:
	// StreamTranspose: entry 0x46f fast row 111 slow row 4, block PASSTHRU k=0
	// control: 00 00 e8 00 a0 82 08 00 00 00 00 00 00 00 00 00
	// missing: [140]
}

// Loading a folder and saying which generation it is and why (dtable info).
func ExampleTableSet_Info() {
	s, err := ucode.Load([]string{gen4Dir}, "saturate", ucode.GenUnknown)
	if err != nil {
		panic(err)
	}
	in, err := s.Info()
	if err != nil {
		panic(err)
	}
	fmt.Println(in.Set, in.Gen, in.Generation, in.RosterSize)
	for _, t := range in.Tables {
		fmt.Println(t.Table, t.Bytes, t.Note)
	}
	// Output:
	// saturate gen4 MARIANA 59
	// opcode_table 1024 60 enabled opcode slots
	// control_fast_table 4096 182/256 rows used
	// control_slow_table 4096 182/256 rows used
	// datapath_table 16384 256 blocks: 87 OFF, 14 PASSTHRU, 155 ACTIVE
}

// The census of seed 004 §2-§4 (dtable census): the gen2 default set's 13 / 16 / 99 blocks and
// 256 idle words.
func ExampleTableSet_Census() {
	s := mustLoad(gen2Dir, "")
	c, err := s.Census()
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Off, c.Passthru, c.Active, c.IdleWords, c.AllIdleRows, c.BitCounts[15], c.OK())
	// Output:
	// 13 16 99 256 [1 36 39 45 48 105] 0 true
}

// Printing one block and one opcode's chain (dtable dump --block 41 --op MaxPoolSelect).
func ExampleTableSet_Dump() {
	s := mustLoad(gen2Dir, "")
	ops, err := ucode.ParseOpcodes("MaxPoolSelect")
	if err != nil {
		panic(err)
	}
	d, err := s.Dump(ucode.DumpQuery{Ops: ops, Blocks: []int{41}})
	if err != nil {
		panic(err)
	}
	r, b := d.Resolutions[0], d.Blocks[0]
	fmt.Printf("op %d %s: row %d %s k=%d\n", r.Opcode, r.Name, r.FastRow, r.Class, r.K)
	fmt.Println(r.Lanes[2])
	fmt.Printf("block %d @%s: %s k=%d %v\n", b.Block, b.Offset, b.Class, b.K, b.Opcodes)
	fmt.Println(b.Lanes[3])
	// Output:
	// op 88 MaxPoolSelect: row 8 ACTIVE k=4
	// 0x0000000001002000 OPA=0x00 OPB=0 MUX=0x004 valid=0 MODE=0 STAGE=1  <- terminal lane (VALID clear)
	// block 41 @0xa40: ACTIVE k=8 [97]
	// 0x00000000077d6000 OPA=0x00 OPB=0 MUX=0x1ac VALID MODE=3 STAGE=7
}

// Comparing two sets (dtable diff): of one generation word by word (seed 004 §9's saturate
// delta), of two generations opcode by opcode (seed 004 §5's relocation).
func ExampleCompare() {
	def := mustLoad(gen4Dir, "default")
	sat := mustLoad(gen4Dir, "saturate")
	c, err := ucode.Compare(def, sat, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(c.Diff.Words), len(c.Diff.Blocks), len(c.Diff.Deltas), len(c.Diff.ControlRows), len(c.Diff.SlowRows))
	g3 := mustLoad(gen3Dir, "")
	x, err := ucode.Compare(g3, def, []uint8{65, 88})
	if err != nil {
		panic(err)
	}
	fmt.Println(x.OK(), x.Cross.Results[0].Lanes[0].LowDiffers)
	// Output:
	// 134 29 65 28 17
	// true [OPA]
}

// A cross-generation check that fails names the relocated fields that differ.
func ExampleCrossGenCheckAll() {
	g2 := mustLoad(gen2Dir, "")
	sat := mustLoad(gen4Dir, "saturate")
	r, err := ucode.CrossGenCheckAll(g2, sat, []uint8{234})
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		panic(err)
	}
	lines := strings.Split(b.String(), "\n")
	fmt.Println(r.OK())
	fmt.Println(lines[1])
	fmt.Println(lines[3])
	// Output:
	// false
	// op 234 SelectReduce: row 26 k=8 -> row 180 k=8: FIELDS DIFFER
	//   !! lane1 0x11c0011 -> 0xc9add9bb79a7ad  MODE 0 -> 5, STAGE 1 -> 6 differ after relocation  (OPA, OPB, MUX differ)
}

// The JSON form and back to files (dtable dump --json, dtable encode).
func ExampleWriteSetFiles() {
	s := mustLoad(gen3Dir, "")
	js, err := ucode.MarshalJSONSet(s)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "ucode-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "set.json")
	if err := os.WriteFile(in, js, 0o644); err != nil {
		panic(err)
	}
	back, err := ucode.LoadJSON(in)
	if err != nil {
		panic(err)
	}
	files, err := ucode.WriteSetFiles(filepath.Join(dir, "out"), back)
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		got, _ := os.ReadFile(f.Path)
		want, _ := os.ReadFile(filepath.Join(gen3Dir, filepath.Base(f.Path)))
		fmt.Println(filepath.Base(f.Path), f.Bytes, string(got) == string(want))
	}
	// Output:
	// default_control_fast_table.bin 4096 true
	// default_control_slow_table.bin 4096 true
	// default_datapath_table.bin 16384 true
	// default_opcode_table.bin 1024 true
}

// The HTML page (dtable report), here with the saturate diff outlined.
func ExampleWriteReport() {
	def := mustLoad(gen4Dir, "default")
	sat := mustLoad(gen4Dir, "saturate")
	var b strings.Builder
	if err := ucode.WriteReport(&b, def, sat); err != nil {
		panic(err)
	}
	page := b.String()
	fmt.Println(strings.HasPrefix(page, "<!DOCTYPE html>"), strings.Count(page, "<rect "), strings.Count(page, `stroke="#d0006f"`))
	// Output:
	// true 256 29
}

// Errors carry their rule and where, and match their category from any layer.
func ExampleError() {
	_, err := ucode.DecodeJSON([]byte(`{"format":"tpbsim.dtable/1","gen":"gen2","set":"d","tables":["datapath_table"],` +
		`"datapath_table":[{"block":12,"lanes":[{"lane":3,"fields":{"mux":512}}]}]}`))
	wrapped := fmt.Errorf("reading set.json: %w", err)
	var e *ucode.Error
	fmt.Println(errors.Is(wrapped, fault.ErrInvalid), errors.As(wrapped, &e))
	fmt.Println(fault.Rule(wrapped))
	fmt.Println(fault.Path(wrapped))
	fmt.Println(e.V.Value, e.V.Legal)
	// Output:
	// true true
	// ucode.lane_field
	// datapath_table: block[12]: lane[3]: MUX
	// 0x200 0..0x1ff
}
