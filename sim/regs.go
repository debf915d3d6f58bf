package sim

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Rule ids of the register files.
const (
	// RuleBoundRegIndex: a program sets a bound-check register the file does not have.
	RuleBoundRegIndex = "sim.bound_reg_index"
	// RuleAddrRegIndex: a program sets an address register the file does not have.
	RuleAddrRegIndex = "sim.addr_reg_index"
	// RuleAddrRegSet: an instruction reads an address register nothing set.
	RuleAddrRegSet = "sim.addr_reg_set"
	// RuleAddrRegValue: an ADDR4 in register mode names a register that holds no immediate ADDR4.
	RuleAddrRegValue = "sim.addr_reg_value"
	// RuleEventRegOperand: a register EVENTS form whose semaphore_value names no address register.
	RuleEventRegOperand = "sim.event_reg_operand"
)

// NumAddrRegs is NUM_ADDR_REGISTERS, the size of the address register file (FACTS §B.3).
const NumAddrRegs = 64

// addrRegFile is the machine's address register file: 64 x 32 bits, and which of them have a
// value (a register nothing set has none: reading it is an error, Provenance sim.addr_regs).
type addrRegFile struct {
	v   [NumAddrRegs]uint32
	set uint64
}

// SetBoundReg sets bound-check register i (0..63) before a run, as Program.BoundRegs does; a
// program's own settings are applied over it when it runs.
func (m *Machine) SetBoundReg(i int, v uint32) { m.dma.engines.Regs[i] = v }

// BoundReg returns bound-check register i.
func (m *Machine) BoundReg(i int) uint32 { return m.dma.engines.Regs[i] }

// SetAddrReg sets address register i (0..63) before a run, as Program.AddrRegs does (a
// program's own settings are applied over it when it runs); Reset clears every register.
func (m *Machine) SetAddrReg(i int, v uint32) {
	m.addrRegs.v[i] = v
	m.addrRegs.set |= 1 << uint(i)
}

// AddrReg returns address register i and whether anything set it.
func (m *Machine) AddrReg(i int) (uint32, bool) {
	if i < 0 || i >= NumAddrRegs {
		return 0, false
	}
	return m.addrRegs.v[i], m.addrRegs.set&(1<<uint(i)) != 0
}

// settingsViolations are the program's register settings that name no register.
func settingsViolations(p *Program) []fault.Violation {
	var out []fault.Violation
	for _, f := range []struct {
		regs map[int]uint32
		rule string
		path string
		n    int
		what string
	}{{p.BoundRegs, RuleBoundRegIndex, "bound_regs", numBoundRegs, "bound-check"}, {p.AddrRegs, RuleAddrRegIndex, "addr_regs", NumAddrRegs, "address"}} {
		for k := range f.regs {
			if k < 0 || k >= f.n {
				out = append(out, fault.Violation{Rule: f.rule, Path: f.path, Value: fmt.Sprint(k),
					Legal: fmt.Sprintf("0..%d", f.n-1), Offset: -1, Msg: fmt.Sprintf("the %s register file has %d registers", f.what, f.n)})
			}
		}
	}
	return out
}

// applyRegs sets the program's register settings on the machine (their indices were checked).
func (m *Machine) applyRegs(p *Program) {
	for k, v := range p.BoundRegs {
		m.dma.engines.Regs[k] = v
	}
	for k, v := range p.AddrRegs {
		m.SetAddrReg(k, v)
	}
}

// ---- ADDR4 register mode --------------------------------------------------------------------

// addrRegOperand is an ADDR4 operand in register mode (marker ADDR_REG 0x80: no shape register,
// not indirect) of a copy of an instruction, which resolving overwrites with the register's value.
type addrRegOperand struct {
	path string
	a    *isa.Addr4
}

// isAddrRegMode reports marker ADDR_REG: bit 31 alone of the mode bits (ADDR_SHAPE_REG 0xC0 and
// INDIRECT_REG 0xA0 take their shape or indices from registers tpbsim does not model).
func isAddrRegMode(a isa.Addr4) bool { return a.Marker()&0xE0 == isa.Addr4MarkerADDR_REG }

// addrRegOperands returns a copy of in and its ADDR4 operands in register mode that the
// instruction uses (an INDIRECT1D index leg its indirect_mode does not use is not one), or in
// itself and none: the start addresses of an S4D4_TR or MEMSET pattern, the index start addresses
// of INDIRECT1D and GATHER_XPOSE.
func addrRegOperands(in isa.Inst) (isa.Inst, []addrRegOperand) {
	var ops []addrRegOperand
	add := func(path string, a *isa.Addr4) {
		if isAddrRegMode(*a) {
			ops = append(ops, addrRegOperand{path, a})
		}
	}
	switch x := in.(type) {
	case *isa.S4D4TR:
		if !isAddrRegMode(x.SrcMemPattern.StartAddr) && !isAddrRegMode(x.DstMemPattern.StartAddr) {
			return in, nil
		}
		c := *x
		add("src_mem_pattern.start_addr", &c.SrcMemPattern.StartAddr)
		add("dst_mem_pattern.start_addr", &c.DstMemPattern.StartAddr)
		return &c, ops
	case *isa.Memset:
		if !isAddrRegMode(x.DstMemPattern.StartAddr) {
			return in, nil
		}
		c := *x
		add("dst_mem_pattern.start_addr", &c.DstMemPattern.StartAddr)
		return &c, ops
	case *isa.DMAIndirect1D:
		mode := x.Flags.IndirectMode()
		src := mode != isa.DstIndirection && isAddrRegMode(x.SrcIdxStartAddr)
		dst := mode != isa.SrcIndirection && isAddrRegMode(x.DstIdxStartAddr)
		if !src && !dst {
			return in, nil
		}
		c := *x
		if src {
			add("src_idx_start_addr", &c.SrcIdxStartAddr)
		}
		if dst {
			add("dst_idx_start_addr", &c.DstIdxStartAddr)
		}
		return &c, ops
	case *isa.DMAGatherXpose:
		if !isAddrRegMode(x.SrcIdxStartAddr) {
			return in, nil
		}
		c := *x
		add("src_idx_start_addr", &c.SrcIdxStartAddr)
		return &c, ops
	}
	return in, nil
}

// regPlaceholder is the immediate ADDR4 the check pipeline plans a DMA instruction with where an
// index address comes from a register (sbuf:0:0x0, a legal index start): the plan's other checks
// do not depend on the index address, which is checked, and the plan made again, when the
// instruction issues with the register's value.
const regPlaceholder isa.Addr4 = 0

// staticPlanInst is the DMA instruction the check pipeline plans: in, or a copy whose
// register-mode index addresses are regPlaceholder.
func staticPlanInst(in isa.Inst) isa.Inst {
	c, ops := addrRegOperands(in)
	for _, o := range ops {
		*o.a = regPlaceholder
	}
	return c
}

// regRead is one register an instruction read at its issue, for its error.
type regRead struct {
	path string // the field that named it
	reg  int
	v    uint32
}

func (r regRead) String() string {
	return fmt.Sprintf("%s names addr_reg[%d] = 0x%08x", r.path, r.reg, r.v)
}

// resolveAddrRegs gives engine e's next instruction in (a copy c with register operands ops)
// its registers' values, and runs the check pipeline on the resolved word: the checks of an
// immediate address (placement, footprint, active channels, PSUM, the DGE's plan) under their
// own rule ids, which the check before the run could not make. It returns the report of the
// resolved word (its plan is the one to execute) and the registers read.
func (r *run) resolveAddrRegs(e *engine, in Instr, c isa.Inst, ops []addrRegOperand) (*InstReport, []regRead, error) {
	op := opcodeOf(in.Inst)
	reads := make([]regRead, 0, len(ops))
	for _, o := range ops {
		reg := int(o.a.RegNum())
		v, ok := r.m.AddrReg(reg)
		if !ok {
			return nil, nil, r.instErr(e, in, fault.ErrInvalid, fault.Violation{Rule: RuleAddrRegSet, Path: o.path, Value: fmt.Sprintf("reg:%d", reg),
				Legal: "a register with a value (.addr_reg N VALUE, --addr-reg N=VALUE, Program.AddrRegs)", Offset: fieldOffset(op, o.path),
				Msg: fmt.Sprintf("addr_reg[%d] was never set", reg)}, nil, false)
		}
		if a := isa.Addr4(v); a.IsAddrReg() || a.ShapeFromRegister() || a.IsIndirect() {
			return nil, nil, r.instErr(e, in, fault.ErrInvalid, fault.Violation{Rule: RuleAddrRegValue, Path: o.path,
				Value: fmt.Sprintf("reg:%d, addr_reg[%d] = 0x%08x (marker 0x%02x)", reg, reg, v, a.Marker()),
				Legal: "a register holding an immediate ADDR4 (bits 29..31 zero)", Offset: fieldOffset(op, o.path),
				Msg: "an address register resolves to an immediate address; it holds no register, shape-register or indirect form"}, nil, false)
		}
		*o.a = isa.Addr4(v)
		reads = append(reads, regRead{o.path, reg, v})
	}
	rep := r.m.chk.inst(e.kind, c)
	if rep.Kind != nil {
		vs := rep.Violations
		if rep.Unsupported.Rule != "" {
			vs = []fault.Violation{rep.Unsupported}
		}
		ie := r.instErr(e, in, rep.Kind, vs[0], rep.Cause, rep.Cause != nil)
		ie.Violations = append(ie.Violations[:0], vs...)
		return nil, nil, withRegReads(ie, reads)
	}
	return &rep, reads, nil
}

// withRegReads adds to an instruction's error the registers its operands came from: the
// addresses it names are the registers' values, not the word's.
func withRegReads(err error, reads []regRead) error {
	var ie *InstError
	if len(reads) == 0 || !errors.As(err, &ie) {
		return err
	}
	note := ""
	for i, rd := range reads {
		if i > 0 {
			note += ", "
		}
		note += rd.String()
	}
	if len(ie.Violations) == 0 {
		ie.Violations = []fault.Violation{{Rule: ie.Rule, Offset: -1}}
	}
	v := &ie.Violations[0]
	if v.Msg != "" {
		v.Msg += "; "
	}
	v.Msg += note
	return err
}

// ---- register EVENTS forms ------------------------------------------------------------------

// isSemRegWait reports WAIT_FOR_SEM_{EQ,LT,LE,GT,GE}_REG (0x81..0x85).
func isSemRegWait(w isa.WaitMode) bool { return w >= isa.WaitForSemEQReg && w <= isa.WaitForSemGEReg }

// usesEventReg reports whether an EVENTS band reads a register: a _REG wait or SEM_WR_REG_COMPLETE.
func usesEventReg(ev isa.Events) bool {
	return isSemRegWait(ev.WaitMode) || ev.UpdateMode == isa.SemWrRegComplete
}

// eventRegOperand checks the register a register EVENTS form names: semaphore_value's low byte,
// a register 0..63, the other bits zero (Provenance sim.reg_events).
func eventRegOperand(op isa.Opcode, ev isa.Events) fault.Violation {
	if !usesEventReg(ev) || ev.SemaphoreValue < NumAddrRegs {
		return fault.Violation{}
	}
	form := ev.WaitMode.String()
	if !isSemRegWait(ev.WaitMode) {
		form = ev.UpdateMode.String()
	}
	return fault.Violation{Rule: RuleEventRegOperand, Path: "events.semaphore_value", Value: fmt.Sprintf("0x%x", ev.SemaphoreValue),
		Legal: fmt.Sprintf("0..%d (the address register %s reads)", NumAddrRegs-1, form), Offset: fieldOffset(op, "events.semaphore_value"),
		Msg: "tpbsim reads a register EVENTS form's register from semaphore_value (low byte, bits 8..31 zero); another encoding is not modelled"}
}

// eventRegs resolves an EVENTS band's register forms for its issue: a _REG wait becomes the
// _IMM compare against the register's value, SEM_WR_REG_COMPLETE the SEM_WR_IMM_COMPLETE of the
// register's value. waitEv is the band to wait with, updateEv the band to update with (they
// differ when only one of them reads the register: semaphore_value is the other's operand).
// The error is a register nothing set.
func (r *run) eventRegs(e *engine, in Instr, ev isa.Events) (waitEv, updateEv isa.Events, err error) {
	waitEv, updateEv = ev, ev
	if !usesEventReg(ev) {
		return ev, ev, nil
	}
	reg := int(ev.SemaphoreValue) // < NumAddrRegs: the check before the run
	v, ok := r.m.AddrReg(reg)
	if !ok {
		form := ev.WaitMode.String()
		if !isSemRegWait(ev.WaitMode) {
			form = ev.UpdateMode.String()
		}
		op := opcodeOf(in.Inst)
		return ev, ev, r.instErr(e, in, fault.ErrInvalid, fault.Violation{Rule: RuleAddrRegSet, Path: "events.semaphore_value", Value: fmt.Sprint(reg),
			Legal: "a register with a value (.addr_reg N VALUE, --addr-reg N=VALUE, Program.AddrRegs)", Offset: fieldOffset(op, "events.semaphore_value"),
			Msg: fmt.Sprintf("%s reads addr_reg[%d], which was never set", form, reg)}, nil, false)
	}
	if isSemRegWait(ev.WaitMode) {
		waitEv.WaitMode, waitEv.SemaphoreValue = ev.WaitMode-0x80, v
	}
	if ev.UpdateMode == isa.SemWrRegComplete {
		updateEv.UpdateMode, updateEv.SemaphoreValue = isa.SemWrImmComplete, v
	}
	return waitEv, updateEv, nil
}

// waitOperand is what engine state and trace say an EVENTS band's wait compares against: the
// value, and for a _REG wait the register it came from (reg -1 otherwise).
func (m *Machine) waitOperand(ev isa.Events) (v uint32, reg int) {
	if !isSemRegWait(ev.WaitMode) {
		return ev.SemaphoreValue, -1
	}
	v, _ = m.AddrReg(int(ev.SemaphoreValue))
	return v, int(ev.SemaphoreValue)
}

// waitText is a wait as the trace names it: "sem[3] WAIT_FOR_SEM_GE_IMM 4", or for a _REG wait
// "sem[3] WAIT_FOR_SEM_GE_REG addr_reg[5] = 4".
func (m *Machine) waitText(ev isa.Events) string {
	v, reg := m.waitOperand(ev)
	if reg >= 0 {
		return fmt.Sprintf("sem[%d] %v addr_reg[%d] = %d", ev.WaitIdx, ev.WaitMode, reg, v)
	}
	return fmt.Sprintf("sem[%d] %v %d", ev.WaitIdx, ev.WaitMode, v)
}

func regsProvenance() []isa.Provenance {
	return []isa.Provenance{
		isa.Behaviour("sim.bound_regs", "The bound-check register file (64 x 32 bits; the bc_reg a BOUND_CHECK_REG names) starts at 0 and is set before the run by the program: "+
			"`.bound_reg N VALUE` in assembly text, an object {\"bound_regs\": {\"N\": VALUE}} in the JSON form, `tpbsim run --bound-reg N=VALUE`, or sim.Program.BoundRegs / "+
			"Machine.SetBoundReg from Go. The DMA engines then apply it: a side with bc_enabled is bounded to R[bc_reg] bytes from its start address (dma.bound_check), "+
			"an INDIRECT1D index to min(num_elem, R[bc_reg]) (idx_bound_is_err: fail, else skip the row), a GATHER_XPOSE index to R[src_idx_bound_reg] "+
			"(bc_disable_oob_error_notif: skip the row, NKI's oob_mode=skip, else fail). No instruction writes the registers during a run. It is a file of its own, "+
			"apart from the address registers (sim.addr_regs).",
			"FACTS §C.6 (BOUND_CHECK_REG: bc_reg 6 bits), §C.3, §C.4; seed 003 §7 (bounds check per descriptor)", isa.Invented,
			"the sources give no instruction that loads these registers (the runtime sets them); a program-level initial value is what a kernel author needs to reach bounded and skipping gathers"),
		isa.Rule(RuleBoundRegIndex, "A program's bound-check register settings name registers 0..63.", "FACTS §C.6 (bc_reg is 6 bits)", isa.HighObserved,
			[]string{"bound_regs"}, "the register file the field can name"),
		isa.Behaviour("sim.addr_regs", "The address register file (NUM_ADDR_REGISTERS = 64 x 32 bits), one per machine and shared by every queue, is set before the run: "+
			"`.addr_reg N VALUE` in assembly text (VALUE a number or sbuf:P:OFF / psum:P:OFF, the ADDR4 of that location), {\"addr_regs\": {\"N\": VALUE}} in the JSON form, "+
			"`tpbsim run --addr-reg N=VALUE`, or sim.Program.AddrRegs / Machine.SetAddrReg from Go; a register nothing set has no value (reading it fails the instruction, "+
			"sim.addr_reg_set), and no instruction writes one during a run. An ADDR4 in register mode (marker ADDR_REG 0x80, reg:N) is resolved when its instruction "+
			"issues: the start address of an S4D4_TR or MEMSET pattern, the index start address of DMA_INDIRECT (on a leg its indirect_mode uses) and of "+
			"DMA_GATHER_TRANSPOSE become R[N], which must be an immediate ADDR4 (sim.addr_reg_value), and the resolved word then passes the checks of an immediate "+
			"address (placement, footprint, active channels, GpSimd PSUM, the DGE's plan) under their own rule ids, its error naming the register and its value. "+
			"The check before the run checks the register number only (< 64, reserved bits zero; tensor_start_addr_valid's runtime-resolved case) and plans a DMA "+
			"with a register index address at sbuf:0:0x0. ADDR_SHAPE_REG (0xC0), SHAPE_REG (0x40), INDIRECT forms and ADDR8 register / table markers stay unmodelled.",
			"FACTS §B.3 (ADDR_REG4 {regnum, reserved0[2], marker}; addr_from_register: placement checks bypassed, resolved at runtime), §C.3 (has_dma_indirect_idx_addr_in_sbuf_partition0: from-register or partition 0)", isa.Invented,
			"the sources say a register-mode address is resolved at run time but not what loads the registers or whether the file is per engine or the bound-check file; "+
				"launch-time values set by the program are what a kernel author needs, a separate file keeps a program's .bound_reg and .addr_reg apart, and an unset "+
				"register is refused because an address 0 read from it would hide a missing setting"),
		isa.Rule(RuleAddrRegIndex, "A program's address register settings name registers 0..63.", "FACTS §B.3 (register id < 64, NUM_ADDR_REGISTERS)", isa.HighObserved,
			[]string{"addr_regs"}, "the register file an ADDR4 can name"),
		isa.Rule(RuleAddrRegSet, "An instruction reads only address registers that have a value (set by .addr_reg, --addr-reg, Program.AddrRegs or Machine.SetAddrReg): checked when it issues.",
			"tpbsim", isa.Invented, []string{"start_addr", "events.semaphore_value"},
			"the sources give no reset value; an unset register is more likely a missing setting than an intended address 0"),
		isa.Rule(RuleAddrRegValue, "The register an ADDR4 in register mode names holds an immediate ADDR4 (bits 29..31 zero): checked when the instruction issues.",
			"FACTS §B.3", isa.Invented, []string{"start_addr"},
			"the sources do not say what a register-mode address resolves through; one level, to an immediate address, is the reading that needs nothing more"),
		isa.Behaviour("sim.reg_events", "The register EVENTS forms read the address register file (sim.addr_regs) at issue, the register named by semaphore_value "+
			"(its low byte, 0..63, bits 8..31 zero; sim.event_reg_operand): WAIT_FOR_SEM_{EQ,LT,LE,GT,GE}_REG (0x81..0x85) blocks until sem[wait_idx] <op> R[n], the "+
			"_IMM compare with the register's value; SEM_WR_REG_COMPLETE (0x99) sets sem[update_idx] = R[n] when the instruction completes. semaphore_value is then "+
			"also the operand of the band's other half (an _IMM wait's value, an ADD_IMM's amount), as it always is. The event waits (0x06, 0x07, 0x0E, 0x0F) and "+
			"SEM_*_REG_OFFSET (0x91..0x95) stay unmodelled (sim.executable_wait_mode).",
			"FACTS §B.2 (WAIT_MODE 0x81..0x85 register-operand forms; SEM_BASE_OFFSET {reg:8, off:24}; UPDATE_MODE 0x99)", isa.Invented,
			"the sources name the forms but not which register they read or from which file; semaphore_value is the band's only operand field, a register id in its "+
				"low byte is how SEM_BASE_OFFSET lays one out, and the engine-side address file is the one the sources bound at 64; requiring the other bits zero "+
				"refuses a word of another encoding instead of running it wrong"),
		isa.Rule(RuleEventRegOperand, "A register EVENTS form (a _REG wait, SEM_WR_REG_COMPLETE) names an address register 0..63 in semaphore_value, the other bits zero; another value is not executable.",
			"tpbsim (sim.reg_events)", isa.Invented, []string{"events.semaphore_value"},
			"tpbsim's encoding of the register operand; a value outside it is a form tpbsim does not model, not one the hardware is known to refuse"),
	}
}
