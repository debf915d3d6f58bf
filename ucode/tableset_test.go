package ucode

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func fixtureDir(g TableGen) string { return filepath.Join("..", FixtureDir(g)) }

func TestLoadFolders(t *testing.T) {
	cases := []struct {
		g       TableGen
		set     string
		gen     TableGen
		because string
	}{
		{Gen2, "", Gen2, "datapath_table is 8192 B (gen2)"},
		{Gen2, "transformer", Gen2, "control_table is 2048 B (gen2)"},
		{Gen3, "", Gen3, "221 gen3 idle words 0x100000000 (bit 32) and 0 gen4 idle words"},
		{Gen4, "saturate", Gen4, "0 gen3 idle words 0x100000000 (bit 32) and 233 gen4 idle words 0x40000000000 (bit 42)"},
	}
	for _, c := range cases {
		s, err := Load([]string{fixtureDir(c.g)}, c.set, GenUnknown)
		if err != nil {
			t.Fatal(err)
		}
		if s.Gen != c.gen || !strings.Contains(s.GenReason, c.because) {
			t.Errorf("%s %q: %s because %q", c.g, c.set, s.Gen, s.GenReason)
		}
		want := c.set
		if want == "" {
			want = "default"
		}
		if s.Name != want || len(s.Files()) != len(c.g.Tables()) {
			t.Errorf("loaded %q with %d tables", s.Name, len(s.Files()))
		}
	}
}

func TestLoadSingleFiles(t *testing.T) {
	dir := fixtureDir(Gen4)
	s, err := Load([]string{filepath.Join(dir, "default_datapath_table.bin")}, "", GenUnknown)
	if err != nil || s.Gen != Gen4 || s.Opcodes != nil || s.Datapath == nil {
		t.Fatalf("%v %+v", err, s)
	}
	// An opcode table alone cannot tell gen3 from gen4.
	_, err = Load([]string{filepath.Join(dir, "default_opcode_table.bin")}, "", GenUnknown)
	if !errors.Is(err, ErrGeneration) {
		t.Errorf("gen3/gen4 opcode table alone: %v", err)
	}
	s, err = Load([]string{filepath.Join(dir, "default_opcode_table.bin")}, "", Gen4)
	if err != nil || s.Gen != Gen4 {
		t.Errorf("with --gen: %v", err)
	}
	// Explicit generation against the census: loads, with a warning in the reason.
	s, err = Load([]string{filepath.Join(dir, "default_datapath_table.bin")}, "", Gen3)
	if err != nil || !strings.Contains(s.GenReason, "warning") {
		t.Errorf("gen3 forced on gen4 data: %v %q", err, s.GenReason)
	}
}

func writeTemp(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadErrors(t *testing.T) {
	g2 := mustFixture(t, "gen2/default").Files()
	g4 := mustFixture(t, "gen4/default").Files()
	cases := []struct {
		name   string
		files  map[string][]byte
		gen    TableGen
		target error
		msg    string
	}{
		{"truncated datapath", map[string][]byte{"x_datapath_table.bin": g2[TableDatapath][:8000]}, GenUnknown, ErrTruncated, "offset 0x1f40"},
		{"truncated with gen", map[string][]byte{"x_datapath_table.bin": g4[TableDatapath][:16000]}, Gen4, ErrTruncated, "offset 0x3e80"},
		{"too long", map[string][]byte{"x_datapath_table.bin": append(append([]byte{}, g4[TableDatapath]...), 1, 2, 3)}, GenUnknown, ErrSize, "offset 0x4000"},
		{"between sizes", map[string][]byte{"x_datapath_table.bin": make([]byte, 9000)}, GenUnknown, ErrSize, "9000 B"},
		{"wrong gen size", map[string][]byte{"x_datapath_table.bin": g2[TableDatapath]}, Gen3, ErrTruncated, "16384 B"},
		{"opcode size", map[string][]byte{"x_opcode_table.bin": make([]byte, 1000)}, GenUnknown, ErrTruncated, "opcode_table"},
		{"disagree", map[string][]byte{"x_opcode_table.bin": g2[TableOpcode], "x_datapath_table.bin": g4[TableDatapath]}, GenUnknown, ErrGeneration, "disagree"},
		{"no idle words", map[string][]byte{"x_datapath_table.bin": make([]byte, 16384)}, GenUnknown, ErrGeneration, "cannot tell gen3 from gen4"},
		{"gen2 has no fast table", map[string][]byte{"x_control_fast_table.bin": g4[TableControlFast]}, Gen2, ErrGeneration, "gen2 has no control_fast_table"},
		{"bad name", map[string][]byte{"datapath.bin": g2[TableDatapath]}, GenUnknown, ErrInvalid, "cannot tell which table"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for n, d := range c.files {
				p := filepath.Join(dir, n)
				if err := os.WriteFile(p, d, 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			_, err := Load(paths, "", c.gen)
			if !errors.Is(err, c.target) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err %v, want %v containing %q", err, c.target, c.msg)
			}
			var te *TableError
			if !errors.As(err, &te) {
				t.Errorf("not a *TableError: %T", err)
			}
		})
	}
	if _, err := Load([]string{filepath.Join(t.TempDir(), "nope_datapath_table.bin")}, "", GenUnknown); err == nil {
		t.Error("missing file loaded")
	}
	if _, err := Load([]string{fixtureDir(Gen2)}, "nosuch", GenUnknown); !errors.Is(err, ErrMissing) {
		t.Errorf("missing set: %v", err)
	}
}

func TestLookupAndMissing(t *testing.T) {
	s := mustFixture(t, "gen3/default")
	if _, ok := s.Lookup(140); ok {
		t.Error("gen3 has TensorReduceAddBf16 (gen2 only)")
	}
	if got := s.MissingOpcodes([]uint8{65, 140, 159, 65, 140, 107}); !reflect.DeepEqual(got, []uint8{140, 159}) {
		t.Errorf("missing %v", got)
	}
	r, ok := s.Lookup(65)
	if !ok || r.FastRow != 8 || r.SlowRow != 48 || r.Fast == nil || r.Slow == nil || r.Depth() != 1 || r.Class() != ClassActive {
		t.Errorf("gen3 op65 %+v", r)
	}
	var none TableSet
	if got := none.MissingOpcodes([]uint8{1}); !reflect.DeepEqual(got, []uint8{1}) {
		t.Errorf("no opcode table: %v", got)
	}
}

func TestParseTableGen(t *testing.T) {
	for in, want := range map[string]TableGen{"gen2": Gen2, "3": Gen3, "MARIANA": Gen4, "mariana_plus": Gen4, "sunda": Gen2, "CAYMAN": Gen3} {
		if g, err := ParseTableGen(in); err != nil || g != want {
			t.Errorf("%q: %v %v", in, g, err)
		}
	}
	for _, in := range []string{"MAVERICK", "gen5", "x"} {
		if _, err := ParseTableGen(in); !errors.Is(err, ErrGeneration) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestTableOfFile(t *testing.T) {
	for in, want := range map[string][2]string{
		"a/b/default_control_fast_table.bin": {"default", "control_fast_table"},
		"transformer_bwd2_control_table.bin": {"transformer_bwd2", "control_table"},
		"x_opcode_table.bin":                 {"x", "opcode_table"},
	} {
		set, tb, ok := TableOfFile(in)
		if !ok || set != want[0] || tb.String() != want[1] {
			t.Errorf("%q: %q %s %v", in, set, tb, ok)
		}
	}
	if _, _, ok := TableOfFile("_datapath_table.bin"); ok {
		t.Error("empty set name accepted")
	}
}
