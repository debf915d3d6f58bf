package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/sim"
)

// TestProvenanceRegistryWhole checks the union that `tpbsim explain` prints: ids are unique,
// every entry names its source and confidence, and every INFERRED or INVENTED entry says why.
func TestProvenanceRegistryWhole(t *testing.T) {
	seen := map[string]bool{}
	kinds := map[string]int{}
	for _, p := range allProvenance() {
		if p.ID == "" {
			t.Errorf("entry with no id: %+v", p)
			continue
		}
		if seen[p.ID] {
			t.Errorf("%s: registered twice", p.ID)
		}
		seen[p.ID] = true
		if p.Kind != "rule" && p.Kind != "behaviour" {
			t.Errorf("%s: kind %q, want rule or behaviour", p.ID, p.Kind)
		}
		if strings.TrimSpace(p.Source) == "" || strings.TrimSpace(p.Text) == "" {
			t.Errorf("%s: missing source or text", p.ID)
		}
		switch p.Confidence.Kind {
		case "OBSERVED", "CARRIED":
		case "INFERRED", "INVENTED":
			if strings.TrimSpace(p.Reason) == "" {
				t.Errorf("%s: %s entry without a reason", p.ID, p.Confidence)
			}
		default:
			t.Errorf("%s: confidence kind %q", p.ID, p.Confidence.Kind)
		}
		switch p.Confidence.Level {
		case "HIGH", "MED", "LOW":
		default:
			t.Errorf("%s: confidence level %q", p.ID, p.Confidence.Level)
		}
		kinds[strings.SplitN(p.ID, ".", 2)[0]]++
	}
	// Every modelling package contributes behaviour entries.
	for _, pkg := range []string{"num", "mem", "dve", "dma", "dge", "sim", "ucode", "isa"} {
		if kinds[pkg] == 0 {
			t.Errorf("no provenance entries with the %q prefix", pkg)
		}
	}
}

func TestExplainFindsBehavioursOfEveryPackage(t *testing.T) {
	for _, id := range []string{"num.cast.via_fp32"} {
		var out, errb strings.Builder
		if code := run([]string{"explain", id}, &out, &errb); code != 0 {
			t.Fatalf("explain %s: exit %d: %s", id, code, errb.String())
		}
		if !strings.Contains(out.String(), id) {
			t.Errorf("explain %s printed %q", id, out.String())
		}
	}
}

// runtimeRuleIDs is every rule id a run, a plan or the executors can print: the machine's list
// (which includes isa.Validate's, the DVE executor's, the DGE's, the DMA engines' and the memory's).
func runtimeRuleIDs() []string {
	var out []string
	out = append(out, sim.RuleIDs()...)
	out = append(out, mem.RuleIDs()...)
	out = append(out, dve.RuleIDs()...)
	out = append(out, dma.RuleIDs()...)
	return append(out, dge.RuleIDs()...)
}

// Every rule id the runtime can put in an error is one `tpbsim explain` knows (exit 0).
func TestExplainKnowsEveryRuntimeRule(t *testing.T) {
	for _, id := range runtimeRuleIDs() {
		var out, errb strings.Builder
		if code := run([]string{"explain", id}, &out, &errb); code != 0 {
			t.Errorf("explain %s: exit %d: %s", id, code, errb.String())
			continue
		}
		if !strings.HasPrefix(out.String(), id+" (") {
			t.Errorf("explain %s printed %q", id, out.String())
		}
	}
}

// ruleLiteral finds rule ids written as string literals where the runtime builds its errors;
// each must be in the packages' RuleIDs lists (and so known to explain).
var ruleLiteral = []*regexp.Regexp{
	regexp.MustCompile(`Rule:\s*"([^"]+)"`),
	regexp.MustCompile(`\berrf\([^,()]+,\s*"([^"]+)"`),
	regexp.MustCompile(`\bfail\([^,()]+,\s*[^,()]+,\s*"([^"]+)"`),
	regexp.MustCompile(`\b(?:reqErr|unsupErr)\(\s*"([^"]+)"`),
	regexp.MustCompile(`\binstErr\([^,()]+,[^,()]+,[^,()]+,\s*"([^"]+)"`),
}

func TestRuntimeRuleLiteralsAreListed(t *testing.T) {
	known := map[string]bool{}
	for _, id := range runtimeRuleIDs() {
		known[id] = true
	}
	for _, dir := range []string{"sim", "dma", "mem", "dve", "dge"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if len(files) == 0 {
			t.Fatalf("no sources in %s", dir)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, re := range ruleLiteral {
				for _, m := range re.FindAllStringSubmatch(string(src), -1) {
					if !known[m[1]] {
						t.Errorf("%s: rule %q is in no RuleIDs list", f, m[1])
					}
				}
			}
		}
	}
}

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
		code, _, stderr := simCLI("dge", sub, "--src", "hbm:0", "--shape", "64,64", "--dst", "hbm:0x10", "--dtype", "bf16")
		if code != 1 || !strings.Contains(stderr, "dge_src_dst_disjoint") {
			t.Errorf("dge %s overlapping: exit %d\n%s", sub, code, stderr)
		}
	}
	if code, _, stderr := simCLI("dge", "run", "--src", "hbm:0", "--shape", "64,64", "--dst", "hbm:0", "--dtype", "bf16", "--verify"); code != 0 {
		t.Errorf("dge run identical copy: exit %d\n%s", code, stderr)
	}
}
