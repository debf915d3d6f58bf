package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/internal/npy"
)

// TestRunExpect: demo --export's command runs the demo on its data and its --expect checks pass
// (exit 0); a reference that differs fails with exit 1 naming the first differing element; a
// reference of another shape is a usage error (exit 2); --dump ...:float32 writes bf16 as
// float32 values.
func TestRunExpect(t *testing.T) {
	dir := t.TempDir()
	if code, out, errb := simCLI("demo", "--export", dir, "--gen", "MAVERICK"); code != 0 {
		t.Fatalf("demo --export: %d %s %s", code, out, errb)
	}
	j := func(n string) string { return filepath.Join(dir, n) }
	base := []string{"run", j("demo.tpb"), "--quiet", "--check-uninit", "--load", "hbm:0x10000=" + j("x.npy"),
		"--load", "sbuf:0:0x1800=" + j("tags.npy"), "--load", "sbuf:0:0xc00=" + j("sentinel.npy"), "--load", "sbuf:0:0x2000=" + j("ones.npy")}
	ok := append(append([]string{}, base...), "--expect", "sbuf:0:0x800=64x64:bf16:"+j("expect_transposed.npy"),
		"--expect", "sbuf:0:0x1400=64x2:fp32:"+j("expect_reduced.npy"), "--dump", "sbuf:0:0x800=64x64:bf16:"+j("t.npy")+":float32")
	if code, _, errb := simCLI(ok...); code != 0 {
		t.Fatalf("the exported demo with its expectations: exit %d\n%s", code, errb)
	}
	b, _ := os.ReadFile(j("t.npy"))
	a, err := npy.Read(bytes.NewReader(b))
	if err != nil || a.Dtype != "f4" || len(a.Shape) != 2 || a.Shape[0] != 64 {
		t.Fatalf("--dump :float32: %v %+v", err, a)
	}
	// The reduced reference checked against the transposed bf16 tile: element [0, 0] differs.
	bad := append(append([]string{}, base...), "--expect", "sbuf:0:0x1400=64x2:fp32:"+j("expect_reduced.npy"),
		"--expect", "sbuf:0:0x804=64x64:bf16:"+j("expect_transposed.npy"), "--dump", "sbuf:0:0x800=64x64:bf16:"+j("never.npy"))
	code, _, errb := simCLI(bad...)
	if code != 1 || !strings.Contains(errb, "element [0, 0]") {
		t.Fatalf("a differing reference: exit %d\n%s", code, errb)
	}
	if _, err := os.Stat(j("never.npy")); err == nil {
		t.Errorf("a failed expectation still wrote its --dump")
	}
	shape := append(append([]string{}, base...), "--expect", "sbuf:0:0x1400=64x3:fp32:"+j("expect_reduced.npy"))
	if code, _, errb := simCLI(shape...); code != 2 || !strings.Contains(errb, "shape") {
		t.Fatalf("a reference of another shape: exit %d\n%s", code, errb)
	}
}

// TestPrintProgramNamesGen: demo --print-program starts with the .gen line of its generation,
// so the MAVERICK program read back is MAVERICK's (it used to pass as CAYMAN).
func TestPrintProgramNamesGen(t *testing.T) {
	code, out, _ := simCLI("demo", "--print-program", "--gen", "MAVERICK")
	if code != 0 || !strings.Contains(out, "\n.gen MAVERICK\n") {
		t.Fatalf("exit %d, no .gen MAVERICK line", code)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "d.tpb")
	os.WriteFile(p, []byte(out), 0o644)
	if code, _, errb := simCLI("run", p, "--gen", "CAYMAN", "--quiet"); code != 2 || !strings.Contains(errb, "MAVERICK") {
		t.Errorf("run of the MAVERICK text with --gen CAYMAN: exit %d %s", code, errb)
	}
}

// TestBOMAndDevNull: a UTF-8 byte-order mark before a text or JSON program is accepted, and
// -o /dev/null discards the output instead of refusing a device.
func TestBOMAndDevNull(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a.s":    "\xef\xbb\xbfCOPY in=BF16 out=BF16 nac=32 src=sbuf:0:0x0[64@1] dst=sbuf:0:0x1000[64@1]\n",
		"a.json": "\xef\xbb\xbf[{\"opcode\":\"COPY\"}]",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			os.WriteFile(p, []byte(src), 0o644)
			if code, _, errb := simCLI("asm", p, "-o", os.DevNull); code != 0 {
				t.Errorf("asm %s -o /dev/null: exit %d %s", name, code, errb)
			}
		})
	}
}
