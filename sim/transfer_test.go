package sim_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		err  string
	}{
		{"4096", 4096, ""}, {"0x1000", 4096, ""}, {"64K", 64 << 10, ""}, {"2GiB", 2 << 30, ""}, {" 1m ", 1 << 20, ""}, {"1T", 1 << 40, ""},
		{"0", 0, "at least 1"}, {"lots", 0, "bad size"}, {"99999999999T", 0, "overflows 64 bits"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := sim.ParseSize(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

func TestParseShape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  string
	}{
		{"128x64", []int{128, 64}, ""}, {"4X2x1", []int{4, 2, 1}, ""}, {"4,2", []int{4, 2}, ""}, {"7", []int{7}, ""},
		{"0x64", nil, "looks like a hex number"}, {"4xx4", nil, "an empty dimension"}, {"x4", nil, "an empty dimension"},
		{"4x0", nil, "a dimension is 0"}, {"4x+2", nil, "not a decimal number"}, {"", nil, "empty shape"},
		{"99999999999999999999", nil, "overflows 64 bits"}, {"65536x65536x2", nil, "too many elements"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := sim.ParseShape(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// writeNPY saves an array in dir and returns its path.
func writeNPY(t *testing.T, dir, name string, a *npy.Array) string {
	t.Helper()
	var b bytes.Buffer
	if err := npy.Write(&b, a); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A load, a dump and an expectation of the same range agree; the argument forms and the limits
// refuse what they must, naming why.
func TestLoadDumpExpect(t *testing.T) {
	dir := t.TempDir()
	f32 := []byte{0, 0, 0x80, 0x3F, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40} // 1, 2, 3, 4
	x := writeNPY(t, dir, "x.npy", &npy.Array{Dtype: "f4", Shape: []int{2, 2}, Data: f32})
	f64 := writeNPY(t, dir, "d.npy", &npy.Array{Dtype: "f8", Shape: []int{1}, Data: make([]byte, 8)})
	m, err := sim.New(sim.Config{Gen: isa.CAYMAN, HBMCapBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, arg string
		err       string // "" for none
	}{
		{"fp32 as it is", "sbuf:0:0x0=" + x, ""},
		{"converted to bf16", "sbuf:0:0x100=" + x + ":bf16", ""},
		{"into HBM", "hbm:0x40=" + x, ""},
		{"float64 without a dtype", "hbm:0x0=" + f64, "which no device element type is"},
		{"float64 converted", "hbm:0x80=" + f64 + ":FP32", ""},
		{"unknown dtype", "hbm:0x0=" + x + ":NOPE", "unknown dtype NOPE"},
		{"no '='", "hbm:0x0", "want ADDR=FILE.npy[:DTYPE]"},
		{"past the HBM cap", "hbm:0xfff8=" + x, "HBM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := sim.ParseLoad(tc.arg, isa.CAYMAN)
			if err == nil {
				err = m.Load(l)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
	for _, tc := range []struct {
		name, arg string
		want      []byte // the rendered array's data
		dtype     string
		raw       bool
	}{
		{"fp32", "sbuf:0:0x0=2x2:fp32:o.npy", f32, "f4", false},
		{"bf16 raw bits", "sbuf:0:0x100=2x2:bf16:o.npy", []byte{0x80, 0x3F, 0, 0x40, 0x40, 0x40, 0x80, 0x40}, "u2", true},
		{"bf16 as float32", "sbuf:0:0x100=2x2:bf16:o.npy:float32", f32, "f4", false},
		{"HBM", "hbm:0x40=4:fp32:o.npy", f32, "f4", false},
	} {
		t.Run("dump "+tc.name, func(t *testing.T) {
			d, err := sim.ParseDump(tc.arg, isa.CAYMAN)
			if err == nil {
				err = sim.CheckDumps(m, []sim.DumpSpec{d})
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := d.Render(m)
			if err != nil {
				t.Fatal(err)
			}
			a, err := npy.Read(bytes.NewReader(b))
			if err != nil || a.Dtype != tc.dtype || !bytes.Equal(a.Data, tc.want) {
				t.Fatalf("dumped %v %q % x, want %q % x", err, a.Dtype, a.Data, tc.dtype, tc.want)
			}
			if raw, _ := d.RawBits(); raw != tc.raw {
				t.Errorf("RawBits = %v, want %v", raw, tc.raw)
			}
		})
	}
	for _, tc := range []struct {
		name, arg, err string
	}{
		{"met", "sbuf:0:0x100=2x2:bf16:" + x, ""},
		{"not met", "sbuf:0:0x0=2x2:int32:" + x, "element [0, 0]"},
		{"shape", "sbuf:0:0x0=4:fp32:" + x, "has shape [2 2]"},
		{"float32 suffix", "sbuf:0:0x0=2x2:fp32:" + x + ":float32", "is for --dump"},
	} {
		t.Run("expect "+tc.name, func(t *testing.T) {
			e, err := sim.ParseExpect(m, tc.arg, isa.CAYMAN)
			if err == nil {
				err = e.Check(m)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err %v, want %q", err, tc.err)
			}
		})
	}
	// A dump's suffix is :float32 or none: another that looks like one is refused, not taken into
	// the file's name; a ':' in a name that has a '.' or a path separator after it is the name's.
	for _, tc := range []struct{ arg, file, err string }{
		{"sbuf:0:0=2x2:bf16:z.npy:f32", "", "unknown suffix :f32 after z.npy"},
		{"sbuf:0:0=2x2:bf16:z.npy:FLOAT32", "", "unknown suffix :FLOAT32"},
		{"sbuf:0:0=2x2:bf16:z.npy:", "", "unknown suffix :"},
		{"sbuf:0:0=2x2:bf16:a:b.npy", "a:b.npy", ""},
		{"sbuf:0:0=2x2:bf16:d:1/z.npy", "d:1/z.npy", ""},
	} {
		d, err := sim.ParseDump(tc.arg, isa.CAYMAN)
		if tc.err == "" && (err != nil || d.File != tc.file) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseDump(%q) = %q, %v; want %q, %q", tc.arg, d.File, err, tc.file, tc.err)
		}
	}
	if limit, why := m.TransferLimit(isa.Location{Space: isa.SpaceHBM}, true); limit != 64<<10 || !strings.Contains(why, "HBM cap of 65536 bytes") {
		t.Errorf("HBM load limit %d (%s)", limit, why)
	}
	if _, err := sim.ParseDump("sbuf:0:0=2:"+num.FP8_EXP4.String()+":o.npy", isa.CAYMAN); err != nil {
		t.Errorf("fp8 dump: %v", err)
	}
}

// What `tpbsim run PROG --load sbuf:0:0=x.npy:bf16 --dump sbuf:0:0=2x2:bf16:y.npy:float32` does
// with the data, as library calls.
func ExampleMachine_Load() {
	dir, _ := os.MkdirTemp("", "tpbsim")
	defer os.RemoveAll(dir)
	var b bytes.Buffer
	npy.Write(&b, &npy.Array{Dtype: "f4", Shape: []int{2, 2}, Data: []byte{0, 0, 0x80, 0x3F, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40, 0, 0, 0x80, 0x40}})
	x := filepath.Join(dir, "x.npy")
	os.WriteFile(x, b.Bytes(), 0o644)

	m, _ := sim.New(sim.Config{Gen: isa.CAYMAN})
	l, err := sim.ParseLoad("sbuf:0:0="+x+":bf16", isa.CAYMAN)
	if err == nil {
		err = m.Load(l)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := sim.ParseDump("sbuf:0:0=2x2:bf16:y.npy", isa.CAYMAN)
	raw, typ := d.RawBits()
	data, _ := d.Render(m)
	a, _ := npy.Read(bytes.NewReader(data))
	fmt.Println(d.File, raw, typ, a.Shape, a.Data)
	// Output:
	// y.npy true uint16 [2 2] [128 63 0 64 64 64 128 64]
}
