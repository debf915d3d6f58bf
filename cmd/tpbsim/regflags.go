package main

import (
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// applyRegFlags adds run's --bound-reg and --addr-reg N=VALUE settings to the program's own;
// naming a register the program sets to another value is a usage error (as --gen contradicting
// .gen). g reads an --addr-reg location (sbuf:P:OFF).
func applyRegFlags(p *sim.Program, g isa.Generation, bound, addr []string) error {
	for _, f := range []struct {
		flag, name string
		args       []string
		regs       *map[int]uint32
		n          int
		value      func(string) (uint32, error)
		show       func(uint32) string
	}{
		{"--bound-reg", "bound_reg", bound, &p.BoundRegs, asm.NumBoundRegs, func(s string) (uint32, error) {
			v, err := isa.ParseNumber(s)
			if err != nil || v > 0xFFFFFFFF {
				return 0, fmt.Errorf("VALUE a 32-bit number (the bound in bytes)")
			}
			return uint32(v), nil
		}, func(v uint32) string { return fmt.Sprintf("0x%x", v) }},
		{"--addr-reg", "addr_reg", addr, &p.AddrRegs, asm.NumAddrRegs, func(s string) (uint32, error) { return asm.ParseAddrRegValue(s, g) },
			func(v uint32) string { return asm.AddrRegText(v, g) }},
	} {
		for _, a := range f.args {
			nS, vS, ok := strings.Cut(a, "=")
			n, err := isa.ParseNumber(strings.TrimSpace(nS))
			if !ok || err != nil || n >= uint64(f.n) {
				return ioErr(fmt.Errorf("%s %s: want N=VALUE, N 0..%d", f.flag, a, f.n-1))
			}
			v, err := f.value(strings.TrimSpace(vS))
			if err != nil {
				return ioErr(fmt.Errorf("%s %s: want N=VALUE, %v", f.flag, a, err))
			}
			if *f.regs == nil {
				*f.regs = map[int]uint32{}
			}
			if old, set := (*f.regs)[int(n)]; set && old != v {
				return ioErr(fmt.Errorf("%s %s: the program sets %s %d to %s (drop one of them)", f.flag, a, f.name, n, f.show(old)))
			}
			(*f.regs)[int(n)] = v
		}
	}
	return nil
}
