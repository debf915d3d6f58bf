// Package fault is the error vocabulary at the bottom of tpbsim: the category sentinels, declared
// once and matched with errors.Is from any layer, and the interfaces every typed error implements
// so that its rule id and its path can be read without knowing which package made it.
//
// A typed error of any package (isa.Violation, mem.Error, dge.Error, dma.DescriptorError,
// sim.InstError, kernel.Error, ...) unwraps to exactly one category sentinel of this package,
// exposes the rule it broke (RuleID) and, where it has one, where in the input it happened
// (Path, e.g. "DMA[3].descriptor[7]: src: num_elem[1]").
package fault

import (
	"errors"
	"strings"
)

// The categories. Each typed error unwraps to one of them.
var (
	// ErrTruncated: an input ends before a whole structure (a word, a table, a file).
	ErrTruncated = errors.New("truncated")
	// ErrInvalid: an input breaks a rule of the hardware's structures (an instruction, a
	// descriptor, a request, a table, a kernel argument).
	ErrInvalid = errors.New("invalid")
	// ErrBounds: an access outside memory, the active area or an index bound.
	ErrBounds = errors.New("out of bounds")
	// ErrCapacity: the input is valid but needs more than a modelled capacity holds (the HBM
	// cap of a run, SBUF / PSUM space of a kernel).
	ErrCapacity = errors.New("capacity exceeded")
	// ErrUninit: a read of never-written bytes (only when asked for).
	ErrUninit = errors.New("read of uninitialised memory")
	// ErrDeadlock: every unfinished engine waits on something nothing pending will change.
	ErrDeadlock = errors.New("deadlock")
	// ErrRace: two engines touch the same bytes, one writing, with nothing ordering them.
	ErrRace = errors.New("data race")
	// ErrUnsupported: a well-formed input tpbsim does not model (yet); never a hardware rule.
	ErrUnsupported = errors.New("not modelled by tpbsim")
	// ErrLimit: a work limit of the model (elements, stream bytes) would be passed.
	ErrLimit = errors.New("work limit exceeded")
)

// Categories lists every sentinel, in the order above.
var Categories = []error{ErrTruncated, ErrInvalid, ErrBounds, ErrCapacity, ErrUninit, ErrDeadlock, ErrRace, ErrUnsupported, ErrLimit}

// Ruled is implemented by every typed error that broke a named rule.
type Ruled interface{ RuleID() string }

// Pathed is implemented by typed errors that know where in their input they happened.
type Pathed interface{ ErrPath() string }

// Rule returns the rule id of the first error in err's chain that names one, or "".
func Rule(err error) string {
	for _, e := range chain(err) {
		if r, ok := e.(Ruled); ok {
			if id := r.RuleID(); id != "" {
				return id
			}
		}
	}
	return ""
}

// Path joins the paths of the errors in err's chain that have one, outermost first, with ": ",
// e.g. "DMA[3]: descriptor[7]: src: num_elem[1]". Where the chain branches (an Unwrap() []error:
// several instructions' errors, or a category beside a cause) it follows the first branch that
// has a path, so the path names one place, the one fault.Rule's rule was broken at.
func Path(err error) string {
	return strings.Join(pathOf(err, nil, 0), ": ")
}

func pathOf(e error, parts []string, depth int) []string {
	for ; e != nil && depth < 64; depth++ {
		if p, ok := e.(Pathed); ok {
			if s := p.ErrPath(); s != "" {
				parts = append(parts, s)
			}
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, x := range u.Unwrap() {
				if sub := pathOf(x, nil, depth+1); len(sub) > 0 {
					return append(parts, sub...)
				}
			}
			return parts
		case interface{ Unwrap() error }:
			e = u.Unwrap()
		default:
			return parts
		}
	}
	return parts
}

// Category returns the sentinel err unwraps to, or nil when it matches none.
func Category(err error) error {
	for _, c := range Categories {
		if errors.Is(err, c) {
			return c
		}
	}
	return nil
}

// Violation is one broken rule, carried as a value: the rule id, the field path, the value found,
// what would be legal, and the field's byte offset in its structure (-1 when not known).
type Violation struct {
	Rule   string
	Path   string
	Value  string
	Legal  string
	Offset int
	Msg    string // optional: why, beyond rule and field
}

// String is the one text form of a violation, printed by every layer (tpbsim check, run's
// instruction errors, the DGE's and the executors' errors): "rule: path = value, legal: legal:
// msg", leaving out what is empty (Detail is the part after the rule).
func (v Violation) String() string {
	d := v.Detail()
	switch {
	case d == "":
		return v.Rule
	case v.Rule == "":
		return d
	}
	return v.Rule + ": " + d
}

// Detail is String without the rule, "path = value, legal: legal: msg", for an error that names
// the rule itself.
func (v Violation) Detail() string {
	var b strings.Builder
	sep := func(s string) {
		if b.Len() > 0 {
			b.WriteString(s)
		}
	}
	b.WriteString(v.Path)
	if v.Value != "" {
		sep(" = ")
		b.WriteString(v.Value)
	}
	if v.Legal != "" {
		sep(", ")
		b.WriteString("legal: ")
		b.WriteString(v.Legal)
	}
	if v.Msg != "" {
		sep(": ")
		b.WriteString(v.Msg)
	}
	return b.String()
}

// At is an error wrapped with the path of the structure it happened in (STYLE.md: nested errors
// read like a path). It keeps the wrapped error's category and rule.
type At struct {
	Where string
	Err   error
}

// Wrap returns err inside an At naming where, or nil for a nil err.
func Wrap(where string, err error) error {
	if err == nil {
		return nil
	}
	return &At{Where: where, Err: err}
}

func (e *At) Error() string   { return e.Where + ": " + e.Err.Error() }
func (e *At) Unwrap() error   { return e.Err }
func (e *At) ErrPath() string { return e.Where }
func (e *At) RuleID() string  { return Rule(e.Err) }

// chain lists err and everything it wraps, depth first (errors.Unwrap and Unwrap() []error).
func chain(err error) []error {
	var out []error
	var walk func(error)
	walk = func(e error) {
		for e != nil && len(out) < 64 {
			out = append(out, e)
			switch u := e.(type) {
			case interface{ Unwrap() []error }:
				for _, x := range u.Unwrap() {
					walk(x)
				}
				return
			case interface{ Unwrap() error }:
				e = u.Unwrap()
			default:
				return
			}
		}
	}
	walk(err)
	return out
}
