package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		dtype string
		shape []int
	}{
		{"f4", []int{3, 4}}, {"u2", []int{7}}, {"u1", []int{2, 3, 5}}, {"i8", []int{}}, {"f8", []int{1, 1}},
		{"b1", []int{4}}, {"i4", []int{0, 3}},
	} {
		a := &Array{Dtype: tc.dtype, Shape: tc.shape}
		a.Data = make([]byte, a.Len()*ItemSize(tc.dtype))
		for i := range a.Data {
			a.Data[i] = byte(i*7 + 1)
		}
		var b bytes.Buffer
		if err := Write(&b, a); err != nil {
			t.Fatal(err)
		}
		if hl := int(binary.LittleEndian.Uint16(b.Bytes()[8:10])); (10+hl)%64 != 0 {
			t.Errorf("%v: data not 64-byte aligned (header %d)", tc, hl)
		}
		got, err := Read(&b)
		if err != nil {
			t.Fatalf("%v: %v", tc, err)
		}
		if got.Dtype != a.Dtype || !reflect.DeepEqual(got.Shape, a.Shape) || !bytes.Equal(got.Data, a.Data) {
			t.Errorf("%v: round trip gave %v %v", tc, got.Dtype, got.Shape)
		}
	}
}

func TestHeaderVariants(t *testing.T) {
	mk := func(major byte, dict string, data []byte) []byte {
		var b bytes.Buffer
		b.WriteString("\x93NUMPY")
		b.WriteByte(major)
		b.WriteByte(0)
		if major == 1 {
			binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
		} else {
			binary.Write(&b, binary.LittleEndian, uint32(len(dict)))
		}
		b.WriteString(dict)
		b.Write(data)
		return b.Bytes()
	}
	// Big-endian, v2, keys reordered, double quotes.
	raw := mk(2, `{"shape": (2,), "fortran_order": False, "descr": ">u2"}`+"\n", []byte{0x12, 0x34, 0xAB, 0xCD})
	a, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if a.Dtype != "u2" || !bytes.Equal(a.Data, []byte{0x34, 0x12, 0xCD, 0xAB}) {
		t.Errorf("big-endian read: %+v", a)
	}
	for name, raw := range map[string][]byte{
		"fortran":    mk(1, `{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }`, make([]byte, 4)),
		"structured": mk(1, `{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }`, make([]byte, 4)),
		"short data": mk(1, `{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }`, make([]byte, 4)),
		"object":     mk(1, `{'descr': '|O', 'fortran_order': False, 'shape': (1,), }`, make([]byte, 8)),
		"bad magic":  []byte("NUMPY\x01\x00"),
		"huge":       mk(1, `{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, 100000), }`, nil),
		"version 9":  mk(9, `{}`, nil),
	} {
		if _, err := Read(bytes.NewReader(raw)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, &Array{Dtype: "f4", Shape: []int{2, 2}, Data: make([]byte, 16)})
	f.Add(b.Bytes())
	f.Add([]byte("\x93NUMPY\x01\x00\x10\x00{'shape': (1,)}"))
	f.Add([]byte("\x93NUMPY\x02\x00\x3a\x00\x00\x00{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }\n\x01\x02\x03\x04"))
	f.Add([]byte("\x93NUMPY\x01\x00\x2b\x00{\"shape\": (0, 9999999999), \"descr\": \"|b1\",}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data))
		if err != nil {
			// The reader is in memory: every failure is the file's, a *FormatError of rule
			// npy.format in one of two categories.
			var fe *FormatError
			if !errors.As(err, &fe) || fault.Rule(err) != RuleFormat || (!errors.Is(err, fault.ErrInvalid) && !errors.Is(err, fault.ErrTruncated)) {
				t.Fatalf("error not a *FormatError: %v", err)
			}
			return
		}
		if ItemSize(a.Dtype) == 0 || len(a.Data) != a.Len()*ItemSize(a.Dtype) {
			t.Fatalf("read %q shape %v with %d data bytes", a.Dtype, a.Shape, len(a.Data))
		}
		var out bytes.Buffer
		if err := Write(&out, a); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if out.Len()%64 != len(a.Data)%64 {
			t.Fatalf("data of the re-encoded file is not 64-byte aligned")
		}
		b, err := Read(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if b.Dtype != a.Dtype || !reflect.DeepEqual(b.Shape, a.Shape) && len(a.Shape)+len(b.Shape) > 0 || !bytes.Equal(b.Data, a.Data) {
			t.Fatalf("round trip differs: %q %v %d bytes -> %q %v %d bytes", a.Dtype, a.Shape, len(a.Data), b.Dtype, b.Shape, len(b.Data))
		}
	})
}

// TestAgainstNumpy is the opt-in oracle: numpy writes and reads the files (skipped when
// /usr/bin/python3 lacks numpy).
func TestAgainstNumpy(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skip("python3 with numpy not available")
	}
	dir := t.TempDir()
	script := `
import numpy as np, sys
d = sys.argv[1]
np.save(d + "/f.npy", np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5)
np.save(d + "/be.npy", np.arange(6, dtype=">i4").reshape(2, 3))
np.save(d + "/b.npy", np.array([True, False, True]))
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	f, _ := os.Open(filepath.Join(dir, "f.npy"))
	a, err := Read(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if a.Dtype != "f4" || !reflect.DeepEqual(a.Shape, []int{3, 4}) ||
		math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*5:])) != 2.5 {
		t.Errorf("f.npy: %v %v", a.Dtype, a.Shape)
	}
	f, _ = os.Open(filepath.Join(dir, "be.npy"))
	a, err = Read(f)
	f.Close()
	if err != nil || binary.LittleEndian.Uint32(a.Data[4*5:]) != 5 {
		t.Errorf("be.npy: %v %v", a, err)
	}
	// Go writes, numpy reads.
	out := &Array{Dtype: "u2", Shape: []int{2, 3}, Data: []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 0xFF, 0xFF}}
	var buf bytes.Buffer
	Write(&buf, out)
	os.WriteFile(filepath.Join(dir, "go.npy"), buf.Bytes(), 0o644)
	got, err := exec.Command(py, "-c", "import numpy as np,sys; a=np.load(sys.argv[1]); print(a.dtype, a.shape, a.tolist())",
		filepath.Join(dir, "go.npy")).CombinedOutput()
	if err != nil || strings.TrimSpace(string(got)) != "uint16 (2, 3) [[1, 2, 3], [4, 5, 65535]]" {
		t.Errorf("numpy read of Go file: %q %v", got, err)
	}
}

// TestReadHugeDeclaredShapeShortData: a tiny file that declares a multi-GiB array fails on its
// short data without allocating what the header claims.
func TestReadHugeDeclaredShapeShortData(t *testing.T) {
	hdr := "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000,), }"
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	b.WriteByte(byte(len(hdr)))
	b.WriteByte(byte(len(hdr) >> 8))
	b.WriteString(hdr)
	b.Write(make([]byte, 100))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(&b)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, fault.ErrTruncated) {
		t.Fatalf("err = %v, want a truncated file", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("allocated %d bytes for a 100-byte payload", grew)
	}
}

// A dtype the reader does not take is named the way numpy names it, with the way out.
func TestUnsupportedDtypeNamed(t *testing.T) {
	for descr, name := range map[string]string{
		"<c8": "complex64", "<c16": "complex128", "<f16": "float128", "|O": "object", "<U5": "unicode string",
		"|S3": "byte string", "|V8": "void", "<M8[ns]": "datetime64", "<m8[s]": "timedelta64",
	} {
		t.Run(descr, func(t *testing.T) {
			hdr := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (1,), }\n"
			raw := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), 0)
			raw = append(append(raw, hdr...), make([]byte, 32)...)
			_, err := Read(bytes.NewReader(raw))
			if !errors.Is(err, fault.ErrInvalid) || !strings.Contains(err.Error(), "("+name) || !strings.Contains(err.Error(), "astype") {
				t.Errorf("%s: %v", descr, err)
			}
		})
	}
}

// A refused file names the part at fault as its path (fault.Path), under rule npy.format, through
// a caller's wrapping with the file's name.
func TestFormatErrorPath(t *testing.T) {
	file := func(hdr string, data int) []byte {
		raw := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), 0)
		return append(append(raw, hdr...), make([]byte, data)...)
	}
	for _, tc := range []struct {
		name  string
		raw   []byte
		path  string
		trunc bool
	}{
		{"empty", nil, "preamble", true},
		{"magic", []byte("NUMPY\x93\x01\x00\x00\x00"), "preamble", false},
		{"version", []byte("\x93NUMPY\x07\x00\x00\x00"), "version", false},
		{"header length", []byte("\x93NUMPY\x01\x00\x05"), "header_len", true},
		{"header short", []byte("\x93NUMPY\x01\x00\x40\x00{"), "header", true},
		{"not a dict", file("[]\n", 0), "header", false},
		{"descr", file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n", 8), "descr", false},
		{"fortran", file("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }\n", 4), "fortran_order", false},
		{"shape", file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,x), }\n", 4), "shape", false},
		{"data", file("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\n", 4), "data", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.raw))
			w := fmt.Errorf("load: %w", fault.Wrap("x.npy", err))
			var fe *FormatError
			if !errors.As(w, &fe) || fault.Rule(w) != RuleFormat {
				t.Fatalf("%v: not a *FormatError of %s", err, RuleFormat)
			}
			if got := fault.Path(w); got != "x.npy: "+tc.path {
				t.Errorf("path %q, want %q: %v", got, "x.npy: "+tc.path, err)
			}
			if want := map[bool]error{true: fault.ErrTruncated, false: fault.ErrInvalid}[tc.trunc]; fault.Category(w) != want {
				t.Errorf("category %v, want %v", fault.Category(w), want)
			}
		})
	}
}
