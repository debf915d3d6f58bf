package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// applyBoundRegFlags adds run's --bound-reg N=VALUE settings to the program's own; naming a
// register the program sets to another value is a usage error (as --gen contradicting .gen).
func applyBoundRegFlags(p *sim.Program, args []string) error {
	for _, a := range args {
		nS, vS, ok := strings.Cut(a, "=")
		n, err1 := isa.ParseNumber(strings.TrimSpace(nS))
		v, err2 := isa.ParseNumber(strings.TrimSpace(vS))
		if !ok || err1 != nil || err2 != nil || n >= asm.NumBoundRegs || v > 0xFFFFFFFF {
			return ioErr(fmt.Errorf("--bound-reg %s: want N=VALUE, N 0..%d and VALUE a 32-bit number (the bound in bytes)", a, asm.NumBoundRegs-1))
		}
		if p.BoundRegs == nil {
			p.BoundRegs = map[int]uint32{}
		}
		if old, set := p.BoundRegs[int(n)]; set && old != uint32(v) {
			return ioErr(fmt.Errorf("--bound-reg %s: the program sets bound_reg %d to 0x%x (drop one of them)", a, n, old))
		}
		p.BoundRegs[int(n)] = uint32(v)
	}
	return nil
}

// boundRegsJSON is the JSON form's register object, {"bound_regs": {"5": "0x64"}}.
func boundRegsJSON(regs map[int]uint32) string {
	keys := make([]int, 0, len(regs))
	for k := range regs {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q: \"0x%x\"", fmt.Sprint(k), regs[k])
	}
	return `{"bound_regs": {` + strings.Join(parts, ", ") + `}}`
}
