package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/ucode"
)

const fixtures = "../../testdata/ucode"

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func TestDtableCommands(t *testing.T) {
	g2, g3, g4 := fixtures+"/dve_bin_gen2", fixtures+"/dve_bin_gen3", fixtures+"/dve_bin_gen4"
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"info gen2", []string{"dtable", "info", g2}, 0, []string{"generation: gen2 (SUNDA)", "datapath_table is 8192 B (gen2)", "128 blocks: 13 OFF, 16 PASSTHRU, 99 ACTIVE", "enabled outside the roster: 147 TransposeTensorScalarArithOp, 240 ExtendedInst, 241 Resident(241), 242 Resident(242)"}},
		{"info gen4 why", []string{"dtable", "info", g4, "--set", "saturate"}, 0, []string{"generation: gen4 (MARIANA)", "233 gen4 idle words 0x40000000000 (bit 42)"}},
		{"info gen3 single file", []string{"dtable", "info", g3 + "/default_datapath_table.bin"}, 0, []string{"gen3 (CAYMAN)", "221 gen3 idle words"}},
		{"census gen2", []string{"dtable", "census", g2}, 0, []string{"OFF         13", "PASSTHRU    16  (all-idle 6: rows [1 36 39 45 48 105]; idle+zero 10)", "ACTIVE      99",
			"657 nonzero = 256 idle (0x100000) + 401 active", "k=8    8 blocks  ops: 97 BatchNormStats2", " 15:0", "20:274"}},
		{"dump op", []string{"dtable", "dump", g2, "--op", "MaxPoolSelect"}, 0, []string{"op 88 MaxPoolSelect: entry 0x8 -> fast row 8, slow row 0 -> block 8 ACTIVE k=4",
			"0x0000000001002000 OPA=0x00 OPB=0 MUX=0x004 valid=0 MODE=0 STAGE=1  <- terminal lane (VALID clear)"}},
		{"dump block 41", []string{"dtable", "dump", g2, "--block", "41"}, 0, []string{"block 41 @0xa40: ACTIVE k=8  [97 BatchNormStats2]", "0x00000000077d6000 OPA=0x00 OPB=0 MUX=0x1ac VALID MODE=3 STAGE=7"}},
		{"dump gen4 op107", []string{"dtable", "dump", g4, "--op", "0x6b"}, 0, []string{"entry 0x46f -> fast row 111, slow row 4", "control:      00 00 e8 00 a0 82 08 00"}},
		{"diff saturate", []string{"dtable", "diff", g4, g4, "--set-b", "saturate"}, 0, []string{"lane words differing: 134 in 29 blocks", "distinct XOR deltas: 65", "0x0001800001540000", "control rows differing: 28", "slow rows differing: 17"}},
		{"diff transformer", []string{"dtable", "diff", g2, g2, "--set-b", "transformer"}, 0, []string{"lane words differing: 588 in 93 blocks"}},
		{"cross-gen", []string{"dtable", "diff", g2, g3, "--op", "65,66,88,97"}, 0, []string{"op 65 TensorTensorArithOp: row 3 k=1 -> row 8 k=1: ok", "lane0 0x10041c -> 0x100001420  (OPA, MUX differ)", "op 97 BatchNormStats2"}},
		{"cross-gen all", []string{"dtable", "diff", g3, g4}, 0, []string{"op 234 SelectReduce"}},
		// issue 15 item 8: the failing lanes name MODE (and STAGE) with both values, in both
		// directions, not only the OPA / MUX differences the check allows.
		{"cross-gen names MODE", []string{"dtable", "diff", g2, g4, "--set-b", "saturate", "--op", "234"}, 1, []string{
			"op 234 SelectReduce: row 26 k=8 -> row 180 k=8: FIELDS DIFFER",
			"!! lane1 0x11c0011 -> 0xc9add9bb79a7ad  MODE 0 -> 5, STAGE 1 -> 6 differ after relocation  (OPA, OPB, MUX differ)",
			"!! lane3 0x31c0013 -> 0x31afe2fc3d6cd36  MODE 0 -> 7 differ after relocation"}},
		{"cross-gen names MODE reversed", []string{"dtable", "diff", g4, g2, "--set", "saturate", "--set-b", "default", "--op", "SelectReduce"}, 1, []string{
			"!! lane1 0xc9add9bb79a7ad -> 0x11c0011  MODE 5 -> 0, STAGE 6 -> 1 differ after relocation"}},
		{"cross-gen json differs", []string{"dtable", "diff", g2, g4, "--set-b", "saturate", "--op", "234", "--json"}, 1, []string{`"differs": [
          "MODE",
          "STAGE"
        ]`, `"ok": false`}},
		{"dump json control rows snake_case", []string{"dtable", "dump", g4, "--json"}, 0, []string{`"name": "step_config"`, `"bytes": "[2:4]"`, `"value": "0x00e8"`}},
		{"missing path", []string{"dtable", "info", "/nonexistent/x_datapath_table.bin"}, 2, nil},
		{"bad gen", []string{"dtable", "info", g2, "--gen", "gen7"}, 2, nil},
		{"gen mismatch", []string{"dtable", "info", g2, "--gen", "gen3"}, 2, nil},
		{"ambiguous opcode table", []string{"dtable", "info", g4 + "/default_opcode_table.bin"}, 2, nil},
		{"bad op", []string{"dtable", "dump", g2, "--op", "NoSuchOp"}, 2, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if c.code == 2 && !strings.HasPrefix(errOut, "tpbsim: ") {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

func TestDtableBadFiles(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(fixtures + "/dve_bin_gen2/default_datapath_table.bin")
	if err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "x_datapath_table.bin")
	os.WriteFile(short, data[:5000], 0o644)
	_, errOut, code := runCLI(t, "dtable", "census", short)
	if code != 2 || !strings.Contains(errOut, short) || !strings.Contains(errOut, "offset 0x1388") || !strings.Contains(errOut, "truncated") {
		t.Errorf("truncated: exit %d %q", code, errOut)
	}
	// A block that breaks left packing: reported, exit 1.
	bad := append([]byte{}, data...)
	copy(bad[3*64+8*2:3*64+8*3], []byte{0x1c, 0x04, 0x10, 0, 0, 0, 0, 0}) // block 3 lane 2 active
	copy(bad[3*64+8*1:3*64+8*2], make([]byte, 8))                         // lane 1 zero
	p := filepath.Join(dir, "bad_datapath_table.bin")
	os.WriteFile(p, bad, 0o644)
	out, _, code := runCLI(t, "dtable", "census", p)
	if code != 1 || !strings.Contains(out, "left-packing violations: [3]") {
		t.Errorf("packing: exit %d\n%s", code, out)
	}
	for _, n := range []string{"a", "b", "c"} {
		os.WriteFile(filepath.Join(dir, n+"_datapath_table.bin"), data, 0o644)
	}
	if _, errOut, code := runCLI(t, "dtable", "info", dir); code != 2 || !strings.Contains(errOut, "pick one") {
		t.Errorf("ambiguous folder: %d %q", code, errOut)
	}
}

func TestDtableEncodeRoundTrip(t *testing.T) {
	for _, c := range []struct{ dir, set string }{{"dve_bin_gen2", "transformer"}, {"dve_bin_gen4", "saturate"}} {
		src := filepath.Join(fixtures, c.dir)
		js, errOut, code := runCLI(t, "dtable", "dump", src, "--set", c.set, "--json")
		if code != 0 {
			t.Fatalf("dump: %s", errOut)
		}
		dir := t.TempDir()
		in := filepath.Join(dir, "set.json")
		os.WriteFile(in, []byte(js), 0o644)
		out := filepath.Join(dir, "out")
		if _, errOut, code := runCLI(t, "dtable", "encode", in, "-o", out); code != 0 {
			t.Fatalf("encode: %s", errOut)
		}
		ents, _ := os.ReadDir(out)
		if len(ents) == 0 {
			t.Fatal("nothing written")
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("temporary file left: %s", e.Name())
			}
			got, _ := os.ReadFile(filepath.Join(out, e.Name()))
			want, err := os.ReadFile(filepath.Join(src, e.Name()))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: not byte-identical (%v)", e.Name(), err)
			}
		}
	}
	// A bad JSON file writes nothing.
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.json")
	os.WriteFile(in, []byte(`{"format":"tpbsim.dtable/1","gen":"gen2","set":"x","tables":["datapath_table"],"datapath_table":[{"block":300,"lanes":[]}]}`), 0o644)
	if _, errOut, code := runCLI(t, "dtable", "encode", in, "-o", filepath.Join(dir, "o")); code != 2 || !strings.Contains(errOut, "block[300]") {
		t.Errorf("bad json: %d %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "o")); err == nil {
		if ents, _ := os.ReadDir(filepath.Join(dir, "o")); len(ents) != 0 {
			t.Errorf("files written for bad input: %v", ents)
		}
	}
}

func TestDtableReportAndJSON(t *testing.T) {
	g4 := fixtures + "/dve_bin_gen4"
	outFile := filepath.Join(t.TempDir(), "r.html")
	if _, errOut, code := runCLI(t, "dtable", "report", g4, "--diff", g4, "--set-b", "saturate", "-o", outFile); code != 0 {
		t.Fatalf("report: %s", errOut)
	}
	html, _ := os.ReadFile(outFile)
	// gen4 StreamTranspose is on fast row 111 (FACTS §E.2, 0x46f): its opcode-table row links to
	// block 111, which the map holds.
	for _, want := range []string{"<svg", `<a href="#block-111">111</a>`, `id="block-111"`, "link to this block"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if bytes.Contains(html, []byte("https://")) || bytes.Contains(html, []byte("http://")) {
		t.Error("report is not self-contained")
	}
	out, _, code := runCLI(t, "dtable", "census", fixtures+"/dve_bin_gen2", "--json")
	var c struct {
		Off, Passthru, Active int
		IdleWords             int `json:"idle_words"`
		Depths                []struct {
			K       int
			Opcodes []int
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c.Off != 13 || c.Passthru != 16 || c.Active != 99 || c.IdleWords != 256 {
		t.Errorf("census --json: %d %+v", code, c)
	}
	if len(c.Depths) != 9 || len(c.Depths[8].Opcodes) == 0 {
		t.Errorf("depths %+v", c.Depths)
	}
	out, _, code = runCLI(t, "dtable", "diff", fixtures+"/dve_bin_gen2", fixtures+"/dve_bin_gen4", "--op", "88", "--json")
	if code != 0 || !strings.Contains(out, `"ok": true`) || !strings.Contains(out, `"b": "0x440000014000"`) {
		t.Errorf("cross-gen --json: %d\n%s", code, out)
	}
}

// TestDtableDumpBlockJSON: --json --block prints those blocks (it printed null and exit 0), and
// a bad --block is refused before anything is printed.
func TestDtableDumpBlockJSON(t *testing.T) {
	g2 := fixtures + "/dve_bin_gen2"
	out, errs, code := runCLI(t, "dtable", "dump", g2, "--block", "41", "--json")
	var blocks []ucode.BlockView
	if code != 0 || json.Unmarshal([]byte(out), &blocks) != nil || len(blocks) != 1 {
		t.Fatalf("--block 41 --json: exit %d: %s %s", code, out, errs)
	}
	if b := blocks[0]; b.Block != 41 || b.Class != "ACTIVE" || b.K != 8 || len(b.Lanes) != 8 || len(b.Opcodes) == 0 {
		t.Errorf("block 41: %+v", b)
	}
	for _, args := range [][]string{{"--block", "41,999"}, {"--block", "999", "--json"}, {"--block", "41", "--op", "97", "--json"}} {
		out, errs, code := runCLI(t, append([]string{"dtable", "dump", g2}, args...)...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestDtableAuditFindings: encode kept a JSON set name such as "../x" and wrote outside -o DIR;
// an explicit --gen that contradicts the idle-word census was silent in census; a folder without
// its control_slow_table printed no slow word and no reason; a census without a datapath table
// named no file.
func TestDtableAuditFindings(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "set.json")
	os.WriteFile(in, []byte(`{"format":"tpbsim.dtable/1","gen":"gen2","set":"../evil","tables":["datapath_table"],"datapath_table":[{"block":1,"lanes":[{"lane":0,"word":"0x100000"}]}]}`), 0o644)
	out := filepath.Join(dir, "sub", "o")
	if _, errOut, code := runCLI(t, "dtable", "encode", in, "-o", out); code != 2 || !strings.Contains(errOut, "rule ucode.set_name") {
		t.Errorf("set ../evil: exit %d %q", code, errOut)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "sub")); len(ents) != 0 {
		t.Errorf("files written for a bad set name: %v", ents)
	}

	g3 := fixtures + "/dve_bin_gen3"
	if _, errOut, code := runCLI(t, "dtable", "census", g3, "--gen", "gen4"); code != 0 && code != 1 || !strings.Contains(errOut, "warning: ") || !strings.Contains(errOut, "221 gen3 idle words") {
		t.Errorf("census --gen gen4 of gen3 tables: exit %d %q", code, errOut)
	}
	if _, errOut, _ := runCLI(t, "dtable", "census", g3); errOut != "" {
		t.Errorf("warning without --gen: %q", errOut)
	}

	part := t.TempDir()
	for _, tb := range []string{"opcode_table", "control_fast_table", "datapath_table"} {
		data, err := os.ReadFile(fixtures + "/dve_bin_gen4/default_" + tb + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(part, "default_"+tb+".bin"), data, 0o644)
	}
	if o, errOut, code := runCLI(t, "dtable", "dump", part, "--op", "65"); code != 0 || !strings.Contains(o, "note: slow row 48: no control_slow_table loaded") {
		t.Errorf("dump without control_slow_table: exit %d %q\n%s", code, errOut, o)
	}
	os.Remove(filepath.Join(part, "default_datapath_table.bin"))
	if _, errOut, code := runCLI(t, "dtable", "census", part, "--gen", "gen4"); code != 2 || !strings.Contains(errOut, part) || !strings.Contains(errOut, "default_datapath_table.bin") {
		t.Errorf("census without datapath_table: exit %d %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "dtable", "info", part); code != 2 || !strings.Contains(errOut, part+": ") {
		t.Errorf("gen3/gen4 undecidable: exit %d %q", code, errOut)
	}
	g4 := fixtures + "/dve_bin_gen4"
	if _, errOut, code := runCLI(t, "dtable", "info", g4+"/default_opcode_table.bin", g4+"/saturate_datapath_table.bin"); code != 2 || !strings.Contains(errOut, `of set "saturate"`) {
		t.Errorf("files of two sets: exit %d %q", code, errOut)
	}
}
