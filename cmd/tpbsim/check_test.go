package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeISASrc(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckExitCodes(t *testing.T) {
	valid := writeISASrc(t, "v.s", "STREAM_TRANSPOSE in=BF16 out=BF16 nac=32 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n")
	bin := filepath.Join(t.TempDir(), "v.bin")
	if code, _, e := runISACLI(t, "asm", valid, "-o", bin); code != 0 {
		t.Fatal(e)
	}
	if code, out, _ := runISACLI(t, "check", bin); code != 0 || !strings.Contains(out, "1 words, 1 valid, 0 invalid") {
		t.Fatalf("%d %s", code, out)
	}
	// four words, the fourth breaks has_multiple_32_channels
	src := strings.Repeat("STREAM_TRANSPOSE in=BF16 out=BF16 nac=32 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n", 3) +
		"STREAM_TRANSPOSE in=BF16 out=BF16 nac=48 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n"
	bad := filepath.Join(t.TempDir(), "b.bin")
	if code, _, e := runISACLI(t, "asm", writeISASrc(t, "b.s", src), "-o", bad); code != 0 {
		t.Fatal(e)
	}
	code, out, _ := runISACLI(t, "check", bad)
	want := "word 3 (offset 0xc0) STREAM_TRANSPOSE: has_multiple_32_channels: num_active_channels = 48, legal: 32, 64, 96 or 128 [seed 000 §4.2, common.h:1767, HIGH/OBSERVED]"
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("%d\n%s", code, out)
	}
	// --json
	code, out, _ = runISACLI(t, "check", "--json", bad)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 1 || len(lines) != 4 {
		t.Fatalf("%d\n%s", code, out)
	}
	var w checkWordJSON
	if err := json.Unmarshal([]byte(lines[3]), &w); err != nil || w.Valid || w.Violations[0].Rule != "has_multiple_32_channels" || w.Violations[0].Offset != 34 {
		t.Fatalf("%v %+v", err, w)
	}
	// generation gate: DMA_GATHER_TRANSPOSE does not exist on SUNDA
	gx := filepath.Join(t.TempDir(), "gx.bin")
	os.WriteFile(gx, append([]byte{0xf1, 16}, make([]byte, 62)...), 0o644)
	if code, out, _ := runISACLI(t, "check", "--gen", "SUNDA", gx); code != 1 || !strings.Contains(out, "opcode_on_generation") {
		t.Fatalf("%d %s", code, out)
	}
	// length not a multiple of 64: exit 2, offset named
	short := filepath.Join(t.TempDir(), "s.bin")
	os.WriteFile(short, make([]byte, 64*2+10), 0o644)
	if code, _, e := runISACLI(t, "check", short); code != 2 || !strings.Contains(e, "offset 0x80") {
		t.Fatalf("%d %q", code, e)
	}
	if code, _, _ := runISACLI(t, "check", "--gen", "V9", bin); code != 2 {
		t.Fatal("bad --gen")
	}
	if code, _, _ := runISACLI(t, "check", filepath.Join(t.TempDir(), "nope.bin")); code != 2 {
		t.Fatal("missing file")
	}
	if code, _, _ := runISACLI(t, "check"); code != 2 {
		t.Fatal("no args")
	}
}

func TestCheckHelpNamesDefault(t *testing.T) {
	_, out, _ := runISACLI(t, "check", "--help")
	if !strings.Contains(out, "default CAYMAN") {
		t.Fatal(out)
	}
}

func TestDisasmLengthError(t *testing.T) {
	short := filepath.Join(t.TempDir(), "s.bin")
	os.WriteFile(short, make([]byte, 65), 0o644)
	if code, _, e := runISACLI(t, "disasm", short); code != 2 || !strings.Contains(e, "offset 0x40") {
		t.Fatalf("%d %q", code, e)
	}
}

// check refuses what run refuses before the run: an opcode on a queue that does not execute it
// (opcode_legal_on_engine), and reports a reduce op the model does not compute (POOL's AMAX_INT)
// as unsupported; a source's messages name its file and line.
func TestCheckAgreesWithRun(t *testing.T) {
	sp := writeISASrc(t, "sp.s", ".gen CAYMAN\n.engine SP\nCOPY in=FP32 out=FP32 nac=32 src=sbuf:0:0[32@1] dst=sbuf:0:0x100[32@1]\n")
	code, out, _ := runISACLI(t, "check", sp)
	if code != 1 || !strings.Contains(out, "sp.s:3 COPY: opcode_legal_on_engine: opcode = COPY on the SP queue, legal: on DVE, POOL, ACT") {
		t.Fatalf("SP COPY: exit %d\n%s", code, out)
	}
	// Like every violation, it names its source and confidence (from sim's registry entry).
	if !strings.Contains(out, "ACT [FACTS §D.2") || !strings.Contains(out, "MED/INFERRED]") {
		t.Errorf("engine-check violation without its source and confidence:\n%s", out)
	}
	if code, _, stderr := simCLI("run", sp); code != 1 || !strings.Contains(stderr, "opcode_legal_on_engine") {
		t.Fatalf("run of SP COPY: exit %d %s", code, stderr)
	}
	amax := writeISASrc(t, "amax.s", ".gen CAYMAN\n.engine POOL\n"+
		"TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x200[32@1] in_dtype=INT32 out_dtype=INT32 num_active_channels=32 op=ADD_INT op_dim=X dst_mem_pattern=sbuf:0:0x1200[1@1]\n"+
		"TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x200[32@1] in_dtype=INT32 out_dtype=UINT32 num_active_channels=32 op=AMAX_INT op_dim=X dst_mem_pattern=sbuf:0:0x1300[1@1]\n")
	code, out, _ = runISACLI(t, "check", amax)
	if code != 0 || !strings.Contains(out, "amax.s:4 TENSOR_REDUCE_ARITH_OP: unsupported: rule dve_alu_op_modelled") ||
		!strings.Contains(out, "1 unsupported") {
		t.Fatalf("AMAX_INT: exit %d\n%s", code, out)
	}
	// run refuses it before anything executes: instruction 0 (ADD_INT) does not run either.
	if code, _, stderr := simCLI("run", amax); code != 1 || !strings.Contains(stderr, "nothing was executed") ||
		!strings.Contains(stderr, "POOL instruction 1") || !strings.Contains(stderr, "dve_alu_op_modelled") {
		t.Fatalf("run of AMAX_INT: exit %d %s", code, stderr)
	}
}
