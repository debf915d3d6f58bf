package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

func writeBin(t *testing.T, dir string, insts ...isa.Inst) string {
	t.Helper()
	var b bytes.Buffer
	for _, in := range insts {
		w := isa.Encode(in)
		b.Write(w[:])
	}
	p := filepath.Join(dir, "prog.bin")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeNPY(t *testing.T, path, dtype string, shape []int, data []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := npy.Write(&b, &npy.Array{Dtype: dtype, Shape: shape, Data: data}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func simCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// transposeProg: DVE StreamTranspose of 32 channels x 32 fp32 elements, sbuf:0:0 -> sbuf:0:0x100.
func transposeInst(nac uint8, ev isa.Events) *isa.S4D4TR {
	tt := func(a isa.Addr4) isa.Tensor4D {
		return isa.Tensor4D{StartAddr: a, StepElem: [4]int16{1, 32, 32, 32}, NumElem: [4]uint16{32, 1, 1, 1}}
	}
	return &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpSTREAM_TRANSPOSE, InstWordLen: 16}, Events: ev,
		SrcMemPattern: tt(0), DstMemPattern: tt(0x100), InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: nac}
}

func TestRunTransposeWithLoadDumpTrace(t *testing.T) {
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{UpdateMode: isa.SemIncComplete, UpdateIdx: 1}))
	in := make([]byte, 32*32*4)
	for c := 0; c < 32; c++ {
		for e := 0; e < 32; e++ {
			binary.LittleEndian.PutUint32(in[(c*32+e)*4:], math.Float32bits(float32(c*100+e)))
		}
	}
	writeNPY(t, filepath.Join(dir, "x.npy"), "f4", []int{32, 32}, in)
	out, tr := filepath.Join(dir, "y.npy"), filepath.Join(dir, "t.json")
	code, stdout, stderr := simCLI("run", prog, "--load", "sbuf:0:0="+filepath.Join(dir, "x.npy"),
		"--dump", "sbuf:0:0x100=32x32:fp32:"+out, "--trace", tr, "--check-uninit")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "DVE") || !strings.Contains(stdout, "bytes read") {
		t.Errorf("no summary:\n%s", stdout)
	}
	fh, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	a, err := npy.Read(fh)
	fh.Close()
	if err != nil || a.Dtype != "f4" {
		t.Fatalf("dump: %v %v", a, err)
	}
	for c := 0; c < 32; c++ {
		for e := 0; e < 32; e++ {
			got := math.Float32frombits(binary.LittleEndian.Uint32(a.Data[(c*32+e)*4:]))
			if got != float32(e*100+c) {
				t.Fatalf("y[%d][%d] = %v, want %v", c, e, got, e*100+c)
			}
		}
	}
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("trace: %v", err)
	}
	found := false
	for _, e := range doc.TraceEvents {
		if e["ph"] == "X" && e["name"] == "STREAM_TRANSPOSE" {
			found = true
			args := e["args"].(map[string]any)
			if args["bytes_read"].(float64) != 4096 || args["update"] == nil {
				t.Errorf("args %v", args)
			}
		}
	}
	if !found {
		t.Error("no STREAM_TRANSPOSE slice in the trace")
	}
}

func TestRunLoadConvertsDtype(t *testing.T) {
	dir := t.TempDir()
	// COPY of 1 channel x 4 bf16 elements loaded from float32 with :bf16, dumped as raw bits.
	cp := &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpCOPY, InstWordLen: 16},
		SrcMemPattern: isa.Tensor4D{StartAddr: 0, StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{4, 1, 1, 1}},
		DstMemPattern: isa.Tensor4D{StartAddr: 0x40, StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{4, 1, 1, 1}},
		InDtype:       isa.DTypeBFLOAT16, OutDtype: isa.DTypeBFLOAT16, NumActiveChannels: 1}
	prog := writeBin(t, dir, cp)
	in := make([]byte, 16)
	for i, v := range []float32{1, 1.00390625, -2.5, 3.0234375} { // 1+2^-8 ties down to 1; 3+3*2^-7 ties up to even
		binary.LittleEndian.PutUint32(in[4*i:], math.Float32bits(v))
	}
	writeNPY(t, filepath.Join(dir, "x.npy"), "f4", []int{1, 4}, in)
	out := filepath.Join(dir, "y.npy")
	if code, o, e := simCLI("run", prog, "--load", "sbuf:0:0="+filepath.Join(dir, "x.npy")+":bf16", "--dump", "sbuf:0:0x40=1x4:bf16:"+out); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	fh, _ := os.Open(out)
	a, err := npy.Read(fh)
	fh.Close()
	if err != nil || a.Dtype != "u2" {
		t.Fatalf("%v %v", a, err)
	}
	want := []uint16{0x3F80, 0x3F80, 0xC020, 0x4042}
	for i, w := range want {
		if g := binary.LittleEndian.Uint16(a.Data[2*i:]); g != w {
			t.Errorf("element %d = 0x%04x, want 0x%04x", i, g, w)
		}
	}
}

func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := transposeInst(32, isa.Events{})
	bad := transposeInst(48, isa.Events{}) // has_multiple_32_channels
	wait := transposeInst(32, isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: 9, SemaphoreValue: 1})
	x := filepath.Join(dir, "x.npy")
	writeNPY(t, x, "f4", []int{32, 32}, make([]byte, 4096))
	mk := func(name string, insts ...isa.Inst) string {
		p := writeBin(t, dir, insts...)
		np := filepath.Join(dir, name)
		os.Rename(p, np)
		return np
	}
	goodP, badP, waitP := mk("good.bin", good), mk("bad.bin", bad), mk("wait.bin", wait)
	trunc := filepath.Join(dir, "trunc.bin")
	os.WriteFile(trunc, make([]byte, 65), 0o644)
	load := "sbuf:0:0=" + x
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"ok", []string{"run", goodP, "--load", load}, 0, ""},
		{"invalid instruction", []string{"run", badP, "--load", load}, 1, "has_multiple_32_channels"},
		{"deadlock", []string{"run", waitP, "--load", load}, 1, "deadlock"},
		{"uninitialised read", []string{"run", goodP, "--check-uninit"}, 1, "never written"},
		{"missing program", []string{"run", filepath.Join(dir, "nope.bin")}, 2, "no such file"},
		{"truncated program", []string{"run", trunc}, 2, ""},
		{"bad generation", []string{"run", goodP, "--gen", "TONGA"}, 2, "unknown generation"},
		{"bad load syntax", []string{"run", goodP, "--load", "sbuf:0:0"}, 2, "ADDR=FILE"},
		{"load past memory", []string{"run", goodP, "--load", "sbuf:120:0=" + x}, 2, "partition"},
		{"bad dump syntax", []string{"run", goodP, "--dump", "sbuf:0:0=32x32:fp32"}, 2, "SHAPE:DTYPE:FILE"},
		{"no program", []string{"run"}, 2, ""},
		{"bad hbm cap", []string{"run", goodP, "--hbm-cap", "lots"}, 2, "hbm-cap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := simCLI(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr)
			}
			if tc.msg != "" && !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr lacks %q:\n%s", tc.msg, stderr)
			}
		})
	}
}

// A run that stops at run time (here a deadlock) writes no --dump file (the run did not finish)
// but does write its whole trace, up to the stop, as valid trace JSON with the engines' tracks,
// and its summary on stderr: the timeline is what shows why it stopped.
func TestRunFailureWritesTraceNotDumps(t *testing.T) {
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: 3, SemaphoreValue: 1}))
	out, tr := filepath.Join(dir, "y.npy"), filepath.Join(dir, "t.json")
	code, _, stderr := simCLI("run", prog, "--dump", "sbuf:0:0x100=32x32:fp32:"+out, "--trace", tr)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the dump of a stopped run was written")
	}
	data, err := os.ReadFile(tr)
	if err != nil {
		t.Fatalf("no trace of the stopped run: %v", err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	tracks := 0
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" && e.Name == "thread_name" {
			tracks++
		}
	}
	if tracks == 0 {
		t.Errorf("trace has no tracks")
	}
	for _, want := range []string{"stopped", "DVE", "wrote " + tr, "deadlock"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Refused before the run (an invalid instruction): nothing ran, nothing is written.
	bad := writeBin(t, dir, transposeInst(48, isa.Events{}))
	tr2 := filepath.Join(dir, "t2.json")
	if code, _, _ := simCLI("run", bad, "--trace", tr2); code != 1 {
		t.Fatalf("invalid instruction: exit %d", code)
	}
	if _, err := os.Stat(tr2); err == nil {
		t.Errorf("a program refused before the run wrote a trace")
	}
}

// --tables annotates DVE instructions and warns about opcodes the table set lacks.
func TestRunTables(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "ucode", "dve_bin_gen3")
	if _, err := os.Stat(src); err != nil {
		t.Skip("no gen3 fixture table set")
	}
	dir := t.TempDir()
	tables := filepath.Join(dir, "tables")
	os.Mkdir(tables, 0o755)
	ents, _ := os.ReadDir(src)
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(src, e.Name()))
		if strings.HasSuffix(e.Name(), "_opcode_table.bin") {
			op := int(isa.OpSTREAM_TRANSPOSE)
			copy(data[4*op:4*op+4], []byte{0, 0, 0, 0}) // disable STREAM_TRANSPOSE in this set
		}
		os.WriteFile(filepath.Join(tables, e.Name()), data, 0o644)
	}
	cp := &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpCOPY, InstWordLen: 16},
		SrcMemPattern: isa.Tensor4D{StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{32, 1, 1, 1}},
		DstMemPattern: isa.Tensor4D{StartAddr: 0x400, StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{32, 1, 1, 1}},
		InDtype:       isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: 32}
	prog := writeBin(t, dir, cp, transposeInst(32, isa.Events{}))
	tr := filepath.Join(dir, "t.json")
	code, stdout, stderr := simCLI("run", prog, "--tables", tables, "--trace", tr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "lacks opcode STREAM_TRANSPOSE (0x6b)") {
		t.Errorf("no missing-opcode warning:\n%s", stderr)
	}
	if !strings.Contains(stdout, "microcode per instruction:") || !strings.Contains(stdout, "fast_row=") {
		t.Errorf("no per-instruction microcode lines:\n%s", stdout)
	}
	data, _ := os.ReadFile(tr)
	if !strings.Contains(string(data), `"ucode_fast_row"`) {
		t.Error("trace lacks ucode annotations")
	}
}

// TestSimFixtures runs every program of testdata/sim and checks the outcome its first line
// announces: "# expect: exit=N [stderr substring]", with the flags of an optional second line
// "# flags: ...".
func TestSimFixtures(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "sim", "*.tpb"))
	if len(files) == 0 {
		t.Skip("no fixtures")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			spec, ok := strings.CutPrefix(first, "# expect: exit=")
			if !ok || len(spec) == 0 {
				t.Fatalf("first line %q is not '# expect: exit=N ...'", first)
			}
			want := int(spec[0] - '0')
			sub := strings.TrimSpace(spec[1:])
			args := []string{"run", f, "--quiet"}
			// an optional second line "# flags: ..." adds flags to the run
			if _, rest, _ := strings.Cut(string(data), "\n"); strings.HasPrefix(rest, "# flags:") {
				line, _, _ := strings.Cut(strings.TrimPrefix(rest, "# flags:"), "\n")
				args = append(args, strings.Fields(line)...)
			}
			code, _, stderr := simCLI(args...)
			if code != want {
				t.Fatalf("exit %d, want %d\n%s", code, want, stderr)
			}
			if sub != "" && !strings.Contains(stderr, sub) {
				t.Errorf("stderr lacks %q:\n%s", sub, stderr)
			}
		})
	}
}

// A JSON program (the form `tpbsim disasm --json` prints) runs like its binary.
func TestRunJSONProgram(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	for _, in := range []isa.Inst{transposeInst(32, isa.Events{UpdateMode: isa.SemIncComplete, UpdateIdx: 2})} {
		b.Write(asm.ToJSON(isa.Encode(in), isa.CAYMAN))
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "prog.json")
	os.WriteFile(p, b.Bytes(), 0o644)
	code, stdout, stderr := simCLI("run", p)
	if code != 0 || !strings.Contains(stdout, "1 instructions on CAYMAN, finished") {
		t.Fatalf("exit %d\n%s\n%s\n%s", code, b.String(), stdout, stderr)
	}
	// a .gen line that disagrees with an explicit --gen is a usage error
	src := filepath.Join(dir, "p.tpb")
	os.WriteFile(src, []byte(".gen MARIANA\n.engine DVE\nSTREAM_TRANSPOSE src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]\n"), 0o644)
	if code, _, stderr := simCLI("run", src, "--gen", "CAYMAN"); code != 2 || !strings.Contains(stderr, "--gen") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := simCLI("run", src); code != 0 || !strings.Contains(stdout, "on MARIANA") {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
}

func TestRunHBMCap(t *testing.T) {
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{}))
	big := filepath.Join(dir, "big.npy")
	writeNPY(t, big, "u1", []int{200000}, make([]byte, 200000))
	code, _, stderr := simCLI("run", prog, "--hbm-cap", "128K", "--load", "hbm:0x0="+big)
	if code != 2 || !strings.Contains(stderr, "cap") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if code, out, stderr := simCLI("run", prog, "--hbm-cap", "1M", "--load", "hbm:0x0="+big); code != 0 {
		t.Errorf("exit %d: %s %s", code, out, stderr)
	}
	if v, err := sim.ParseSize("2GiB"); err != nil || v != 2<<30 {
		t.Errorf("sim.ParseSize(2GiB) = %d, %v", v, err)
	}
}

// A --load larger than the run's HBM cap, or a --dump or --load larger than tpbsim's own limit,
// is refused before the run, with exit 2, before anything of its size is allocated. (A dump of
// HBM allocates no HBM: the cap does not bound it, TestRunHBMCapPages.)
func TestRunTransferSizeLimits(t *testing.T) {
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{}))
	out := filepath.Join(dir, "o.npy")
	big := filepath.Join(dir, "big.npy")
	writeNPY(t, big, "u1", []int{300000}, make([]byte, 300000))
	for _, tc := range []struct {
		name string
		args []string
		msg  string
	}{
		{"dump past the default cap", []string{"--dump", "hbm:0x0=5000000000:uint8:" + out}, "too many elements"},
		{"dump past the default cap, by shape", []string{"--dump", "hbm:0x0=2x1024x1024x1024:fp32:" + out}, "8589934592 bytes (8.00 GiB) is more than tpbsim's limit of 4294967296 bytes"},
		{"dumps together past the limit", []string{"--dump", "hbm:0x0=1024x1024x1024:uint8:" + out,
			"--dump", "hbm:0x0=1024x1024x1024:uint8:" + out + "2", "--dump", "hbm:0x0=1024x1024x1024:uint8:" + out + "3",
			"--dump", "hbm:0x0=1024x1024x1024:uint8:" + out + "4", "--dump", "hbm:0x0=1:uint8:" + out + "5"},
			"the dumps come to 4294967297 bytes"},
		{"on-chip dump past on-chip memory", []string{"--dump", "sbuf:0:0=128x1000000:uint8:" + out}, "of on-chip memory"},
		{"dimension overflowing 64 bits", []string{"--dump", "hbm:0x0=99999999999999999999:uint8:" + out}, "overflows 64 bits"},
		{"load past the cap", []string{"--hbm-cap", "128K", "--load", "hbm:0x0=" + big}, "more than the run's HBM cap of 131072 bytes"},
		{"load converted past the cap", []string{"--hbm-cap", "1M", "--load", "hbm:0x0=" + big + ":fp32"},
			"1200000 bytes (1.14 MiB) is more than the run's HBM cap"},
		{"hbm cap overflowing 64 bits", []string{"--hbm-cap", "99999999999999999999"}, "overflows 64 bits"},
		{"hbm cap with a suffix overflowing", []string{"--hbm-cap", "99999999999T"}, "overflows 64 bits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := simCLI(append([]string{"run", prog}, tc.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\n%s", code, stderr)
			}
			if !strings.Contains(stderr, tc.msg) {
				t.Errorf("stderr lacks %q:\n%s", tc.msg, stderr)
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "out of memory") {
				t.Errorf("stderr: %s", stderr)
			}
		})
	}
	// Within the cap the dump is written, byte-identical to npy's own encoding.
	code, _, stderr := simCLI("run", prog, "--quiet", "--hbm-cap", "1M", "--dump", "hbm:0x0=1024x256:fp32:"+out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(out)
	var want bytes.Buffer
	if err := npy.Write(&want, &npy.Array{Dtype: "f4", Shape: []int{1024, 256}, Data: make([]byte, 1<<20)}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("dump is %d bytes, not npy's encoding (%d bytes)", len(got), want.Len())
	}
}

// --tables naming a path that does not exist says so (as dtable does), exit 2.
func TestRunTablesMissing(t *testing.T) {
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{}))
	code, _, stderr := simCLI("run", prog, "--tables", filepath.Join(dir, "nodir"))
	if code != 2 || !strings.Contains(stderr, "no such file or directory") || strings.Contains(stderr, "cannot tell which table") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// A word of a .bin program that no modelled queue executes is named by file, word and offset.
func TestRunBinUnexecutableWord(t *testing.T) {
	dir := t.TempDir()
	w := isa.Encode(transposeInst(32, isa.Events{}))
	bad := make([]byte, isa.InstNBytes)
	bad[0] = 0xff
	p := filepath.Join(dir, "prog.bin")
	if err := os.WriteFile(p, append(w[:], bad...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := simCLI("run", p)
	want := "\n  " + p + ": word 1 (offset 0x40): "
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "- instruction") {
		t.Errorf("exit %d: %s\nwant a message starting %q", code, stderr, want)
	}
}

// A write that fails only when the file is written (here /proc, which takes no new files but
// passes the checks made before the run) names the flag that asked for the file.
func TestRunWriteFailureNamesFlag(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{}))
	code, _, stderr := simCLI("run", prog, "--trace", "/proc/tpbsim-trace.json")
	if code != 2 || !strings.Contains(stderr, "--trace /proc/tpbsim-trace.json") {
		t.Fatalf("exit %d, stderr %q: want exit 2 naming --trace", code, stderr)
	}
}
