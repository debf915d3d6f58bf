package nkipy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// python is Debian's interpreter with python3-numpy, as in CI (the python3 on PATH may lack numpy).
const python = "/usr/bin/python3"

func havePythonNumpy(t *testing.T) {
	t.Helper()
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s with numpy is not available: %v", python, err)
	}
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	p, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "python-"+Hash()[:16]); p != want {
		t.Fatalf("Install = %s, want %s", p, want)
	}
	for _, f := range []string{"nki/__init__.py", "nki/isa.py", "nki/language.py", "tpbsim_nki/__init__.py",
		"neuronxcc/__init__.py", "neuronxcc/nki/__init__.py", "neuronxcc/nki/isa/__init__.py",
		"neuronxcc/nki/isa/constants.py", "neuronxcc/nki/language.py", "neuronxcc/nki/typing.py", completeMarker} {
		if _, err := os.Stat(filepath.Join(p, filepath.FromSlash(f))); err != nil {
			t.Errorf("installed folder lacks %s: %v", f, err)
		}
	}
	// The embedded copy is the source tree's: every .py here is in it, byte for byte.
	for _, pat := range []string{"tpbsim_nki/*.py", "nki/*.py", "neuronxcc/*.py", "neuronxcc/nki/*.py", "neuronxcc/nki/isa/*.py"} {
		srcs, _ := filepath.Glob(pat)
		for _, s := range srcs {
			want, _ := os.ReadFile(s)
			got, err := os.ReadFile(filepath.Join(p, s))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("installed %s differs from the source tree (err %v)", s, err)
			}
		}
	}
	// A second Install reuses the folder; a folder without its marker is replaced.
	stamp := filepath.Join(p, "nki", "__init__.py")
	if err := os.WriteFile(stamp, []byte("# reused\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p2, err := Install(dir); err != nil || p2 != p {
		t.Fatalf("second Install = %s, %v", p2, err)
	}
	if b, _ := os.ReadFile(stamp); string(b) != "# reused\n" {
		t.Fatalf("second Install rewrote a complete folder")
	}
	if err := os.Remove(filepath.Join(p, completeMarker)); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(stamp); string(b) == "# reused\n" {
		t.Fatalf("Install reused an incomplete folder")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".python-*"))
	if len(left) != 0 {
		t.Fatalf("Install left temporary folders: %v", left)
	}
}

// TestPythonUnit runs the front end's unittest suite against the installed (embedded) copy, so a
// file missing from the embed patterns fails here. End-to-end tests inside it run when TPBSIM_BIN
// names a tpbsim binary and skip otherwise.
func TestPythonUnit(t *testing.T) {
	havePythonNumpy(t)
	p, err := Install(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests, err := filepath.Abs("tests")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-m", "unittest", "discover", "-s", tests, "-t", tests, "-p", "test_*.py")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PYTHONPATH="+p, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python unit tests failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "OK") {
		t.Fatalf("python unit tests: no OK in the output:\n%s", out)
	}
	t.Logf("%s", out)
}
