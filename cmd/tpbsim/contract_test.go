package main

// Regression tests of the CLI audit against DESIGN.md §7 (commands, exit statuses, messages),
// each driving the command as an outside user would.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A wrong number of arguments names the command and its usage (cobra said only "accepts 1
// arg(s), received 0").
func TestArgCountErrorsNameCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "tpbsim: run: accepts 1 arg(s), received 0 (usage: tpbsim run PROGRAM"},
		{[]string{"asm"}, "asm: accepts 1 arg(s), received 0 (usage: tpbsim asm IN.s|IN.tpb|IN.json -o OUT.bin"},
		{[]string{"check", "a.bin", "b.bin"}, "check: accepts 1 arg(s), received 2 (usage: tpbsim check IN.bin"},
		{[]string{"dtable", "diff", "a"}, "dtable diff: accepts 2 arg(s), received 1 (usage: tpbsim dtable diff"},
		{[]string{"explain"}, "explain: accepts 1 arg(s), received 0"},
	} {
		code, stdout, stderr := simCLI(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q (want %q), stdout %q", tc.args, code, stderr, tc.want, stdout)
		}
	}
}

// A misspelt flag names the command and the flag meant.
func TestUnknownFlagSuggests(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "x.s", "--laod", "sbuf:0:0=a.npy"}, "tpbsim: run: unknown flag: --laod (did you mean --load?)"},
		{[]string{"run", "x.s", "--Gen", "CAYMAN"}, "run: unknown flag: --Gen (did you mean --gen?)"},
		{[]string{"check", "x.bin", "--jsn"}, "check: unknown flag: --jsn (did you mean --json?)"},
		{[]string{"dge", "plan", "--shap", "4"}, "dge plan: unknown flag: --shap (did you mean --shape?)"},
		{[]string{"run", "x.s", "--zzzzzzzz"}, "run: unknown flag: --zzzzzzzz (see 'tpbsim run --help')"},
		{[]string{"--bogus"}, "tpbsim: unknown flag: --bogus"},
	} {
		code, _, stderr := simCLI(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

// dge --shape 0x10,2 was split at its 'x' into the axes 0, 10, 2 and failed with exit 1 on a 0
// axis the user never wrote; it is a usage error naming the item. 'x' stays a separator.
func TestDgeShapeHexRefused(t *testing.T) {
	base := []string{"dge", "plan", "--src", "hbm:0x0", "--dst", "hbm:0x100000", "--dtype", "fp32"}
	code, _, stderr := simCLI(append(base, "--shape", "0x10,2")...)
	if code != 2 || !strings.Contains(stderr, `--shape "0x10,2": "0x10" looks like a hex number`) {
		t.Errorf("--shape 0x10,2: exit %d: %s", code, stderr)
	}
	code, _, stderr = simCLI(append(base, "--shape", "4,4", "--perm", "0x1,0")...)
	if code != 2 || !strings.Contains(stderr, `--perm "0x1,0": "0x1" looks like a hex number`) {
		t.Errorf("--perm 0x1,0: exit %d: %s", code, stderr)
	}
	for _, shape := range []string{"64x32", "64X32", "64,32", "64 32"} {
		if code, _, stderr := simCLI(append(base, "--shape", shape)...); code != 0 {
			t.Errorf("--shape %s: exit %d: %s", shape, code, stderr)
		}
	}
}

// A dge request without its flags names the ones missing.
func TestDgeMissingFlagsNamed(t *testing.T) {
	code, _, stderr := simCLI("dge", "plan", "--dst", "hbm:0x100000", "--shape", "4")
	if code != 2 || !strings.Contains(stderr, "missing --src, --dtype: a request needs --src, --dst, --shape and --dtype") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// demo --export into a path that cannot be a folder names the flag.
func TestDemoExportErrorNamesFlag(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	code, _, stderr := simCLI("demo", "--export", f)
	if code != 2 || !strings.Contains(stderr, "--export "+f+": mkdir") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// dtable encode names its -o when the folder cannot be made.
func TestDtableEncodeErrorNamesFlag(t *testing.T) {
	dir := t.TempDir()
	code, js, stderr := simCLI("dtable", "dump", fixtures+"/dve_bin_gen2", "--json")
	if code != 0 {
		t.Fatalf("dump --json: %s", stderr)
	}
	in := filepath.Join(dir, "s.json")
	os.WriteFile(in, []byte(js), 0o644)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	out := filepath.Join(file, "sub")
	if code, _, stderr := simCLI("dtable", "encode", in, "-o", out); code != 2 || !strings.Contains(stderr, "-o "+out+": mkdir") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	nested := filepath.Join(dir, "a", "b")
	if code, _, stderr := simCLI("dtable", "encode", in, "-o", nested); code != 0 {
		t.Fatalf("encode into a new nested folder: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(nested, "default_datapath_table.bin")); err != nil {
		t.Error(err)
	}
}
