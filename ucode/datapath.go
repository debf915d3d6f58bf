package ucode

import (
	"encoding/binary"
	"fmt"
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
// A block that breaks the packing rule keeps its class and depth and has LeftPacked false.
func (b DatapathBlock) Analyze(g TableGen) BlockInfo {
	var in BlockInfo
	in.LeftPacked = true
	seenInactive := false
	for L, w := range b {
		switch w.Kind(g) {
		case LaneZero:
			in.Zero++
			seenInactive = true
		case LaneIdle:
			in.Idle++
			seenInactive = true
		default:
			in.Depth++
			if seenInactive {
				in.LeftPacked = false
			}
			if w.Terminal(g) {
				in.Terminal = append(in.Terminal, L)
			}
		}
	}
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
	return in
}

// DatapathTable is a whole datapath_table.bin: a flat, headerless array of blocks indexed by
// fast control row (seed 004 §1).
type DatapathTable struct {
	Gen    TableGen
	Blocks []DatapathBlock
}

// ParseDatapathTable reads a datapath table of generation g. The size must be exactly
// g.TableSize(TableDatapath); a short file is ErrTruncated at the offset where it ends, a long one
// ErrSize at the first extra byte.
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

// checkSize reports a size mismatch as a *TableError.
func checkSize(data []byte, t Table, g TableGen) error {
	want := g.TableSize(t)
	if want == 0 {
		return &TableError{Table: t, Offset: -1, Err: fmt.Errorf("%w: %s has no %s", ErrGeneration, g, t)}
	}
	switch {
	case len(data) < want:
		return &TableError{Table: t, Offset: int64(len(data)),
			Err: fmt.Errorf("%w: file ends after %d B, %s %s is %d B", ErrTruncated, len(data), g, t, want)}
	case len(data) > want:
		return &TableError{Table: t, Offset: int64(want),
			Err: fmt.Errorf("%w: %d B, %s %s is %d B (%d extra bytes from here)", ErrSize, len(data), g, t, want, len(data)-want)}
	}
	return nil
}
