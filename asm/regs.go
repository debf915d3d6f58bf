package asm

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/isa"
)

// NumBoundRegs is the size of the bound-check register file a BOUND_CHECK_REG's 6-bit bc_reg
// names (FACTS §C.6).
const NumBoundRegs = 64

// NumAddrRegs is NUM_ADDR_REGISTERS, the size of the address register file an ADDR4 in register
// mode names (FACTS §B.3: register id < 64).
const NumAddrRegs = 64

// regFile names one register file a program sets: its directive is "." + field, its JSON key
// field + "s", and what its values mean for the messages.
type regFile struct {
	field string // "bound_reg"
	n     int
	what  string // what a value is, for the messages
}

var (
	boundRegFile = regFile{"bound_reg", NumBoundRegs, "the bound in bytes"}
	addrRegFile  = regFile{"addr_reg", NumAddrRegs, "an ADDR4 address: sbuf:P:OFF, psum:P:OFF or a number"}
)

// ParseAddrRegValue reads an address register's value: a 32-bit number, or an on-chip location
// sbuf:P:OFF / psum:P:OFF, which is the immediate ADDR4 of that location on g.
func ParseAddrRegValue(s string, g isa.Generation) (uint32, error) {
	if err := g.Check(); err != nil {
		return 0, err
	}
	if v, err := isa.ParseNumber(s); err == nil {
		if v > 0xFFFFFFFF {
			return 0, fmt.Errorf("value %q: want a 32-bit number", s)
		}
		return uint32(v), nil
	}
	if !strings.Contains(s, ":") {
		return 0, fmt.Errorf("value %q: want a 32-bit number or sbuf:P:OFF / psum:P:OFF", s)
	}
	l, err := isa.ParseAddress(s, g)
	if err != nil {
		return 0, err
	}
	if l.Space != isa.SpaceSBUF && l.Space != isa.SpacePSUM {
		return 0, fmt.Errorf("value %q: an address register holds an ADDR4 (sbuf:P:OFF, psum:P:OFF or a number), not %v", s, l.Space)
	}
	a, err := l.Addr4(g)
	if err != nil {
		return 0, fmt.Errorf("value %q: %v", s, err)
	}
	return uint32(a), nil
}

// setReg records one register setting of file f; a register set twice is an error, as a
// field set twice is.
func (p *Program) setReg(f regFile, regS, valS string, line int) error {
	reg, err := isa.ParseNumber(regS)
	if err != nil || reg >= uint64(f.n) {
		return &Error{Field: f.field, Msg: fmt.Sprintf("register %q: want 0..%d", regS, f.n-1)}
	}
	field := fmt.Sprintf("%s[%d]", f.field, reg)
	var v uint32
	if f == addrRegFile {
		if v, err = ParseAddrRegValue(valS, p.Gen); err != nil {
			return &Error{Field: field, Msg: err.Error()}
		}
	} else {
		n, err := isa.ParseNumber(valS)
		if err != nil || n > 0xFFFFFFFF {
			return &Error{Field: field, Msg: fmt.Sprintf("value %q: want a 32-bit number (%s)", valS, f.what)}
		}
		v = uint32(n)
	}
	regs, lines := &p.BoundRegs, &p.BoundRegLine
	if f == addrRegFile {
		regs, lines = &p.AddrRegs, &p.AddrRegLine
	}
	if *regs == nil {
		*regs, *lines = map[int]uint32{}, map[int]int{}
	}
	if prev, ok := (*lines)[int(reg)]; ok {
		return &Error{Field: field, Msg: fmt.Sprintf("set twice (line %d, then line %d)", prev, line)}
	}
	(*regs)[int(reg)], (*lines)[int(reg)] = v, line
	return nil
}

// isRegObject reports whether a JSON object is a register object ({"bound_regs": ...},
// {"addr_regs": ...}) rather than an instruction.
func isRegObject(obj map[string]any) bool {
	_, b := obj[boundRegFile.field+"s"]
	_, a := obj[addrRegFile.field+"s"]
	return a || b
}

// jsonRegs reads a register object {"bound_regs": {"N": VALUE, ...}, "addr_regs": {...}}
// (values numbers or strings: "0x...", and for addr_regs "sbuf:P:OFF"); the object holds
// nothing else but an optional "gen".
func (p *Program) jsonRegs(obj map[string]any, line int) error {
	for k := range obj {
		if k != "bound_regs" && k != "addr_regs" && k != "gen" {
			return &Error{Field: k, Msg: "a register object sets bound_regs / addr_regs only (an instruction is another object)"}
		}
	}
	for _, f := range []regFile{boundRegFile, addrRegFile} {
		v, ok := obj[f.field+"s"]
		if !ok {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return &Error{Field: f.field + "s", Msg: `want an object {"5": 4096, ...}: register number -> value`}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if err := p.setReg(f, k, jsonString(m[k]), line); err != nil {
				return err
			}
		}
	}
	return nil
}

// BoundRegLines renders the settings as `.bound_reg` lines in register order (what disasm of a
// source prints, so its text assembles back to the same program).
func BoundRegLines(regs map[int]uint32) []string {
	return regLines(".bound_reg ", regs, func(v uint32) string { return "0x" + strconv.FormatUint(uint64(v), 16) })
}

// AddrRegLines renders address register settings as `.addr_reg` lines in register order, a
// value that is an on-chip location of g as sbuf:P:OFF / psum:P:OFF (which reads back as the
// same value), any other as a number.
func AddrRegLines(regs map[int]uint32, g isa.Generation) []string {
	return regLines(".addr_reg ", regs, func(v uint32) string { return AddrRegText(v, g) })
}

// AddrRegText is an address register's value as .addr_reg writes it on g.
func AddrRegText(v uint32, g isa.Generation) string {
	a := isa.Addr4(v)
	if l := isa.LocateAddr4(a, g); l.Space == isa.SpaceSBUF || l.Space == isa.SpacePSUM {
		if back, err := l.Addr4(g); err == nil && back == a {
			return l.String()
		}
	}
	return "0x" + strconv.FormatUint(uint64(v), 16)
}

func regLines(prefix string, regs map[int]uint32, val func(uint32) string) []string {
	keys := make([]int, 0, len(regs))
	for k := range regs {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + strconv.Itoa(k) + " " + val(regs[k])
	}
	return out
}
