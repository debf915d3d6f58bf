package ucode

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// invalidGens are generations that do not exist: the zero value, the numbers around the three
// real ones, and the top of the range.
var invalidGens = []TableGen{GenUnknown, 1, 5, 9, 255}

// TestInvalidGenerationEverywhere: every entry point that reads something of a generation
// refuses one that does not exist (rule ucode.table_gen) instead of reading it as another.
func TestInvalidGenerationEverywhere(t *testing.T) {
	fix := mustFixture(t, "gen2/default")
	withGen := func(g TableGen) *TableSet {
		c := cloneSet(fix)
		c.Gen = g
		return c
	}
	entries := []struct {
		name string
		call func(g TableGen) error
	}{
		{"Check", func(g TableGen) error { return g.Check() }},
		{"LayoutOf", func(g TableGen) error { _, err := LayoutOf(g); return err }},
		{"Decode", func(g TableGen) error { _, err := LaneWord(0x10041c).Decode(g); return err }},
		{"Encode", func(g TableGen) error { _, err := LaneFields{OPA: 1}.Encode(g); return err }},
		{"RelocateFrom from", func(g TableGen) error { _, err := RelocateFrom(1, g, Gen3); return err }},
		{"RelocateFrom to", func(g TableGen) error { _, err := RelocateFrom(1, Gen2, g); return err }},
		{"FieldsDiffering", func(g TableGen) error { _, err := FieldsDiffering(1, 2, g); return err }},
		{"DecodeOpcodeEntry", func(g TableGen) error { _, err := DecodeOpcodeEntry(0x3008, g); return err }},
		{"MakeOpcodeEntry", func(g TableGen) error { _, err := MakeOpcodeEntry(g, 1, 0); return err }},
		{"RowFields", func(g TableGen) error { _, err := ControlRow{}.RowFields(TableControl, g); return err }},
		{"ParseOpcodeTable", func(g TableGen) error { _, err := ParseOpcodeTable(make([]byte, 1024), g); return err }},
		{"ParseControlTable", func(g TableGen) error {
			_, err := ParseControlTable(make([]byte, 4096), TableControlFast, g)
			return err
		}},
		{"ParseDatapathTable", func(g TableGen) error { _, err := ParseDatapathTable(make([]byte, 16384), g); return err }},
		// GenUnknown asks ParseTables and Load to infer the generation (TestLoadFolders).
		{"ParseTables", func(g TableGen) error {
			if g == GenUnknown {
				g = 1
			}
			_, err := ParseTables("x", map[Table]RawTable{TableDatapath: {Data: make([]byte, 8192)}}, g)
			return err
		}},
		{"Load", func(g TableGen) error {
			if g == GenUnknown {
				g = 1
			}
			_, err := Load([]string{fixtureDir(Gen2)}, "", g)
			return err
		}},
		{"Roster", func(g TableGen) error { _, err := Roster(g); return err }},
		{"RosterDelta", func(g TableGen) error { _, _, err := RosterDelta(Gen2, g); return err }},
		{"Files", func(g TableGen) error { _, err := withGen(g).Files(); return err }},
		{"JSON", func(g TableGen) error { _, err := withGen(g).JSON(); return err }},
		{"MarshalJSONSet", func(g TableGen) error { _, err := MarshalJSONSet(withGen(g)); return err }},
		{"Census", func(g TableGen) error { _, err := withGen(g).Census(); return err }},
		{"Info", func(g TableGen) error { _, err := withGen(g).Info(); return err }},
		{"Dump", func(g TableGen) error { _, err := withGen(g).Dump(DumpQuery{}); return err }},
		{"DiffSets", func(g TableGen) error { _, err := DiffSets(withGen(g), withGen(g)); return err }},
		{"CrossGenCheck", func(g TableGen) error { _, err := CrossGenCheck(fix, withGen(g), 65); return err }},
		{"Compare", func(g TableGen) error { _, err := Compare(withGen(g), withGen(g), nil); return err }},
		{"WriteReport", func(g TableGen) error { return WriteReport(io.Discard, withGen(g), nil) }},
		{"WriteSetFiles", func(g TableGen) error { _, err := WriteSetFiles(t.TempDir(), withGen(g)); return err }},
		{"Diff.WriteText", func(g TableGen) error { return Diff{Gen: g}.WriteText(io.Discard) }},
		{"Lookup", func(g TableGen) error {
			if r, ok := withGen(g).Lookup(65); ok || !strings.Contains(strings.Join(r.Notes, ";"), RuleTableGen) {
				return fmt.Errorf("resolved %v, notes %q", ok, r.Notes)
			}
			return invalid(RuleTableGen, "", "", "", "refused (Lookup says so in its notes)")
		}},
	}
	for _, e := range entries {
		for _, g := range invalidGens {
			t.Run(fmt.Sprintf("%s/%d", e.name, g), func(t *testing.T) {
				err := e.call(g)
				if !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != RuleTableGen {
					t.Errorf("%s: err %v (rule %q), want rule %s", g, err, fault.Rule(err), RuleTableGen)
				}
			})
		}
	}
}

// TestInvalidGenerationValues: the accessors without an error give the none value of their type
// for a generation that does not exist, never another generation's.
func TestInvalidGenerationValues(t *testing.T) {
	for _, g := range invalidGens {
		t.Run(fmt.Sprint(uint8(g)), func(t *testing.T) {
			if g.Valid() || g.IdleWord() != 0 || g.ControlRows() != 0 || g.OpcodeEntrySize() != 0 || g.Tables() != nil || g.Generation().Valid() {
				t.Errorf("%s: valid %v idle %#x rows %d entry %d tables %v generation %v", g, g.Valid(), uint64(g.IdleWord()), g.ControlRows(), g.OpcodeEntrySize(), g.Tables(), g.Generation())
			}
			for _, tb := range AllTables {
				if g.TableSize(tb) != 0 || g.Has(tb) {
					t.Errorf("%s has a %s", g, tb)
				}
			}
			w := LaneWord(0x100000)
			if w.Kind(g) != LaneInvalid || w.Terminal(g) || (DatapathBlock{w}).Analyze(g).Class != ClassInvalid {
				t.Errorf("%s: kind %v terminal %v class %v", g, w.Kind(g), w.Terminal(g), (DatapathBlock{w}).Analyze(g).Class)
			}
			if f := w.Format(g); !strings.Contains(f, "not a table generation") {
				t.Errorf("Format %q", f)
			}
			if (&OpcodeTable{Gen: g}).Bytes() != nil {
				t.Error("an opcode table of no generation has a file form")
			}
		})
	}
}

// TestStringNeverPanics: every String and MarshalText of the package's enums renders every value
// of its type, named or not.
func TestStringNeverPanics(t *testing.T) {
	enums := []struct {
		name string
		str  func(v uint8) (string, []byte)
	}{
		{"TableGen", func(v uint8) (string, []byte) { b, _ := TableGen(v).MarshalText(); return TableGen(v).String(), b }},
		{"Table", func(v uint8) (string, []byte) { b, _ := Table(v).MarshalText(); return Table(v).String(), b }},
		{"BlockClass", func(v uint8) (string, []byte) { b, _ := BlockClass(v).MarshalText(); return BlockClass(v).String(), b }},
		{"PassthruForm", func(v uint8) (string, []byte) {
			b, _ := PassthruForm(v).MarshalText()
			return PassthruForm(v).String(), b
		}},
		{"LaneKind", func(v uint8) (string, []byte) { b, _ := LaneKind(v).MarshalText(); return LaneKind(v).String(), b }},
	}
	for _, e := range enums {
		t.Run(e.name, func(t *testing.T) {
			seen := map[string]uint8{}
			for v := 0; v < 256; v++ {
				s, b := e.str(uint8(v))
				if string(b) != s {
					t.Errorf("%d: MarshalText %q, String %q", v, b, s)
				}
				if prev, dup := seen[s]; dup && s != "" {
					t.Errorf("%d and %d both render %q", prev, v, s)
				}
				seen[s] = uint8(v)
			}
		})
	}
}

// TestZeroValuesMeanNone: the zero value of every enum of the package is its none/invalid value.
func TestZeroValuesMeanNone(t *testing.T) {
	var (
		g TableGen
		b Table
		c BlockClass
		f PassthruForm
		k LaneKind
	)
	for _, z := range []struct {
		name string
		ok   bool
	}{
		{"TableGen", g == GenUnknown && !g.Valid()},
		{"Table", b == TableInvalid && !Gen2.Has(b) && !Gen4.Has(b)},
		{"BlockClass", c == ClassInvalid},
		{"PassthruForm", f == FormNone && f.String() == ""},
		{"LaneKind", k == LaneInvalid},
	} {
		t.Run(z.name, func(t *testing.T) {
			if !z.ok {
				t.Error("the zero value is not the none/invalid value")
			}
		})
	}
	// The zero TableSet is refused, not read as some generation.
	var s TableSet
	if _, err := s.Census(); fault.Rule(err) != RuleTableGen {
		t.Errorf("zero TableSet census: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteReport(&buf, &s, nil); fault.Rule(err) != RuleTableGen || buf.Len() != 0 {
		t.Errorf("zero TableSet report: %v, %d bytes", err, buf.Len())
	}
}

// TableGen.Generation inverts isa's feature table (isa.Features.DVETableGen): each table
// generation's generation has it, and no older generation does.
func TestTableGenGenerationFromFeatures(t *testing.T) {
	want := map[TableGen]isa.Generation{Gen2: isa.SUNDA, Gen3: isa.CAYMAN, Gen4: isa.MARIANA}
	for _, tg := range TableGens {
		t.Run(tg.String(), func(t *testing.T) {
			g := tg.Generation()
			f, err := g.Features()
			if err != nil || TableGen(f.DVETableGen) != tg || g != want[tg] {
				t.Fatalf("Generation() = %v (features %+v, %v), want %v", g, f.DVETableGen, err, want[tg])
			}
			for _, older := range isa.Generations {
				if older < g && TableGenFor(older) == tg {
					t.Errorf("%v, older than %v, has %v too", older, g, tg)
				}
			}
		})
	}
	if TableGenFor(isa.MAVERICK) != GenUnknown || TableGenFor(isa.MARIANA_PLUS) != Gen4 {
		t.Errorf("MAVERICK %v, MARIANA_PLUS %v", TableGenFor(isa.MAVERICK), TableGenFor(isa.MARIANA_PLUS))
	}
}
