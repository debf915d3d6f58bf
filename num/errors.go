package num

import "fmt"

// The rules a ConvertSlice error names (registered in Provenance).
const (
	// RuleKindHasEncoding: both kinds have an element encoding (not INVALID, CPTC or an unknown code).
	RuleKindHasEncoding = "num.kind_has_encoding"
	// RuleElementCount: the element count is not negative.
	RuleElementCount = "num.element_count"
	// RuleBufferHoldsElements: each buffer holds n elements of its kind.
	RuleBufferHoldsElements = "num.buffer_holds_elements"
)

// RuleIDs lists the rule ids a num error can carry (RuleKindName: ParseKind's).
func RuleIDs() []string {
	return []string{RuleKindHasEncoding, RuleElementCount, RuleBufferHoldsElements, RuleKindName}
}

// Error is an error of ConvertSlice or ParseKind: the rule broken, the argument ("src", "dst", "n" or "dtype") and
// what is wrong, wrapping its category (fault.ErrInvalid, or fault.ErrBounds for a short
// buffer). It implements fault.Ruled and fault.Pathed.
type Error struct {
	Rule   string
	Arg    string
	Detail string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("num: %s: %s: %s (%v)", e.Rule, e.Arg, e.Detail, e.Err)
}
func (e *Error) Unwrap() error   { return e.Err }
func (e *Error) RuleID() string  { return e.Rule }
func (e *Error) ErrPath() string { return e.Arg }

func errorf(category error, rule, arg, format string, args ...any) *Error {
	return &Error{Rule: rule, Arg: arg, Detail: fmt.Sprintf(format, args...), Err: category}
}
