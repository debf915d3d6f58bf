package isa

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"strings"
)

// The errors of the instruction layer. Each unwraps to one category of package fault
// (fault.ErrTruncated, fault.ErrInvalid) and names the rule it broke (fault.Ruled) and, where it
// has one, where (fault.Pathed), so a caller several layers up reads them without knowing isa.

// RuleInstNBytes is the rule of the word-length errors: an instruction word is
// NEURON_ISA_TPB_INST_NBYTES (64) bytes and a stream is a whole number of words.
const RuleInstNBytes = "inst_nbytes"

// ErrTrailing is what a word longer than 64 bytes, given to a single-word decoder, matches
// with errors.Is (beside its category, fault.ErrInvalid): the bytes after the word have no
// place in it.
var ErrTrailing = errors.New("instruction word longer than 64 bytes")

// WordLengthError reports a single instruction word that is not 64 bytes long: shorter is
// fault.ErrTruncated, longer fault.ErrInvalid and ErrTrailing.
type WordLengthError struct {
	Len   int // the length given, in bytes
	Index int // the word's index in its input, when the caller knows it; 0 for a lone word
}

func (e *WordLengthError) Error() string {
	if e.Len < InstNBytes {
		return fmt.Sprintf("truncated instruction word: %d bytes, want %d", e.Len, InstNBytes)
	}
	return fmt.Sprintf("instruction word longer than %d bytes: %d bytes (%d trailing)", InstNBytes, e.Len, e.Len-InstNBytes)
}

// Unwrap gives the category (and ErrTrailing for a long word).
func (e *WordLengthError) Unwrap() []error {
	if e.Len < InstNBytes {
		return []error{fault.ErrTruncated}
	}
	return []error{fault.ErrInvalid, ErrTrailing}
}

// RuleID is RuleInstNBytes.
func (e *WordLengthError) RuleID() string { return RuleInstNBytes }

// ErrPath names the word, "word[0]" for the lone word a single-word decoder was given.
func (e *WordLengthError) ErrPath() string { return fmt.Sprintf("word[%d]", e.Index) }

// LengthError reports a byte slice or file whose length is not a whole number of 64-byte words.
// Offset is where the incomplete word starts.
type LengthError struct {
	Len    int // total length in bytes
	Offset int // byte offset of the incomplete word
}

func (e *LengthError) Error() string {
	return fmt.Sprintf("length %d is not a multiple of 64: incomplete word at offset 0x%x (word %d, %d trailing bytes)",
		e.Len, e.Offset, e.Offset/InstNBytes, e.Len-e.Offset)
}

// Unwrap gives the category: the stream ends inside a word.
func (e *LengthError) Unwrap() error { return fault.ErrTruncated }

// RuleID is RuleInstNBytes.
func (e *LengthError) RuleID() string { return RuleInstNBytes }

// ErrPath names the incomplete word, e.g. "word[3]".
func (e *LengthError) ErrPath() string { return fmt.Sprintf("word[%d]", e.Offset/InstNBytes) }

// Violation is one broken rule of one instruction (DESIGN.md §3): the rule id (the ISA header's
// predicate name, or tpbsim's name for a rule whose header name is unknown — see the registry),
// the field path, the value found, what would be legal, and the byte offset of the field. It is
// a value (Fault gives the fault.Violation every layer shares) and an error of category
// fault.ErrInvalid.
type Violation struct {
	Rule   string // e.g. RuleHasMultiple32Channels
	Field  string // e.g. "dst_mem_pattern.num_elem[2]"
	Value  string // the value found, e.g. "48"
	Legal  string // what would be legal, e.g. "32, 64, 96 or 128"
	Offset int    // byte offset of the field in the 64-byte word
}

// String renders "rule: field = value, legal: legal", the one form of fault.Violation.String.
func (v Violation) String() string { return v.Fault().String() }

// Error makes a Violation usable as an error.
func (v Violation) Error() string { return v.String() }

// PickViolation returns the violation of rule among vs, else the first on field (the field
// itself, a part of it such as field.x or field[i], or a field it is part of): the violation an
// executor's or planner's guard stands for, so it reports the validator's words. ok is false
// when neither is found.
func PickViolation(vs []Violation, rule, field string) (v Violation, ok bool) {
	pick := -1
	for k := range vs {
		if vs[k].Rule == rule {
			return vs[k], true
		}
		if pick < 0 && field != "" && (fieldWithin(field, vs[k].Field) || fieldWithin(vs[k].Field, field)) {
			pick = k
		}
	}
	if pick < 0 {
		return Violation{}, false
	}
	return vs[pick], true
}

// fieldWithin reports whether field path a is b or one of b's parts (b.x, b[i]).
func fieldWithin(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+".") || strings.HasPrefix(a, b+"[")
}

// Unwrap gives the category: errors.Is(v, fault.ErrInvalid) holds.
func (v Violation) Unwrap() error { return fault.ErrInvalid }

// RuleID is the rule broken.
func (v Violation) RuleID() string { return v.Rule }

// ErrPath is the field path.
func (v Violation) ErrPath() string { return v.Field }

// Fault is v as the fault.Violation value other layers carry.
func (v Violation) Fault() fault.Violation {
	return fault.Violation{Rule: v.Rule, Path: v.Field, Value: v.Value, Legal: v.Legal, Offset: v.Offset}
}

// Faults converts a violation list (nil for nil).
func Faults(vs []Violation) []fault.Violation {
	if vs == nil {
		return nil
	}
	out := make([]fault.Violation, len(vs))
	for i, v := range vs {
		out[i] = v.Fault()
	}
	return out
}
