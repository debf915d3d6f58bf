package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runISACLI runs the CLI in-process and returns the exit code, stdout and stderr.
func runISACLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestAsmDisasmRoundTrip(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ex.bin")
	if code, _, stderr := runISACLI(t, "asm", "../../testdata/asm/example.s", "-o", bin); code != 0 {
		t.Fatalf("asm: %d %s", code, stderr)
	}
	orig, err := os.ReadFile(bin)
	if err != nil || len(orig) != 5*64 {
		t.Fatalf("%v, %d bytes", err, len(orig))
	}
	// text: disasm -> asm gives the same bytes
	code, text, _ := runISACLI(t, "disasm", bin)
	if code != 0 || !strings.Contains(text, "STREAM_TRANSPOSE") || !strings.Contains(text, "# word 1 @0x40") {
		t.Fatalf("disasm: %d\n%s", code, text)
	}
	s := filepath.Join(dir, "back.s")
	os.WriteFile(s, []byte(text), 0o644)
	bin2 := filepath.Join(dir, "back.bin")
	if code, _, stderr := runISACLI(t, "asm", s, "-o", bin2); code != 0 {
		t.Fatalf("asm back: %s", stderr)
	}
	if b, _ := os.ReadFile(bin2); !bytes.Equal(b, orig) {
		t.Fatal("text round trip differs")
	}
	// JSON: disasm --json -> asm gives the same bytes
	code, js, _ := runISACLI(t, "disasm", "--json", bin)
	if code != 0 || !strings.HasPrefix(js, `{"word":0,"offset":"0x0","opcode":"DMAMEMCPY"`) {
		t.Fatalf("disasm --json: %d\n%s", code, js)
	}
	j := filepath.Join(dir, "back.json")
	os.WriteFile(j, []byte(js), 0o644)
	bin3 := filepath.Join(dir, "back3.bin")
	if code, _, stderr := runISACLI(t, "asm", j, "-o", bin3); code != 0 {
		t.Fatalf("asm json: %s", stderr)
	}
	if b, _ := os.ReadFile(bin3); !bytes.Equal(b, orig) {
		t.Fatal("JSON round trip differs")
	}
}

func TestAsmErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.s")
	os.WriteFile(bad, []byte("COPY nac=32\nCOPY nac=999\n"), 0o644)
	out := filepath.Join(dir, "out.bin")
	code, _, stderr := runISACLI(t, "asm", bad, "-o", out)
	if code != 2 || !strings.Contains(stderr, "bad.s:2: num_active_channels: 999 out of range") {
		t.Fatalf("%d %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output written despite the error")
	}
	if code, _, _ := runISACLI(t, "asm", bad); code != 2 {
		t.Fatalf("missing -o: %d", code)
	}
	good := filepath.Join(dir, "good.s")
	os.WriteFile(good, []byte("COPY nac=32\n"), 0o644)
	if code, _, _ := runISACLI(t, "asm", good, "-o", filepath.Join(dir, "no/such/dir/x.bin")); code != 2 {
		t.Fatalf("unwritable output: %d", code)
	}
	if code, _, _ := runISACLI(t, "asm", filepath.Join(dir, "missing.s"), "-o", out); code != 2 {
		t.Fatalf("missing input: %d", code)
	}
	// nothing but the output appears in the directory (the temp file is gone)
	if code, _, _ := runISACLI(t, "asm", good, "-o", out); code != 0 {
		t.Fatal("asm good")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
}

// A single-line JSON array: the error names the instruction's index, not only file:1, and the
// output is not written.
func TestAsmJSONSingleLineIndex(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "one.json")
	ok := `{"opcode":"COPY"}`
	os.WriteFile(in, []byte(`[`+ok+`,`+ok+`,`+ok+`,{"opcode":"COPY","in_dtype":"NOPE"}]`), 0o644)
	out := filepath.Join(dir, "out.bin")
	code, _, stderr := runISACLI(t, "asm", in, "-o", out)
	if code != 2 || !strings.Contains(stderr, in+`:1: instruction 3: in_dtype: unknown dtype "NOPE"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written for bad input")
	}
}
