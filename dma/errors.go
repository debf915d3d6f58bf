package dma

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/tpbsim/tpbsim/fault"
)

// Rule ids of the DMA engines' errors (RuleID methods). A memory refusal keeps the memory's
// rule (mem.RuleIDs). Each is registered in Provenance.
const (
	RuleBoundsCheck     = "dma_bounds_check"     // a BOUND_CHECK_REG bound failed
	RuleRangeInMemory   = "dma_range_in_memory"  // the memory refused a range without naming a rule
	RuleAddrNoWrap      = "dma_addr_no_wrap"     // an address walk wraps the 64-bit space
	RuleIndexInBound    = "dma_index_in_bound"   // a gather/scatter index is out of bound with idx_bound_is_err
	RuleDescriptorValid = "dma_descriptor_valid" // a malformed descriptor
	RuleJobEngines      = "dma_job_engines"      // a job names more engines than the generation has
	RuleJobBytesCap     = "dma_job_bytes_cap"    // a job moves more bytes than Engines.MaxJobBytes
)

// RuleIDs lists every rule id the DMA engines' own errors carry.
func RuleIDs() []string {
	return []string{RuleBoundsCheck, RuleRangeInMemory, RuleAddrNoWrap, RuleIndexInBound, RuleDescriptorValid, RuleJobEngines, RuleJobBytesCap}
}

// descPath is the path of a field of descriptor desc (desc < 0: not known), e.g.
// "descriptor[7]: src: num_elem[1]".
func descPath(desc int, parts ...string) string {
	p := ""
	if desc >= 0 {
		p = "descriptor[" + strconv.Itoa(desc) + "]"
	}
	for _, s := range parts {
		if s == "" {
			continue
		}
		if p != "" {
			p += ": "
		}
		p += s
	}
	return p
}

// BoundsError is the detail of a failed bounds check. Its message starts with the firmware's
// "S: DGE: Failed bounds check. $S[%i]+=%i." line (seed 003 §7), marked "not applied": the
// firmware bumps the job's semaphore as it reports the failure, tpbsim's failed job changes no
// semaphore (Provenance dma.atomic_job). Then it says which descriptor, which side, which bytes
// and which limit.
type BoundsError struct {
	Engine, Desc int    // engine and index of the descriptor in its queue
	Side         string // "src", "dst", "src_idx", "dst_idx"
	Lo, Hi       uint64 // offending byte range [Lo, Hi)
	Reg          int    // bound register, -1 when the memory refused the range
	Limit        uint64 // bound in bytes from Base (register value)
	Base         uint64
	Sem, SemInc  int
	Err          error // the memory's error, when it refused the range
}

func (e *BoundsError) Error() string {
	head := fmt.Sprintf("S: DGE: Failed bounds check. $S[%d]+=%d not applied: the failed job changes no memory and no semaphore.", e.Sem, e.SemInc)
	if e.Reg >= 0 {
		return fmt.Sprintf("%s descriptor %d on DMA[%d]: %s bytes [0x%x, 0x%x) pass bound register %d = 0x%x from base 0x%x (legal: [0x%x, 0x%x))",
			head, e.Desc, e.Engine, e.Side, e.Lo, e.Hi, e.Reg, e.Limit, e.Base, e.Base, e.Base+e.Limit)
	}
	return fmt.Sprintf("%s descriptor %d on DMA[%d]: %s bytes [0x%x, 0x%x) outside the active memory: %v",
		head, e.Desc, e.Engine, e.Side, e.Lo, e.Hi, e.Err)
}

// Unwrap exposes fault.ErrBounds and, when the memory refused the range, the memory's error, so
// errors.Is / errors.As reach the memory's own sentinels and types.
func (e *BoundsError) Unwrap() []error {
	if e.Err != nil {
		return []error{fault.ErrBounds, e.Err}
	}
	return []error{fault.ErrBounds}
}

// RuleID is the rule the failed check stands for: the bound register's, the memory's own rule
// when the memory refused the range, or the address-wrap rule.
func (e *BoundsError) RuleID() string {
	if e.Reg >= 0 {
		return RuleBoundsCheck
	}
	var r fault.Ruled
	if errors.As(e.Err, &r) {
		return r.RuleID()
	}
	return RuleRangeInMemory
}

// ErrPath is "descriptor[N]: SIDE" (the bound register's field with Reg >= 0).
func (e *BoundsError) ErrPath() string {
	if e.Reg >= 0 {
		return descPath(e.Desc, e.Side+"_bound_reg")
	}
	return descPath(e.Desc, e.Side)
}

// IndexError is the detail of an out-of-bound index with idx_bound_is_err.
type IndexError struct {
	Engine, Desc int
	Side         string
	Pos          int    // position in the instruction's index vector (Indirect.First + the row)
	Index        uint32 // the index found
	Bound        uint32 // legal: Index < Bound
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("DGE: index out of bounds: descriptor %d on DMA[%d]: %s[%d] = %s, legal < %d", e.Desc, e.Engine, e.Side, e.Pos, indexText(e.Index), e.Bound)
}

// indexText prints an index word, and as int32 too when its top bit is set: an int32 index
// tile's -1 is the word 4294967295 to the engine, which compares it unsigned.
func indexText(v uint32) string {
	if int32(v) < 0 {
		return fmt.Sprintf("%d (%d as int32)", v, int32(v))
	}
	return strconv.FormatUint(uint64(v), 10)
}

func (e *IndexError) Unwrap() error   { return fault.ErrBounds }
func (e *IndexError) RuleID() string  { return RuleIndexInBound }
func (e *IndexError) ErrPath() string { return descPath(e.Desc, e.Side+"["+strconv.Itoa(e.Pos)+"]") }

// Violation is the broken rule as a value.
func (e *IndexError) Violation() fault.Violation {
	return fault.Violation{Rule: RuleIndexInBound, Path: e.ErrPath(), Value: indexText(e.Index),
		Legal: "< " + strconv.FormatUint(uint64(e.Bound), 10), Offset: -1}
}

// DescriptorError is a malformed descriptor or job; it unwraps to fault.ErrInvalid.
type DescriptorError struct {
	Rule string // RuleDescriptorValid, RuleJobEngines, or RuleJobBytesCap
	// Engine and Desc locate the descriptor in its job when the executor checked it (Desc -1:
	// the descriptor was validated alone, or the error is about the whole job).
	Engine, Desc int
	Field        string // the field in the descriptor, e.g. "src: elem_size", "num_elem[1]"
	Msg          string
}

func (e *DescriptorError) Error() string {
	if e.Desc >= 0 {
		return fmt.Sprintf("descriptor %d on DMA[%d]: dma: invalid descriptor: %s", e.Desc, e.Engine, e.Msg)
	}
	return "dma: invalid descriptor: " + e.Msg
}
func (e *DescriptorError) Unwrap() error   { return fault.ErrInvalid }
func (e *DescriptorError) RuleID() string  { return e.Rule }
func (e *DescriptorError) ErrPath() string { return descPath(e.Desc, e.Field) }

// Violation is the broken rule as a value.
func (e *DescriptorError) Violation() fault.Violation {
	return fault.Violation{Rule: e.Rule, Path: e.ErrPath(), Msg: e.Msg, Offset: -1}
}

// descErr is a malformed descriptor: field is where in it, e.g. "src: elem_size".
func descErr(field, format string, args ...any) *DescriptorError {
	return &DescriptorError{Rule: RuleDescriptorValid, Desc: -1, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// jobErr is a job the engines refuse as a whole.
func jobErr(rule, format string, args ...any) *DescriptorError {
	return &DescriptorError{Rule: rule, Desc: -1, Msg: fmt.Sprintf(format, args...)}
}

// AccessError is a descriptor whose bytes the memory refused for a reason other than bounds: a
// never-written source byte (uninitialised-read checking), the HBM cap, PSUM's 4-byte write rule.
// Unlike BoundsError it does not carry the firmware's "Failed bounds check" wording; its rule is
// the memory's (Err's RuleID), and so is its category.
type AccessError struct {
	Engine, Desc int
	Side         string
	Lo, Hi       uint64
	Err          MemoryError
}

func (e *AccessError) Error() string {
	return fmt.Sprintf("descriptor %d on DMA[%d]: %s bytes [0x%x, 0x%x): %v", e.Desc, e.Engine, e.Side, e.Lo, e.Hi, e.Err)
}

func (e *AccessError) Unwrap() error   { return e.Err }
func (e *AccessError) RuleID() string  { return e.Err.RuleID() }
func (e *AccessError) ErrPath() string { return descPath(e.Desc, e.Side) }

// ExecError is a descriptor whose bytes failed to move after its checks passed (the memory
// refused an access the pre-flight check accepted). It keeps the memory's category and rule.
type ExecError struct {
	Engine, Desc int
	Err          error
}

func (e *ExecError) Error() string {
	return fmt.Sprintf("descriptor %d on DMA[%d]: %v", e.Desc, e.Engine, e.Err)
}
func (e *ExecError) Unwrap() error   { return e.Err }
func (e *ExecError) ErrPath() string { return descPath(e.Desc) }
func (e *ExecError) RuleID() string {
	if r := fault.Rule(e.Err); r != "" {
		return r
	}
	return RuleRangeInMemory
}

// MemoryError is what a memory's refusal may implement (mem.Error does): the rule it broke and
// whether that rule is a bounds rule. A refusal that is not out of bounds is reported as an
// AccessError; every other refusal as a BoundsError.
type MemoryError interface {
	error
	RuleID() string
	OutOfBounds() bool
}

// refusal turns a BoundsError whose memory refused the range for a reason other than bounds
// into an AccessError.
func refusal(err error) error {
	be, ok := err.(*BoundsError)
	if !ok || be.Reg >= 0 || be.Err == nil {
		return err
	}
	var me MemoryError
	if errors.As(be.Err, &me) && !me.OutOfBounds() {
		return &AccessError{Engine: be.Engine, Desc: be.Desc, Side: be.Side, Lo: be.Lo, Hi: be.Hi, Err: me}
	}
	return err
}

// wrapError is an address walk that wraps the 64-bit address space.
type wrapError string

func (e wrapError) Error() string  { return string(e) }
func (e wrapError) RuleID() string { return RuleAddrNoWrap }
