package isa

import (
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
)

// The rules a refused spelling breaks (registered in Registry): the text names of generations,
// engines, opcodes and addresses that asm, the CLI and the kernels read.
const (
	RuleGenerationName = "isa.generation_name" // ParseGeneration
	RuleEngineName     = "isa.engine_name"     // ParseEngine
	RuleOpcodeName     = "isa.opcode_name"     // ParseOpcode
	RuleAddressForm    = "isa.address_form"    // ParseAddress, Location.Addr4 / Addr8
)

// ParseRuleIDs lists the rules a *ParseError can carry.
func ParseRuleIDs() []string {
	return []string{RuleGenerationName, RuleEngineName, RuleOpcodeName, RuleAddressForm}
}

// ParseError is a refused spelling: the rule it breaks, what was being read (Path: "generation",
// "engine", "opcode", "address") and the message, which names the text given and what would be
// legal. It unwraps to fault.ErrInvalid and implements fault.Ruled and fault.Pathed.
type ParseError struct {
	Rule, Path, Msg string
}

func (e *ParseError) Error() string   { return e.Msg }
func (e *ParseError) Unwrap() error   { return fault.ErrInvalid }
func (e *ParseError) RuleID() string  { return e.Rule }
func (e *ParseError) ErrPath() string { return e.Path }

func parseErr(rule, path, format string, args ...any) *ParseError {
	return &ParseError{Rule: rule, Path: path, Msg: fmt.Sprintf(format, args...)}
}
