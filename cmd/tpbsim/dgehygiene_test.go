package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/internal/npy"
)

// TestDgeInputHygiene: what `dge plan|run` used to accept silently is refused (or converted, and
// said): issue 15 item 5.
func TestDgeInputHygiene(t *testing.T) {
	dir := t.TempDir()
	w := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	req := w("ok.json", `{"src":"hbm:0x0","dst":"hbm:0x1000","shape":[1024],"dtype":"fp32","semaphore":3,"sem_increment":2}`)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string // substring of stderr (or stdout for notes)
	}{
		{"duplicate key", []string{"dge", "plan", "--request", w("dup.json", `{"src":"hbm:0x0","src":"hbm:0x10","dst":"hbm:0x1000","shape":[4],"dtype":"fp32"}`)}, 2, "twice"},
		{"flag form beside views", []string{"dge", "plan", "--request", w("mix.json", `{"shape":[4],"src_view":{"base":"hbm:0x0","elem_size":4,"num_elem":[4],"step_elem":[1]},"dst_view":{"base":"hbm:0x1000","elem_size":4,"num_elem":[4],"step_elem":[1]}}`)}, 2, `"shape"`},
		{"semaphore without increment", []string{"dge", "plan", "--request", w("sem.json", `{"src":"hbm:0x0","dst":"hbm:0x1000","shape":[4],"dtype":"fp32","semaphore":3}`)}, 2, "sem_increment"},
		{"increment without semaphore", []string{"dge", "plan", "--request", w("inc.json", `{"src":"hbm:0x0","dst":"hbm:0x1000","shape":[4],"dtype":"fp32","sem_increment":3}`)}, 2, "without semaphore"},
		{"semaphore range", []string{"dge", "plan", "--request", w("sr.json", `{"src":"hbm:0x0","dst":"hbm:0x1000","shape":[4],"dtype":"fp32","semaphore":300,"sem_increment":1}`)}, 1, "legal semaphore"},
		{"trace names the request", []string{"dge", "run", "--request", req, "--trace", req}, 2, "input file"},
		{"MAVERICK dma-cfg 0xffff", []string{"dge", "plan", "--gen", "MAVERICK", "--src", "hbm:0x0", "--shape", "4096", "--dst", "hbm:0x10000", "--dtype", "fp32", "--dma-cfg", "0xffff"}, 1, "dge_dma_cfg_enables_engine"},
		{"carveout on CAYMAN noted", []string{"dge", "plan", "--src", "hbm:0x0", "--shape", "4096", "--dst", "hbm:0x10000", "--dtype", "fp32", "--carveout-cfg", "0x40000"}, 0, "no effect on CAYMAN"},
		{"dma-cfg 0 noted", []string{"dge", "plan", "--src", "hbm:0x0", "--shape", "4096", "--dst", "hbm:0x10000", "--dtype", "fp32"}, 0, "every engine of CAYMAN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errb := simCLI(c.args...)
			if code != c.code || !strings.Contains(out+errb, c.want) {
				t.Fatalf("exit %d (want %d), want %q in\n%s%s", code, c.code, c.want, out, errb)
			}
		})
	}
}

// TestDgeLoadFitsView: a --load at the request's source converts float32 values to the FP16
// request (noted) and then verifies; an array of another element count is refused.
func TestDgeLoadFitsView(t *testing.T) {
	dir := t.TempDir()
	save := func(name, dtype string, n, size int) string {
		var b bytes.Buffer
		npy.Write(&b, &npy.Array{Dtype: dtype, Shape: []int{n}, Data: make([]byte, n*size)})
		p := filepath.Join(dir, name)
		os.WriteFile(p, b.Bytes(), 0o644)
		return p
	}
	args := []string{"dge", "run", "--src", "hbm:0x0", "--shape", "64,128", "--dst", "hbm:0x100000", "--perm", "1,0", "--dtype", "FP16", "--verify"}
	code, out, errb := simCLI(append(args, "--load", "hbm:0x0="+save("f.npy", "f4", 64*128, 4))...)
	if code != 0 || !strings.Contains(out, "converted to FP16") {
		t.Fatalf("float32 into FP16: exit %d\n%s%s", code, out, errb)
	}
	code, _, errb = simCLI(append(args, "--load", "hbm:0x0="+save("ten.npy", "f2", 10, 2))...)
	if code != 2 || !strings.Contains(errb, "holds 10 values") {
		t.Fatalf("10 elements for 64x128: exit %d\n%s", code, errb)
	}
}

// TestDgeIndexRequests: dge plan|run take INDIRECT and GATHER_XPOSE requests with an index
// .npy; run --verify checks them against a direct reference; an index past the table's rows is
// refused by the engines (exit 1).
func TestDgeIndexRequests(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, shape []int, vals []uint32) string {
		b := make([]byte, 4*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		var buf bytes.Buffer
		npy.Write(&buf, &npy.Array{Dtype: "u4", Shape: shape, Data: b})
		p := filepath.Join(dir, name)
		os.WriteFile(p, buf.Bytes(), 0o644)
		return p
	}
	gx := make([]uint32, 128*2)
	for i := range gx {
		gx[i] = uint32(i*37) % 100
	}
	for _, c := range []struct {
		name string
		args []string
		code int
	}{
		{"indirect run", []string{"dge", "run", "--indirect", save("i.npy", []int{8}, []uint32{3, 1, 4, 1, 5, 9, 2, 6}), "--src", "hbm:0x0", "--shape", "10,64", "--dst", "hbm:0x10000", "--dtype", "bf16", "--verify"}, 0},
		{"indirect plan", []string{"dge", "plan", "--indirect", save("i2.npy", []int{3}, []uint32{0, 1, 2}), "--src", "hbm:0x0", "--shape", "4,8", "--dst", "hbm:0x10000", "--dtype", "fp32"}, 0},
		{"indirect index past the table", []string{"dge", "run", "--indirect", save("bad.npy", []int{2}, []uint32{0, 10}), "--src", "hbm:0x0", "--shape", "10,64", "--dst", "hbm:0x10000", "--dtype", "bf16"}, 1},
		{"gather-xpose run", []string{"dge", "run", "--gather-xpose", save("g.npy", []int{128, 2}, gx), "--src", "hbm:0x0", "--shape", "100,96", "--dst", "sbuf:0:0", "--dtype", "bf16", "--verify"}, 0},
		{"gather-xpose 1-D indices", []string{"dge", "plan", "--gather-xpose", save("g1.npy", []int{16}, gx[:16]), "--src", "hbm:0x0", "--shape", "100,96", "--dst", "sbuf:0:0", "--dtype", "bf16"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code, out, errb := simCLI(c.args...); code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, c.code, out, errb)
			}
		})
	}
}

// TestDgeDMAsOutOfRangeAgree: an out-of-range --dmas is a usage error (exit 2) with the same
// message in both request forms; the index form used to plan --dmas 17 into a DMA bitfield
// that spilled into the queue bits and refuse it as a rule (exit 1), and took --dmas 0 and -1
// silently as "all engines".
func TestDgeDMAsOutOfRangeAgree(t *testing.T) {
	var b bytes.Buffer
	npy.Write(&b, &npy.Array{Dtype: "u4", Shape: []int{3}, Data: []byte{3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0}})
	idx := filepath.Join(t.TempDir(), "i.npy")
	if err := os.WriteFile(idx, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--src", "hbm:0x0", "--shape", "10,64", "--dst", "hbm:0x10000", "--dtype", "bf16"}
	for _, tc := range []struct{ dmas, msg string }{
		{"17", "--dmas 17: CAYMAN has 16 DMA engines; give 1..16"},
		{"-1", "--dmas -1: CAYMAN has 16 DMA engines; give 1..16"},
		{"0", "--dmas 0: CAYMAN has 16 DMA engines; give 1..16"},
	} {
		t.Run(tc.dmas, func(t *testing.T) {
			for _, sub := range []string{"plan", "run"} {
				for _, form := range [][]string{nil, {"--indirect", idx}} {
					args := append(append([]string{"dge", sub, "--dmas", tc.dmas}, form...), base...)
					code, _, errs := dgeCLI(args...)
					if code != 2 || !strings.Contains(errs, tc.msg) {
						t.Errorf("%v: exit %d, want 2 with %q: %s", args, code, tc.msg, errs)
					}
				}
			}
		})
	}
	if code, _, errs := dgeCLI(append([]string{"dge", "run", "--dmas", "4", "--indirect", idx, "--verify"}, base...)...); code != 0 {
		t.Errorf("--indirect --dmas 4: exit %d: %s", code, errs)
	}
}
