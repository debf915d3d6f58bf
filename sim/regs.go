package sim

import (
	"github.com/tpbsim/tpbsim/isa"
)

// RuleBoundRegIndex: a program sets a bound-check register the file does not have.
const RuleBoundRegIndex = "sim.bound_reg_index"

// SetBoundReg sets bound-check register i (0..63) before a run, as Program.BoundRegs does; a
// program's own settings are applied over it when it runs.
func (m *Machine) SetBoundReg(i int, v uint32) { m.dma.engines.Regs[i] = v }

// BoundReg returns bound-check register i.
func (m *Machine) BoundReg(i int) uint32 { return m.dma.engines.Regs[i] }

func regsProvenance() []isa.Provenance {
	return []isa.Provenance{
		isa.Behaviour("sim.bound_regs", "The bound-check register file (64 x 32 bits; the bc_reg a BOUND_CHECK_REG names) starts at 0 and is set before the run by the program: "+
			"`.bound_reg N VALUE` in assembly text, an object {\"bound_regs\": {\"N\": VALUE}} in the JSON form, `tpbsim run --bound-reg N=VALUE`, or sim.Program.BoundRegs / "+
			"Machine.SetBoundReg from Go. The DMA engines then apply it: a side with bc_enabled is bounded to R[bc_reg] bytes from its start address (dma.bound_check), "+
			"an INDIRECT1D index to min(num_elem, R[bc_reg]) (idx_bound_is_err: fail, else skip the row), a GATHER_XPOSE index to R[src_idx_bound_reg] "+
			"(bc_disable_oob_error_notif: skip the row, NKI's oob_mode=skip, else fail). No instruction writes the registers during a run; the address and "+
			"DGE shape registers (ADDR4 register mode, ADDR8 register markers) and the register/event EVENTS forms stay unmodelled, refused before the run "+
			"and reported by check as unsupported.",
			"FACTS §C.6 (BOUND_CHECK_REG: bc_reg 6 bits), §C.3, §C.4; seed 003 §7 (bounds check per descriptor)", isa.Invented,
			"the sources give no instruction that loads these registers (the runtime sets them); a program-level initial value is what a kernel author needs to reach bounded and skipping gathers"),
		isa.Rule(RuleBoundRegIndex, "A program's bound-check register settings name registers 0..63.", "FACTS §C.6 (bc_reg is 6 bits)", isa.HighObserved,
			[]string{"bound_regs"}, "the register file the field can name"),
	}
}
