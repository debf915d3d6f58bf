package ucode

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/isa"
)

// TableGen is a DVE microcode table generation (FACTS §E.0): gen2 = SUNDA, gen3 = CAYMAN,
// gen4 = MARIANA and MARIANA_PLUS. The zero value, GenUnknown, is none given (no real table
// generation is 0): Load and ParseTables infer the generation from the files then; every other
// function refuses it (TableGen.Check), and the size accessors give 0 for it.
type TableGen uint8

const (
	GenUnknown TableGen = 0
	Gen2       TableGen = 2
	Gen3       TableGen = 3
	Gen4       TableGen = 4
)

// TableGens lists the three modelled table generations, oldest first.
var TableGens = [...]TableGen{Gen2, Gen3, Gen4}

func (g TableGen) String() string {
	if g.Valid() {
		return "gen" + strconv.Itoa(int(g))
	}
	return fmt.Sprintf("TableGen(%d)", uint8(g))
}

// Valid reports whether g is gen2, gen3 or gen4.
func (g TableGen) Valid() bool { return g >= Gen2 && g <= Gen4 }

// Generation is the NeuronCore generation whose compiler first ships this table generation: the
// oldest whose row of isa's feature table has it (isa.Features.DVETableGen; gen4 is MARIANA's,
// shared by MARIANA_PLUS), so the mapping is written once, there. GenInvalid for an invalid g.
func (g TableGen) Generation() isa.Generation {
	if !g.Valid() {
		return isa.GenInvalid
	}
	for _, n := range isa.Generations { // oldest first
		if TableGenFor(n) == g {
			return n
		}
	}
	return isa.GenInvalid
}

// TableGenFor is the DVE table generation of a NeuronCore generation (FACTS §E.0); MAVERICK has
// none and yields GenUnknown.
func TableGenFor(g isa.Generation) TableGen { return TableGen(g.DVETableGen()) }

// ParseTableGen accepts "gen2".."gen4", "2".."4", or any name isa.ParseGeneration knows.
func ParseTableGen(s string) (TableGen, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.Atoi(t); err == nil && TableGen(n).Valid() {
		return TableGen(n), nil
	}
	const legal = "gen2, gen3, gen4 or SUNDA, CAYMAN, MARIANA, MARIANA_PLUS"
	g, err := isa.ParseGeneration(t)
	if err != nil {
		return GenUnknown, invalid(RuleTableGen, "gen", strconv.Quote(s), legal, "not a table generation")
	}
	tg := TableGenFor(g)
	if !tg.Valid() {
		return GenUnknown, invalid(RuleTableGen, "gen", g.String(), legal, "%s has no DVE table generation (FACTS §E.0)", g)
	}
	return tg, nil
}

// IdleWord is the lane word that is the VALID bit alone: a lane present but doing nothing
// (seed 004 §2): gen2 0x100000 (bit 20), gen3 0x100000000 (bit 32), gen4 0x40000000000 (bit 42);
// 0, which is never an idle word, for an invalid generation.
func (g TableGen) IdleWord() LaneWord {
	l := layout(g)
	if l == nil {
		return 0
	}
	return LaneWord(1) << l.VALID.Lo
}

// ControlRows is the number of (fast) control rows, which equals the number of datapath
// blocks (seed 004 §1): 128 in gen2, 256 in gen3 and gen4, 0 for an invalid generation.
func (g TableGen) ControlRows() int {
	switch {
	case g == Gen2:
		return 128
	case g.Valid():
		return 256
	}
	return 0
}

// OpcodeEntrySize is the opcode_table stride: 8 (u64) in gen2, 4 (u32) in gen3/gen4 (FACTS §E.1),
// 0 for an invalid generation.
func (g TableGen) OpcodeEntrySize() int {
	switch {
	case g == Gen2:
		return 8
	case g.Valid():
		return 4
	}
	return 0
}

// TableSize is the exact file size of table t in generation g (FACTS §E.1), or 0 when the
// table does not exist in g (control_table is gen2 only; the fast/slow pair gen3/gen4 only).
func (g TableGen) TableSize(t Table) int {
	if !g.Valid() {
		return 0
	}
	switch t {
	case TableOpcode:
		return NumOpcodes * g.OpcodeEntrySize()
	case TableControl:
		if g == Gen2 {
			return g.ControlRows() * ControlRowSize
		}
	case TableControlFast, TableControlSlow:
		if g != Gen2 {
			return g.ControlRows() * ControlRowSize
		}
	case TableDatapath:
		return g.ControlRows() * BlockSize
	}
	return 0
}

// Tables lists the tables a complete set of generation g has (FACTS §E.1 dve_table_keys); none
// for an invalid generation.
func (g TableGen) Tables() []Table {
	switch {
	case g == Gen2:
		return []Table{TableOpcode, TableControl, TableDatapath}
	case g.Valid():
		return []Table{TableOpcode, TableControlFast, TableControlSlow, TableDatapath}
	}
	return nil
}

// Has reports whether generation g has table t.
func (g TableGen) Has(t Table) bool { return g.TableSize(t) != 0 }

// Table names one of the shipped table files.
type Table uint8

const (
	TableInvalid     Table = iota
	TableOpcode            // <set>_opcode_table.bin
	TableControl           // <set>_control_table.bin (gen2)
	TableControlFast       // <set>_control_fast_table.bin (gen3/gen4)
	TableControlSlow       // <set>_control_slow_table.bin (gen3/gen4)
	TableDatapath          // <set>_datapath_table.bin
)

// AllTables lists every table kind in file-listing order.
var AllTables = [...]Table{TableOpcode, TableControl, TableControlFast, TableControlSlow, TableDatapath}

var tableNames = [...]string{"invalid_table", "opcode_table", "control_table", "control_fast_table", "control_slow_table", "datapath_table"}

func (t Table) String() string {
	if int(t) < len(tableNames) {
		return tableNames[t]
	}
	return fmt.Sprintf("Table(%d)", uint8(t))
}

// FileName is the shipped file name of table t in set: "<set>_<table>.bin".
func (t Table) FileName(set string) string { return set + "_" + t.String() + ".bin" }

// TableOfFile splits a shipped file name into its set and table; ok is false when the name
// does not end in one of the five table suffixes.
func TableOfFile(name string) (set string, t Table, ok bool) {
	base := name
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	// Longest suffix first: "_control_fast_table.bin" also ends in "_table.bin".
	for _, k := range []Table{TableControlFast, TableControlSlow, TableControl, TableOpcode, TableDatapath} {
		suf := "_" + k.String() + ".bin"
		if strings.HasSuffix(base, suf) && len(base) > len(suf) {
			return strings.TrimSuffix(base, suf), k, true
		}
	}
	return "", TableInvalid, false
}
