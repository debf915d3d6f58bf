package dma

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// fakeMemErr is a memory refusal naming a rule, in or out of bounds.
type fakeMemErr struct {
	rule string
	oob  bool
}

func (e fakeMemErr) Error() string     { return "mem: " + e.rule }
func (e fakeMemErr) RuleID() string    { return e.rule }
func (e fakeMemErr) OutOfBounds() bool { return e.oob }

// TestErrorRules: every typed error of the engines names its rule, its path and its fault
// category, and the memory's refusals keep the memory's rule.
func TestErrorRules(t *testing.T) {
	for _, c := range []struct {
		name     string
		err      error
		rule     string
		path     string
		category error
		text     string // a part of the message
	}{
		{"bound register", &BoundsError{Desc: 2, Side: "dst", Reg: 3, Limit: 16}, RuleBoundsCheck, "descriptor[2]: dst_bound_reg", fault.ErrBounds, "Failed bounds check"},
		{"memory bounds", &BoundsError{Desc: 0, Side: "src", Reg: -1, Err: fakeMemErr{"hbm_addr_in_range", true}}, "hbm_addr_in_range", "descriptor[0]: src", fault.ErrBounds, "Failed bounds check"},
		{"address wrap", &BoundsError{Desc: 1, Side: "src", Reg: -1, Err: wrapError("the walk wraps")}, RuleAddrNoWrap, "descriptor[1]: src", fault.ErrBounds, "the walk wraps"},
		{"unnamed memory refusal", &BoundsError{Desc: 1, Side: "dst", Reg: -1, Err: errors.New("x")}, RuleRangeInMemory, "descriptor[1]: dst", fault.ErrBounds, "outside the active memory: x"},
		{"index", &IndexError{Desc: 7, Side: "src_idx", Pos: 12, Index: 99, Bound: 4}, RuleIndexInBound, "descriptor[7]: src_idx[12]", fault.ErrBounds, "src_idx[12] = 99, legal < 4"},
		{"negative int32 index", &IndexError{Desc: 7, Side: "src_idx", Pos: 3, Index: 0xFFFFFFFF, Bound: 4}, RuleIndexInBound, "descriptor[7]: src_idx[3]", fault.ErrBounds, "src_idx[3] = 4294967295 (-1 as int32), legal < 4"},
		{"descriptor alone", descErr("src: num_elem[1]", "num_elem[1] = 0"), RuleDescriptorValid, "src: num_elem[1]", fault.ErrInvalid, "dma: invalid descriptor: num_elem[1] = 0"},
		{"descriptor in a job", &DescriptorError{Rule: RuleDescriptorValid, Engine: 3, Desc: 7, Field: "src: num_elem[1]", Msg: "num_elem[1] = 0"},
			RuleDescriptorValid, "descriptor[7]: src: num_elem[1]", fault.ErrInvalid, "descriptor 7 on DMA[3]: dma: invalid descriptor: num_elem[1] = 0"},
		{"job", jobErr(RuleJobEngines, "job uses 17 engines"), RuleJobEngines, "", fault.ErrInvalid, "dma: invalid descriptor: job uses 17 engines"},
		{"execution", &ExecError{Engine: 1, Desc: 4, Err: fakeMemErr{"psum_write_4byte", true}}, "psum_write_4byte", "descriptor[4]", nil, "descriptor 4 on DMA[1]: mem: psum_write_4byte"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fault.Rule(c.err); got != c.rule {
				t.Errorf("rule %q, want %q", got, c.rule)
			}
			if got := fault.Path(c.err); got != c.path {
				t.Errorf("path %q, want %q", got, c.path)
			}
			if got := fault.Category(c.err); got != c.category {
				t.Errorf("category %v, want %v", got, c.category)
			}
			if !strings.Contains(c.err.Error(), c.text) {
				t.Errorf("message %q lacks %q", c.err, c.text)
			}
			if c.category != nil && refusal(c.err) != c.err {
				t.Errorf("refusal changed a %T", c.err)
			}
		})
	}
}

// TestRefusalNotBounds: a memory refusal that is not out of bounds (an uninitialised read)
// becomes an AccessError with the memory's rule, without the bounds wording or category.
func TestRefusalNotBounds(t *testing.T) {
	un := refusal(&BoundsError{Desc: 5, Reg: -1, Side: "src", Lo: 0x40, Hi: 0x80, Err: fakeMemErr{"read_initialised", false}})
	var ae *AccessError
	if !errors.As(un, &ae) || ae.RuleID() != "read_initialised" || errors.Is(un, fault.ErrBounds) || strings.Contains(un.Error(), "bounds") ||
		!strings.Contains(un.Error(), "[0x40, 0x80)") || fault.Path(un) != "descriptor[5]: src" {
		t.Errorf("uninitialised read: %v (path %q)", un, fault.Path(un))
	}
}
