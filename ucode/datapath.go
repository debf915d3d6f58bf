package ucode

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
)

// Datapath table geometry (seed 004 §1).
const (
	LanesPerBlock = 8                 // lanes in one datapath block
	BlockSize     = LanesPerBlock * 8 // bytes per block: 8 lanes x u64
)

// DatapathBlock is the 8-lane ALU configuration the engine loads for one fast control row:
// lane L of block b is the u64-LE word at file bytes [b*64 + L*8, +8) (seed 004 §1).
type DatapathBlock [LanesPerBlock]LaneWord

// BlockClass is the functional-unit routing a block encodes (seed 004 §2).
type BlockClass uint8

const (
	ClassInvalid  BlockClass = iota
	ClassOff                 // all 8 lanes zero: the op runs on another unit
	ClassPassthru            // idle (+ zero) lanes, none active: bypass / pure data move
	ClassActive              // at least one lane neither zero nor idle: ALU pipeline engaged
)

func (c BlockClass) String() string {
	switch c {
	case ClassOff:
		return "OFF"
	case ClassPassthru:
		return "PASSTHRU"
	case ClassActive:
		return "ACTIVE"
	}
	return fmt.Sprintf("BlockClass(%d)", uint8(c))
}

// PassthruForm tells the two pass-through sub-forms apart (seed 004 §2 GOTCHA).
type PassthruForm uint8

const (
	FormNone     PassthruForm = iota // not a pass-through block
	FormAllIdle                      // all 8 lanes the idle word
	FormIdleZero                     // idle lanes mixed with zero lanes
)

func (f PassthruForm) String() string {
	switch f {
	case FormNone:
		return ""
	case FormAllIdle:
		return "all-idle"
	case FormIdleZero:
		return "idle+zero"
	}
	return fmt.Sprintf("PassthruForm(%d)", uint8(f))
}

// BlockInfo is what Analyze finds in one block.
type BlockInfo struct {
	Index      int
	Class      BlockClass
	Form       PassthruForm
	Depth      int   // k: number of active lanes = datapath pipeline depth (seed 004 §3)
	LeftPacked bool  // active lanes are exactly lanes 0..k-1
	Terminal   []int // active lanes with VALID clear (seed 004 §8 QUIRK)
	Idle, Zero int   // lane counts
}

// Analyze classifies b (seed 004 §4 classify_block), counts its depth and checks left packing.
// A block that breaks the packing rule keeps its class and depth and has LeftPacked false. An
// invalid generation has no idle word to classify against: the class is ClassInvalid.
func (b DatapathBlock) Analyze(g TableGen) BlockInfo {
	if !g.Valid() {
		return BlockInfo{}
	}
	idle := g.IdleWord()
	in, terminal := b.classify(idle)
	if terminal > 0 {
		in.Terminal = make([]int, 0, terminal)
		for L, w := range b {
			if w != 0 && w != idle && w&idle == 0 {
				in.Terminal = append(in.Terminal, L)
			}
		}
	}
	return in
}

// classify is Analyze against the idle word of a valid generation, counting the terminal lanes
// (active lanes with VALID, the idle word's one bit, clear) instead of listing them.
//
// The lane tests are arithmetic, not comparisons: Census classifies every block of a table, and
// under the fuzzer's instrumentation each 64-bit comparison is a call; the arithmetic form is
// also free of branches the lanes' values would mispredict.
func (b *DatapathBlock) classify(idle LaneWord) (in BlockInfo, terminal int) {
	if *b == (DatapathBlock{}) { // most blocks of a gen3 table
		in.Zero, in.Class, in.LeftPacked = LanesPerBlock, ClassOff, true
		return in, 0
	}
	validBit := uint(bits.TrailingZeros64(uint64(idle)))
	var zero, idles, active, term, inactiveSeen, unpacked uint64
	for _, w := range b {
		nz := nonzero(uint64(w))
		ni := nonzero(uint64(w ^ idle))
		act := nz & ni
		zero += 1 - nz
		idles += nz & (1 - ni)
		active += act
		term += act & (1 - uint64(w)>>validBit&1)
		unpacked |= act & inactiveSeen
		inactiveSeen |= 1 - act
	}
	in.Zero, in.Idle, in.Depth, in.LeftPacked = int(zero), int(idles), int(active), unpacked == 0
	switch {
	case in.Depth > 0:
		in.Class = ClassActive
	case in.Idle == 0:
		in.Class = ClassOff
	case in.Idle == LanesPerBlock:
		in.Class, in.Form = ClassPassthru, FormAllIdle
	default:
		in.Class, in.Form = ClassPassthru, FormIdleZero
	}
	return in, int(term)
}

// nonzero is 1 when x != 0, else 0.
func nonzero(x uint64) uint64 { return (x | -x) >> 63 }

// DatapathTable is a whole datapath_table.bin: a flat, headerless array of blocks indexed by
// fast control row (seed 004 §1).
type DatapathTable struct {
	Gen    TableGen
	Blocks []DatapathBlock
}

// ParseDatapathTable reads a datapath table of generation g. The size must be exactly
// g.TableSize(TableDatapath) (rule ucode.table_size): a short file is fault.ErrTruncated at the
// offset where it ends, a long one fault.ErrInvalid at the first extra byte.
func ParseDatapathTable(data []byte, g TableGen) (*DatapathTable, error) {
	if err := checkSize(data, TableDatapath, g); err != nil {
		return nil, err
	}
	t := &DatapathTable{Gen: g, Blocks: make([]DatapathBlock, len(data)/BlockSize)}
	for i := range t.Blocks {
		for L := range t.Blocks[i] {
			t.Blocks[i][L] = LaneWord(binary.LittleEndian.Uint64(data[i*BlockSize+L*8:]))
		}
	}
	return t, nil
}

// Bytes encodes t back to its file form, the mirror of ParseDatapathTable.
func (t *DatapathTable) Bytes() []byte {
	out := make([]byte, len(t.Blocks)*BlockSize)
	for i, b := range t.Blocks {
		for L, w := range b {
			binary.LittleEndian.PutUint64(out[i*BlockSize+L*8:], uint64(w))
		}
	}
	return out
}

// Analyze returns BlockInfo for every block.
func (t *DatapathTable) Analyze() []BlockInfo {
	out := make([]BlockInfo, len(t.Blocks))
	for i, b := range t.Blocks {
		out[i] = b.Analyze(t.Gen)
		out[i].Index = i
	}
	return out
}

// checkSize reports a size mismatch, or a table or generation that does not exist, as an *Error.
func checkSize(data []byte, t Table, g TableGen) error {
	if err := g.Check(); err != nil {
		return inFile(err, "", t)
	}
	want := g.TableSize(t)
	if want == 0 {
		return &Error{Table: t, Offset: -1, Kind: fault.ErrInvalid, V: fault.Violation{Rule: RuleTableKind, Offset: -1,
			Msg: fmt.Sprintf("%s has no %s (it has %s)", g, t, tableList(g.Tables()))}}
	}
	switch {
	case len(data) < want:
		return &Error{Table: t, Offset: int64(len(data)), Kind: fault.ErrTruncated, V: fault.Violation{Rule: RuleTableSize, Offset: -1,
			Value: fmt.Sprintf("%d B", len(data)), Legal: fmt.Sprintf("%d B (%s)", want, g),
			Msg: fmt.Sprintf("the file ends after %d B", len(data))}}
	case len(data) > want:
		return &Error{Table: t, Offset: int64(want), Kind: fault.ErrInvalid, V: fault.Violation{Rule: RuleTableSize, Offset: -1,
			Value: fmt.Sprintf("%d B", len(data)), Legal: fmt.Sprintf("%d B (%s)", want, g),
			Msg: fmt.Sprintf("%d B, %d extra bytes from here", len(data), len(data)-want)}}
	}
	return nil
}

func tableList(ts []Table) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.String()
	}
	return strings.Join(names, ", ")
}
