package main

import (
	"fmt"
	"sort"
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

// regsJSON is the JSON form's register object, {"bound_regs": {"5": "0x64"}, "addr_regs":
// {"3": "sbuf:1:0x100"}}; "" when the program sets none.
func regsJSON(bound, addr map[int]uint32, g isa.Generation) string {
	var objs []string
	for _, f := range []struct {
		key  string
		regs map[int]uint32
		val  func(uint32) string
	}{
		{"bound_regs", bound, func(v uint32) string { return fmt.Sprintf("0x%x", v) }},
		{"addr_regs", addr, func(v uint32) string { return asm.AddrRegText(v, g) }},
	} {
		if len(f.regs) == 0 {
			continue
		}
		keys := make([]int, 0, len(f.regs))
		for k := range f.regs {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q: %q", fmt.Sprint(k), f.val(f.regs[k]))
		}
		objs = append(objs, fmt.Sprintf("%q: {%s}", f.key, strings.Join(parts, ", ")))
	}
	if objs == nil {
		return ""
	}
	return "{" + strings.Join(objs, ", ") + "}"
}
