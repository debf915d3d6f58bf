package ucode

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

func fixtureDir(g TableGen) string { return filepath.Join("..", FixtureDir(g)) }

func TestLoadFolders(t *testing.T) {
	cases := []struct {
		g       TableGen
		set     string
		because string
	}{
		{Gen2, "", "datapath_table is 8192 B (gen2)"},
		{Gen2, "transformer", "control_table is 2048 B (gen2)"},
		{Gen3, "", "221 gen3 idle words 0x100000000 (bit 32) and 0 gen4 idle words"},
		{Gen4, "saturate", "0 gen3 idle words 0x100000000 (bit 32) and 233 gen4 idle words 0x40000000000 (bit 42)"},
	}
	for _, c := range cases {
		t.Run(c.g.String()+"/"+c.set, func(t *testing.T) {
			s, err := Load([]string{fixtureDir(c.g)}, c.set, GenUnknown)
			if err != nil {
				t.Fatal(err)
			}
			if s.Gen != c.g || !strings.Contains(s.GenReason, c.because) {
				t.Errorf("%s because %q", s.Gen, s.GenReason)
			}
			want := c.set
			if want == "" {
				want = "default"
			}
			files, err := s.Files()
			if err != nil || s.Name != want || len(files) != len(c.g.Tables()) {
				t.Errorf("loaded %q with %d tables (%v)", s.Name, len(files), err)
			}
		})
	}
}

func TestLoadSingleFiles(t *testing.T) {
	dir := fixtureDir(Gen4)
	cases := []struct {
		name, file string
		gen        TableGen
		want       TableGen // GenUnknown: an error of rule ucode.table_gen
		warning    bool
	}{
		{"datapath alone infers gen4", "default_datapath_table.bin", GenUnknown, Gen4, false},
		// An opcode table alone cannot tell gen3 from gen4.
		{"opcode table alone", "default_opcode_table.bin", GenUnknown, GenUnknown, false},
		{"opcode table with gen", "default_opcode_table.bin", Gen4, Gen4, false},
		// An explicit generation against the census: loads, with a warning in the reason.
		{"gen3 forced on gen4 data", "default_datapath_table.bin", Gen3, Gen3, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Load([]string{filepath.Join(dir, c.file)}, "", c.gen)
			if c.want == GenUnknown {
				if fault.Rule(err) != RuleTableGen || !strings.Contains(err.Error(), "pass the generation") {
					t.Errorf("err %v", err)
				}
				return
			}
			if err != nil || s.Gen != c.want || strings.Contains(s.GenReason, "warning") != c.warning || (s.GenWarning != "") != c.warning {
				t.Errorf("%v: %s %q", err, s.Gen, s.GenReason)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	g2, err := mustFixture(t, "gen2/default").Files()
	if err != nil {
		t.Fatal(err)
	}
	g4, err := mustFixture(t, "gen4/default").Files()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		files map[string][]byte
		gen   TableGen
		kind  error
		rule  string
		msg   string
	}{
		{"truncated datapath", map[string][]byte{"x_datapath_table.bin": g2[TableDatapath][:8000]}, GenUnknown, fault.ErrTruncated, RuleTableSize, "offset 0x1f40"},
		{"truncated with gen", map[string][]byte{"x_datapath_table.bin": g4[TableDatapath][:16000]}, Gen4, fault.ErrTruncated, RuleTableSize, "offset 0x3e80"},
		{"too long", map[string][]byte{"x_datapath_table.bin": append(append([]byte{}, g4[TableDatapath]...), 1, 2, 3)}, GenUnknown, fault.ErrInvalid, RuleTableSize, "offset 0x4000"},
		{"between sizes", map[string][]byte{"x_datapath_table.bin": make([]byte, 9000)}, GenUnknown, fault.ErrInvalid, RuleTableSize, "9000 B"},
		{"wrong gen size", map[string][]byte{"x_datapath_table.bin": g2[TableDatapath]}, Gen3, fault.ErrTruncated, RuleTableSize, "16384 B"},
		{"opcode size", map[string][]byte{"x_opcode_table.bin": make([]byte, 1000)}, GenUnknown, fault.ErrTruncated, RuleTableSize, "opcode_table"},
		{"disagree", map[string][]byte{"x_opcode_table.bin": g2[TableOpcode], "x_datapath_table.bin": g4[TableDatapath]}, GenUnknown, fault.ErrInvalid, RuleTableGen, "disagree"},
		{"no idle words", map[string][]byte{"x_datapath_table.bin": make([]byte, 16384)}, GenUnknown, fault.ErrInvalid, RuleTableGen, "cannot tell gen3 from gen4"},
		{"gen2 has no fast table", map[string][]byte{"x_control_fast_table.bin": g4[TableControlFast]}, Gen2, fault.ErrInvalid, RuleTableKind, "gen2 has no control_fast_table"},
		{"bad name", map[string][]byte{"datapath.bin": g2[TableDatapath]}, GenUnknown, fault.ErrInvalid, RuleTableKind, "cannot tell which table"},
		{"two sets", map[string][]byte{"a_opcode_table.bin": g2[TableOpcode], "b_datapath_table.bin": g2[TableDatapath]}, GenUnknown, fault.ErrInvalid, RuleOneSet, "give the files of one set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for _, n := range slices.Sorted(maps.Keys(c.files)) {
				p := filepath.Join(dir, n)
				if err := os.WriteFile(p, c.files[n], 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			_, err := Load(paths, "", c.gen)
			if fault.Category(err) != c.kind || fault.Rule(err) != c.rule || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), dir) {
				t.Errorf("err %v, want %v rule %s containing %q and the folder", err, c.kind, c.rule, c.msg)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		if _, err := Load([]string{filepath.Join(t.TempDir(), "nope_datapath_table.bin")}, "", GenUnknown); err == nil {
			t.Error("missing file loaded")
		}
	})
	t.Run("missing set", func(t *testing.T) {
		if _, err := Load([]string{fixtureDir(Gen2)}, "nosuch", GenUnknown); fault.Rule(err) != RuleTablePresent || !strings.Contains(err.Error(), "default, transformer") {
			t.Errorf("missing set: %v", err)
		}
	})
}

func TestLookupAndMissing(t *testing.T) {
	s := mustFixture(t, "gen3/default")
	t.Run("gen2-only op", func(t *testing.T) {
		if _, ok := s.Lookup(140); ok {
			t.Error("gen3 has TensorReduceAddBf16 (gen2 only)")
		}
	})
	t.Run("missing", func(t *testing.T) {
		if got := s.MissingOpcodes([]uint8{65, 140, 159, 65, 140, 107}); !reflect.DeepEqual(got, []uint8{140, 159}) {
			t.Errorf("missing %v", got)
		}
		var none TableSet
		if got := none.MissingOpcodes([]uint8{1}); !reflect.DeepEqual(got, []uint8{1}) {
			t.Errorf("no opcode table: %v", got)
		}
	})
	t.Run("op65 chain", func(t *testing.T) {
		// FACTS §E.2: gen3 op65 = 0x3008, fast row 8, slow row 48; seed 004 §5: k = 1.
		r, ok := s.Lookup(65)
		if !ok || r.FastRow != 8 || r.SlowRow != 48 || r.Fast == nil || r.Slow == nil || r.Depth() != 1 || r.Class() != ClassActive {
			t.Errorf("gen3 op65 %+v", r)
		}
	})
	t.Run("negative row", func(t *testing.T) {
		c := cloneSet(s)
		c.Opcodes.Entries[65].FastRow = -3
		if r, ok := c.Lookup(65); !ok || r.Block != nil || len(r.Notes) == 0 {
			t.Errorf("negative fast row: %+v", r)
		}
	})
}

func TestParseTableGen(t *testing.T) {
	for in, want := range map[string]TableGen{"gen2": Gen2, "3": Gen3, "MARIANA": Gen4, "mariana_plus": Gen4, "sunda": Gen2, "CAYMAN": Gen3} {
		t.Run(in, func(t *testing.T) {
			if g, err := ParseTableGen(in); err != nil || g != want {
				t.Errorf("%v %v", g, err)
			}
		})
	}
	for _, in := range []string{"MAVERICK", "gen5", "x", "0", ""} {
		t.Run("bad "+in, func(t *testing.T) {
			if _, err := ParseTableGen(in); fault.Rule(err) != RuleTableGen || fault.Path(err) != "gen" {
				t.Errorf("%v", err)
			}
		})
	}
}

func TestTableOfFile(t *testing.T) {
	for in, want := range map[string][2]string{
		"a/b/default_control_fast_table.bin": {"default", "control_fast_table"},
		"transformer_bwd2_control_table.bin": {"transformer_bwd2", "control_table"},
		"x_opcode_table.bin":                 {"x", "opcode_table"},
	} {
		t.Run(in, func(t *testing.T) {
			set, tb, ok := TableOfFile(in)
			if !ok || set != want[0] || tb.String() != want[1] {
				t.Errorf("%q %s %v", set, tb, ok)
			}
		})
	}
	t.Run("empty set name", func(t *testing.T) {
		if _, _, ok := TableOfFile("_datapath_table.bin"); ok {
			t.Error("empty set name accepted")
		}
	})
}
