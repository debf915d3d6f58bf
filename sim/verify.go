package sim

import (
	"bytes"
	"fmt"
	"math"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// The rules a run's result breaks when it is not what the caller said it must be: an
// expectation on memory (`tpbsim run --expect`) and a DGE request's destination against dge's
// direct reference (`tpbsim dge run --verify`). Their errors unwrap to fault.ErrInvalid: the
// input states the result, and the result breaks it.
const (
	RuleExpectMet        = "sim.expect_met"
	RuleDGEVerifyMatches = "sim.dge_verify_matches"
)

// VerifyProvenance lists the registry entries of the result checks (tpbsim explain sim.expect_met).
func VerifyProvenance() []isa.Provenance {
	const (
		src = "DESIGN.md §7 (exit status 1: verification mismatch), README (run --expect, dge run --verify)"
		why = "the rule ids are tpbsim's: a result checked against a reference breaks no hardware rule, but the check needs an id its error and explain can name"
	)
	return []isa.Provenance{
		isa.Rule(RuleExpectMet, "After the run, memory at the expectation's address holds the expectation's elements: equal bits, or both NaN for a float type.",
			src, isa.Invented, []string{"address", "shape", "dtype"},
			why+"; NaN equals NaN because the machine's NaN payloads (num.alu_nan) are the model's choice, not the reference's"),
		isa.Rule(RuleDGEVerifyMatches, "After a DGE request runs, its destination holds what the request means element by element (dge.Request.Expect, dge.IndexRequest.Expect), whatever the planner made of it.",
			src, isa.Invented, []string{"dst"}, why),
	}
}

// Diff compares two arrays of elements of kind k: elements are equal when their bits are, or,
// for a float kind, when both are NaN. It returns the flat index of the first differing element
// (-1 when none differs) and how many differ.
func Diff(k num.Kind, got, want []byte) (first, differ int) {
	es := k.Size()
	if es == 0 {
		es = 1
	}
	first = -1
	n := min(len(got), len(want)) / es
	for i := 0; i < n; i++ {
		g, w := got[i*es:(i+1)*es], want[i*es:(i+1)*es]
		if bytes.Equal(g, w) || (k.IsFloat() && math.IsNaN(num.LoadF64(k, g)) && math.IsNaN(num.LoadF64(k, w))) {
			continue
		}
		if first < 0 {
			first = i
		}
		differ++
	}
	return first, differ
}

// ExpectError is an expectation a run left unmet: memory at At (Shape elements of Kind) differs
// from the reference, first at flat element First (Index in Shape). Source names where the
// reference came from (a file), for the message.
type ExpectError struct {
	At          isa.Location
	Shape       []int
	Kind        num.Kind
	Source      string
	First       int
	Index       []int
	Got, Want   []byte // the first differing element's bytes
	Differ, All int    // how many elements differ, of how many
}

func (e *ExpectError) Error() string {
	return fmt.Sprintf("expectation not met: element %s (flat %d) is %s in memory, %s in %s; %d of %d elements differ",
		indexText(e.Index), e.First, ValueText(e.Kind, e.Got), ValueText(e.Kind, e.Want), e.Source, e.Differ, e.All)
}
func (e *ExpectError) Unwrap() error   { return fault.ErrInvalid }
func (e *ExpectError) RuleID() string  { return RuleExpectMet }
func (e *ExpectError) ErrPath() string { return fmt.Sprintf("%v%s", e.At, indexText(e.Index)) }

// Expect checks that memory at at holds want (shape elements of kind k, row-major as
// ReadTensor reads them; source names the reference in the error). An unmet expectation is an
// *ExpectError naming the first differing element by its index and both values; a range that
// cannot be read is the memory's error.
func (m *Machine) Expect(at isa.Location, shape []int, k num.Kind, want []byte, source string) error {
	got, err := m.ReadTensor(at, shape, k.Size())
	if err != nil {
		return err
	}
	if len(want) != len(got) {
		return fmt.Errorf("expectation at %v: %d reference bytes for %d in memory (shape %v of %v)", at, len(want), len(got), shape, k)
	}
	first, differ := Diff(k, got, want)
	if first < 0 {
		return nil
	}
	es := k.Size()
	return &ExpectError{At: at, Shape: shape, Kind: k, Source: source, First: first, Index: Unravel(first, shape),
		Got: got[first*es : (first+1)*es], Want: want[first*es : (first+1)*es], Differ: differ, All: len(got) / es}
}

// Unravel is numpy's unravel_index of flat index i in shape (row-major).
func Unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] <= 0 {
			continue
		}
		idx[k] = i % shape[k]
		i /= shape[k]
	}
	return idx
}

// ValueText prints an element of kind k as its value and, for floats, its bits.
func ValueText(k num.Kind, b []byte) string {
	switch {
	case k.IsFloat():
		return fmt.Sprintf("%v (%v 0x%0*x)", num.LoadF64(k, b), k, 2*k.Size(), num.LoadBits(k, b))
	case k.IsSigned():
		return fmt.Sprintf("%d", num.LoadInt(k, b))
	}
	return fmt.Sprintf("%d", num.LoadUint(k, b))
}

// indexText prints a multi-index as numpy does, [i, j].
func indexText(idx []int) string {
	s := make([]string, len(idx))
	for i, v := range idx {
		s[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}
