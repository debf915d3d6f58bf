package main

import (
	"bytes"
	"fmt"
	"math"
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
	want, err := convertIn(a, d.kind)
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

// compare checks the memory against the reference: elements are equal when their bits are, or
// when both are NaN. The error names the first differing element by its index and both values.
func (e expectSpec) compare(m *sim.Machine) error {
	got, err := m.ReadTensor(e.at, e.shape, e.kind.Size())
	if err != nil {
		return err
	}
	es := e.kind.Size()
	n := len(got) / es
	first, diff := -1, 0
	for i := 0; i < n; i++ {
		g, w := got[i*es:(i+1)*es], e.want[i*es:(i+1)*es]
		if bytes.Equal(g, w) || (e.kind.IsFloat() && math.IsNaN(num.LoadF64(e.kind, g)) && math.IsNaN(num.LoadF64(e.kind, w))) {
			continue
		}
		if first < 0 {
			first = i
		}
		diff++
	}
	if first < 0 {
		return nil
	}
	g, w := got[first*es:(first+1)*es], e.want[first*es:(first+1)*es]
	return fmt.Errorf("expectation not met: element %s (flat %d) is %s in memory, %s in %s; %d of %d elements differ",
		indexText(unravel(first, e.shape)), first, valueText(e.kind, g), valueText(e.kind, w), e.file, diff, n)
}

// unravel is numpy's unravel_index of flat index i in shape (row-major).
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		idx[k] = i % shape[k]
		i /= shape[k]
	}
	return idx
}

// valueText prints an element as its value and, for floats, its bits.
func valueText(k num.Kind, b []byte) string {
	switch {
	case k.IsFloat():
		return fmt.Sprintf("%v (%v 0x%0*x)", num.LoadF64(k, b), k, 2*k.Size(), num.LoadBits(k, b))
	case k.IsSigned():
		return fmt.Sprintf("%d", num.LoadInt(k, b))
	}
	return fmt.Sprintf("%d", num.LoadUint(k, b))
}

// checkExpects compares every expectation after the run; the first unmet one is a rule broken
// (exit 1), and no output is written.
func checkExpects(m *sim.Machine, es []expectSpec) error {
	for _, e := range es {
		if err := e.compare(m); err != nil {
			return ruleErr(fmt.Errorf("--expect %s: %w", e.arg, err))
		}
	}
	return nil
}

// indexText prints a multi-index as numpy does, [i, j].
func indexText(idx []int) string {
	s := make([]string, len(idx))
	for i, v := range idx {
		s[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
