package ucode

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// TestErrorsAcrossLayers: every kind of ucode error matches its fault category with errors.Is,
// is a *Error with errors.As, and exposes its rule and path through fault.Rule / fault.Path,
// as returned and after a caller wraps it (fmt.Errorf %w, fault.Wrap), the way a CLI or another
// package holds it.
func TestErrorsAcrossLayers(t *testing.T) {
	g2 := mustFixture(t, "gen2/default")
	files, err := g2.Files()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	short := filepath.Join(dir, "x_datapath_table.bin")
	if err := os.WriteFile(short, files[TableDatapath][:5000], 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		err      func() error
		kind     error
		rule     string
		path     string // fault.Path, exactly
		contains string // the message
	}{
		{"truncated file", func() error { _, err := Load([]string{short}, "", GenUnknown); return err }, fault.ErrTruncated, RuleTableSize,
			short + ": datapath_table: offset 0x1388", "file ends after 5000 B"},
		{"long table", func() error { _, err := ParseDatapathTable(make([]byte, 8200), Gen2); return err }, fault.ErrInvalid, RuleTableSize,
			"datapath_table: offset 0x2000", "8 extra bytes from here"},
		{"unknown gen", func() error { _, err := ParseTableGen("gen7"); return err }, fault.ErrInvalid, RuleTableGen, "gen", `gen = "gen7"`},
		{"no such table in gen", func() error { _, err := ParseControlTable(make([]byte, 4096), TableControlFast, Gen2); return err }, fault.ErrInvalid, RuleTableKind,
			"control_fast_table", "gen2 has no control_fast_table"},
		{"lane field", func() error {
			_, err := DecodeJSON([]byte(`{"format":"tpbsim.dtable/1","gen":"gen2","set":"d","tables":["datapath_table"],"datapath_table":[{"block":12,"lanes":[{"lane":3,"fields":{"mux":512}}]}]}`))
			return err
		}, fault.ErrInvalid, RuleLaneField, "datapath_table: block[12]: lane[3]: MUX", "MUX = 0x200, legal: 0..0x1ff: does not fit 9 bits"},
		{"json index", func() error {
			_, err := DecodeJSON([]byte(`{"format":"tpbsim.dtable/1","gen":"gen2","set":"d","tables":["datapath_table"],"datapath_table":[{"block":300,"lanes":[]}]}`))
			return err
		}, fault.ErrInvalid, RuleJSONIndex, "datapath_table: block[300]", "out of range"},
		{"opcode entry", func() error { _, err := MakeOpcodeEntry(Gen2, 128, 0); return err }, fault.ErrInvalid, RuleOpcodeEntry, "fast_row", "fast_row = 128, legal: 0..127: does not fit 7 bits"},
		{"census without datapath", func() error {
			s := cloneSet(g2)
			s.Datapath = nil
			_, err := s.Census()
			return err
		}, fault.ErrInvalid, RuleTablePresent, "datapath_table", "census needs a datapath_table"},
		{"block index", func() error { _, err := g2.Dump(DumpQuery{Blocks: []int{999}}); return err }, fault.ErrInvalid, RuleBlockIndex, "block[999]", "legal: 0..127"},
		{"cross-gen resolve", func() error { _, err := CrossGenCheck(g2, mustFixture(t, "gen3/default"), 140); return err }, fault.ErrInvalid, RuleResolves, "op[140]", "gen3 default: not enabled"},
		{"bad opcode", func() error { _, err := ParseOpcodes("65,NoSuchOp"); return err }, fault.ErrInvalid, RuleOpcode, "op", `"NoSuchOp"`},
		{"set name", func() error { return ValidSetName("../x") }, fault.ErrInvalid, RuleSetName, "set", "path separator"},
		{"fixture name", func() error { _, err := BuildFixture("gen9/x"); return err }, fault.ErrInvalid, RuleFixture, "name", "no such synthetic set"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := c.err()
			if base == nil {
				t.Fatal("no error")
			}
			for _, layer := range []struct {
				name string
				err  error
			}{{"as returned", base}, {"fmt.Errorf", fmt.Errorf("caller: %w", base)}, {"fault.Wrap", fault.Wrap("cmd", base)}} {
				err := layer.err
				var e *Error
				if !errors.As(err, &e) || !errors.Is(err, c.kind) || fault.Category(err) != c.kind {
					t.Errorf("%s: %v: As %v, category %v, want %v", layer.name, err, errors.As(err, &e), fault.Category(err), c.kind)
					continue
				}
				if fault.Rule(err) != c.rule || e.Violation().Rule != c.rule {
					t.Errorf("%s: rule %q, want %q", layer.name, fault.Rule(err), c.rule)
				}
				wantPath := c.path
				if layer.name == "fault.Wrap" {
					wantPath = "cmd: " + c.path
				}
				if fault.Path(err) != wantPath {
					t.Errorf("%s: path %q, want %q", layer.name, fault.Path(err), wantPath)
				}
				if !strings.Contains(err.Error(), c.contains) || !strings.Contains(err.Error(), "rule "+c.rule) {
					t.Errorf("%s: message %q lacks %q or the rule", layer.name, err, c.contains)
				}
			}
		})
	}
}

// TestIOErrors: a file that cannot be read is not a rule: no category, no rule, and the
// file-system error is in the chain.
func TestIOErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope_datapath_table.bin")
	for _, c := range []struct {
		name string
		err  error
	}{
		{"Load", func() error { _, err := Load([]string{missing}, "", GenUnknown); return err }()},
		{"LoadJSON", func() error { _, err := LoadJSON(missing + ".json"); return err }()},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e *Error
			if !errors.Is(c.err, fs.ErrNotExist) || !errors.As(c.err, &e) || fault.Category(c.err) != nil || fault.Rule(c.err) != "" {
				t.Errorf("%v: category %v rule %q", c.err, fault.Category(c.err), fault.Rule(c.err))
			}
		})
	}
}

// TestRuleIDsRegistered: every Rule* constant of the package (read from the source with
// go/parser, so a new one cannot be missed) is a registry entry (tpbsim explain ID), every
// registered rule is one of them, and no id is registered twice.
func TestRuleIDsRegistered(t *testing.T) {
	kinds := map[string]string{}
	for _, p := range Provenance() {
		if _, dup := kinds[p.ID]; dup {
			t.Errorf("%s registered twice", p.ID)
		}
		kinds[p.ID] = p.Kind
	}
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, sp := range gd.Specs {
			vs := sp.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && strings.HasPrefix(n.Name, "Rule") {
					consts[n.Name], _ = strconv.Unquote(lit.Value)
				}
			}
		}
	}
	for name, id := range consts {
		t.Run(name, func(t *testing.T) {
			if kinds[id] != "rule" {
				t.Errorf("%s (%s) is not a registered rule", id, name)
			}
		})
	}
	if len(consts) != len(ruleTexts) {
		t.Errorf("%d rule constants, %d registered rules", len(consts), len(ruleTexts))
	}
}
