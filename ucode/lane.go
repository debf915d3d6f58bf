package ucode

import (
	"fmt"
	"strings"
)

// LaneWord is one lane of a DatapathBlock: a u64 read little-endian from the datapath table
// (seed 004 §4). Its field positions depend on the table generation; see LaneLayout.
type LaneWord uint64

// BitField is a field of Width bits starting at bit Lo. Width 0 means the field does not exist
// in this generation.
type BitField struct{ Lo, Width uint }

// Mask is the field's mask in place.
func (f BitField) Mask() uint64 {
	if f.Width == 0 {
		return 0
	}
	if f.Width >= 64 {
		return ^uint64(0) << f.Lo
	}
	return ((uint64(1) << f.Width) - 1) << f.Lo
}

func (f BitField) get(w uint64) uint64 { return (w & f.Mask()) >> f.Lo }

// Hi is one past the field's highest bit ("[Lo:Hi]" in the seed's notation).
func (f BitField) Hi() uint { return f.Lo + f.Width }

// LaneLayout is the bit map of a lane word in one generation (seed 004 §4, §5). The fields
// partition all 64 bits, so every word decodes and re-encodes to itself.
//
// gen2 (seed 004 §4, the C decode_gen2):
//
//	 63          27 26  24 23 21  20  19      11 10  8 7      0
//	+--------------+------+------+---+----------+-----+--------+
//	|     HIGH     |STAGE | MODE |VAL|   MUX    | OPB |  OPA   |
//	+--------------+------+------+---+----------+-----+--------+
//
// gen3: every field at or above VALID moves up +12 (proved byte-exact by the BatchNormStats2
// XOR, seed 004 §5); the 12 bits inserted at [20:32] are EXT3, shown raw:
//
//	 63      39 38  36 35 33  32  31   20 19  11 10 8 7   0
//	+----------+------+------+---+-------+------+----+-----+
//	|   HIGH   |STAGE | MODE |VAL| EXT3  | MUX  |OPB | OPA |
//	+----------+------+------+---+-------+------+----+-----+
//
// gen4: VALID at bit 42 (+22 from gen2); the 10 bits inserted at [32:42] are EXT4; MODE
// [43:46], STAGE [46:49]; HIGH = bits [49:64] shown raw:
//
//	 63   49 48  46 45 43  42  41  32 31  20 19  11 10 8 7   0
//	+-------+------+------+---+------+------+------+----+-----+
//	| HIGH  |STAGE | MODE |VAL| EXT4 | EXT3 | MUX  |OPB | OPA |
//	+-------+------+------+---+------+------+------+----+-----+
//
// INFERRED (gen4): the seed puts the HIGH section at ">= bit 48" and also says MODE/STAGE move
// +22 with VALID. Both cannot hold for bit 48: a 3-bit STAGE at 46 ends at 48. We keep STAGE
// three bits wide (STAGE takes values up to 7, and the relocation is stated as uniform) and start
// HIGH at bit 49; bit 48 is STAGE bit 2. The two seed-quoted gen4 words with HIGH bits (op65
// lane0, op66 lane1) set only bits 57 and 59, so they decode the same either way. Change
// gen4Layout to move the boundary.
type LaneLayout struct {
	Gen                                           TableGen
	OPA, OPB, MUX, EXT3, EXT4, VALID, MODE, STAGE BitField
	HIGH                                          BitField // shown raw, in place
}

var (
	gen2Layout = LaneLayout{Gen: Gen2,
		OPA: BitField{0, 8}, OPB: BitField{8, 3}, MUX: BitField{11, 9},
		VALID: BitField{20, 1}, MODE: BitField{21, 3}, STAGE: BitField{24, 3}, HIGH: BitField{27, 37}}
	gen3Layout = LaneLayout{Gen: Gen3,
		OPA: BitField{0, 8}, OPB: BitField{8, 3}, MUX: BitField{11, 9}, EXT3: BitField{20, 12},
		VALID: BitField{32, 1}, MODE: BitField{33, 3}, STAGE: BitField{36, 3}, HIGH: BitField{39, 25}}
	gen4Layout = LaneLayout{Gen: Gen4,
		OPA: BitField{0, 8}, OPB: BitField{8, 3}, MUX: BitField{11, 9}, EXT3: BitField{20, 12},
		EXT4: BitField{32, 10}, VALID: BitField{42, 1}, MODE: BitField{43, 3}, STAGE: BitField{46, 3},
		HIGH: BitField{49, 15}}
)

// LayoutOf returns the lane-word layout of g, or an error (rule ucode.table_gen) for an invalid
// generation. The layouts are values: a caller may copy and change one without touching the
// package.
func LayoutOf(g TableGen) (LaneLayout, error) {
	l := layout(g)
	if l == nil {
		return LaneLayout{}, g.Check()
	}
	return *l, nil
}

// layout is g's layout, or nil for an invalid generation.
func layout(g TableGen) *LaneLayout {
	switch g {
	case Gen2:
		return &gen2Layout
	case Gen3:
		return &gen3Layout
	case Gen4:
		return &gen4Layout
	}
	return nil
}

// Fields lists the layout's fields low to high with their names, skipping absent ones.
func (l LaneLayout) Fields() []NamedBitField {
	all := []NamedBitField{{"OPA", l.OPA}, {"OPB", l.OPB}, {"MUX", l.MUX}, {"EXT3", l.EXT3},
		{"EXT4", l.EXT4}, {"VALID", l.VALID}, {"MODE", l.MODE}, {"STAGE", l.STAGE}, {"HIGH", l.HIGH}}
	out := all[:0]
	for _, f := range all {
		if f.Width > 0 {
			out = append(out, f)
		}
	}
	return out
}

// NamedBitField is a BitField with its field name.
type NamedBitField struct {
	Name string
	BitField
}

// LaneFields is a lane word decoded per its generation's LaneLayout (seed 004 §4). HIGH holds
// the raw bits in place (not shifted), so a reader can compare it with the word directly.
type LaneFields struct {
	OPA   uint8  // operand/source select or immediate (not an ALU opcode, seed 004 §7)
	OPB   uint8  // operand-B / accumulator command
	MUX   uint16 // route/crossbar; bit 4 never set in gen2 (seed 004 §7)
	EXT3  uint16 // gen3/gen4: the 12 bits inserted below VALID (raw; role unknown)
	EXT4  uint16 // gen4: the 10 more bits inserted below VALID (raw; role unknown)
	VALID bool   // "intermediate step present"; the idle word is this bit alone
	MODE  uint8  // accumulator/convert role
	STAGE uint8  // output lane / crossbar destination
	HIGH  uint64 // raw bits above STAGE, in place
}

// Decode splits w into its fields per generation g. Every word of a valid generation decodes; an
// invalid generation is an error (rule ucode.table_gen).
func (w LaneWord) Decode(g TableGen) (LaneFields, error) {
	l := layout(g)
	if l == nil {
		return LaneFields{}, g.Check()
	}
	return l.decode(w), nil
}

func (l *LaneLayout) decode(w LaneWord) LaneFields {
	u := uint64(w)
	return LaneFields{
		OPA: uint8(l.OPA.get(u)), OPB: uint8(l.OPB.get(u)), MUX: uint16(l.MUX.get(u)),
		EXT3: uint16(l.EXT3.get(u)), EXT4: uint16(l.EXT4.get(u)), VALID: l.VALID.get(u) != 0,
		MODE: uint8(l.MODE.get(u)), STAGE: uint8(l.STAGE.get(u)), HIGH: u & l.HIGH.Mask(),
	}
}

// Encode packs f into a lane word per generation g, the mirror of Decode. A field value wider
// than its field, or a field the generation does not have, is an error (rule ucode.lane_field,
// its path the field's name), as is an invalid generation.
func (f LaneFields) Encode(g TableGen) (LaneWord, error) {
	l := layout(g)
	if l == nil {
		return 0, g.Check()
	}
	var w uint64
	put := func(name string, bf BitField, v uint64) error {
		if v == 0 {
			return nil
		}
		if bf.Width == 0 {
			return invalid(RuleLaneField, name, fmt.Sprintf("%#x", v), "0", "%s has no %s field", g, name)
		}
		if max := bf.Mask() >> bf.Lo; v > max {
			return invalid(RuleLaneField, name, fmt.Sprintf("%#x", v), fmt.Sprintf("0..%#x", max), "does not fit %d bits", bf.Width)
		}
		w |= v << bf.Lo
		return nil
	}
	var valid uint64
	if f.VALID {
		valid = 1
	}
	for _, p := range [...]struct {
		name string
		bf   BitField
		v    uint64
	}{{"OPA", l.OPA, uint64(f.OPA)}, {"OPB", l.OPB, uint64(f.OPB)}, {"MUX", l.MUX, uint64(f.MUX)},
		{"EXT3", l.EXT3, uint64(f.EXT3)}, {"EXT4", l.EXT4, uint64(f.EXT4)}, {"VALID", l.VALID, valid},
		{"MODE", l.MODE, uint64(f.MODE)}, {"STAGE", l.STAGE, uint64(f.STAGE)}} {
		if err := put(p.name, p.bf, p.v); err != nil {
			return 0, err
		}
	}
	if f.HIGH&^l.HIGH.Mask() != 0 {
		return 0, invalid(RuleLaneField, "HIGH", fmt.Sprintf("%#x", f.HIGH), fmt.Sprintf("bits %d..63 in place", l.HIGH.Lo), "has bits below bit %d", l.HIGH.Lo)
	}
	return LaneWord(w | f.HIGH), nil
}

// LaneKind says what a lane word is before any field is read (seed 004 §2-§3).
type LaneKind uint8

const (
	LaneInvalid LaneKind = iota
	LaneZero             // all zero: datapath unwired in this lane
	LaneIdle             // the VALID bit alone: present, doing nothing
	LaneActive           // anything else: the lane carries configuration
)

func (k LaneKind) String() string {
	switch k {
	case LaneZero:
		return "zero"
	case LaneIdle:
		return "idle"
	case LaneActive:
		return "active"
	}
	return fmt.Sprintf("LaneKind(%d)", uint8(k))
}

// Kind classifies w against g's idle word; LaneInvalid for an invalid generation.
func (w LaneWord) Kind(g TableGen) LaneKind {
	switch {
	case !g.Valid():
		return LaneInvalid
	case w == 0:
		return LaneZero
	case w == g.IdleWord():
		return LaneIdle
	}
	return LaneActive
}

// Terminal reports whether w is an active lane with VALID clear: a terminal/intermediate lane
// that carries a STAGE route instead of the step-present marker (seed 004 §8 QUIRK).
// It is false for an invalid generation, which has no lanes.
func (w LaneWord) Terminal(g TableGen) bool {
	return w.Kind(g) == LaneActive && uint64(w)&layout(g).VALID.Mask() == 0
}

// Format renders w for g: "zero", "idle", or its fields, e.g.
// "OPA=0x1c OPB=4 MUX=0x028 VALID MODE=0 STAGE=2"; for an invalid generation it says so.
func (w LaneWord) Format(g TableGen) string {
	l := layout(g)
	switch {
	case l == nil:
		return fmt.Sprintf("%#x (no lane layout: %s is not a table generation)", uint64(w), g)
	case w == 0:
		return "zero"
	case w == g.IdleWord():
		return "idle"
	}
	return l.format(l.decode(w))
}

// Format renders the fields generation g has; VALID prints as "VALID" or "valid=0". For an
// invalid generation it says so.
func (f LaneFields) Format(g TableGen) string {
	l := layout(g)
	if l == nil {
		return fmt.Sprintf("%+v (no lane layout: %s is not a table generation)", f, g)
	}
	return l.format(f)
}

func (l *LaneLayout) format(f LaneFields) string {
	var b strings.Builder
	fmt.Fprintf(&b, "OPA=%#02x OPB=%d MUX=%#03x", f.OPA, f.OPB, f.MUX)
	if l.EXT3.Width > 0 {
		fmt.Fprintf(&b, " EXT3=%#03x", f.EXT3)
	}
	if l.EXT4.Width > 0 {
		fmt.Fprintf(&b, " EXT4=%#03x", f.EXT4)
	}
	if f.VALID {
		b.WriteString(" VALID")
	} else {
		b.WriteString(" valid=0")
	}
	fmt.Fprintf(&b, " MODE=%d STAGE=%d", f.MODE, f.STAGE)
	if f.HIGH != 0 {
		fmt.Fprintf(&b, " HIGH=%#016x", f.HIGH)
	}
	return b.String()
}

// Line renders w as dtable prints a lane: the word, its fields, and a terminal-lane mark
// (seed 004 §8 QUIRK).
func (w LaneWord) Line(g TableGen) string {
	line := fmt.Sprintf("%#016x %s", uint64(w), w.Format(g))
	if w.Terminal(g) {
		line += "  <- terminal lane (VALID clear)"
	}
	return line
}

// Relocate moves a gen2 lane word into generation g's layout the documented way (seed 004 §5):
// OPA/OPB/MUX kept in the low bits, VALID/MODE/STAGE moved up with VALID, EXT3/EXT4/HIGH zero.
// The fixture uses it for lanes whose later-generation words are not quoted.
func Relocate(w LaneWord, g TableGen) (LaneWord, error) { return RelocateFrom(w, Gen2, g) }

// RelocateFrom moves a lane word from generation from to generation to: every field keeps its
// value at its new position; HIGH is dropped (its bits have no known counterpart). A field to
// lacks (EXT3 or EXT4 going back to an earlier generation) must be zero; it is an error
// (rule ucode.lane_field) otherwise, as is an invalid generation.
func RelocateFrom(w LaneWord, from, to TableGen) (LaneWord, error) {
	f, err := w.Decode(from)
	if err != nil {
		return 0, err
	}
	f.HIGH = 0
	return f.Encode(to)
}
