package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// summaryOf decodes a --summary file and checks the keys tools outside the repository read.
func summaryOf(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("summary is not JSON: %v\n%s", err, data)
	}
	if _, ok := s["end_ns"].(float64); !ok {
		t.Fatalf("summary lacks end_ns: %s", data)
	}
	engs, _ := s["engines"].([]any)
	if len(engs) == 0 {
		t.Fatalf("summary lacks engines: %s", data)
	}
	for _, e := range engs {
		o := e.(map[string]any)
		for _, k := range []string{"engine", "instructions", "busy_ns", "wait_ns", "idle_ns"} {
			if _, ok := o[k]; !ok {
				t.Errorf("engine object %v lacks %q", o, k)
			}
		}
	}
	if b, _ := s["bottleneck"].(string); !strings.Contains(b, "-bound") {
		t.Errorf("bottleneck %q", b)
	}
	return s
}

func engineNames(s map[string]any) []string {
	var out []string
	for _, e := range s["engines"].([]any) {
		out = append(out, e.(map[string]any)["engine"].(string))
	}
	return out
}

func TestRunSummaryAndTiming(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join("..", "..", "testdata", "sim", "dma_then_transpose.tpb")
	sum := filepath.Join(dir, "s.json")
	code, _, errb := simCLI("run", prog, "--summary", sum, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	data, _ := os.ReadFile(sum)
	s := summaryOf(t, data)
	names := strings.Join(engineNames(s), " ")
	for _, want := range []string{"DVE", "SP", "DMA0"} {
		if !strings.Contains(names, want) {
			t.Errorf("engines %s lack %s", names, want)
		}
	}
	end := s["end_ns"].(float64)

	// --timing: a partial file changes the times; explain timing --json's form reads back
	slow := filepath.Join(dir, "slow.json")
	os.WriteFile(slow, []byte(`{"dma.bytes_per_ns": 2, "dma.sem_to_start_ns": 5000}`), 0o644)
	code, out, errb := simCLI("run", prog, "--timing", slow, "--summary", "-", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if s2 := summaryOf(t, []byte(out)); s2["end_ns"].(float64) <= end+5000 {
		t.Errorf("end %v with the slow DMA, %v without", s2["end_ns"], end)
	}
	code, defaults, _ := simCLI("explain", "timing", "--json")
	if code != 0 {
		t.Fatal("explain timing --json")
	}
	all := filepath.Join(dir, "all.json")
	os.WriteFile(all, []byte(defaults), 0o644)
	code, out, errb = simCLI("run", prog, "--timing", all, "--summary", "-", "--quiet")
	if code != 0 || summaryOf(t, []byte(out))["end_ns"].(float64) != end {
		t.Errorf("the defaults' JSON should give the default times: exit %d %s", code, errb)
	}

	for _, c := range []struct{ name, file, want string }{
		{"unknown key", `{"dma.bytes_per_nss": 1}`, `"dma.bytes_per_nss"`},
		{"other generation", `{"gen": "SUNDA"}`, `"gen"`},
		{"negative", `{"dge.issue_ns": -5}`, `"dge.issue_ns"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, "bad.json")
			os.WriteFile(f, []byte(c.file), 0o644)
			out := filepath.Join(dir, "none.json")
			code, _, errb := simCLI("run", prog, "--timing", f, "--summary", out)
			if code != 2 || !strings.Contains(errb, c.want) {
				t.Errorf("exit %d, stderr %q: want 2 naming %s", code, errb, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused run wrote its summary")
			}
		})
	}
	if code, _, _ := simCLI("run", prog, "--trace", "-", "--summary", "-"); code != 2 {
		t.Errorf("--trace - with --summary -: exit %d, want 2", code)
	}
}

func TestDemoAndDGERunSummary(t *testing.T) {
	dir := t.TempDir()
	code, out, errb := simCLI("demo", "--no-trace", "--summary", "-")
	if code != 0 {
		t.Fatalf("demo exit %d: %s", code, errb)
	}
	s := summaryOf(t, []byte(out))
	if !strings.Contains(errb, "demo verified") {
		t.Errorf("the report should go to stderr with --summary -: %q", errb)
	}
	if names := strings.Join(engineNames(s), " "); !strings.Contains(names, "POOL") || !strings.Contains(names, "ACT") {
		t.Errorf("demo engines %s", names)
	}
	sum := filepath.Join(dir, "dge.json")
	code, out, errb = simCLI("dge", "run", "--src", "hbm:0x0", "--shape", "4,4096", "--dst", "sbuf:0:0", "--dtype", "BFLOAT16", "--summary", sum)
	if code != 0 {
		t.Fatalf("dge run exit %d: %s", code, errb)
	}
	data, _ := os.ReadFile(sum)
	s = summaryOf(t, data)
	if names := engineNames(s); len(names) != 1 || names[0] != "DMA0" {
		t.Errorf("the [4, 4096] load is carried by %v, want DMA0 alone", names)
	}
	if !strings.Contains(out, "carried by 1 engine(s)") {
		t.Errorf("dge run output %q", out)
	}
}

func TestExplainTiming(t *testing.T) {
	code, out, _ := simCLI("explain", "timing")
	if code != 0 || !strings.Contains(out, "dma.bytes_per_ns") || !strings.Contains(out, "MAVERICK 66*") {
		t.Errorf("explain timing: exit %d\n%s", code, out)
	}
	code, out, _ = simCLI("explain", "timing", "--json", "--gen", "SUNDA")
	var flat map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &flat) != nil || flat["gen"] != "SUNDA" || flat["clock.dve_ghz"] != 1.12 {
		t.Errorf("explain timing --json --gen SUNDA: exit %d\n%s", code, out)
	}
	if code, _, _ := simCLI("explain", "timing.dge.issue_ns"); code != 0 {
		t.Errorf("explain timing.dge.issue_ns: exit %d", code)
	}
	if code, _, _ := simCLI("explain", "rules", "--json"); code != 2 {
		t.Errorf("explain rules --json: exit %d, want 2", code)
	}
}

// A run that stops (here a deadlock) still writes its summary, up to the stop.
func TestRunStoppedWritesSummary(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "s.json")
	prog := filepath.Join(dir, "p.tpb")
	os.WriteFile(prog, []byte(`.engine DVE
COPY src_mem_pattern=sbuf:0:0x0[512@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x1000[512@1]
.engine ACT
COPY wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=2 semaphore_value=1 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x200[32@1]
`), 0o644)
	code, _, errb := simCLI("run", prog, "--summary", sum)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (deadlock): %s", code, errb)
	}
	data, err := os.ReadFile(sum)
	if err != nil {
		t.Fatalf("no summary after the stop: %v", err)
	}
	s := summaryOf(t, data)
	var waited float64
	for _, e := range s["engines"].([]any) {
		waited += e.(map[string]any)["wait_ns"].(float64)
	}
	if waited == 0 {
		t.Errorf("a deadlocked run's summary shows no waiting: %s", data)
	}
}
