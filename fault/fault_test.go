package fault_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

type ruleErr struct{ rule, path string }

func (e *ruleErr) Error() string   { return e.path + ": rule " + e.rule }
func (e *ruleErr) Unwrap() error   { return fault.ErrInvalid }
func (e *ruleErr) RuleID() string  { return e.rule }
func (e *ruleErr) ErrPath() string { return e.path }

func TestRuleAndPathThroughLayers(t *testing.T) {
	inner := &ruleErr{rule: "num_elem_nonzero", path: "num_elem[1]"}
	err := fault.Wrap("DMA[3]", fault.Wrap("descriptor[7]", fault.Wrap("src", inner)))
	err = fmt.Errorf("run: %w", err)
	for _, tc := range []struct {
		name, got, want string
	}{
		{"rule", fault.Rule(err), "num_elem_nonzero"},
		{"path", fault.Path(err), "DMA[3]: descriptor[7]: src: num_elem[1]"},
		{"message", err.Error(), "run: DMA[3]: descriptor[7]: src: num_elem[1]: rule num_elem_nonzero"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
	if !errors.Is(err, fault.ErrInvalid) || fault.Category(err) != fault.ErrInvalid {
		t.Errorf("category lost: %v", fault.Category(err))
	}
	var re *ruleErr
	if !errors.As(err, &re) || re != inner {
		t.Error("errors.As does not reach the typed error")
	}
}

func TestCategoriesDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range fault.Categories {
		if seen[c.Error()] {
			t.Errorf("two categories read %q", c)
		}
		seen[c.Error()] = true
		for _, d := range fault.Categories {
			if c != d && errors.Is(c, d) {
				t.Errorf("%v matches %v", c, d)
			}
		}
	}
	if fault.Category(errors.New("x")) != nil || fault.Rule(nil) != "" || fault.Path(nil) != "" || fault.Wrap("x", nil) != nil {
		t.Error("nil / foreign errors must have no category, rule or path")
	}
}

func TestViolationString(t *testing.T) {
	for _, tc := range []struct {
		v    fault.Violation
		want string
	}{
		{fault.Violation{Rule: "r", Path: "f", Value: "3", Legal: "0..2"}, "r: f = 3, legal: 0..2"},
		{fault.Violation{Rule: "r", Msg: "why"}, "r: why"},
		{fault.Violation{Rule: "r", Path: "f"}, "r: f"},
		{fault.Violation{Rule: "r", Path: "f", Msg: "why"}, "r: f: why"},
		{fault.Violation{Rule: "r", Path: "f", Value: "3", Legal: "0..2", Offset: 7, Msg: "why"}, "r: f = 3, legal: 0..2: why"},
		{fault.Violation{Rule: "r"}, "r"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.v.String(); got != tc.want {
				t.Errorf("got %q", got)
			}
		})
	}
}

// pathErr is a typed error with a path, wrapping an optional cause.
type pathErr struct {
	path  string
	cause error
}

func (e *pathErr) Error() string   { return e.path }
func (e *pathErr) ErrPath() string { return e.path }
func (e *pathErr) Unwrap() error   { return e.cause }

// multiErr branches like a program's error holding several instructions' errors, or a category
// beside a cause.
type multiErr []error

func (e multiErr) Error() string   { return "several" }
func (e multiErr) Unwrap() []error { return e }

// Path names one place: where the chain branches it follows the first branch with a path, never
// the paths of every branch joined.
func TestPathFollowsOneBranch(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"a line", &pathErr{"DMA[3]", &pathErr{"descriptor[7]", &pathErr{"src", nil}}}, "DMA[3]: descriptor[7]: src"},
		{"two instructions", multiErr{&pathErr{"DVE[1]", nil}, &pathErr{"SP[0]", nil}}, "DVE[1]"},
		{"a category beside a cause", &pathErr{"src", multiErr{fault.ErrInvalid, &pathErr{"address", nil}}}, "src: address"},
		{"wrapped", fmt.Errorf("run: %w", multiErr{errors.New("plain"), &pathErr{"POOL[2]", &pathErr{"dst", nil}}}), "POOL[2]: dst"},
		{"none", multiErr{fault.ErrInvalid, errors.New("plain")}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fault.Path(c.err); got != c.want {
				t.Errorf("Path = %q, want %q", got, c.want)
			}
		})
	}
}
