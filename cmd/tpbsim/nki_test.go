package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The NKI front door's tests run Python scripts that call back into tpbsim (TPBSIM_BIN): this
// test binary stands in for the tpbsim binary when TPBSIM_TEST_AS_CLI is set.
func TestMain(m *testing.M) {
	if os.Getenv("TPBSIM_TEST_AS_CLI") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func needPythonNumpy(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skipf("/usr/bin/python3 with numpy is not available: %v", err)
	}
	t.Setenv("TPBSIM_TEST_AS_CLI", "1")
	t.Setenv("TPBSIM_PYTHON", "/usr/bin/python3")
}

// Every example under examples/nki runs unchanged and checks itself against numpy, and so does
// testdata/nki/test_calls.py (every supported call, special values, oob modes, refusals).
func TestNKIExamples(t *testing.T) {
	needPythonNumpy(t)
	files, _ := filepath.Glob("../../examples/nki/*.py")
	if len(files) < 4 {
		t.Fatalf("examples/nki has %d scripts", len(files))
	}
	more, _ := filepath.Glob("../../testdata/nki/*.py")
	files = append(files, more...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out, errs := simCLI("nki", "run", "--check-uninit", f) // and no never-written byte is read
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
			}
		})
	}
}

// The front end's end-to-end tests against this binary.
func TestNKIPythonEndToEnd(t *testing.T) {
	needPythonNumpy(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-m", "unittest", "test_e2e")
	cmd.Dir = "../../python/tests"
	cmd.Env = append(os.Environ(), "PYTHONPATH=..", "TPBSIM_BIN="+self)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("OK")) {
		t.Fatalf("python e2e: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("skipped")) {
		t.Fatalf("e2e tests skipped with TPBSIM_BIN set:\n%s", out)
	}
}

// The script's exit status is the command's: a failing unittest file fails the command, an
// unsupported call exits non-zero naming the call and its line.
func TestNKIExitStatus(t *testing.T) {
	needPythonNumpy(t)
	dir := t.TempDir()
	failing := filepath.Join(dir, "test_fail.py")
	os.WriteFile(failing, []byte(`import unittest
import numpy as np
import nki
import nki.language as nl

@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, t)
    return out

class T(unittest.TestCase):
    def test_wrong(self):
        a = np.ones((4, 8), np.float32)
        self.assertTrue(np.array_equal(nki.simulate(k)(a), a + 1))

unittest.main()
`), 0o644)
	if code, _, errs := simCLI("nki", "run", failing); code != 1 || !strings.Contains(errs, "FAILED") {
		t.Fatalf("failing unittest file: exit %d\n%s", code, errs)
	}
	unsup := filepath.Join(dir, "unsup.py")
	os.WriteFile(unsup, []byte(`import numpy as np
import nki
import nki.language as nl

@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    u = nl.exp(t)
    nl.store(out, u)
    return out

nki.simulate(k)(np.ones((4, 8), np.float32))
`), 0o644)
	code, _, errs := simCLI("nki", "run", unsup)
	if code == 0 || !regexp.MustCompile(`unsup\.py:9`).MatchString(errs) || !strings.Contains(errs, "exp") {
		t.Fatalf("unsupported call: exit %d\n%s", code, errs)
	}
	if code, _, errs := simCLI("nki", "run", filepath.Join(dir, "missing.py")); code != 2 {
		t.Fatalf("missing file: exit %d\n%s", code, errs)
	}
	for _, bad := range [][]string{{"--gen", "FOO"}, {"--nki-version", "3.0"}} {
		if code, _, errs := simCLI(append(append([]string{"nki", "run"}, bad...), failing)...); code != 2 || !strings.Contains(errs, bad[0]) {
			t.Fatalf("%v: exit %d\n%s", bad, code, errs)
		}
	}
}

// Each kernel run of one script writes its own --trace / --summary: FILE.json, FILE-2.json, ...
func TestNKIRunsNumberTheirOutputs(t *testing.T) {
	needPythonNumpy(t)
	dir := t.TempDir()
	two := filepath.Join(dir, "two.py")
	os.WriteFile(two, []byte(`import numpy as np
import nki
import nki.language as nl

@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.load(a))
    return out

for i in range(3):
    assert np.array_equal(nki.simulate(k)(np.full((4, 8), i, np.float32)), np.full((4, 8), i, np.float32))
`), 0o644)
	tr, sum := filepath.Join(dir, "t.json"), filepath.Join(dir, "s.json")
	if code, _, errs := simCLI("nki", "run", "--trace", tr, "--summary", sum, two); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	for _, f := range []string{"t.json", "t-2.json", "t-3.json", "s.json", "s-2.json", "s-3.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// kernel lower's assembly, run by tpbsim run with the inputs loaded where its header says,
// leaves the same output bytes as kernel run.
func TestKernelLowerThenRun(t *testing.T) {
	dir := t.TempDir()
	k := "../../testdata/kernel/ve_transpose_partial.json"
	prog := filepath.Join(dir, "k.tpb")
	if code, _, errs := simCLI("kernel", "lower", k, "-o", prog); code != 0 {
		t.Fatalf("lower: exit %d: %s", code, errs)
	}
	text, _ := os.ReadFile(prog)
	in := regexp.MustCompile(`#\s+a\s+\S+ \S+ float32 hbm @ (hbm:0x[0-9a-f]+)`).FindSubmatch(text)
	out := regexp.MustCompile(`#\s+out\s+\S+ \S+ float32 shared_hbm @ (hbm:0x[0-9a-f]+)`).FindSubmatch(text)
	if in == nil || out == nil {
		t.Fatalf("no placement lines in\n%s", text)
	}
	dump := filepath.Join(dir, "dump.npy")
	if code, _, errs := simCLI("run", prog, "--load", string(in[1])+"=../../testdata/kernel/ve_transpose_partial.a.npy",
		"--dump", string(out[1])+"=2x32:FP32:"+dump, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d: %s\n%s", code, errs, text)
	}
	od := filepath.Join(dir, "out")
	if code, _, errs := simCLI("kernel", "run", k, "--out-dir", od, "--quiet"); code != 0 {
		t.Fatalf("kernel run: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(dump)
	b, _ := os.ReadFile(filepath.Join(od, "output0.npy"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("tpbsim run of the lowered program and kernel run differ (%d vs %d bytes)", len(a), len(b))
	}
}

// The trace's slices are named by the NKI call each instruction came from, and --summary
// writes the timing summary's keys.
func TestKernelTraceNamesCalls(t *testing.T) {
	dir := t.TempDir()
	tr, sum := filepath.Join(dir, "t.json"), filepath.Join(dir, "s.json")
	if code, _, errs := simCLI("kernel", "run", "../../testdata/kernel/ve_transpose_partial.json", "--trace", tr, "--summary", sum, "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(tr)
	for _, want := range []string{`"STREAM_TRANSPOSE x.py:6 nisa.nc_transpose"`, `"origin":"x.py:5 nl.load"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("trace lacks %s", want)
		}
	}
	s, _ := os.ReadFile(sum)
	for _, want := range []string{`"end_ns"`, `"engines"`, `"busy_ns"`, `"wait_ns"`} {
		if !bytes.Contains(s, []byte(want)) {
			t.Errorf("summary lacks %s", want)
		}
	}
}

// nki run checks its --trace and --summary before the script starts: one naming the script, one
// in a missing folder, standard output (the script's) and the two naming one file are usage
// errors (exit 2) that leave the script as it was; --verbose alone (no flag for the kernel runs
// but the report) runs.
func TestNKIRunOutputsChecked(t *testing.T) {
	needPythonNumpy(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "sb.py")
	src, err := os.ReadFile("../../examples/nki/shuffle_broadcast.py")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(script, src, 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"trace names the script", []string{"--trace", script}, "is the input file"},
		{"summary names the script", []string{"--summary", script}, "is the input file"},
		{"missing folder", []string{"--trace", filepath.Join(dir, "no", "t.json")}, "--trace"},
		{"standard output", []string{"--summary", "-"}, "the script's"},
		{"one file twice", []string{"--trace", filepath.Join(dir, "x.json"), "--summary", filepath.Join(dir, "x.json")}, "the same file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := simCLI(append(append([]string{"nki", "run"}, tc.args...), script)...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, want 2 and %q\n%s", code, tc.want, errs)
			}
			if now, _ := os.ReadFile(script); !bytes.Equal(now, src) {
				t.Fatalf("the script was changed")
			}
		})
	}
	if code, out, errs := simCLI("nki", "run", "--verbose", script); code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("--verbose: exit %d\n%s\n%s", code, out, errs)
	}
}
