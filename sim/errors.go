package sim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/isa"
)

// Sentinel errors: the category of a failed run. Match with errors.Is (STYLE.md convention 6).
var (
	// ErrInvalid: an instruction breaks a validity rule (isa.Validate, the engine check, the
	// event modes the machine executes).
	ErrInvalid = errors.New("invalid instruction")
	// ErrBounds: an access outside memory or the active area (an address problem).
	ErrBounds = errors.New("out of bounds")
	// ErrCapacity: a write would allocate HBM past the run's cap (Config.HBMCapBytes). The
	// address is valid; the model's capacity limit is not. It does not match ErrBounds.
	ErrCapacity = errors.New("capacity limit exceeded")
	// ErrUninit: a read of never-written bytes (only with Config.CheckUninit).
	ErrUninit = errors.New("read of uninitialised memory")
	// ErrDeadlock: every unfinished engine waits on a semaphore nothing pending will change.
	ErrDeadlock = errors.New("deadlock")
	// ErrUnsupported: a well-formed instruction or address form tpbsim does not execute.
	ErrUnsupported = errors.New("not executable by tpbsim")
	// ErrLimit: an instruction (or a DGE plan, Config.CheckPlan) would pass a work limit:
	// Config.MaxElements or Config.MaxStreamBytes.
	ErrLimit = errors.New("work limit exceeded")
)

// Field is one instruction field named in an error: its path and value, and what is legal.
type Field struct {
	Path  string // e.g. "dst_mem_pattern.num_elem[2]"
	Value string
	Legal string // may be empty
	At    int    // byte offset of the field in the 64-byte word; 0 when unknown or the opcode byte
}

// InstError is the error of one instruction: which engine, which instruction (index in its
// queue, byte offset or line in its file), which opcode, which rule, which fields. Kind is one of
// the sentinels; Err is the cause (a mem or dve error, or nil). Violations holds every rule the
// instruction breaks when it failed validation.
type InstError struct {
	Kind       error
	Engine     string
	Index      int   // instruction index in its queue; -1 for an error about a whole queue
	Offset     int64 // -1 unknown
	Line       int   // 0 unknown
	File       string
	Origin     string // the Instr's Origin, e.g. the NKI call it was lowered from
	Opcode     isa.Opcode
	Rule       string
	Fields     []Field
	Msg        string
	Violations []string
	Err        error
	TimePS     int64
	quiet      bool // Msg already says what Err says: do not print Err
}

func (e *InstError) where() string {
	if e.Engine == "" && e.Index >= 0 && e.Offset >= 0 {
		// A word of a bare instruction list that no engine queue took: name the file and the word.
		s := fmt.Sprintf("word %d (offset 0x%x)", e.Offset/isa.InstNBytes, e.Offset)
		if e.File != "" {
			s = e.File + ": " + s
		}
		return s
	}
	var loc []string
	if e.File != "" && e.Line > 0 {
		loc = append(loc, fmt.Sprintf("%s:%d", e.File, e.Line))
	} else if e.Line > 0 {
		loc = append(loc, fmt.Sprintf("line %d", e.Line))
	} else if e.File != "" {
		loc = append(loc, e.File)
	}
	if e.Offset >= 0 {
		loc = append(loc, fmt.Sprintf("byte offset %d", e.Offset))
	}
	s := fmt.Sprintf("%s instruction %d", e.Engine, e.Index)
	if e.Index < 0 {
		s = e.Engine + " queue"
	}
	if e.Origin != "" {
		loc = append(loc, "from "+e.Origin)
	}
	if len(loc) > 0 {
		s += " (" + strings.Join(loc, ", ") + ")"
	}
	return s
}

func (e *InstError) Error() string {
	var b strings.Builder
	b.WriteString(e.where())
	if e.Index >= 0 {
		fmt.Fprintf(&b, ": %v", e.Opcode)
	}
	if e.Kind != nil {
		fmt.Fprintf(&b, ": %v", e.Kind)
	}
	if e.Rule != "" {
		fmt.Fprintf(&b, ": rule %s", e.Rule)
	}
	for _, f := range e.Fields {
		fmt.Fprintf(&b, ": %s", f.Path)
		if f.At > 0 {
			fmt.Fprintf(&b, " (byte %d)", f.At)
		}
		if f.Value != "" {
			fmt.Fprintf(&b, " = %s", f.Value)
		}
		if f.Legal != "" {
			fmt.Fprintf(&b, " (legal: %s)", f.Legal)
		}
	}
	if e.Msg != "" {
		fmt.Fprintf(&b, ": %s", e.Msg)
	}
	if e.Err != nil && !e.quiet {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	for _, v := range e.Violations {
		fmt.Fprintf(&b, "\n    %s", v)
	}
	return b.String()
}

// Unwrap exposes both the category sentinel and the cause to errors.Is / errors.As.
func (e *InstError) Unwrap() []error {
	out := []error{e.Kind}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// ProgramError collects the errors of a program that fails the checks made before anything
// runs (every invalid instruction is reported, not only the first).
type ProgramError struct {
	Errs []*InstError
}

func (e *ProgramError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d instruction(s) fail the checks made before the run; nothing was executed", len(e.Errs))
	for _, ie := range e.Errs {
		b.WriteString("\n  ")
		b.WriteString(strings.ReplaceAll(ie.Error(), "\n", "\n  "))
	}
	return b.String()
}

// Unwrap returns the instruction errors, so errors.Is(err, ErrInvalid) and errors.As work.
func (e *ProgramError) Unwrap() []error {
	out := make([]error, len(e.Errs))
	for i, ie := range e.Errs {
		out[i] = ie
	}
	return out
}

// EngineState is one engine's state when a run stops on a deadlock.
type EngineState struct {
	Engine    string
	Done      bool
	Status    string // StatusFinished, StatusWaiting, StatusFailed or StatusStopped (state.go)
	PC        int    // byte offset of the next instruction in the engine's queue (Index * 64)
	Index     int    // next instruction index
	Total     int    // instructions in the queue
	Opcode    isa.Opcode
	Line      int
	WaitMode  isa.WaitMode
	WaitIdx   uint8
	WaitValue uint32
	SemValue  uint32 // current value of sem[WaitIdx]
}

func (s EngineState) String() string {
	if s.Done {
		return fmt.Sprintf("%-5s finished (%d instructions)", s.Engine, s.Total)
	}
	line := ""
	if s.Line > 0 {
		line = fmt.Sprintf(", line %d", s.Line)
	}
	return fmt.Sprintf("%-5s pc 0x%x, instruction %d of %d (%v%s): waits sem[%d] %v %d; sem[%d] = %d",
		s.Engine, s.PC, s.Index, s.Total, s.Opcode, line, s.WaitIdx, s.WaitMode, s.WaitValue, s.WaitIdx, s.SemValue)
}

// DeadlockError stops a run in which every unfinished engine waits on a semaphore that nothing
// pending can change (hardware would spin forever: no wait mode has a timeout, FACTS §B.2).
type DeadlockError struct {
	TimePS  int64
	Engines []EngineState
}

func (e *DeadlockError) Error() string {
	return headedList(fmt.Sprintf("deadlock at t = %s: every unfinished engine waits on a semaphore that nothing pending will change", fmtPS(e.TimePS)), e.Engines)
}

// headedList is head, then one indented line per item.
func headedList[T fmt.Stringer](head string, items []T) string {
	var b strings.Builder
	b.WriteString(head)
	for _, s := range items {
		b.WriteString("\n  ")
		b.WriteString(s.String())
	}
	return b.String()
}

func (e *DeadlockError) Unwrap() error { return ErrDeadlock }

// fmtPS prints a picosecond time in the unit that reads best.
func fmtPS(ps int64) string {
	switch {
	case ps >= 1_000_000_000:
		return fmt.Sprintf("%.3f ms", float64(ps)/1e9)
	case ps >= 1_000_000:
		return fmt.Sprintf("%.3f us", float64(ps)/1e6)
	case ps >= 1_000:
		return fmt.Sprintf("%.3f ns", float64(ps)/1e3)
	}
	return fmt.Sprintf("%d ps", ps)
}
