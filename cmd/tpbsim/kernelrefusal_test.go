package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// refusalKernels are kernel forms `kernel run` refuses, each at another stage: the form, an NKI
// rule, capacity, the machine's check of the lowered words (a dma_copy whose views overlap,
// dge_src_dst_disjoint), the run's own limits, and the run itself.
var refusalKernels = map[string]string{
	"overlap.json": `{"format":"tpbsim.kernel","version":1,"name":"ov","source":"o.py",
 "tensors":[{"name":"a","shape":[32,32],"dtype":"float32","buffer":"hbm","kind":"input","file":"a.npy"},
            {"name":"out","shape":[32,32],"dtype":"float32","buffer":"shared_hbm"},
            {"name":"t","shape":[32,32],"dtype":"float32","buffer":"sbuf"}],
 "calls":[{"op":"dma_copy","call":"nl.load","loc":"o.py:5","dst":{"tensor":2,"offset":0,"pattern":[[32,32],[1,32]]},"src":{"tensor":0,"offset":0,"pattern":[[32,32],[1,32]]}},
          {"op":"dma_copy","call":"nisa.dma_copy","loc":"o.py:6","dst":{"tensor":0,"offset":32,"pattern":[[32,16],[1,32]]},"src":{"tensor":0,"offset":0,"pattern":[[32,16],[1,32]]}},
          {"op":"dma_copy","call":"nl.store","loc":"o.py:7","dst":{"tensor":1,"offset":0,"pattern":[[32,32],[1,32]]},"src":{"tensor":2,"offset":0,"pattern":[[32,32],[1,32]]}}],
 "outputs":[1]}`,
	"overlap_noinput.json": `{"format":"tpbsim.kernel","version":1,"name":"ov","source":"o.py",
 "tensors":[{"name":"a","shape":[32,32],"dtype":"float32","buffer":"hbm","kind":"input","file":"missing.npy"},
            {"name":"out","shape":[32,32],"dtype":"float32","buffer":"shared_hbm"}],
 "calls":[{"op":"dma_copy","call":"nisa.dma_copy","loc":"o.py:6","dst":{"tensor":0,"offset":32,"pattern":[[32,16],[1,32]]},"src":{"tensor":0,"offset":0,"pattern":[[32,16],[1,32]]}},
          {"op":"dma_copy","call":"nl.store","loc":"o.py:7","dst":{"tensor":1,"offset":0,"pattern":[[32,32],[1,32]]},"src":{"tensor":0,"offset":0,"pattern":[[32,32],[1,32]]}}],
 "outputs":[1]}`,
	"reduce_op.json": `{"format":"tpbsim.kernel","version":1,"name":"rd","source":"r.py",
 "tensors":[{"name":"a","shape":[32,32],"dtype":"float32","buffer":"hbm","kind":"input","file":"a.npy"},
            {"name":"out","shape":[32,1],"dtype":"float32","buffer":"shared_hbm"},
            {"name":"t","shape":[32,32],"dtype":"float32","buffer":"sbuf"},
            {"name":"u","shape":[32,1],"dtype":"float32","buffer":"sbuf"}],
 "calls":[{"op":"dma_copy","call":"nl.load","loc":"r.py:5","dst":{"tensor":2,"offset":0,"pattern":[[32,32],[1,32]]},"src":{"tensor":0,"offset":0,"pattern":[[32,32],[1,32]]}},
          {"op":"tensor_reduce","call":"nisa.tensor_reduce","loc":"r.py:6","dst":{"tensor":3,"offset":0,"pattern":[[1,32],[1,1]]},"data":{"tensor":2,"offset":0,"pattern":[[32,32],[1,32]]},"reduce_op":"power","axis":[1]},
          {"op":"dma_copy","call":"nl.store","loc":"r.py:7","dst":{"tensor":1,"offset":0,"pattern":[[1,32],[1,1]]},"src":{"tensor":3,"offset":0,"pattern":[[1,32],[1,1]]}}],
 "outputs":[1]}`,
	"capacity.json": `{"format":"tpbsim.kernel","version":1,"name":"cap","source":"c.py",
 "tensors":[{"name":"a","shape":[32,65536],"dtype":"float32","buffer":"hbm","kind":"input"},
            {"name":"out","shape":[32,65536],"dtype":"float32","buffer":"shared_hbm"},
            {"name":"t","shape":[32,65536],"dtype":"float32","buffer":"sbuf","loc":"c.py:4"}],
 "calls":[{"op":"dma_copy","call":"nl.load","loc":"c.py:5","dst":{"tensor":2,"offset":0,"pattern":[[65536,32],[1,65536]]},"src":{"tensor":0,"offset":0,"pattern":[[65536,32],[1,65536]]}},
          {"op":"dma_copy","call":"nl.store","loc":"c.py:6","dst":{"tensor":1,"offset":0,"pattern":[[65536,32],[1,65536]]},"src":{"tensor":2,"offset":0,"pattern":[[65536,32],[1,65536]]}}],
 "outputs":[1]}`,
	"unknown_key.json": `{"format":"tpbsim.kernel","version":1,"name":"uk","source":"u.py","shapes":[1],
 "tensors":[],"calls":[],"outputs":[]}`,
	"noinput.json": `{"format":"tpbsim.kernel","version":1,"name":"ni","source":"n.py",
 "tensors":[{"name":"a","shape":[32,32],"dtype":"float32","buffer":"hbm","kind":"input","file":"missing.npy"},
            {"name":"out","shape":[32,32],"dtype":"float32","buffer":"shared_hbm"}],
 "calls":[{"op":"dma_copy","call":"nl.store","loc":"n.py:7","dst":{"tensor":1,"offset":0,"pattern":[[32,32],[1,32]]},"src":{"tensor":0,"offset":0,"pattern":[[32,32],[1,32]]}}],
 "outputs":[1]}`,
	"uninit.json": `{"format":"tpbsim.kernel","version":1,"name":"un","source":"u.py",
 "tensors":[{"name":"out","shape":[32,32],"dtype":"float32","buffer":"shared_hbm"},
            {"name":"t","shape":[32,32],"dtype":"float32","buffer":"sbuf","loc":"u.py:4"}],
 "calls":[{"op":"dma_copy","call":"nl.store","loc":"u.py:5","dst":{"tensor":0,"offset":0,"pattern":[[32,32],[1,32]]},"src":{"tensor":1,"offset":0,"pattern":[[32,32],[1,32]]}}],
 "outputs":[0]}`,
}

// `kernel run` refuses each kernel at the stage it always has, with the same message and exit
// status, whatever checks the lowered words (Lower, or the run it is lowered for): the check's
// refusal is reported before the inputs are read, the timing file is read or the program is
// printed, and without the run's "kernel NAME (FILE):" prefix, which a failure of the run (its
// own limits, an execution error) has. DIR stands for the folder of the kernel files.
func TestKernelRunRefusals(t *testing.T) {
	dir := t.TempDir()
	for name, text := range refusalKernels {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := make([]byte, 32*32*4)
	writeNPY(t, filepath.Join(dir, "a.npy"), "f4", []int{32, 32}, a)
	const overlap = "tpbsim: o.py:6: nisa.dma_copy: NKI rule broken: rule dge_src_dst_disjoint: dst = " +
		"src bytes [0x0, 0x800) and dst bytes [0x80, 0x880) share byte 0x80: the DMA engines give no ordering between the reads and writes of " +
		"overlapping ranges (only an identical plain copy, a no-op, may name the same bytes), legal: a dst that shares no byte with src (or the very same view, a no-op)\n"
	for _, tc := range []struct {
		name   string
		args   []string // after "kernel run"; DIR/ is the folder of the kernels
		code   int
		stderr string          // exactly, with DIR for the folder
		stdout string          // exactly
		files  map[string]bool // DIR's files written (true) or not (false) by the run
	}{
		{"check refuses: overlapping views", []string{"DIR/overlap.json"}, 1, overlap, "", nil},
		{"check refuses before a missing input is read", []string{"DIR/overlap_noinput.json"}, 1, overlap, "", nil},
		{"check refuses before the timing file is read", []string{"--timing", "DIR/missing-timing.json", "DIR/overlap.json"}, 1, overlap, "", nil},
		{"check refuses before the program is printed", []string{"--print-program", "DIR/overlap.json"}, 1, overlap, "", nil},
		{"check refuses with --max-elements raised", []string{"--max-elements", "1000000000", "DIR/overlap.json"}, 1, overlap, "", nil},
		{"check refuses with --quiet and a trace", []string{"--quiet", "--trace", "DIR/t1.json", "--summary", "DIR/s1.json", "DIR/overlap.json"}, 1, overlap, "",
			map[string]bool{"t1.json": false, "s1.json": false}},
		{"NKI rule", []string{"DIR/reduce_op.json"}, 1,
			"tpbsim: r.py:6: nisa.tensor_reduce: NKI rule broken: rule nki.tensor_reduce.op: op = \"power\", legal: add, subtract, multiply, maximum, minimum, bitwise_and, bitwise_or, bitwise_xor, logical_and, logical_or, logical_xor\n", "", nil},
		{"capacity", []string{"DIR/capacity.json"}, 1,
			"tpbsim: c.py:4: capacity exceeded: rule kernel.capacity: tensor t = tensor \"t\" [32 65536] float32 needs 32 partitions x 256 KiB; sbuf has 229312 bytes per partition, " +
				"with no other tile live: the tile alone is larger (placing it for c.py:5 nl.load), legal: at most 229312 bytes per partition in all live sbuf tiles\n", "", nil},
		{"malformed form", []string{"DIR/unknown_key.json"}, 2,
			"tpbsim: DIR/unknown_key.json: malformed kernel form: rule kernel.form.key: shapes: line 1 (byte 66): unknown key \"shapes\" (legal: api, calls, format, gen, name, nki_version, outputs, source, tensors, version)\n", "", nil},
		{"missing kernel file", []string{"DIR/missing.json"}, 2, "tpbsim: open DIR/missing.json: no such file or directory\n", "", nil},
		{"missing input file", []string{"DIR/noinput.json"}, 2, "tpbsim: input a (its \"file\"): open DIR/missing.npy: no such file or directory\n", "", nil},
		{"missing --input file", []string{"--input", "a=DIR/nope.npy", "DIR/noinput.json"}, 2, "tpbsim: --input a=DIR/nope.npy: open DIR/nope.npy: no such file or directory\n", "", nil},
		{"the run's element limit", []string{"--max-elements", "4", "DIR/overlap.json"}, 1, overlap, "", nil},
		{"the run's element limit, valid kernel", []string{"--max-elements", "4", "../../testdata/kernel/ve_transpose_partial.json"}, 1,
			"tpbsim: kernel tr (../../testdata/kernel/ve_transpose_partial.json): 4 instruction(s) fail the checks made before the run; nothing was executed\n" +
				"  SP instruction 0 (x.py, from x.py:5 nl.load): DMAMEMCPY: work limit exceeded: rule sim.max_elements: streams 32 elements in its 1 DMA descriptor(s) (their elements: a contiguous run is one); tpbsim's limit is 4 (raise it with --max-elements N of tpbsim run or check, or sim.Config.MaxElements)\n" +
				"  DVE instruction 0 (x.py, from x.py:6 nisa.nc_transpose): STREAM_TRANSPOSE: work limit exceeded: rule sim.max_elements: streams 32 elements per channel; tpbsim's limit is 4 (raise it with --max-elements N of tpbsim run or check, or sim.Config.MaxElements)\n" +
				"  DVE instruction 1 (x.py, from x.py:6 nisa.nc_transpose: transpose staging out): COPY: work limit exceeded: rule sim.max_elements: streams 32 elements per channel; tpbsim's limit is 4 (raise it with --max-elements N of tpbsim run or check, or sim.Config.MaxElements)\n" +
				"  ACT instruction 0 (x.py, from x.py:7 nl.store): DMAMEMCPY: work limit exceeded: rule sim.max_stream_bytes: streams 512 bytes: source plus destination bytes of its descriptors; tpbsim's limit is 64 bytes, 16 per element of the element limit 4 (raise it with --max-elements N of tpbsim run or check, or sim.Config.MaxElements or MaxStreamBytes)\n", "", nil},
		{"run fails: uninitialised read", []string{"--check-uninit", "--quiet", "--trace", "DIR/t2.json", "--summary", "DIR/s2.json", "DIR/uninit.json"}, 1,
			"tpbsim: kernel un (DIR/uninit.json): ACT instruction 0 (u.py, from u.py:5 nl.store): DMAMEMCPY: read of uninitialised memory: rule read_initialised: " +
				"descriptor 0 on DMA[0]: src bytes [0x800000000000, 0x800000000080): mem: read_initialised: read of uninitialised memory at 0x800000000000: sbuf:0:0x0 was never written\n", "",
			map[string]bool{"t2.json": true, "s2.json": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"kernel", "run"}
			for _, s := range tc.args {
				args = append(args, strings.ReplaceAll(s, "DIR/", dir+"/"))
			}
			code, out, errs := simCLI(args...)
			errs = strings.ReplaceAll(errs, dir+"/", "DIR/")
			if code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if errs != tc.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", errs, tc.stderr)
			}
			if out != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", out, tc.stdout)
			}
			for f, want := range tc.files {
				if _, err := os.Stat(filepath.Join(dir, f)); (err == nil) != want {
					t.Errorf("%s written: %v, want %v", f, err == nil, want)
				}
			}
		})
	}
}

// refusedNKI runs three kernels `kernel run` refuses, at Lower (an NKI rule), at the machine's
// check of the lowered words (overlapping dma_copy views) and in the run (a never-written tile
// stored, with --check-uninit), and prints each refusal as the front end hands it to the script.
const refusedNKI = `import sys
import numpy as np
import nki
import nki.isa as nisa
import nki.language as nl
import tpbsim_nki


@nki.jit
def overlap(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=a[:, 8:24], src=a[:, 0:16])
    nl.store(out, nl.load(a))
    return out


@nki.jit
def big_transpose(a):
    out = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    u = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.sbuf)
    nisa.nc_transpose(u, t, engine=nisa.engine.vector)
    nl.store(out, u)
    return out


@nki.jit
def uninit(a):
    out = nl.ndarray((32, 32), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((32, 32), dtype=a.dtype, buffer=nl.sbuf)
    nl.store(out, t)
    return out


status = 0
for k, shape in ((overlap, (32, 32)), (big_transpose, (64, 64)), (uninit, (32, 32))):
    try:
        nki.simulate(k)(np.zeros(shape, np.float32))
        print("ran")
    except (tpbsim_nki.KernelError, tpbsim_nki.KernelUsageError) as e:
        print("status %d: %s" % (e.status, e))
        status = status or e.status
sys.exit(status)
`

// `nki run` hands the script the refusals of `kernel run` with the same text and status (the
// kernel form's temporary path reads KERNEL, and the script's folder is left out).
func TestNKIRunRefusals(t *testing.T) {
	needPythonNumpy(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "refused.py")
	if err := os.WriteFile(script, []byte(refusedNKI), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := simCLI("nki", "run", "--check-uninit", script)
	out = regexp.MustCompile(`\(\S*/kernel\.json\)`).ReplaceAllString(strings.ReplaceAll(out, dir+"/", ""), "(KERNEL)")
	want := "status 1: tpbsim kernel run: kernel overlap broke a rule or failed at run time:\n" +
		"tpbsim: refused.py:12: nisa.dma_copy: NKI rule broken: rule dge_src_dst_disjoint: dst = src bytes [0x0, 0xfc0) and dst bytes [0x20, 0xfe0) " +
		"share byte 0x20: the DMA engines give no ordering between the reads and writes of overlapping ranges (only an identical plain copy, a no-op, may name the same bytes)" +
		", legal: a dst that shares no byte with src (or the very same view, a no-op)\n" +
		"status 1: tpbsim kernel run: kernel big_transpose broke a rule or failed at run time:\n" +
		"tpbsim: refused.py:22: nisa.nc_transpose: NKI rule broken: rule nki.nc_transpose.vector_tile: data = a [64, 64] tile, legal: a tile of at most [32, 32] on the Vector Engine\n" +
		"status 1: tpbsim kernel run: kernel uninit broke a rule or failed at run time (the kernel form named below is removed after the run; tpbsim nki run --keep keeps it):\n" +
		"tpbsim: kernel uninit (KERNEL): ACT instruction 0 (refused.py, from refused.py:31 nl.store): DMAMEMCPY: read of uninitialised memory: rule read_initialised: " +
		"descriptor 0 on DMA[0]: src bytes [0x800000000000, 0x800000000080): mem: read_initialised: read of uninitialised memory at 0x800000000000: sbuf:0:0x0 was never written\n"
	if code != 1 || out != want || errs != "" {
		t.Errorf("exit %d (want 1)\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", code, out, want, errs)
	}
}

// --print-program prints, on stderr, the program `kernel lower` writes, before the run's report.
func TestKernelRunPrintsProgram(t *testing.T) {
	k := "../../testdata/kernel/ve_transpose_partial.json"
	code, prog, errs := simCLI("kernel", "lower", k, "-o", "-")
	if code != 0 || prog == "" {
		t.Fatalf("lower: exit %d: %s", code, errs)
	}
	code, out, errs := simCLI("kernel", "run", "--print-program", "--quiet", "--out-dir", t.TempDir(), k)
	if code != 0 || errs != prog || out != "" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant the program:\n%s", code, out, errs, prog)
	}
}
