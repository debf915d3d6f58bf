package main

// Regression tests of the CLI audit against DESIGN.md §7 (commands, exit statuses, messages),
// each driving the command as an outside user would.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// withStdin runs f with the CLI's standard input reading data.
func withStdin(t *testing.T, data []byte, f func()) {
	t.Helper()
	old := stdin
	stdin = bytes.NewReader(data)
	defer func() { stdin = old }()
	f()
}

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
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := simCLI(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("%v: exit %d, stderr %q (want %q), stdout %q", tc.args, code, stderr, tc.want, stdout)
			}
		})
	}
}

// A misspelt flag names the command and the flag meant; a bad flag value, the flag and what it takes.
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
		// a bad value says what the flag takes, not which Go function refused it
		{[]string{"dge", "run", "--seed", "abc"}, `dge run: invalid argument "abc" for "--seed" flag: invalid syntax (want a number)`},
		{[]string{"run", "x.s", "--max-elements", "-1"}, `invalid argument "-1" for "--max-elements" flag: invalid syntax (want a number, 0 or more)`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := simCLI(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
			}
		})
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
		t.Run(shape, func(t *testing.T) {
			if code, _, stderr := simCLI(append(base, "--shape", shape)...); code != 0 {
				t.Errorf("--shape %s: exit %d: %s", shape, code, stderr)
			}
		})
	}
}

// A dge request without its flags names the ones missing.
func TestDgeMissingFlagsNamed(t *testing.T) {
	code, _, stderr := simCLI("dge", "plan", "--dst", "hbm:0x100000", "--shape", "4")
	if code != 2 || !strings.Contains(stderr, "missing --src, --dtype: a request needs --src, --dst, --shape and --dtype") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// disasm IN.bin prints one line per 64-byte word (DESIGN.md §7) on the default generation; on
// another it starts with the .gen line that makes it assemble back without --gen.
func TestDisasmOneLinePerWord(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ex.bin")
	if code, _, stderr := simCLI("asm", "../../testdata/asm/example.s", "-o", bin); code != 0 {
		t.Fatalf("asm: %s", stderr)
	}
	code, text, stderr := simCLI("disasm", bin)
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if code != 0 || len(lines) != 5 || !strings.HasPrefix(lines[0], "DMAMEMCPY ") || !strings.HasSuffix(lines[4], "# word 4 @0x100") {
		t.Fatalf("disasm: exit %d, %d lines (want 5, one per word):\n%s%s", code, len(lines), text, stderr)
	}
	code, text, _ = simCLI("disasm", "--gen", "SUNDA", bin)
	if lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n"); code != 0 || len(lines) != 6 || lines[0] != ".gen SUNDA" {
		t.Fatalf("disasm --gen SUNDA: exit %d:\n%s", code, text)
	}
	s := filepath.Join(dir, "back.s")
	os.WriteFile(s, []byte(text), 0o644)
	back := filepath.Join(dir, "back.bin")
	if code, _, stderr := simCLI("asm", s, "-o", back); code != 0 {
		t.Fatalf("asm back: %s", stderr)
	}
	if a, b := readFile(t, bin), readFile(t, back); !bytes.Equal(a, b) {
		t.Error("disasm --gen SUNDA | asm (no --gen) gives other bytes")
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// "-" is standard input for the PROGRAM of asm, disasm, check and run; its form is told by its
// content, and messages name it <stdin>.
func TestProgramFromStdin(t *testing.T) {
	dir := t.TempDir()
	src := readFile(t, "../../testdata/asm/example.s")
	bin := filepath.Join(dir, "ex.bin")
	if code, _, stderr := simCLI("asm", "../../testdata/asm/example.s", "-o", bin); code != 0 {
		t.Fatalf("asm: %s", stderr)
	}
	words := readFile(t, bin)
	out := filepath.Join(dir, "stdin.bin")
	withStdin(t, src, func() {
		if code, stdout, stderr := simCLI("asm", "-", "-o", out); code != 0 || !strings.Contains(stdout, "<stdin>: 5 instructions") {
			t.Fatalf("asm - (text): exit %d: %s%s", code, stdout, stderr)
		}
	})
	if !bytes.Equal(readFile(t, out), words) {
		t.Error("asm - gives other bytes than asm FILE")
	}
	var js string
	withStdin(t, words, func() {
		var code int
		code, js, _ = simCLI("disasm", "--json", "-")
		if code != 0 || strings.Count(js, "\n") != 5 {
			t.Fatalf("disasm --json - (words): exit %d:\n%s", code, js)
		}
	})
	withStdin(t, []byte(js), func() {
		if code, stdout, stderr := simCLI("run", "-"); code != 0 || !strings.Contains(stdout, "<stdin>: 5 instructions on CAYMAN, finished") {
			t.Fatalf("run - (JSON): exit %d: %s%s", code, stdout, stderr)
		}
	})
	withStdin(t, []byte("COPY nac=32\nCOPY nac=999\n"), func() {
		if code, _, stderr := simCLI("check", "-"); code != 2 || !strings.Contains(stderr, "<stdin>:2: num_active_channels: 999 out of range") {
			t.Fatalf("check - (bad text): exit %d: %s", code, stderr)
		}
	})
}

// An output that names the input file is refused before anything is written: `asm x.s -o x.s`
// replaced the source with its words.
func TestOutputIsInputRefused(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "p.tpb")
	text := ".gen CAYMAN\n.engine DVE\nCOPY in=FP32 out=FP32 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]\n"
	os.WriteFile(src, []byte(text), 0o644)
	link := filepath.Join(dir, "link.tpb")
	os.Symlink(src, link)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"asm", src, "-o", src}, "-o: " + src + " is the input file"},
		{[]string{"asm", link, "-o", src}, "-o: " + src + " is the input file " + link},
		{[]string{"run", src, "--trace", src}, "--trace: " + src + " is the input file"},
		{[]string{"run", src, "--dump", "sbuf:0:0x100=32x32:fp32:" + src}, "--dump sbuf:0:0x100=32x32:fp32:" + src + ": " + src + " is the input file"},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			code, _, stderr := simCLI(tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
			}
			if got := string(readFile(t, src)); got != text {
				t.Fatalf("%v overwrote the input", tc.args)
			}
		})
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
