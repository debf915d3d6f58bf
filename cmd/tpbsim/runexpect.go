package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
)

// float32Suffix marks a --dump written as float32 values instead of the dtype's raw bits.
const float32Suffix = ":float32"

// cutFloat32Suffix splits FILE.npy:float32 (a --dump asking for float32 values).
func cutFloat32Suffix(file string) (string, bool) {
	if f, ok := strings.CutSuffix(file, float32Suffix); ok && f != "" {
		return f, true
	}
	return file, false
}

// renderFloat32 is render for a dump written as float32 values: each element of the dtype is
// widened to FP32 (exact for every float type and for integers up to 2^24).
func (d dumpSpec) renderFloat32(m *sim.Machine) ([]byte, error) {
	data, err := m.ReadTensor(d.at, d.shape, d.kind.Size())
	if err != nil {
		return nil, err
	}
	n := len(data) / d.kind.Size()
	out := make([]byte, 4*n)
	if err := num.ConvertSlice(out, num.FP32, data, d.kind, n); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := npy.Write(&b, &npy.Array{Dtype: "f4", Shape: d.shape, Data: out}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// expectSpec is one --expect ADDR=SHAPE:DTYPE:FILE.npy: the memory the run must leave at ADDR,
// read from FILE.npy (the dtype's own numpy type or its raw bits, or values converted to DTYPE
// through FP32, as --load converts them).
type expectSpec struct {
	dumpSpec
	want []byte // the reference as elements of kind
}

// parseExpects reads every --expect before the run (addresses, shapes, the reference files):
// a mistake there is a usage or I/O error, exit 2, and costs no run.
func parseExpects(m *sim.Machine, g isa.Generation, args []string) ([]expectSpec, error) {
	var out []expectSpec
	for _, a := range args {
		e, err := parseExpect(m, g, a)
		if err != nil {
			return nil, ioErr(fmt.Errorf("--expect %s: %w", a, err))
		}
		out = append(out, e)
	}
	return out, nil
}

func parseExpect(m *sim.Machine, g isa.Generation, arg string) (expectSpec, error) {
	d, err := parseDump(arg, g)
	if err != nil {
		return expectSpec{}, err
	}
	if d.asF32 {
		return expectSpec{}, fmt.Errorf("%s is for --dump; --expect reads float32 references as they are", float32Suffix)
	}
	if err := d.check(m); err != nil {
		return expectSpec{}, err
	}
	a, err := readNPY(d.file)
	if err != nil {
		return expectSpec{}, err
	}
	if !sameShape(a.Shape, d.shape) {
		return expectSpec{}, fmt.Errorf("%s has shape %v, the expectation %v", d.file, a.Shape, d.shape)
	}
	want, err := a.Convert(d.kind)
	if err != nil {
		return expectSpec{}, fmt.Errorf("%s: %w", d.file, err)
	}
	return expectSpec{dumpSpec: d, want: want}, nil
}

func sameShape(a, b []int) bool {
	if len(a) == 0 {
		a = []int{1}
	}
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkExpects compares every expectation after the run (sim.Machine.Expect); the first unmet
// one is a rule broken (exit 1), and no output is written.
func checkExpects(m *sim.Machine, es []expectSpec) error {
	for _, e := range es {
		if err := m.Expect(e.at, e.shape, e.kind, e.want, e.file); err != nil {
			return ruleErr(fmt.Errorf("--expect %s: %w", e.arg, err))
		}
	}
	return nil
}
