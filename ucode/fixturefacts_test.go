package ucode

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The golden values of the committed fixture files, read raw (os.ReadFile and encoding/binary,
// none of the package's parsing), against the literal values seed 004 and FACTS §E quote: the
// file sizes, quoted words, opcode slots and control rows, and the published counts. The
// generator writes the files (go generate ./ucode); this test holds them to the sources.

func rawFile(t *testing.T, gen int, set, table string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "ucode", fmt.Sprintf("dve_bin_gen%d", gen), set+"_"+table+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawSlot is opcode op's opcode_table slot (u64 LE in gen2, u32 LE in gen3/gen4, FACTS §E.2).
func rawSlot(ot []byte, gen, op int) uint64 {
	if gen == 2 {
		return binary.LittleEndian.Uint64(ot[op*8:])
	}
	return uint64(binary.LittleEndian.Uint32(ot[op*4:]))
}

// rawLane is lane L of block b (seed 004 §1: bytes [b*64 + L*8, +8), u64 LE).
func rawLane(dp []byte, b, L int) uint64 { return binary.LittleEndian.Uint64(dp[b*64+L*8:]) }

func TestCommittedFixtureSizes(t *testing.T) {
	cases := []struct {
		gen        int
		set, table string
		size       int
	}{
		{2, "default", "opcode_table", 2048}, {2, "default", "control_table", 2048}, {2, "default", "datapath_table", 8192},
		{2, "transformer", "opcode_table", 2048}, {2, "transformer", "control_table", 2048}, {2, "transformer", "datapath_table", 8192},
		{3, "default", "opcode_table", 1024}, {3, "default", "control_fast_table", 4096}, {3, "default", "control_slow_table", 4096}, {3, "default", "datapath_table", 16384},
		{4, "default", "opcode_table", 1024}, {4, "default", "control_fast_table", 4096}, {4, "default", "control_slow_table", 4096}, {4, "default", "datapath_table", 16384},
		{4, "saturate", "opcode_table", 1024}, {4, "saturate", "control_fast_table", 4096}, {4, "saturate", "control_slow_table", 4096}, {4, "saturate", "datapath_table", 16384},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("gen%d %s %s", c.gen, c.set, c.table), func(t *testing.T) {
			if n := len(rawFile(t, c.gen, c.set, c.table)); n != c.size {
				t.Errorf("%d B, FACTS §E.1 says %d", n, c.size)
			}
		})
	}
}

func TestCommittedFixtureSlots(t *testing.T) {
	cases := []struct {
		gen, op int
		raw     uint64
	}{
		{2, 102, 0x9cf}, {2, 105, 0x5cf}, {2, 106, 0x281}, {2, 73, 0x1a4}, {2, 77, 0x1a5}, {2, 0, 0x180}, {2, 159, 0x180},
		{3, 0, 0x600}, {3, 65, 0x3008}, {3, 81, 0x3008}, {3, 70, 0x20}, {3, 73, 0x630}, {3, 102, 0x2645}, {3, 234, 0x7d},
		{4, 0, 0x600}, {4, 48, 0x8}, {4, 65, 0x3010}, {4, 66, 0x18}, {4, 69, 0x1}, {4, 70, 0x30}, {4, 71, 0x30}, {4, 73, 0x640},
		{4, 77, 0x648}, {4, 102, 0x264c}, {4, 105, 0x164c}, {4, 106, 0xa30}, {4, 107, 0x46f}, {4, 127, 0x70}, {4, 227, 0x8f}, {4, 234, 0xb4},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("gen%d op%d", c.gen, c.op), func(t *testing.T) {
			if got := rawSlot(rawFile(t, c.gen, "default", "opcode_table"), c.gen, c.op); got != c.raw {
				t.Errorf("slot %#x, FACTS §E.2 says %#x", got, c.raw)
			}
		})
	}
	// Nonzero slots (FACTS §E.1: 51 / 53 / 60) and the largest entry (0x9cf / 0x3008 / 0x3010).
	for _, c := range []struct {
		gen, n int
		max    uint64
	}{{2, 51, 0x9cf}, {3, 53, 0x3008}, {4, 60, 0x3010}} {
		t.Run(fmt.Sprintf("gen%d slots", c.gen), func(t *testing.T) {
			ot := rawFile(t, c.gen, "default", "opcode_table")
			n, hi := 0, uint64(0)
			for op := 0; op < 256; op++ {
				if v := rawSlot(ot, c.gen, op); v != 0 {
					n, hi = n+1, max(hi, v)
				}
			}
			if n != c.n || hi != c.max {
				t.Errorf("%d nonzero slots, max %#x; FACTS says %d, %#x", n, hi, c.n, c.max)
			}
		})
	}
}

func TestCommittedFixtureRows(t *testing.T) {
	cases := []struct {
		gen        int
		set, table string
		row        int
		hex        string // the quoted leading bytes
	}{
		{4, "default", "control_fast_table", 1, "01000208a0890c00"},
		{4, "default", "control_fast_table", 16, "0000000020800900"},
		{4, "default", "control_fast_table", 48, "0000000020800800"},
		{4, "default", "control_fast_table", 111, "0000e800a0820800"},
		{4, "default", "control_fast_table", 143, "0000000020807900"},
		{4, "saturate", "control_fast_table", 143, "0192000008800100"},
		{4, "default", "control_slow_table", 48, "00c3300cc3300100"},
		{2, "default", "control_table", 127, "00000000000000000000000000000000"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("gen%d %s %s row%d", c.gen, c.set, c.table, c.row), func(t *testing.T) {
			want := strings.ReplaceAll(c.hex, " ", "")
			if got := hex.EncodeToString(rawFile(t, c.gen, c.set, c.table)[c.row*16:][:len(want)/2]); got != want {
				t.Errorf("%s, FACTS §E.3 says %s", got, want)
			}
		})
	}
	// Used rows: gen2 127/128 (row 127 zero), gen3/gen4 fast 182/256 and slow 182/256.
	for _, c := range []struct {
		gen   int
		table string
		used  int
	}{{2, "control_table", 127}, {3, "control_fast_table", 182}, {3, "control_slow_table", 182}, {4, "control_fast_table", 182}, {4, "control_slow_table", 182}} {
		t.Run(fmt.Sprintf("gen%d %s used", c.gen, c.table), func(t *testing.T) {
			b, n := rawFile(t, c.gen, "default", c.table), 0
			for r := 0; r < len(b); r += 16 {
				if strings.Trim(string(b[r:r+16]), "\x00") != "" {
					n++
				}
			}
			if n != c.used {
				t.Errorf("%d rows used, FACTS §E.3 says %d", n, c.used)
			}
		})
	}
}

// TestCommittedFixtureWords: the quoted lane words at the rows the quoted opcode slots name, and
// block 41 byte for byte as the seed's xxd.
func TestCommittedFixtureWords(t *testing.T) {
	xxd := "00601d0700000000 00601d0700000000 00601d0700000000 00607d0700000000 " +
		"00601d0700000000 00601d0700000000 00601d0700000000 00607d0700000000"
	t.Run("gen2 block 41 xxd", func(t *testing.T) {
		if got := hex.EncodeToString(rawFile(t, 2, "default", "datapath_table")[0xa40 : 0xa40+64]); got != strings.ReplaceAll(xxd, " ", "") {
			t.Errorf("block 41 bytes %s", got)
		}
	})
	idle := map[int]uint64{2: 0x00100000, 3: 0x100000000, 4: 0x40000000000}
	cases := []struct {
		gen, op, lane int
		want          uint64
	}{
		{2, 65, 0, 0x0010041c}, {2, 67, 0, 0x0211441c}, {2, 67, 1, 0x0010051d}, {2, 88, 0, 0x01102000}, {2, 88, 1, 0x01102000},
		{2, 88, 2, 0x01002000}, {2, 88, 3, 0x00100480}, {2, 66, 1, 0x10040c},
		{3, 65, 0, 0x100001420}, {3, 66, 1, 0x10000140c}, {3, 88, 0, 0x1100014000}, {3, 97, 0, 0x71005b4000}, {3, 97, 3, 0x77005b4000},
		{4, 65, 0, 0xa00040000001438}, {4, 66, 1, 0xa00040000001406}, {4, 88, 0, 0x440000014000},
	}
	rowBitsOf := map[int]uint{2: 7, 3: 8, 4: 8}
	for _, c := range cases {
		t.Run(fmt.Sprintf("gen%d op%d lane%d", c.gen, c.op, c.lane), func(t *testing.T) {
			row := int(rawSlot(rawFile(t, c.gen, "default", "opcode_table"), c.gen, c.op) & (1<<rowBitsOf[c.gen] - 1))
			if got := rawLane(rawFile(t, c.gen, "default", "datapath_table"), row, c.lane); got != c.want {
				t.Errorf("row %d lane %d = %#x, the seed quotes %#x", row, c.lane, got, c.want)
			}
		})
	}
	t.Run("gen2 op65 and op67 tails idle", func(t *testing.T) {
		dp := rawFile(t, 2, "default", "datapath_table")
		for _, c := range []struct{ row, from int }{{3, 1}, {2, 2}, {8, 4}} {
			for L := c.from; L < 8; L++ {
				if got := rawLane(dp, c.row, L); got != idle[2] {
					t.Errorf("block %d lane %d = %#x, FACTS §E.4 says idle", c.row, L, got)
				}
			}
		}
	})
}

// rawCensus counts what FACTS §E.4 publishes of a datapath table, with its own classification:
// a block is OFF when all lanes are zero, ACTIVE when a lane is neither zero nor idle.
type rawCensus struct {
	nonzero, idle, active, off, passthru, allIdle int
	allIdleRows                                   []int
	bits                                          [64]int
}

func censusRaw(dp []byte, idleWord uint64) rawCensus {
	var c rawCensus
	for b := 0; b < len(dp)/64; b++ {
		var nz, ni, na int
		for L := 0; L < 8; L++ {
			switch w := rawLane(dp, b, L); {
			case w == 0:
			case w == idleWord:
				nz++
				ni++
			default:
				nz++
				na++
				for u := w; u != 0; u &= u - 1 {
					c.bits[bits.TrailingZeros64(u)]++
				}
			}
		}
		c.nonzero += nz
		c.idle += ni
		switch {
		case na > 0:
			c.active++
		case nz == 0:
			c.off++
		default:
			c.passthru++
			if ni == 8 {
				c.allIdle++
				c.allIdleRows = append(c.allIdleRows, b)
			}
		}
	}
	return c
}

func TestCommittedFixtureCounts(t *testing.T) {
	cases := []struct {
		gen                    int
		idleWord               uint64
		nonzero, idle, active  int
		off, passthru, allIdle int // -1: not published
	}{
		{2, 0x00100000, 657, 256, 99, 13, 16, 6},
		{3, 0x100000000, 664, 221, 99, -1, -1, -1},
		{4, 0x40000000000, 1068, 233, 155, -1, -1, -1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("gen%d", c.gen), func(t *testing.T) {
			r := censusRaw(rawFile(t, c.gen, "default", "datapath_table"), c.idleWord)
			if r.nonzero != c.nonzero || r.idle != c.idle || r.active != c.active {
				t.Errorf("%d nonzero, %d idle, %d active; FACTS §E.4 says %d, %d, %d", r.nonzero, r.idle, r.active, c.nonzero, c.idle, c.active)
			}
			if c.off >= 0 && (r.off != c.off || r.passthru != c.passthru || r.allIdle != c.allIdle) {
				t.Errorf("%d OFF, %d PASSTHRU (%d all-idle); FACTS says %d, %d, %d", r.off, r.passthru, r.allIdle, c.off, c.passthru, c.allIdle)
			}
			if c.gen != 2 {
				return
			}
			if !reflect.DeepEqual(r.allIdleRows, []int{1, 36, 39, 45, 48, 105}) {
				t.Errorf("all-idle rows %v", r.allIdleRows)
			}
			seed := [27]int{102, 119, 120, 102, 72, 111, 92, 146, 54, 77, 180, 4, 2, 128, 74, 0, 73, 2, 87, 84, 274, 14, 21, 54, 164, 94, 104}
			if [27]int(r.bits[:27]) != seed || r.bits[27] != 0 {
				t.Errorf("per-bit counts %v, seed 004 §4 says %v", r.bits[:28], seed)
			}
		})
	}
}

// TestCommittedFixtureDeltas: the set-to-set differences FACTS §E.3-§E.4 publish, counted raw.
func TestCommittedFixtureDeltas(t *testing.T) {
	differ := func(a, b []byte, unit int) []int {
		var out []int
		for i := 0; i+unit <= len(a); i += unit {
			if string(a[i:i+unit]) != string(b[i:i+unit]) {
				out = append(out, i/unit)
			}
		}
		return out
	}
	t.Run("gen2 transformer", func(t *testing.T) {
		a, b := rawFile(t, 2, "default", "datapath_table"), rawFile(t, 2, "transformer", "datapath_table")
		words := differ(a, b, 8)
		blocks := map[int]bool{}
		for _, w := range words {
			blocks[w/8] = true
		}
		if len(words) != 588 || len(blocks) != 93 {
			t.Errorf("%d words in %d blocks differ; FACTS says 588 in 93", len(words), len(blocks))
		}
	})
	t.Run("gen4 saturate", func(t *testing.T) {
		a, b := rawFile(t, 4, "default", "datapath_table"), rawFile(t, 4, "saturate", "datapath_table")
		words := differ(a, b, 8)
		blocks := map[int]bool{}
		xors := map[uint64]bool{}
		for _, w := range words {
			blocks[w/8] = true
			xors[binary.LittleEndian.Uint64(a[w*8:])^binary.LittleEndian.Uint64(b[w*8:])] = true
			if w/8 < 143 || w/8 > 182 {
				t.Errorf("word %d (block %d) outside blocks 143..182", w, w/8)
			}
		}
		if len(words) != 134 || len(blocks) != 29 || len(xors) != 65 || !xors[0x0001800001540000] {
			t.Errorf("%d words in %d blocks, %d distinct XORs; seed 004 §9 says 134 in 29, 65, one of them 0x0001800001540000", len(words), len(blocks), len(xors))
		}
		for _, c := range []struct {
			table string
			n     int
		}{{"control_fast_table", 28}, {"control_slow_table", 17}} {
			rows := differ(rawFile(t, 4, "default", c.table), rawFile(t, 4, "saturate", c.table), 16)
			if len(rows) != c.n || rows[0] < 143 || rows[len(rows)-1] > 182 {
				t.Errorf("%s: rows %v differ; FACTS §E.3 says %d, in 143..182", c.table, rows, c.n)
			}
		}
	})
}
