package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// InstError is the error of one instruction: which engine, which instruction (index in its
// queue, byte offset or line in its file), which opcode, which rule, which fields. Kind is the
// category, one of package fault's sentinels. Violations holds every rule the instruction
// breaks, as values, the first being Rule's; Err is the cause (a mem, dve, DGE or DMA error) when
// there is one.
type InstError struct {
	Kind       error
	Engine     string
	Index      int   // instruction index in its queue; -1 for an error about a whole queue or the program
	Offset     int64 // -1 unknown
	Line       int   // 0 unknown
	File       string
	Origin     string // the Instr's Origin, e.g. the NKI call it was lowered from
	Opcode     isa.Opcode
	Rule       string
	Violations []fault.Violation
	Err        error
	TimePS     int64
	quiet      bool // Violations already say what Err says: do not print Err
}

// RuleID is the rule the instruction broke (fault.Ruled).
func (e *InstError) RuleID() string { return e.Rule }

// ErrPath is where the error happened: the engine queue and the instruction index
// ("SP[3]"), then the field of the broken rule when the cause does not name its own path
// ("DVE[0]: src_mem_pattern.start_addr"); fault.Path adds the cause's path after it.
func (e *InstError) ErrPath() string {
	s := queuePath(e.Engine, e.Index)
	if fault.Path(e.Err) == "" && len(e.Violations) > 0 && e.Violations[0].Path != "" {
		s += ": " + e.Violations[0].Path
	}
	return s
}

// queuePath is the path of instruction index of an engine's queue, "SP[3]": "program" for no
// engine, no index for an error about the whole queue (index < 0).
func queuePath(engine string, index int) string {
	if engine == "" {
		engine = "program"
	}
	if index < 0 {
		return engine
	}
	return engine + "[" + strconv.Itoa(index) + "]"
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
	switch {
	case e.Index < 0 && e.Engine == "":
		s = "program"
	case e.Index < 0:
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
		fmt.Fprintf(&b, ": %s", kindText(e.Kind))
	}
	switch {
	case len(e.Violations) > 0:
		b.WriteString(": rule ")
		b.WriteString(e.Violations[0].String())
	case e.Rule != "":
		fmt.Fprintf(&b, ": rule %s", e.Rule)
	}
	if e.Err != nil && !e.quiet {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if len(e.Violations) > 1 {
		fmt.Fprintf(&b, " (and %d more rule(s) below)", len(e.Violations)-1)
		for _, v := range e.Violations[1:] {
			fmt.Fprintf(&b, "\n    %s", v)
		}
	}
	return b.String()
}

// categoryOf is the category of an error of the executor, the DGE, the DMA engines or the
// memory: one of package fault's sentinels, in this order when an error reaches more than one.
func categoryOf(err error) error {
	switch {
	case errors.Is(err, fault.ErrUninit): // also the DMA pre-flight check refusing a never-written source byte
		return fault.ErrUninit
	case errors.Is(err, fault.ErrCapacity):
		return fault.ErrCapacity
	case errors.Is(err, fault.ErrBounds):
		return fault.ErrBounds
	case errors.Is(err, fault.ErrLimit):
		return fault.ErrLimit
	case errors.Is(err, fault.ErrUnsupported):
		return fault.ErrUnsupported
	}
	return fault.ErrInvalid
}

// causeViolation is the rule another package's error names, as a violation: the executor's and
// the memory's errors name their field and say why (quiet: the violation says what err says);
// the DGE's and the DMA engines' keep their own message (fallback: the rule when err names none).
func causeViolation(err error, fallback string) (v fault.Violation, quiet bool) {
	var de *dve.Error
	var me *mem.Error
	switch {
	case errors.As(err, &de) && de.Violation != nil:
		return *de.Violation, true
	case errors.As(err, &de):
		return fault.Violation{Rule: de.Rule, Path: de.Field, Offset: -1, Msg: de.Detail}, true
	case errors.As(err, &me):
		return fault.Violation{Rule: me.Rule, Path: me.Field, Offset: -1, Msg: fmt.Sprintf("%s at 0x%x: %s", me.Err, me.Addr, me.Detail)}, true
	}
	return fault.Violation{Rule: ruleOf(err, fallback), Offset: -1}, false
}

// ruleOf is the rule an error names (fault.Rule: the first RuleID in its chain), else fallback.
func ruleOf(err error, fallback string) string {
	if id := fault.Rule(err); id != "" {
		return id
	}
	return fallback
}

// kindText is how an instruction error names its category.
func kindText(kind error) string {
	switch kind {
	case fault.ErrInvalid:
		return "invalid instruction"
	case fault.ErrUnsupported:
		return "not executable by tpbsim"
	case fault.ErrCapacity:
		return "capacity limit exceeded"
	}
	return kind.Error()
}

// Is matches the category sentinel (errors.Is(err, fault.ErrInvalid)); Unwrap exposes the
// cause to errors.Is and errors.As. Between them they give what an Unwrap() []error of both
// would, without building a slice on every step of every errors.Is walk.
func (e *InstError) Is(target error) bool { return e.Kind != nil && errors.Is(e.Kind, target) }

// Unwrap returns the cause (nil when the instruction broke a rule of its own).
func (e *InstError) Unwrap() error { return e.Err }

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

// Unwrap returns the instruction errors, so errors.Is(err, fault.ErrInvalid) and errors.As work.
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
	WaitValue uint32 // what the wait compares sem[WaitIdx] against (a _REG wait: its register's value)
	WaitReg   int    // a _REG wait's address register (semaphore_value); -1 for the other modes
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
	operand := fmt.Sprint(s.WaitValue)
	if isSemRegWait(s.WaitMode) {
		operand = fmt.Sprintf("addr_reg[%d] = %d", s.WaitReg, s.WaitValue)
	}
	return fmt.Sprintf("%-5s pc 0x%x, instruction %d of %d (%v%s): waits sem[%d] %v %s; sem[%d] = %d",
		s.Engine, s.PC, s.Index, s.Total, s.Opcode, line, s.WaitIdx, s.WaitMode, operand, s.WaitIdx, s.SemValue)
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

func (e *DeadlockError) Unwrap() error { return fault.ErrDeadlock }

// RuleID names the condition (fault.Ruled): a deadlock breaks no instruction's rule.
func (e *DeadlockError) RuleID() string { return RuleDeadlock }

// ErrPath names the instruction each unfinished engine waits at, "DVE[3], SP[1]" (fault.Pathed).
func (e *DeadlockError) ErrPath() string {
	var waits []string
	for _, s := range e.Engines {
		if !s.Done {
			waits = append(waits, queuePath(s.Engine, s.Index))
		}
	}
	return strings.Join(waits, ", ")
}

// ErrPath names the two instructions of the first race listed, "DVE[0], POOL[2]" (fault.Pathed;
// Races holds the others). The type is race.go's.
func (e *RaceError) ErrPath() string {
	if len(e.Races) == 0 {
		return ""
	}
	r := e.Races[0]
	return queuePath(r.First.Engine, r.First.Index) + ", " + queuePath(r.Second.Engine, r.Second.Index)
}

// LimitError is a work limit a DGE request run outside a program breaks (Config.CheckPlan). It
// unwraps to fault.ErrLimit.
type LimitError struct {
	Rule string // RuleMaxElements or RuleMaxStreamBytes
	Path string // what does the work: "descriptors", the plan's descriptors in all
	Msg  string // the work, the limit and how to raise it
}

func (e *LimitError) Error() string {
	return fault.ErrLimit.Error() + ": rule " + e.Rule + ": " + e.Msg
}
func (e *LimitError) Unwrap() error   { return fault.ErrLimit }
func (e *LimitError) RuleID() string  { return e.Rule }
func (e *LimitError) ErrPath() string { return e.Path }

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
