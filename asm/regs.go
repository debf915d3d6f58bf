package asm

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/tpbsim/tpbsim/isa"
)

// NumBoundRegs is the size of the bound-check register file a BOUND_CHECK_REG's 6-bit bc_reg
// names (FACTS §C.6).
const NumBoundRegs = 64

// setBoundReg records one bound-check register setting; a register set twice is an error, as
// a field set twice is.
func (p *Program) setBoundReg(regS, valS string, line int) error {
	reg, err := isa.ParseNumber(regS)
	if err != nil || reg >= NumBoundRegs {
		return &Error{Field: "bound_reg", Msg: fmt.Sprintf("register %q: want 0..%d", regS, NumBoundRegs-1)}
	}
	v, err := isa.ParseNumber(valS)
	if err != nil || v > 0xFFFFFFFF {
		return &Error{Field: fmt.Sprintf("bound_reg[%d]", reg), Msg: fmt.Sprintf("value %q: want a 32-bit number (the bound in bytes)", valS)}
	}
	if p.BoundRegs == nil {
		p.BoundRegs, p.BoundRegLine = map[int]uint32{}, map[int]int{}
	}
	if prev, ok := p.BoundRegLine[int(reg)]; ok {
		return &Error{Field: fmt.Sprintf("bound_reg[%d]", reg), Msg: fmt.Sprintf("set twice (line %d, then line %d)", prev, line)}
	}
	p.BoundRegs[int(reg)], p.BoundRegLine[int(reg)] = uint32(v), line
	return nil
}

// jsonBoundRegs reads {"bound_regs": {"N": VALUE, ...}} (values numbers or "0x..." strings); the
// object holds nothing else but an optional "gen".
func (p *Program) jsonBoundRegs(obj map[string]any, br any, line int) error {
	for k := range obj {
		if k != "bound_regs" && k != "gen" {
			return &Error{Field: k, Msg: "a bound_regs object sets registers only (an instruction is another object)"}
		}
	}
	m, ok := br.(map[string]any)
	if !ok {
		return &Error{Field: "bound_regs", Msg: `want an object {"5": 4096, ...}: register number -> value`}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := p.setBoundReg(k, jsonString(m[k]), line); err != nil {
			return err
		}
	}
	return nil
}

// BoundRegLines renders the settings as `.bound_reg` lines in register order (what disasm of a
// source prints, so its text assembles back to the same program).
func BoundRegLines(regs map[int]uint32) []string {
	keys := make([]int, 0, len(regs))
	for k := range regs {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = ".bound_reg " + strconv.Itoa(k) + " 0x" + strconv.FormatUint(uint64(regs[k]), 16)
	}
	return out
}
