package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpbsim/tpbsim/demo"
	"github.com/tpbsim/tpbsim/isa"
)

func TestDemo(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "demo.json")
	t0 := time.Now()
	code, out, stderr := simCLI("demo", "--trace", tr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("demo took %v", d)
	}
	for _, s := range []string{"demo verified", "STREAM_TRANSPOSE", "STREAM_SHUFFLE", "TRANSPOSE_TENSOR_REDUCE", "CAST",
		"what moved where", "c=7  0123456789abcdefghijklmnopqrstuv 7          ................................ -"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	if strings.Contains(out, "MISMATCH") {
		t.Errorf("mismatch:\n%s", out)
	}
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	cats := map[any]int{}
	for _, e := range doc.TraceEvents {
		if e["ph"] == "X" {
			cats[e["cat"]]++
		}
	}
	if cats["DVE"] == 0 || cats["POOL"] == 0 || cats["ACT"] == 0 {
		t.Errorf("trace slices per engine: %v", cats)
	}
}

func TestDemoNoTraceAndGenerations(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			code, out, stderr := simCLI("demo", "--no-trace", "--gen", g.String())
			if code != 0 {
				t.Errorf("%v: exit %d\n%s\n%s", g, code, out, stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, demoDefTrace)); err == nil {
		t.Error("--no-trace wrote a trace")
	}
}

// TestDemoContradictoryFlags: flags that cancel each other are a usage error, and nothing is
// written (--print-program dropped --export, --no-trace a --trace FILE, silently).
func TestDemoContradictoryFlags(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{{"--no-trace", "--trace", "t.json"}, {"--print-program", "--export", "out"},
		{"--export", "out", "--trace", "t.json"}, {"--print-program", "--trace", "t.json"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, stderr := simCLI(append([]string{"demo"}, args...)...)
			if code != 2 || out != "" || !strings.Contains(stderr, strings.TrimLeft(args[0], "-")) {
				t.Errorf("%v: exit %d\n%s\n%s", args, code, out, stderr)
			}
		})
	}
	if names := listTree(t, dir); len(names) != 0 {
		t.Errorf("contradictory flags wrote %v", names)
	}
}

// `tpbsim demo --print-program` feeds `tpbsim run`, which reproduces the demo's transpose.
func TestDemoProgramThroughRun(t *testing.T) {
	dir := t.TempDir()
	code, src, stderr := simCLI("demo", "--print-program")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	progPath := filepath.Join(dir, "demo.tpb")
	os.WriteFile(progPath, []byte(src), 0o644)
	files, err := demo.Files(isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{}
	for _, f := range files {
		data[f.Name] = f.Data
		if f.Name != "demo.tpb" {
			os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644)
		}
	}
	out := filepath.Join(dir, "t.npy")
	code, stdout, stderr := simCLI("run", progPath, "--check-uninit",
		"--load", "hbm:0x10000="+filepath.Join(dir, "x.npy"),
		"--load", "sbuf:0:0x1800="+filepath.Join(dir, "tags.npy"),
		"--load", "sbuf:0:0xc00="+filepath.Join(dir, "sentinel.npy"),
		"--load", "sbuf:0:0x2000="+filepath.Join(dir, "ones.npy"),
		"--dump", "sbuf:0:0x800=64x64:bf16:"+out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	got, _ := os.ReadFile(out)
	// The dump and the exported reference are both 64x64 uint16 arrays: the same bytes after
	// the same header.
	if !bytes.Equal(got, data["expect_transposed.npy"]) {
		t.Error("run's StreamTranspose result differs from the demo reference")
	}
}

// TestDemoAgainstNumpy: the exported demo run through `tpbsim run`, every result compared with
// numpy's own computation of the semantics (skipped without /usr/bin/python3 + numpy).
func TestDemoAgainstNumpy(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("python3 with numpy not available")
	}
	dir := t.TempDir()
	if code, out, stderr := simCLI("demo", "--export", dir); code != 0 {
		t.Fatalf("export: exit %d %s %s", code, out, stderr)
	}
	j := func(n string) string { return filepath.Join(dir, n) }
	code, out, stderr := simCLI("run", j("demo.tpb"), "--check-uninit", "--quiet",
		"--load", "hbm:0x10000="+j("x.npy"), "--load", "sbuf:0:0x1800="+j("tags.npy"),
		"--load", "sbuf:0:0xc00="+j("sentinel.npy"), "--load", "sbuf:0:0x2000="+j("ones.npy"),
		"--dump", "sbuf:0:0x800=64x64:bf16:"+j("t.npy"), "--dump", "sbuf:0:0xc00=64x64:bf16:"+j("s.npy"),
		"--dump", "sbuf:0:0x1000=64x64:fp32:"+j("f.npy"), "--dump", "sbuf:0:0x1400=64x2:fp32:"+j("r.npy"))
	if code != 0 {
		t.Fatalf("run: exit %d %s %s", code, out, stderr)
	}
	script := `
import numpy as np, sys
d = sys.argv[1]
L = lambda n: np.load(d + "/" + n)
x = L("x.npy")
u = x.view(np.uint32).astype(np.uint64)
b = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)          # fp32 -> bf16, nearest even
T = b.reshape(2, 32, 2, 32).transpose(0, 3, 2, 1).reshape(64, 64)     # 32x32 tile transpose
mask = [(5 * i + 3) % 32 for i in range(32)]; mask[7] = 255
S = np.full((64, 64), 0xBF00, np.uint16)
for c in range(64):
    if mask[c % 32] != 255:
        S[c] = T[c // 32 * 32 + mask[c % 32]]
F = (S.astype(np.uint32) << 16).view(np.float32)
ST = S.reshape(2, 32, 2, 32).transpose(0, 3, 2, 1).reshape(64, 64)
R = ((ST.astype(np.uint32) << 16).view(np.float32)).reshape(64, 2, 32).sum(axis=2, dtype=np.float32)
bad = [n for n, want in (("t.npy", T), ("s.npy", S), ("f.npy", F), ("r.npy", R)) if not np.array_equal(L(n), want)]
print("MISMATCH " + " ".join(bad) if bad else "OK")
`
	res, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(res)) != "OK" {
		t.Fatalf("numpy: %v\n%s", err, res)
	}
}
