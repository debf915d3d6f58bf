package dma

import (
	"errors"
	"strings"
	"testing"
)

// fakeMemErr is a memory refusal naming a rule, in or out of bounds.
type fakeMemErr struct {
	rule string
	oob  bool
}

func (e fakeMemErr) Error() string     { return "mem: " + e.rule }
func (e fakeMemErr) RuleID() string    { return e.rule }
func (e fakeMemErr) OutOfBounds() bool { return e.oob }

func TestErrorRules(t *testing.T) {
	reg := &BoundsError{Reg: 3, Limit: 16}
	if reg.RuleID() != RuleBoundsCheck || refusal(reg) != error(reg) {
		t.Errorf("bound register failure: rule %s", reg.RuleID())
	}
	oob := &BoundsError{Reg: -1, Err: fakeMemErr{"hbm_addr_in_range", true}}
	if oob.RuleID() != "hbm_addr_in_range" || refusal(oob) != error(oob) || !strings.Contains(oob.Error(), "Failed bounds check") {
		t.Errorf("memory bounds failure: %s %v", oob.RuleID(), refusal(oob))
	}
	un := refusal(&BoundsError{Reg: -1, Side: "src", Lo: 0x40, Hi: 0x80, Err: fakeMemErr{"read_initialised", false}})
	var ae *AccessError
	if !errors.As(un, &ae) || ae.RuleID() != "read_initialised" || errors.Is(un, ErrBounds) || strings.Contains(un.Error(), "bounds") ||
		!strings.Contains(un.Error(), "[0x40, 0x80)") {
		t.Errorf("uninitialised read: %v", un)
	}
	wrap := &BoundsError{Reg: -1, Err: wrapError("the walk wraps")}
	if wrap.RuleID() != RuleAddrNoWrap {
		t.Errorf("wrap: %s", wrap.RuleID())
	}
	if (&BoundsError{Reg: -1, Err: errors.New("x")}).RuleID() != RuleRangeInMemory {
		t.Error("unnamed memory refusal")
	}
	if d := descErr("x"); !errors.Is(d, ErrDescriptor) || d.(*DescriptorError).RuleID() != RuleDescriptorValid {
		t.Errorf("descriptor: %v", d)
	}
	if (&IndexError{}).RuleID() != RuleIndexInBound {
		t.Error("index")
	}
}
