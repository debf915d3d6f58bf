package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check and run agree on DMA_TRANSPOSE (0xBD) on SUNDA: both report opcode_on_generation, and
// the choice is registered.
func TestDMATransposeSUNDACheckAndRunAgree(t *testing.T) {
	dir := t.TempDir()
	s := filepath.Join(dir, "x.s")
	os.WriteFile(s, []byte("DMA_TRANSPOSE in_dtype=BFLOAT16 out_dtype=BFLOAT16 tile_src_rows=16 tile_src_cols=128\n"), 0o644)
	var out, errb strings.Builder
	if code := run([]string{"check", s, "--gen", "SUNDA"}, &out, &errb); code != 1 || !strings.Contains(out.String(), "opcode_on_generation") {
		t.Errorf("check --gen SUNDA: exit %d\n%s%s", code, out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	// On CAYMAN the opcode exists; this word's src and dst are both address 0, which run refuses
	// (dge_src_dst_disjoint) and check, making the DGE's checks, reports too.
	if code := run([]string{"check", s, "--gen", "CAYMAN"}, &out, &errb); code != 1 || strings.Contains(out.String(), "opcode_on_generation") ||
		!strings.Contains(out.String(), "dge_src_dst_disjoint") {
		t.Errorf("check --gen CAYMAN: exit %d\n%s%s", code, out.String(), errb.String())
	}
	code, _, stderr := simCLI("run", filepath.Join("..", "..", "testdata", "sim", "dma_transpose_sunda.tpb"), "--quiet")
	if code != 1 || !strings.Contains(stderr, "rule opcode_on_generation") {
		t.Errorf("run on SUNDA: exit %d\n%s", code, stderr)
	}
	out.Reset()
	if code := run([]string{"explain", "dge.dma_transpose_generations"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "INFERRED") {
		t.Errorf("explain dge.dma_transpose_generations: exit %d %q", code, out.String())
	}
}

// An uninitialised DMA read names read_initialised and its address, not a failed bounds check.
func TestRunUninitDMAReadRule(t *testing.T) {
	dir := t.TempDir()
	if code, _, stderr := simCLI("demo", "--export", dir); code != 0 {
		t.Fatalf("demo --export: exit %d: %s", code, stderr)
	}
	code, _, stderr := simCLI("run", filepath.Join(dir, "demo.tpb"), "--check-uninit", "--quiet")
	if code != 1 || !strings.Contains(stderr, "rule read_initialised") || strings.Contains(stderr, "Failed bounds check") ||
		!strings.Contains(stderr, "read of uninitialised memory at 0x") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}

// Overlapping source and destination: dge plan and dge run refuse the request (exit 1, rule
// dge_src_dst_disjoint); an identical copy is a no-op and passes.
func TestDGEOverlapRefused(t *testing.T) {
	for _, sub := range []string{"plan", "run"} {
		t.Run(sub, func(t *testing.T) {
			code, _, stderr := simCLI("dge", sub, "--src", "hbm:0", "--shape", "64,64", "--dst", "hbm:0x10", "--dtype", "bf16")
			if code != 1 || !strings.Contains(stderr, "dge_src_dst_disjoint") {
				t.Errorf("dge %s overlapping: exit %d\n%s", sub, code, stderr)
			}
		})
	}
	if code, _, stderr := simCLI("dge", "run", "--src", "hbm:0", "--shape", "64,64", "--dst", "hbm:0", "--dtype", "bf16", "--verify"); code != 0 {
		t.Errorf("dge run identical copy: exit %d\n%s", code, stderr)
	}
}
