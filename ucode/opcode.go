package ucode

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// NumOpcodes is the opcode index space of every generation: one opcode_table slot per wire
// opcode byte (FACTS §E.2).
const NumOpcodes = 256

// OpcodeEntry is one opcode_table slot decoded (FACTS §E.2):
//
//	gen2 (u64):     63                 7 6        0     gen3/gen4 (u32): 31          8 7       0
//	               +--------------------+----------+                     +-------------+---------+
//	               |  slow field (V>>7) | row V&7F |                     | slow (V>>8) | fast row|
//	               +--------------------+----------+                     +-------------+---------+
//
// Raw == 0 means the opcode is disabled in this set. SlowRow 0 means fast-only. gen2 has a
// slow field but no slow table (FACTS §E.3).
type OpcodeEntry struct {
	Raw     uint64
	FastRow int
	SlowRow uint64
}

// Enabled reports whether the slot is in use.
func (e OpcodeEntry) Enabled() bool { return e.Raw != 0 }

func rowBits(g TableGen) uint {
	if g == Gen2 {
		return 7
	}
	return 8
}

// DecodeOpcodeEntry splits a raw slot value per generation g. A value wider than the slot
// (8 bytes in gen2, 4 in gen3/gen4) and an invalid generation are errors.
func DecodeOpcodeEntry(raw uint64, g TableGen) (OpcodeEntry, error) {
	if err := g.Check(); err != nil {
		return OpcodeEntry{}, err
	}
	if sz := g.OpcodeEntrySize(); sz < 8 && raw>>(8*sz) != 0 {
		return OpcodeEntry{}, invalid(RuleOpcodeEntry, "raw", fmt.Sprintf("%#x", raw), fmt.Sprintf("0..%#x", uint64(1)<<(8*sz)-1),
			"a %s opcode_table slot is %d bytes", g, sz)
	}
	return decodeEntry(raw, g), nil
}

// decodeEntry is DecodeOpcodeEntry for a valid generation and a raw value that fits.
func decodeEntry(raw uint64, g TableGen) OpcodeEntry {
	n := rowBits(g)
	return OpcodeEntry{Raw: raw, FastRow: int(raw & (1<<n - 1)), SlowRow: raw >> n}
}

// MakeOpcodeEntry is the mirror of DecodeOpcodeEntry: it packs a fast row and slow row, and
// fails (rule ucode.opcode_entry, path fast_row or slow_row) when either does not fit generation
// g's entry, or when g is invalid.
func MakeOpcodeEntry(g TableGen, fast int, slow uint64) (OpcodeEntry, error) {
	if err := g.Check(); err != nil {
		return OpcodeEntry{}, err
	}
	n := rowBits(g)
	if fast < 0 || fast >= 1<<n {
		return OpcodeEntry{}, invalid(RuleOpcodeEntry, "fast_row", fmt.Sprint(fast), fmt.Sprintf("0..%d", 1<<n-1), "does not fit %d bits", n)
	}
	width := uint(8*g.OpcodeEntrySize()) - n
	if width < 64 && slow>>width != 0 {
		return OpcodeEntry{}, invalid(RuleOpcodeEntry, "slow_row", fmt.Sprint(slow), fmt.Sprintf("0..%d", uint64(1)<<width-1), "does not fit %d bits", width)
	}
	return OpcodeEntry{Raw: slow<<n | uint64(fast), FastRow: fast, SlowRow: slow}, nil
}

// OpcodeTable is a whole opcode_table.bin: 256 slots, u64 in gen2, u32 in gen3/gen4.
type OpcodeTable struct {
	Gen     TableGen
	Entries [NumOpcodes]OpcodeEntry
}

// ParseOpcodeTable reads an opcode table of generation g.
func ParseOpcodeTable(data []byte, g TableGen) (*OpcodeTable, error) {
	if err := checkSize(data, TableOpcode, g); err != nil {
		return nil, err
	}
	t := &OpcodeTable{Gen: g}
	sz := g.OpcodeEntrySize()
	for op := range t.Entries {
		var raw uint64
		if sz == 8 {
			raw = binary.LittleEndian.Uint64(data[op*8:])
		} else {
			raw = uint64(binary.LittleEndian.Uint32(data[op*4:]))
		}
		t.Entries[op] = decodeEntry(raw, g)
	}
	return t, nil
}

// Bytes encodes t to its file form, the mirror of ParseOpcodeTable. A table of an invalid
// generation has no file form (nil), and a slot's bits beyond the slot size are not kept: use
// MakeOpcodeEntry or DecodeOpcodeEntry to build entries.
func (t *OpcodeTable) Bytes() []byte {
	sz := t.Gen.OpcodeEntrySize()
	if sz == 0 {
		return nil
	}
	out := make([]byte, NumOpcodes*sz)
	for op, e := range t.Entries {
		if sz == 8 {
			binary.LittleEndian.PutUint64(out[op*8:], e.Raw)
		} else {
			binary.LittleEndian.PutUint32(out[op*4:], uint32(e.Raw))
		}
	}
	return out
}

// Enabled lists the opcodes with a nonzero slot, ascending.
func (t *OpcodeTable) Enabled() []uint8 {
	var out []uint8
	for op, e := range t.Entries {
		if e.Enabled() {
			out = append(out, uint8(op))
		}
	}
	return out
}

// OpcodesOnRow lists the enabled opcodes whose fast row is row, ascending.
func (t *OpcodeTable) OpcodesOnRow(row int) []uint8 {
	var out []uint8
	for op, e := range t.Entries {
		if e.Enabled() && e.FastRow == row {
			out = append(out, uint8(op))
		}
	}
	return out
}

// RosterOp is one DVE opcode of the roster (FACTS §E.2 numbering and roster deltas).
type RosterOp struct {
	Opcode uint8
	Name   string
	Named  bool // false: the sources give the number but not the name
	gens   uint8
}

// InRoster reports whether the opcode is in generation g's default roster.
func (r RosterOp) InRoster(g TableGen) bool { return g.Valid() && r.gens&(1<<g) != 0 }

const (
	g2   = 1 << Gen2
	g3   = 1 << Gen3
	g4   = 1 << Gen4
	gAll = g2 | g3 | g4
	g34  = g3 | g4
)

// roster is FACTS §E.2: the opcode numbering, with the default-roster membership that the
// deltas give (gen2->gen3 +{96,147,152,154,155,188,230,233,240} -{140,141,159};
// gen3->gen4 +{48,119,120,224,225,226,227}). 241 and 242 are gen2 residents outside the roster.
var roster = [...]RosterOp{
	{48, "Exponential", true, g4},
	{65, "TensorTensorArithOp", true, gAll},
	{66, "TensorReduceArithOp", true, gAll},
	{67, "TensorScalarArithOp", true, gAll},
	{68, "TensorScalarPtrArithOp", true, gAll},
	{69, "Pool", true, gAll},
	{70, "Copy", true, gAll},
	{71, "Cast", true, gAll},
	{72, "Reciprocal", true, gAll},
	{73, "Memset", true, gAll},
	{77, "Rng", true, gAll},
	{78, "TensorCumulativeArithOp", true, gAll},
	{81, "TensorTensorBitvecOp", true, gAll},
	{82, "TensorReduceBitvecOp", true, gAll},
	{83, "TensorScalarBitvecOp", true, gAll},
	{84, "TensorScalarPtrBitvecOp", true, gAll},
	{88, "MaxPoolSelect", true, gAll},
	{94, "TensorCumulativeBitvecOp", true, gAll},
	{96, "BatchNorm(96)", false, g34},
	{97, "BatchNormStats2", true, gAll},
	{98, "BatchNorm(98)", false, gAll},
	{99, "BatchNorm(99)", false, gAll},
	{100, "BatchNorm(100)", false, gAll},
	{101, "BatchNorm(101)", false, gAll},
	{102, "LoadParameterRam", true, gAll},
	{105, "LoadMaskSelect", true, gAll},
	{106, "StreamShuffle", true, gAll},
	{107, "StreamTranspose", true, gAll},
	{108, "Max8", true, gAll},
	{109, "MatchValueLoad", true, gAll},
	{110, "FindIndex8", true, gAll},
	{111, "MatchReplace8", true, gAll},
	{114, "CopyPredicated", true, gAll},
	{119, "RandGetState", true, g4},
	{120, "RandSetState", true, g4},
	{127, "Dropout", true, gAll},
	{130, "TransposeBatchNormStats2", true, gAll},
	{131, "TransposeTensorReduceArithOp", true, gAll},
	{132, "TransposeTensorReduceBitvecOp", true, gAll},
	{140, "TensorReduceAddBf16", true, g2},
	{141, "TensorReduceMaxBf16", true, g2},
	{142, "BatchNormParamLoad2", true, gAll},
	{147, "TransposeTensorScalarArithOp", true, g34},
	{148, "BatchNormGradAccumulate2", true, gAll},
	{152, "TensorScalarSelect", true, g34},
	{153, "CastPredicated", true, gAll},
	{154, "TensorScalarCacheReduce", true, g34},
	{155, "DveReadAccumulator", true, g34},
	{157, "ScalarTensorTensorArith", true, gAll},
	{158, "ScalarTensorTensorBitvec", true, gAll},
	{159, "EngineNop", true, g2},
	{188, "RangeSelect", true, g34},
	{224, "SparsityCompress", true, g4},
	{225, "SparsityCompressTag", true, g4},
	{226, "Rand2", true, g4},
	{227, "QuantizeMX", true, g4},
	{229, "Op(229)", false, gAll},
	{230, "TensorScalarCacheCumulative", true, g34},
	{232, "Op(232)", false, gAll},
	{233, "DveReadIndices", true, g34},
	{234, "SelectReduce", true, gAll},
	{240, "ExtendedInst", true, g34},
	{241, "Resident(241)", false, 0},
	{242, "Resident(242)", false, 0},
}

// twins pairs the arith and bitvec variants of one op family; a pair shares one control row and
// so one datapath block (seed 004 §1 NOTE, FACTS §E.2).
var twins = [...][2]uint8{{65, 81}, {66, 82}, {67, 83}, {68, 84}, {78, 94}, {131, 132}, {157, 158}}

// Roster returns the default roster of generation g, ascending (46 / 52 / 59 ops, FACTS §E.1);
// an invalid generation is an error.
func Roster(g TableGen) ([]RosterOp, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	var out []RosterOp
	for _, r := range roster {
		if r.InRoster(g) {
			out = append(out, r)
		}
	}
	return out, nil
}

// OpcodeName is the DVE name of op: the roster name, "idle" for slot 0, or "Opcode(0x..)".
func OpcodeName(op uint8) string {
	if op == 0 {
		return "idle"
	}
	i := sort.Search(len(roster), func(i int) bool { return roster[i].Opcode >= op })
	if i < len(roster) && roster[i].Opcode == op {
		return roster[i].Name
	}
	return fmt.Sprintf("Opcode(%#02x)", op)
}

// Twin returns the arith/bitvec partner of op, if op belongs to such a pair.
func Twin(op uint8) (uint8, bool) {
	for _, p := range twins {
		switch op {
		case p[0]:
			return p[1], true
		case p[1]:
			return p[0], true
		}
	}
	return 0, false
}

// RosterDelta lists the opcodes added to and removed from the default roster from a to b; an
// invalid generation is an error.
func RosterDelta(a, b TableGen) (added, removed []uint8, err error) {
	if err := a.Check(); err != nil {
		return nil, nil, err
	}
	if err := b.Check(); err != nil {
		return nil, nil, err
	}
	for _, r := range roster {
		switch ia, ib := r.InRoster(a), r.InRoster(b); {
		case ib && !ia:
			added = append(added, r.Opcode)
		case ia && !ib:
			removed = append(removed, r.Opcode)
		}
	}
	return added, removed, nil
}

// ParseOpcode reads an opcode as a decimal or 0x number (0..255) or a DVE opcode name in any case
// (OpcodeName's: "MaxPoolSelect", "BatchNorm(96)", "Opcode(0x03)").
func ParseOpcode(s string) (uint8, error) {
	t := strings.TrimSpace(s)
	if v, err := strconv.ParseUint(t, 0, 8); err == nil {
		return uint8(v), nil
	}
	for op := 0; op < NumOpcodes; op++ {
		if strings.EqualFold(OpcodeName(uint8(op)), t) {
			return uint8(op), nil
		}
	}
	return 0, invalid(RuleOpcode, "op", strconv.Quote(s), "an opcode number 0..255 or a DVE opcode name", "not an opcode")
}

// ParseOpcodes reads opcode lists: each string one or more ParseOpcode forms separated by commas.
func ParseOpcodes(lists ...string) ([]uint8, error) {
	var out []uint8
	for _, l := range lists {
		for _, part := range strings.Split(l, ",") {
			op, err := ParseOpcode(part)
			if err != nil {
				return nil, err
			}
			out = append(out, op)
		}
	}
	return out, nil
}

// FormatOpcodes renders opcodes as "65 TensorTensorArithOp, 97 BatchNormStats2".
func FormatOpcodes(ops []uint8) string {
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = fmt.Sprintf("%d %s", op, OpcodeName(op))
	}
	return strings.Join(parts, ", ")
}
