package kernel

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors: the category of a refused kernel (errors.Is). ErrForm is a malformed kernel
// form (a usage error: exit 2 in the CLI); the others are a well-formed kernel that breaks a
// rule (exit 1).
var (
	ErrForm        = errors.New("malformed kernel form")
	ErrRule        = errors.New("NKI rule broken")
	ErrCapacity    = errors.New("capacity exceeded")
	ErrUnsupported = errors.New("not modelled by tpbsim")
	// ErrLowering: the lowering produced a word the machine's own checks refuse. That is a
	// tpbsim defect or an NKI rule tpbsim does not check yet; the error says which word.
	ErrLowering = errors.New("lowering refused by the machine's checks")
)

// Error is one refusal, naming the call (its file:line and name), the argument, the rule, what
// was found and what would be legal.
type Error struct {
	Kind  error
	Loc   string // file:line of the call (or tensor)
	Call  string // the call's name, e.g. nisa.nc_transpose
	Arg   string // the argument or key path, e.g. "data" or "tensors[3].shape"
	Rule  string // rule id, e.g. nki.nc_transpose.vector_tile
	Msg   string // what was found
	Legal string // what would be legal
	Err   error  // the cause (a machine error), when there is one
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Loc != "" {
		b.WriteString(e.Loc)
		b.WriteString(": ")
	}
	if e.Call != "" {
		b.WriteString(e.Call)
		b.WriteString(": ")
	}
	if e.Arg != "" {
		b.WriteString(e.Arg)
		b.WriteString(": ")
	}
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	if e.Rule != "" {
		fmt.Fprintf(&b, ": rule %s", e.Rule)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Legal != "" {
		fmt.Fprintf(&b, " (legal: %s)", e.Legal)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap exposes the category and the cause to errors.Is / errors.As.
func (e *Error) Unwrap() []error {
	out := []error{e.Kind}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// RuleID is the rule the error names.
func (e *Error) RuleID() string { return e.Rule }

func formErr(path, format string, args ...any) *Error {
	return &Error{Kind: ErrForm, Arg: path, Msg: fmt.Sprintf(format, args...)}
}

// callErr is a refusal of call c.
func callErr(c *Call, kind error, arg, rule, legal, format string, args ...any) *Error {
	return &Error{Kind: kind, Loc: c.Loc, Call: c.name(), Arg: arg, Rule: rule, Msg: fmt.Sprintf(format, args...), Legal: legal}
}
