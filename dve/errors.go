package dve

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Error is the error of a failed instruction: the opcode, the rule broken, the field path and
// what is wrong, wrapping its category (a fault sentinel) or the memory's *mem.Error. It
// implements fault.Ruled and fault.Pathed.
//
// When the instruction breaks a rule of the ISA (a predicate of isa.Validate), the error is the
// validator's own violation of it (Violation; Rule and Field are its rule and path, Detail its
// value and legal set): the executor checks only what it needs not to fail, and asks the
// validator what is wrong when that fails. The executor's own rules (RuleIDs) have no
// Violation.
type Error struct {
	Opcode    isa.Opcode
	Rule      string
	Field     string
	Detail    string
	Violation *fault.Violation
	Err       error

	// cat is the fault category of a memory error whose own chain names none.
	cat error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("dve: %v: ", e.Opcode)
	if e.Violation != nil {
		return s + e.Violation.String()
	}
	s += e.Rule
	if e.Field != "" {
		s += ": " + e.Field
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	return s
}

// Unwrap exposes the category, and the memory error of an access that failed.
func (e *Error) Unwrap() []error {
	if e.cat != nil {
		return []error{e.Err, e.cat}
	}
	return []error{e.Err}
}

// RuleID is the rule broken (fault.Ruled).
func (e *Error) RuleID() string { return e.Rule }

// ErrPath is the field of the instruction (fault.Pathed), unless the wrapped error names it.
func (e *Error) ErrPath() string {
	if _, ok := e.Err.(fault.Pathed); ok {
		return ""
	}
	return e.Field
}

func fail(op isa.Opcode, category error, rule, field, format string, args ...any) *Error {
	return &Error{Opcode: op, Rule: rule, Field: field, Detail: fmt.Sprintf(format, args...), Err: category}
}

// memFail wraps a memory error, keeping its rule and naming the field.
func memFail(op isa.Opcode, field string, err error) *Error {
	var me *mem.Error
	if errors.As(err, &me) {
		me.Field = field
		return &Error{Opcode: op, Rule: me.Rule, Field: field, Detail: fmt.Sprintf("%s (on-chip address 0x%x)", me.Detail, me.Addr), Err: me, cat: memCategory(me)}
	}
	return &Error{Opcode: op, Rule: RuleMemoryAccess, Field: field, Detail: err.Error(), Err: err, cat: memCategory(err)}
}

// memCategory is fault.ErrInvalid for an access error whose chain names no category (every
// *mem.Error names one; another error from the memory's callers may not), else nil.
func memCategory(err error) error {
	if fault.Category(err) != nil {
		return nil
	}
	return fault.ErrInvalid
}

// refuse is the error of an instruction the executor cannot run because it breaks an ISA rule
// (rule, on field): isa.Validate's violation of that rule, else its violation on that field, else
// its first. Should the validator find none, the disagreement is reported under the executor's
// own RuleExecutable with what the executor found (format, args) rather than run into a panic.
func refuse(inst isa.Inst, g isa.Generation, rule, field, format string, args ...any) *Error {
	op := inst.Hdr().Opcode
	vs := isa.Validate(inst, g)
	w, ok := isa.PickViolation(vs, rule, field)
	if !ok && len(vs) > 0 {
		w, ok = vs[0], true
	}
	if !ok {
		e := fail(op, fault.ErrUnsupported, RuleExecutable, field, format, args...)
		e.Detail += fmt.Sprintf(" (isa.Validate reports no violation; the executor relies on %s)", rule)
		return e
	}
	v := w.Fault()
	return &Error{Opcode: op, Rule: v.Rule, Field: v.Path, Detail: fault.Violation{Value: v.Value, Legal: v.Legal}.Detail(), Violation: &v, Err: fault.ErrInvalid}
}
