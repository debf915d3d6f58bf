package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/sim"
)

func dgeCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDgePlanText(t *testing.T) {
	code, out, errs := dgeCLI("dge", "plan", "--src", "hbm:0x1000", "--shape", "256,64", "--dst", "sbuf:0:0", "--perm", "1,0", "--dtype", "bf16")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"XBAR_TRANSPOSE", "S: tensor_reshape_transpose: tile_src_rows=16 tile_src_cols=128 dtype_size=2",
		"S: DGE Reshape: Analyzed tensor (nelem_target = 16384", "S: push REGWRITE to DMA[0]", "S: push DIMPUSH to DMA[", "fan-out:"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q\n%s", want, out)
		}
	}
}

func TestDgePlanJSON(t *testing.T) {
	code, out, errs := dgeCLI("dge", "plan", "--src", "hbm:0", "--shape", "1048576", "--dst", "hbm:0x10000000", "--dtype", "uint8", "--json", "--gen", "MAVERICK")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var p dge.PlanJSON
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	if p.NumDMA != 8 || p.Descriptors != 8 || p.KindName != "DIRECT2D" || !p.Simple {
		t.Fatalf("MAVERICK contiguous copy: %+v", p)
	}
	for _, l := range p.Log {
		if strings.Contains(l, "REGWRITE") {
			t.Fatalf("MAVERICK has no REGWRITE: %s", l)
		}
	}
}

func TestDgeRunVerifyAndExitCodes(t *testing.T) {
	for _, gen := range []string{"SUNDA", "CAYMAN", "MARIANA", "MARIANA_PLUS", "MAVERICK"} {
		t.Run(gen, func(t *testing.T) {
			code, out, errs := dgeCLI("dge", "run", "--gen", gen, "--src", "hbm:0x1000", "--shape", "32,8,48", "--dst", "sbuf:0:64", "--perm", "2,1,0", "--dtype", "fp16", "--verify")
			if code != 0 || !strings.Contains(out, "matches") {
				t.Fatalf("%s: exit %d: %s %s", gen, code, out, errs)
			}
		})
	}
	// the destination (or source) rows pass the partition's active area: refused before planning
	// on every generation, also where the active area fills the whole partition stride
	for _, args := range [][]string{
		{"--src", "hbm:0", "--shape", "2,200000", "--dst", "sbuf:0:0", "--dtype", "bf16"},
		{"--gen", "MARIANA", "--src", "hbm:0x0", "--dst", "sbuf:0:0", "--dtype", "int64", "--shape", "17,33024", "--verify"},
		{"--gen", "MARIANA_PLUS", "--src", "sbuf:0:0", "--dst", "hbm:0x0", "--dtype", "int64", "--shape", "17,33024", "--verify"},
		{"--gen", "MARIANA", "--src", "hbm:0x0", "--dst", "sbuf:0:0", "--shape", "129,17,16,16", "--perm", "1,3,0,2", "--dtype", "bf16", "--out-dtype", "int64"},
		{"--gen", "CAYMAN", "--src", "hbm:0x0", "--dst", "sbuf:3:0x100", "--dtype", "uint8", "--shape", "2,229121"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errs := dgeCLI(append([]string{"dge", "run"}, args...)...)
			if code != 1 || !strings.Contains(errs, "dge_row_in_partition") {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
		})
	}
	// a tensor whose first axis passes the partitions breaks a rule
	if code, _, _ := dgeCLI("dge", "plan", "--src", "hbm:0", "--shape", "32,256", "--dst", "sbuf:0:0", "--perm", "1,0", "--dtype", "bf16"); code != 1 {
		t.Fatalf("partition overflow: exit %d", code)
	}
	// usage
	if code, _, _ := dgeCLI("dge", "plan", "--src", "hbm:0"); code != 2 {
		t.Fatalf("missing flags: exit %d", code)
	}
	if code, _, _ := dgeCLI("dge", "plan", "--src", "nowhere:1", "--dst", "hbm:0", "--shape", "4", "--dtype", "fp32"); code != 2 {
		t.Fatalf("bad address: exit %d", code)
	}
	// SUNDA transpose says it falls back
	_, out, _ := dgeCLI("dge", "plan", "--gen", "SUNDA", "--src", "hbm:0", "--shape", "16,128", "--dst", "sbuf:0:0", "--perm", "1,0", "--dtype", "bf16")
	if !strings.Contains(out, "SUNDA has no transpose descriptor") {
		t.Fatalf("SUNDA fallback note missing:\n%s", out)
	}
}

func TestDgeRequestJSONAndLoadDump(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	os.WriteFile(req, []byte(`{"gen":"MARIANA","src":"hbm:0x2000","dst":"sbuf:4:0","shape":[4,3,2],"perm":[2,1,0],"dtype":"int32","semaphore":7,"sem_increment":2}`), 0o644)
	in := filepath.Join(dir, "in.npy")
	data := make([]byte, 4*24)
	for i := 0; i < 24; i++ {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i))
	}
	writeNPY(t, in, "i4", []int{4, 3, 2}, data)
	outp := filepath.Join(dir, "out.npy")
	trace := filepath.Join(dir, "trace.json")
	code, out, errs := dgeCLI("dge", "run", "--request", req, "--load", "hbm:0x2000="+in, "--dump", "sbuf:4:0=2x3x4:int32:"+outp, "--verify", "--trace", trace)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if !strings.Contains(out, "semaphore 7 += ") {
		t.Fatalf("no semaphore update reported:\n%s", out)
	}
	a, err := sim.ReadNPY(outp)
	if err != nil {
		t.Fatal(err)
	}
	// out[k][j][i] = in[i][j][k] = i*6 + j*2 + k
	for k := 0; k < 2; k++ {
		for j := 0; j < 3; j++ {
			for i := 0; i < 4; i++ {
				got := binary.LittleEndian.Uint32(a.Data[4*(k*12+j*4+i):])
				if got != uint32(i*6+j*2+k) {
					t.Fatalf("out[%d][%d][%d] = %d", k, j, i, got)
				}
			}
		}
	}
	tb, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	// Trace Event Format as run writes it: a named process, DMAi tracks, every slice with ts
	// and dur.
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(tb, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	var procNamed, trackNamed bool
	slices := 0
	for _, e := range doc.TraceEvents {
		switch e["ph"] {
		case "M":
			args, _ := e["args"].(map[string]any)
			procNamed = procNamed || e["name"] == "process_name"
			trackNamed = trackNamed || (e["name"] == "thread_name" && args["name"] == "DMA0")
		case "X":
			slices++
			if _, ok := e["dur"]; !ok {
				t.Errorf("slice without dur: %v", e)
			}
			if _, ok := e["ts"]; !ok {
				t.Errorf("slice without ts: %v", e)
			}
		}
	}
	if !procNamed || !trackNamed || slices == 0 {
		t.Errorf("trace: process named %v, DMA0 track named %v, %d slices", procNamed, trackNamed, slices)
	}
}

// TestDgeRequestFlagMixing: with --request only --gen (which overrides the file's gen) and output
// flags may be given; any other request flag is a usage error naming it. A view's base may be a
// JSON number.
func TestDgeRequestFlagMixing(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "r.json")
	body := `{"gen":"CAYMAN","src_view":{"base":0,"elem_size":2,"num_elem":[512,4],"step_elem":[1,512]},` +
		`"dst_view":{"base":"hbm:0x10000","elem_size":2,"num_elem":[512,4],"step_elem":[1,512]},"dmas":2}`
	if err := os.WriteFile(req, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := dgeCLI("dge", "plan", "--request", req, "--json")
	if code != 0 || !strings.Contains(out, `"num_dma": 2`) {
		t.Fatalf("numeric base: exit %d: %s %s", code, out, errs)
	}
	if code, out, errs := dgeCLI("dge", "run", "--request", req, "--gen", "MARIANA", "--verify"); code != 0 || !strings.Contains(out, "MARIANA") {
		t.Fatalf("--gen override: exit %d: %s %s", code, out, errs)
	}
	for _, fl := range [][]string{{"--dmas", "4"}, {"--shape", "4"}, {"--perm", "0"}, {"--dma-cfg", "0x3"}, {"--carveout-cfg", "0"},
		{"--src", "hbm:0"}, {"--dst", "hbm:0"}, {"--dtype", "bf16"}, {"--out-dtype", "fp32"}, {"--compute-op", "ADD"}} {
		t.Run(fl[0], func(t *testing.T) {
			code, _, errs := dgeCLI(append([]string{"dge", "plan", "--request", req}, fl...)...)
			if code != 2 || !strings.Contains(errs, fl[0]) {
				t.Errorf("--request with %v: exit %d: %s", fl, code, errs)
			}
		})
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"src":"hbm:0","dst":"hbm:0x1000","shape":[64],"dtype":"uint8","carveout_cfg":"0x100000000"}`), 0o644)
	if code, _, errs := dgeCLI("dge", "plan", "--request", bad); code != 2 || !strings.Contains(errs, "32 bits") {
		t.Fatalf("33-bit carveout_cfg in JSON: exit %d: %s", code, errs)
	}
}

// TestDgeConfigRegisters32Bit: MEMCOPY_DMA_CFG and MEMCOPY_CARVEOUT_CFG are 32-bit registers.
func TestDgeConfigRegisters32Bit(t *testing.T) {
	base := []string{"dge", "plan", "--src", "hbm:0", "--dst", "hbm:0x10000", "--shape", "64", "--dtype", "uint8"}
	for _, fl := range []string{"--carveout-cfg", "--dma-cfg"} {
		t.Run(fl, func(t *testing.T) {
			code, _, errs := dgeCLI(append(base, fl, "0x100000000")...)
			if code != 2 || !strings.Contains(errs, fl) || !strings.Contains(errs, "32 bits") {
				t.Errorf("%s 0x100000000: exit %d: %s", fl, code, errs)
			}
			if code, _, errs := dgeCLI(append(base, fl, "0xffff0001")...); code != 0 {
				t.Errorf("%s 0xffff0001: exit %d: %s", fl, code, errs)
			}
		})
	}
}

// TestDgeSundaNote: SUNDA's note does not promise descriptors `run` does not print.
func TestDgeSundaNote(t *testing.T) {
	code, out, errs := dgeCLI("dge", "run", "--gen", "SUNDA", "--src", "hbm:0", "--dst", "hbm:0x10000", "--shape", "64", "--dtype", "uint8")
	if code != 0 || strings.Contains(out+errs, "descriptors below") || !strings.Contains(out+errs, "tpbsim's own lowering") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}

// dge run has run's work limits (--max-elements; the byte limit 16 x N), checked after planning
// and before anything is allocated or filled: a 65536x65536 UINT8 transpose (2^32 elements,
// filled with random data first, it ran for over a minute) is refused at once with exit 1,
// naming the request, the limit and how to raise it.
func TestDgeRunWorkLimit(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "out.npy")
	big := []string{"--src", "hbm:0x0", "--shape", "65536,65536", "--dst", "hbm:0x100000000", "--perm", "1,0", "--dtype", "UINT8"}
	t0 := time.Now()
	code, _, errs := dgeCLI(append([]string{"dge", "run", "--verify", "--dump", "hbm:0x100000000=16x16:uint8:" + dump}, big...)...)
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the refusal took %v", d)
	}
	for _, want := range []string{"request --src hbm:0x0 --dst hbm:0x100000000 --shape 65536,65536 --perm 1,0 --dtype UINT8", "work limit exceeded",
		"rule sim.max_elements", "streams 4294967296 elements", "limit is 67108864", "raise it with tpbsim dge run --max-elements N"} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("exit %d, stderr lacks %q: %s", code, want, errs)
		}
	}
	if _, err := os.Stat(dump); err == nil {
		t.Error("the refused run wrote its dump")
	}
	// the planner's work is not limited: plan prints the same request
	if code, _, errs := dgeCLI(append([]string{"dge", "plan"}, big...)...); code != 0 {
		t.Errorf("plan: exit %d: %s", code, errs)
	}
	// a contiguous 1 GiB copy folds into few large elements but reads plus writes 2 GiB
	req := filepath.Join(dir, "copy.json")
	if err := os.WriteFile(req, []byte(`{"src": "hbm:0x0", "dst": "hbm:0x80000000", "shape": [1073741824], "dtype": "uint8"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = dgeCLI("dge", "run", "--request", req)
	if code != 1 || !strings.Contains(errs, "request "+req+": work limit exceeded: rule sim.max_stream_bytes: streams 2147483648 bytes") ||
		!strings.Contains(errs, "limit is 1073741824 bytes, 16 per element of the element limit 67108864 (raise it with tpbsim dge run --max-elements N)") {
		t.Errorf("copy: exit %d: %s", code, errs)
	}
	// --max-elements moves both limits
	small := []string{"dge", "run", "--src", "hbm:0x1000", "--shape", "64,64", "--dst", "sbuf:0:0", "--perm", "1,0", "--dtype", "bf16", "--verify"}
	if code, _, errs := dgeCLI(append(small, "--max-elements", "4095")...); code != 1 || !strings.Contains(errs, "streams 4096 elements") {
		t.Errorf("transpose, --max-elements 4095: exit %d: %s", code, errs)
	}
	if code, out, errs := dgeCLI(append(small, "--max-elements", "4096")...); code != 0 || !strings.Contains(out, "matches") {
		t.Errorf("transpose, --max-elements 4096: exit %d: %s %s", code, out, errs)
	}
	// an 8 KiB contiguous copy: a few large elements, 16 KiB read plus written
	cp := []string{"dge", "run", "--src", "hbm:0x1000", "--shape", "64,64", "--dst", "hbm:0x100000", "--dtype", "bf16", "--verify"}
	if code, _, errs := dgeCLI(append(cp, "--max-elements", "1023")...); code != 1 || !strings.Contains(errs, "rule sim.max_stream_bytes: streams 16384 bytes") {
		t.Errorf("copy, --max-elements 1023: exit %d: %s", code, errs)
	}
	if code, out, errs := dgeCLI(append(cp, "--max-elements", "1024")...); code != 0 || !strings.Contains(out, "matches") {
		t.Errorf("copy, --max-elements 1024: exit %d: %s %s", code, out, errs)
	}
}

// --max-elements says what it bounds in run and dge run, as README "Work limits" does.
func TestMaxElementsHelp(t *testing.T) {
	for _, cmd := range [][]string{{"run", "--help"}, {"dge", "run", "--help"}} {
		code, out, errs := dgeCLI(cmd...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", cmd, code, errs)
		}
		for _, want := range []string{"--max-elements", "per channel for a DVE-family instruction", "DMA descriptors of a DMA instruction", "16 x N bytes"} {
			if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
				t.Errorf("%v: help lacks %q", cmd, want)
			}
		}
	}
}

// A destination view that names the same bytes many times (step 0 over rows; 2 MiB, above the
// DMA engines' parallel threshold): the DMA engines
// run it on one worker in job order, so every run leaves the same bytes, and --verify compares
// with the reference read back under last-write-wins (sim.dma_dst_overlap).
func TestDgeRunSelfOverlappingDestination(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.json")
	os.WriteFile(req, []byte(`{"gen":"CAYMAN","dtype":"UINT8","src_view":{"base":"hbm:0x0","elem_size":1,"num_elem":[1024,2048,1,1],"step_elem":[1,1024,1,1]},`+
		`"dst_view":{"base":"hbm:0x10000000","elem_size":1,"num_elem":[1024,2048,1,1],"step_elem":[1,0,1,1]}}`), 0o644)
	var first []byte
	for i := 0; i < 8; i++ {
		out := filepath.Join(dir, fmt.Sprintf("d%d.npy", i))
		code, stdout, errs := dgeCLI("dge", "run", "--request", req, "--seed", "5", "--verify", "--dump", "hbm:0x10000000=1024:UINT8:"+out)
		if code != 0 || !strings.Contains(stdout, "matches") {
			t.Fatalf("run %d: exit %d: %s %s", i, code, stdout, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("run %d left different bytes", i)
		}
	}
}

// --max-elements 0 would silently mean the default (sim.Config's zero value): refused instead.
func TestMaxElementsZeroRefused(t *testing.T) {
	if code, _, errs := simCLI("run", "../../testdata/sim/pingpong.tpb", "--max-elements", "0"); code != 2 || !strings.Contains(errs, "--max-elements 0: the limit must be at least 1") {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if code, _, errs := dgeCLI("dge", "run", "--src", "hbm:0", "--shape", "4,4", "--dst", "hbm:0x100000", "--dtype", "uint8", "--max-elements", "0"); code != 2 || !strings.Contains(errs, "--max-elements 0") {
		t.Fatalf("dge run: exit %d: %s", code, errs)
	}
}

// TestDgeRequestInputsRefused: request inputs that were silently reinterpreted, or panicked, are
// refused with their exit status and the flag or rule named.
func TestDgeRequestInputsRefused(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one := `{"src":"hbm:0","dst":"sbuf:0:0","shape":[128,64],"dtype":"bf16"}`
	base := []string{"--src", "hbm:0", "--dst", "sbuf:0:0", "--shape", "128,64", "--dtype", "bf16"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"empty perm item", append([]string{"--perm", ","}, base...), 2, "--perm"},
		{"empty shape item", []string{"--src", "hbm:0", "--dst", "sbuf:0:0", "--shape", "128,,64", "--dtype", "bf16"}, 2, "--shape"},
		{"--dmas 0", append([]string{"--dmas", "0"}, base...), 2, "--dmas 0"},
		{"--dmas against --dma-cfg", append([]string{"--dmas", "2", "--dma-cfg", "0xf0"}, base...), 2, "--dma-cfg 0xf0"},
		{"--dmas with the same mask", append([]string{"--dmas", "2", "--dma-cfg", "0xffff0003"}, base...), 0, ""},
		{"raw address past the map", []string{"--src", "0xffffffffffffffff", "--dst", "sbuf:0:0", "--shape", "128,64", "--dtype", "bf16"}, 2, "outside the device address map"},
		{"raw address past the on-chip window", []string{"--src", "0x800020000000", "--dst", "sbuf:0:0", "--shape", "128,64", "--dtype", "bf16"}, 2, "--src"},
		{"two request objects", []string{"--request", write("two.json", one+"\n"+one)}, 2, "text after the request object"},
		{"empty request file", []string{"--request", write("empty.json", "")}, 2, "empty file"},
		{"view of 2^64 elements", []string{"--request", write("wrap.json",
			`{"src_view":{"base":"hbm:0","elem_size":2,"num_elem":[65536,65536,65536,65536],"step_elem":[0,0,0,0]},`+
				`"dst_view":{"base":"hbm:0x1000","elem_size":2,"num_elem":[65536,65536,65536,65536],"step_elem":[1,1,1,1]}}`)}, 1, "rule dge_view_valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, sub := range []string{"plan", "run"} {
				code, _, errs := dgeCLI(append([]string{"dge", sub}, tc.args...)...)
				if code != tc.code || !strings.Contains(errs, tc.msg) || strings.Contains(errs, "panic") {
					t.Errorf("%s: dge %s: exit %d, want %d with %q: %s", tc.name, sub, code, tc.code, tc.msg, errs)
				}
			}
		})
	}
}
