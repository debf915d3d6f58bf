package mem

import (
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Rule ids a memory *Error can carry (Error.Rule). Each has an entry of Kind "rule" in
// Provenance, so `tpbsim explain ID` prints it; start_addr_active_channels is the ISA's own rule
// (isa.Registry) and is not registered again here.
const (
	RulePatternElemSize         = "pattern_elem_size_modelled"
	RulePatternSizeModelled     = "pattern_size_modelled"
	RuleStartAddrActiveChannels = isa.RuleStartAddrActiveChannels
	RulePSUMWrite4ByteDtype     = "psum_write_4byte_dtype"
	RulePatternInActiveArea     = "pattern_in_active_area"
	RuleAddrInActiveArea        = "addr_in_active_area"
	RuleAddrInSBUFOrPSUM        = "addr_in_sbuf_or_psum"
	RuleAddr4Immediate          = "addr4_immediate"
	RulePSUMWrite4Byte          = "psum_write_4byte"
	RulePartitionInRange        = "partition_in_range"
	RuleReadInitialised         = "read_initialised"
	RuleDMAAddrInRange          = "dma_addr_in_range"
	RuleHBMAddrInRange          = "hbm_addr_in_range"
	RuleHBMCap                  = "hbm_cap"
)

// RuleIDs lists every rule id a memory error can carry.
func RuleIDs() []string {
	return []string{RulePatternElemSize, RulePatternSizeModelled, RuleStartAddrActiveChannels, RulePSUMWrite4ByteDtype, RulePatternInActiveArea,
		RuleAddrInActiveArea, RuleAddrInSBUFOrPSUM, RuleAddr4Immediate, RulePSUMWrite4Byte, RulePartitionInRange,
		RuleReadInitialised, RuleDMAAddrInRange, RuleHBMAddrInRange, RuleHBMCap}
}

// RuleID is the rule the access broke (fault.Ruled: the DMA engines and the machine read it
// through this method, so they need not know the memory's error type).
func (e *Error) RuleID() string { return e.Rule }

// ErrPath is the field that carried the access (fault.Pathed), "" for a raw byte access.
func (e *Error) ErrPath() string { return e.Field }

// OutOfBounds reports whether the access failed because its bytes are outside the memory
// (fault.ErrBounds). A never-written read, the HBM cap, PSUM's 4-byte rule and an unsupported address
// form are refusals of another kind: the DMA engines do not report them as a failed bounds check.
func (e *Error) OutOfBounds() bool { return e.Err == fault.ErrBounds }
