package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
)

// rawNPY writes a version 1.0 .npy of any descr (npy.Write only writes the types it reads).
func rawNPY(t *testing.T, path, descr string, shape string, data []byte) {
	t.Helper()
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	b = append(append(b, hdr...), data...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// float64 (numpy's default float) has no device element type: loading it without :DTYPE is
// refused, not laid down as raw 8-byte doubles; with :DTYPE it is converted. Other numpy types
// with no device type are refused by name; bool loads as bytes 0/1.
func TestRunLoadTypesWithoutDeviceType(t *testing.T) {
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{}))
	f64 := filepath.Join(dir, "a.npy")
	in := make([]byte, 32*64*8)
	for i := 0; i < 32*64; i++ {
		binary.LittleEndian.PutUint64(in[8*i:], math.Float64bits(float64(i)-0.5))
	}
	writeNPY(t, f64, "f8", []int{32, 64}, in)
	code, _, stderr := simCLI("run", prog, "--load", "sbuf:0:0="+f64)
	if code != 2 || !strings.Contains(stderr, "a.npy holds float64, which no device element type is") || !strings.Contains(stderr, ":FP32") {
		t.Fatalf("float64 without :DTYPE: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "o.npy")
	if code, _, stderr := simCLI("run", prog, "--quiet", "--load", "sbuf:0:0="+f64+":FP32", "--dump", "sbuf:0:0=32x64:FP32:"+out); code != 0 {
		t.Fatalf("float64 with :FP32: exit %d: %s", code, stderr)
	}
	fh, _ := os.Open(out)
	a, err := npy.Read(fh)
	fh.Close()
	if err != nil || a.Dtype != "f4" {
		t.Fatalf("%v %v", a, err)
	}
	for _, i := range []int{0, 1, 64, 2047} {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:])); g != float32(i)-0.5 {
			t.Errorf("element %d = %v, want %v", i, g, float32(i)-0.5)
		}
	}
	for _, tc := range []struct{ descr, name string }{
		{"<c8", "complex64"}, {"<c16", "complex128"}, {"<f16", "float128"}, {"|O", "object"}, {"<U3", "unicode"}, {"|S4", "byte string"},
		{"<M8[ns]", "datetime64"},
	} {
		t.Run(tc.descr, func(t *testing.T) {
			p := filepath.Join(dir, "x.npy")
			rawNPY(t, p, tc.descr, "(32,)", make([]byte, 32*16))
			for _, arg := range []string{p, p + ":FP32"} {
				code, _, stderr := simCLI("run", prog, "--load", "sbuf:0:0="+arg)
				if code != 2 || !strings.Contains(stderr, tc.name) || !strings.Contains(stderr, "astype") {
					t.Errorf("%s (%s): exit %d: %s", tc.descr, arg, code, stderr)
				}
			}
		})
	}
	b := filepath.Join(dir, "b.npy")
	rawNPY(t, b, "|b1", "(1, 4)", []byte{1, 0, 1, 1})
	if code, _, stderr := simCLI("run", prog, "--quiet", "--load", "sbuf:0:0="+b, "--dump", "sbuf:0:0=1x4:UINT8:"+out); code != 0 {
		t.Fatalf("bool: exit %d: %s", code, stderr)
	}
	if fh, _ := os.Open(out); fh != nil {
		a, err := npy.Read(fh)
		fh.Close()
		if err != nil || string(a.Data) != "\x01\x00\x01\x01" {
			t.Errorf("bool dumped as %v %v", a, err)
		}
	}
}

// HBM is allocated in 64 KiB pages: a cap below one page is refused; the cap error names the
// page size; a dump of never-written HBM reads zeros and allocates nothing, so the cap does not
// bound it.
func TestRunHBMCapPages(t *testing.T) {
	dir := t.TempDir()
	prog := writeBin(t, dir, transposeInst(32, isa.Events{}))
	for _, c := range []string{"4K", "65535", "1"} {
		t.Run(c, func(t *testing.T) {
			code, _, stderr := simCLI("run", prog, "--hbm-cap", c)
			if code != 2 || !strings.Contains(stderr, "is less than one HBM page (65536 bytes)") || (c == "65535" && !strings.Contains(stderr, "65535 bytes is less")) {
				t.Errorf("--hbm-cap %s: exit %d: %s", c, code, stderr)
			}
		})
	}
	if code, _, stderr := simCLI("run", prog, "--quiet", "--hbm-cap", "64K"); code != 0 {
		t.Errorf("--hbm-cap 64K: exit %d: %s", code, stderr)
	}
	// A load needing two pages under a one-page cap: refused before reading, the page size named
	// by the memory's own cap error when the size check passes (a load across a page boundary).
	small := filepath.Join(dir, "s.npy")
	writeNPY(t, small, "u1", []int{16}, make([]byte, 16))
	code, _, stderr := simCLI("run", prog, "--hbm-cap", "64K", "--load", "hbm:0xfff8="+small)
	if code != 2 || !strings.Contains(stderr, "needs 2 new HBM pages of 65536 bytes") {
		t.Errorf("load across pages: exit %d: %s", code, stderr)
	}
	// The transpose reads 32 partitions x 128 bytes at sbuf:0:0: loaded, so --check-uninit passes.
	src := filepath.Join(dir, "src.npy")
	writeNPY(t, src, "f4", []int{32, 32}, make([]byte, 32*32*4))
	out := filepath.Join(dir, "o.npy")
	for _, extra := range []string{"--quiet", "--check-uninit"} {
		t.Run(extra, func(t *testing.T) {
			args := []string{"run", prog, extra, "--hbm-cap", "64K", "--load", "sbuf:0:0=" + src, "--dump", "hbm:0x0=512x1024:FP32:" + out}
			if code, _, stderr := simCLI(args...); code != 0 {
				t.Fatalf("%s: dump of 2 MiB of HBM under a 64 KiB cap: exit %d: %s", extra, code, stderr)
			}
			fh, _ := os.Open(out)
			a, err := npy.Read(fh)
			fh.Close()
			if err != nil || len(a.Data) != 2<<20 {
				t.Fatalf("%s: %v", extra, err)
			}
			for _, x := range a.Data {
				if x != 0 {
					t.Fatalf("%s: never-written HBM dumped as non-zero", extra)
				}
			}
		})
	}
}
