package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

const pingpong = "../../testdata/sim/pingpong.tpb" // DVE and ACT queues; ACT runs a CAST (a DVE opcode)

// A .bin has no engine queues: asm still writes the words of a source whose queues it loses (the
// CAST of pingpong's ACT queue would run on DVE, and the program deadlock: DESIGN.md §7 asm turns
// any source into its bytes) and warns, naming the line and how to keep the queues.
func TestAsmBinWarnsLostQueues(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "pp.bin")
	code, _, stderr := runISACLI(t, "asm", pingpong, "-o", bin)
	if code != 0 || !strings.Contains(stderr, "warning: ") ||
		!strings.Contains(stderr, "pingpong.tpb:8: engine: CAST is on the ACT queue, but a bare .bin has no engine queues") ||
		!strings.Contains(stderr, "disasm --json") || !strings.Contains(stderr, ".s/.tpb") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if fi, err := os.Stat(bin); err != nil || fi.Size() != 3*isa.InstNBytes {
		t.Fatalf("the .bin was not written whole: %v %v", fi, err)
	}
	// The JSON form carries the queue: the same warning from it.
	js := filepath.Join(dir, "pp.json")
	os.WriteFile(js, []byte(`{"engine":"ACT","opcode":"CAST"}`+"\n"), 0o644)
	if code, _, stderr := runISACLI(t, "asm", js, "-o", bin); code != 0 || !strings.Contains(stderr, "pp.json:1: engine: CAST is on the ACT queue") ||
		!strings.Contains(stderr, "run "+js+" itself") {
		t.Fatalf("JSON: exit %d: %s", code, stderr)
	}
	// Several queues, each instruction on its opcode's own engine, lose nothing: no warning.
	src := writeISASrc(t, "q.s", ".engine SP\nDMAMEMCPY\n.engine DVE\nCOPY nac=32\n")
	if code, _, stderr := runISACLI(t, "asm", src, "-o", bin); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("default queues: exit %d: %s", code, stderr)
	}
}

// disasm of a source prints each instruction's queue (an "engine" key in JSON, .engine lines in
// text), so both forms run like the source; a .bin's words print their opcode's engine.
func TestDisasmKeepsQueues(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := simCLI("run", pingpong, "--quiet"); code != 0 {
		t.Fatalf("source: exit %d: %s", code, stderr)
	}
	code, js, stderr := runISACLI(t, "disasm", "--json", pingpong)
	if code != 0 || strings.Count(js, `"engine":"DVE"`) != 2 || strings.Count(js, `"engine":"ACT"`) != 1 {
		t.Fatalf("disasm --json: exit %d %s\n%s", code, stderr, js)
	}
	code, text, _ := runISACLI(t, "disasm", pingpong)
	if code != 0 || !strings.Contains(text, ".engine ACT\nCAST ") {
		t.Fatalf("disasm: exit %d\n%s", code, text)
	}
	for name, data := range map[string]string{"pp.json": js, "pp.s": text} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		if code, _, stderr := simCLI("run", p, "--quiet"); code != 0 {
			t.Errorf("run %s: exit %d: %s", name, code, stderr)
		}
	}
	bin := filepath.Join(dir, "ex.bin")
	if code, _, stderr := runISACLI(t, "asm", "../../testdata/asm/example.s", "-o", bin); code != 0 {
		t.Fatal(stderr)
	}
	code, js, _ = runISACLI(t, "disasm", "--json", bin)
	if code != 0 || !strings.HasPrefix(js, `{"word":0,"offset":"0x0","engine":"SP","gen":"CAYMAN","opcode":"DMAMEMCPY"`) {
		t.Fatalf("disasm --json of a .bin: %d\n%s", code, js)
	}
	if _, text, _ := runISACLI(t, "disasm", bin); strings.Contains(text, ".engine") {
		t.Errorf("a .bin printed .engine lines:\n%s", text)
	}
}

// Every command reads every program form the same way: .tpb (testdata/sim, demo --export),
// .s, .json and .bin; binary content under a text name is refused as binary.
func TestProgramFormsEveryCommand(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := simCLI("demo", "--export", dir); code != 0 {
		t.Fatal(stderr)
	}
	demo := filepath.Join(dir, "demo.tpb")
	_, js, _ := runISACLI(t, "disasm", "--json", demo)
	demoJSON := filepath.Join(dir, "demo.json")
	os.WriteFile(demoJSON, []byte(js), 0o644)
	one := writeISASrc(t, "one.tpb", "STREAM_TRANSPOSE in=BF16 out=BF16 nac=32 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n")
	for _, f := range []string{demo, demoJSON, pingpong, one} {
		if code, out, stderr := runISACLI(t, "check", f); code != 0 || !strings.Contains(out, "valid, 0 invalid") {
			t.Errorf("check %s: exit %d %s %s", f, code, out, stderr)
		}
		if code, _, stderr := runISACLI(t, "disasm", f); code != 0 {
			t.Errorf("disasm %s: exit %d %s", f, code, stderr)
		}
	}
	oneBin := filepath.Join(dir, "one.bin")
	if code, _, stderr := runISACLI(t, "asm", one, "-o", oneBin); code != 0 {
		t.Fatalf("asm .tpb: exit %d %s", code, stderr)
	}
	words, _ := os.ReadFile(oneBin)
	// Words under a text name: every command says the file looks binary.
	for _, name := range []string{"w.s", "w.tpb", "w.json", "w.asm"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, words, 0o644)
		for _, args := range [][]string{{"check", p}, {"disasm", p}, {"asm", p, "-o", filepath.Join(dir, "o.bin")}, {"run", p}} {
			code, _, stderr := runISACLI(t, args...)
			if code != 2 || !strings.Contains(stderr, name+" looks binary") || !strings.Contains(stderr, ".bin") {
				t.Errorf("%v: exit %d: %s", args, code, stderr)
			}
		}
	}
	// Text under .bin: the length error says it looks like text.
	txt := filepath.Join(dir, "t.bin")
	os.WriteFile(txt, []byte("COPY nac=32\n"), 0o644)
	if code, _, stderr := runISACLI(t, "check", txt); code != 2 || !strings.Contains(stderr, "looks like text") {
		t.Errorf("text .bin: exit %d: %s", code, stderr)
	}
	// No extension: words by content for every command.
	noext := filepath.Join(dir, "prog")
	os.WriteFile(noext, words, 0o644)
	for _, args := range [][]string{{"check", noext}, {"disasm", noext}, {"run", noext, "--quiet"}} {
		if code, _, stderr := runISACLI(t, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// Conflicting .gen lines are a usage error naming the second one, for every command.
func TestConflictingGenLinesCLI(t *testing.T) {
	p := writeISASrc(t, "g2.s", ".gen MAVERICK\n.gen SUNDA\n.engine DVE\nCOPY in=FP32 out=FP32 nac=32 src=sbuf:0:0x1000[4@1] dst=sbuf:0:0x2000[4@1]\n")
	for _, args := range [][]string{{"run", p}, {"check", p}, {"disasm", p}, {"asm", p, "-o", p + ".bin"}} {
		code, _, stderr := runISACLI(t, args...)
		if code != 2 || !strings.Contains(stderr, "g2.s:2: .gen SUNDA contradicts .gen MAVERICK (line 1)") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// run of a source needs every instruction on a queue, in text and in JSON alike.
func TestRunSourceNeedsEngines(t *testing.T) {
	var none isa.Opcode
	for _, op := range isa.AllOpcodes {
		if op.Engine() == isa.EngineNone {
			none = op
			break
		}
	}
	for name, src := range map[string]string{
		"n.s":    fmt.Sprintf("COPY nac=32\n%d\n", none),
		"n.json": fmt.Sprintf("{\"opcode\":\"COPY\"}\n{\"opcode\":%d}\n", none),
	} {
		code, _, stderr := simCLI("run", writeISASrc(t, name, src))
		if code != 2 || !strings.Contains(stderr, name+":2: opcode:") || !strings.Contains(stderr, "has no default engine") {
			t.Errorf("%s: exit %d: %s", name, code, stderr)
		}
	}
}

// A word on no queue after an .engine section prints as ".engine none", which closes the section,
// so the text assembles back to the same words and queues.
func TestDisasmEngineNoneRoundTrip(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "m.json")
	os.WriteFile(js, []byte(`{"gen":"CAYMAN","engine":"ACT","opcode":"CAST"}`+"\n"+`{"gen":"CAYMAN","opcode":"0x3f"}`+"\n"), 0o644)
	code, text, stderr := runISACLI(t, "disasm", js)
	if code != 0 || !strings.Contains(text, ".engine ACT\n") || !strings.Contains(text, ".engine none\n") {
		t.Fatalf("disasm: exit %d %s\n%s", code, stderr, text)
	}
	s := filepath.Join(dir, "m.s")
	os.WriteFile(s, []byte(text), 0o644)
	a, b := filepath.Join(dir, "a.bin"), filepath.Join(dir, "b.bin")
	if code, _, stderr := runISACLI(t, "asm", js, "-o", a); code != 0 {
		t.Fatalf("asm json: %d %s", code, stderr)
	}
	if code, _, stderr := runISACLI(t, "asm", s, "-o", b); code != 0 {
		t.Fatalf("asm of the disassembly: %d %s", code, stderr)
	}
	wa, _ := os.ReadFile(a)
	wb, _ := os.ReadFile(b)
	if string(wa) != string(wb) || len(wa) != 2*isa.InstNBytes {
		t.Fatal("the disassembly does not assemble to the same words")
	}
	if code, js2, _ := runISACLI(t, "disasm", "--json", s); code != 0 || !strings.Contains(js2, `"engine":"ACT"`) || strings.Count(js2, `"engine"`) != 1 {
		t.Fatalf("queues not kept through the text: %s", js2)
	}
}
