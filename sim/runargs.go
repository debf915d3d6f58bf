package sim

import (
	"fmt"
	"os"
	"strings"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/ucode"
)

// ParseHBMCap reads a cap on the HBM a run may allocate (Config.HBMCapBytes), as `tpbsim run
// --hbm-cap` takes it: a size (ParseSize) of at least one page, since HBM is allocated in whole
// pages.
func ParseHBMCap(s string) (uint64, error) {
	n, err := ParseSize(s)
	if err != nil {
		return 0, err
	}
	if n < mem.HBMPageSize {
		return 0, fmt.Errorf("%d bytes is less than one HBM page (%d bytes): HBM is allocated in whole pages, so nothing could be written", n, mem.HBMPageSize)
	}
	return n, nil
}

// LoadTableSet reads the DVE microcode table set in folder dir for annotating a run of
// generation g (TableAnnotator), and the warnings to print: the set's generation is not the one
// g uses, or the set lacks an opcode of p's DVE queue (p nil: none checked). A generation with
// no DVE table generation, a missing folder or a set that does not load is the error.
func LoadTableSet(dir string, g isa.Generation, p *Program) (*ucode.TableSet, []string, error) {
	tg := ucode.TableGenFor(g)
	if tg == ucode.GenUnknown {
		return nil, nil, fmt.Errorf("%v has no DVE microcode table generation", g)
	}
	// A missing path is an I/O error in its own words (as in dtable), not a file whose table
	// kind cannot be told.
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, err
	}
	ts, err := ucode.Load([]string{dir}, "", ucode.GenUnknown)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if ts.Gen != tg {
		warnings = append(warnings, fmt.Sprintf("table set %q is %v (%s) but %v uses %v tables", ts.Name, ts.Gen, ts.GenReason, g, tg))
	}
	if p != nil {
		var ops []uint8
		for _, op := range p.Opcodes(isa.EngineDVE) {
			ops = append(ops, uint8(op))
		}
		for _, op := range ts.MissingOpcodes(ops) {
			warnings = append(warnings, fmt.Sprintf("the microcode table set %q lacks opcode %v (0x%02x), which the DVE queue uses", ts.Name, isa.Opcode(op), op))
		}
	}
	return ts, warnings, nil
}

// ApplyRegArgs adds register settings given as N=VALUE (`tpbsim run --bound-reg` / `--addr-reg`,
// as .bound_reg / .addr_reg do in a source) to the program's own: a bound-check register's
// VALUE is a 32-bit number, an address register's a number or an on-chip location of
// generation g (asm.ParseAddrRegValue). Naming a register the program sets to another value is
// an error (as --gen contradicting .gen); the messages name the flags.
func (p *Program) ApplyRegArgs(g isa.Generation, bound, addr []string) error {
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
				return fmt.Errorf("%s %s: want N=VALUE, N 0..%d", f.flag, a, f.n-1)
			}
			v, err := f.value(strings.TrimSpace(vS))
			if err != nil {
				return fmt.Errorf("%s %s: want N=VALUE, %v", f.flag, a, err)
			}
			if *f.regs == nil {
				*f.regs = map[int]uint32{}
			}
			if old, set := (*f.regs)[int(n)]; set && old != v {
				return fmt.Errorf("%s %s: the program sets %s %d to %s (drop one of them)", f.flag, a, f.name, n, f.show(old))
			}
			(*f.regs)[int(n)] = v
		}
	}
	return nil
}
