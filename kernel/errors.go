package kernel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// A refused kernel is an *Error whose Kind is one of package fault's categories (match with
// errors.Is from any layer):
//
//   - fault.ErrInvalid: the kernel breaks an NKI rule or one of the lowering's rules, or (with
//     Malformed set) the kernel form itself is malformed: bad JSON, an unknown key, an id out of
//     range, a missing operand, input data of the wrong size. The CLI exits 1 for the first and
//     2, a usage error, for the second (IsMalformed).
//   - fault.ErrCapacity: the live tiles do not fit SBUF / PSUM.
//   - fault.ErrUnsupported: a call or type tpbsim does not model.
//
// A lowered word the machine's check pipeline refuses is a *LoweringError instead, of the
// machine error's category.

// Error is one refusal, naming the call (its file:line and name), the argument, the rule, what
// was found and what would be legal (Violation gives the last four as a fault.Violation).
type Error struct {
	Kind error // fault.ErrInvalid, fault.ErrCapacity or fault.ErrUnsupported
	// Malformed: the kernel form (or the data and options given with it) is malformed, rather
	// than a well-formed kernel breaking a rule. Kind is fault.ErrInvalid.
	Malformed bool
	Loc       string // file:line of the call (or tensor)
	Call      string // the call's name, e.g. nisa.nc_transpose
	Arg       string // the argument or key path, e.g. "data" or "tensors[3].shape"
	Rule      string // rule id, e.g. nki.nc_transpose.vector_tile
	Msg       string // what was found
	Legal     string // what would be legal
}

// what names the kind of refusal in messages.
func (e *Error) what() string {
	switch {
	case e.Malformed:
		return "malformed kernel form"
	case e.Kind == fault.ErrInvalid:
		return "NKI rule broken"
	case e.Kind != nil:
		return e.Kind.Error()
	}
	return ""
}

// Error renders "FILE:LINE: CALL: CATEGORY: rule R: arg = found, legal: L", the broken rule as
// fault.Violation.String prints it (Violation), after where the call is.
func (e *Error) Error() string {
	var parts []string
	for _, s := range []string{e.Loc, e.Call, e.what()} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	v := e.Violation()
	switch {
	case v.Rule != "":
		parts = append(parts, "rule "+v.String())
	case v.Detail() != "":
		parts = append(parts, v.Detail())
	}
	return strings.Join(parts, ": ")
}

// Violation is the broken rule as a value: the rule, the argument or key path (Arg), and what
// was found, as the value compared with what would be legal when Legal is known, else as the
// message saying what is wrong.
func (e *Error) Violation() fault.Violation {
	v := fault.Violation{Rule: e.Rule, Path: e.Arg, Legal: e.Legal, Offset: -1}
	if e.Legal != "" {
		v.Value = e.Msg
	} else {
		v.Msg = e.Msg
	}
	return v
}

// Unwrap exposes the category to errors.Is.
func (e *Error) Unwrap() error { return e.Kind }

// RuleID is the rule the error names (fault.Ruled).
func (e *Error) RuleID() string { return e.Rule }

// ErrPath is where the error is (fault.Pathed): the call's file:line, the call, the argument,
// those that are known, joined with ": " ("t.py:14: nisa.tensor_reduce: axis").
func (e *Error) ErrPath() string {
	var parts []string
	for _, s := range []string{e.Loc, e.Call, e.Arg} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ": ")
}

// IsMalformed reports whether err is a malformed kernel form (or its data or options) rather
// than a kernel that breaks a rule: what a command reports as a usage error.
func IsMalformed(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Malformed
}

// LoweringError is a lowered word the machine's check pipeline refuses: a tpbsim lowering defect
// or an NKI rule tpbsim does not check yet (the message asks for a report). It names the call
// the word was lowered from; Err is the machine's refusal, whose category and rule it keeps.
type LoweringError struct {
	Origin string // "file:line call" of the call, or what the lowering added the word for
	Engine isa.Engine
	Index  int // the word's index in its queue
	Opcode isa.Opcode
	Rule   string
	Err    error
}

func (e *LoweringError) Error() string {
	return fmt.Sprintf("%s: lowering refused by the machine's checks: rule %s: the lowered %v on %v (instruction %d of its queue) is refused; "+
		"this is a tpbsim lowering defect or an NKI rule tpbsim does not check yet (please report it): %v", e.Origin, e.Rule, e.Opcode, e.Engine, e.Index, e.Err)
}

// Unwrap is the machine's refusal.
func (e *LoweringError) Unwrap() error { return e.Err }

// RuleID is the rule the machine names (fault.Ruled).
func (e *LoweringError) RuleID() string { return e.Rule }

// ErrPath is the call the word came from (fault.Pathed).
func (e *LoweringError) ErrPath() string { return e.Origin }

// formErr is a malformed kernel form at key path path.
func formErr(path, rule, format string, args ...any) *Error {
	return &Error{Kind: fault.ErrInvalid, Malformed: true, Arg: path, Rule: rule, Msg: fmt.Sprintf(format, args...)}
}

// callErr is a refusal of call c.
func callErr(c *Call, kind error, arg, rule, legal, format string, args ...any) *Error {
	return &Error{Kind: kind, Loc: c.Loc, Call: c.name(), Arg: arg, Rule: rule, Msg: fmt.Sprintf(format, args...), Legal: legal}
}
