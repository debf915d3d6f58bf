package num

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The numpy oracle (DESIGN.md §8): numpy's float16 is an implementation nobody here wrote. The
// test writes its script to a temporary directory and skips when numpy is absent.

const numpyScript = `import sys
import numpy as np
d = sys.argv[1]
x = np.fromfile(d + "/f32.bin", dtype="<u4").view("<f4")
with np.errstate(all="ignore"):
    x.astype(np.float16).view("<u2").tofile(d + "/f32_to_f16.bin")
h = np.arange(65536, dtype="<u2").view("<f2")
h.astype(np.float32).view("<u4").tofile(d + "/f16_to_f32.bin")
`

func numpyPython(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("numpy is not installed")
	}
	return py
}

func TestNumpyFloat16Oracle(t *testing.T) {
	py := numpyPython(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "oracle.py"), []byte(numpyScript), 0o644); err != nil {
		t.Fatal(err)
	}

	// Inputs: every fp16 value, every midpoint, their float32 neighbours, plus random patterns.
	var xs []uint32
	for _, e := range refFP16.cands {
		xs = append(xs, neighbours(e.v)...)
	}
	for i := 0; i+1 < len(refFP16.cands); i++ {
		xs = append(xs, neighbours((refFP16.cands[i].v+refFP16.cands[i+1].v)/2)...)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 200000; i++ {
		x := rng.Uint32()
		if i&1 == 0 {
			x = x&0x83ffffff | uint32(96+rng.IntN(50))<<23
		}
		xs = append(xs, x)
	}
	xs = append(xs, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x00000001, 0x7f7fffff)
	in := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(in[4*i:], x)
	}
	if err := os.WriteFile(filepath.Join(dir, "f32.bin"), in, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, filepath.Join(dir, "oracle.py"), dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy oracle: %v\n%s", err, out)
	}

	down, err := os.ReadFile(filepath.Join(dir, "f32_to_f16.bin"))
	if err != nil || len(down) != 2*len(xs) {
		t.Fatalf("f32_to_f16.bin: %d bytes, %v", len(down), err)
	}
	bad := 0
	for i, x := range xs {
		want := binary.LittleEndian.Uint16(down[2*i:])
		got := F32ToFP16(x)
		if math.IsNaN(float64(math.Float32frombits(x))) {
			// num.nan: numpy keeps signalling NaNs signalling; compare NaN-ness and sign only.
			if got&0x7c00 != 0x7c00 || got&0x3ff == 0 || got&0x8000 != want&0x8000 {
				t.Errorf("F32ToFP16(NaN %#08x) = %#04x, numpy %#04x", x, got, want)
			}
			continue
		}
		if got != want {
			t.Errorf("F32ToFP16(%#08x = %g) = %#04x, numpy %#04x", x, math.Float32frombits(x), got, want)
			if bad++; bad > 10 {
				t.Fatal("too many mismatches")
			}
		}
	}

	up, err := os.ReadFile(filepath.Join(dir, "f16_to_f32.bin"))
	if err != nil || len(up) != 4*65536 {
		t.Fatalf("f16_to_f32.bin: %d bytes, %v", len(up), err)
	}
	for h := 0; h < 65536; h++ {
		want := binary.LittleEndian.Uint32(up[4*h:])
		if got := FP16ToF32(uint16(h)); got != want {
			t.Fatalf("FP16ToF32(%#04x) = %#08x, numpy %#08x", h, got, want)
		}
	}
	t.Logf("numpy oracle: %d float32->float16 and 65536 float16->float32 conversions agree", len(xs))
}
