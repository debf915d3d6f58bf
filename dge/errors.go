package dge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
)

// Error is the error of a request or DMA instruction the DGE refuses: the rule it breaks (one of
// RuleIDs, or an ISA rule the DGE re-checks), its category (fault.ErrInvalid for a request or
// instruction that breaks a rule, fault.ErrUnsupported for one the model cannot lower), where in
// the request or instruction (Path, e.g. "src: num_elem[2]"), and what is wrong: the value found
// and what would be legal (Value, Legal: an ISA validator's violation of a word) and why (Msg).
type Error struct {
	Rule string
	Err  error
	Path string
	Msg  string
	// Value and Legal are the value found and what would be legal, when the error is the ISA
	// validator's violation of a word (PlanInst); empty otherwise (Msg says both).
	Value, Legal string
}

// Error renders "dge: CATEGORY: rule R: path = value, legal: L: msg" (fault.Violation.String).
func (e *Error) Error() string   { return e.prefix() + ": rule " + e.Violation().String() }
func (e *Error) Unwrap() error   { return e.Err }
func (e *Error) RuleID() string  { return e.Rule }
func (e *Error) ErrPath() string { return e.Path }

// Violation is the broken rule as a value.
func (e *Error) Violation() fault.Violation {
	return fault.Violation{Rule: e.Rule, Path: e.Path, Value: e.Value, Legal: e.Legal, Offset: -1, Msg: e.Msg}
}

// prefix names the category in the words the CLI has always printed.
func (e *Error) prefix() string {
	if e.Err == fault.ErrUnsupported {
		return "dge: unsupported on this generation"
	}
	return "dge: invalid request"
}

// reqErr is a request or instruction that breaks rule at path.
func reqErr(rule, path, format string, args ...any) error {
	return &Error{Rule: rule, Err: fault.ErrInvalid, Path: path, Msg: fmt.Sprintf(format, args...)}
}

// unsupErr is a request or instruction the model does not lower (rule names why), at path.
func unsupErr(rule, path, format string, args ...any) error {
	return &Error{Rule: rule, Err: fault.ErrUnsupported, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func itoa(k int) string { return strconv.Itoa(k) }

// fieldName is the field of a label such as "src_start_addr (INFERRED offset 16)".
func fieldName(label string) string {
	if i := strings.IndexByte(label, ' '); i >= 0 {
		return label[:i]
	}
	return label
}

func dtypeField(in bool) string {
	if in {
		return "in_dtype"
	}
	return "out_dtype"
}

func semField(sem int) string {
	if sem > 255 || sem < 0 {
		return "semaphore"
	}
	return "sem_increment"
}
