package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// engineOps is the engine check, the first step of the runtime's validator (FACTS §F.2: "engine
// check (opcode legal on this engine)"), read from the engine surfaces of FACTS §D.2 (INFERRED,
// rule opcode_legal_on_engine): the DVE runs the whole S4D4_TR family and LOAD_MASK_SELECT;
// POOL (GpSimd) runs Copy, Cast and the reduces, and issues DMA instructions through the software
// DGE, including DMA_GATHER_TRANSPOSE; ACT runs Copy and Cast and issues DMA; SP issues DMA.
func engineAllows(e isa.Engine, op isa.Opcode) bool {
	switch e {
	case isa.EngineDVE:
		return op.Struct() == isa.StructS4D4_TR || op == isa.OpLOAD_MASK_SELECT || op == isa.OpMEMSET
	case isa.EnginePOOL:
		switch op {
		case isa.OpCOPY, isa.OpCAST, isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP,
			isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP,
			isa.OpDMAMEMCPY, isa.OpDMA_INDIRECT, isa.OpDMA_TRANSPOSE, isa.OpDMA_GATHER_TRANSPOSE:
			return true
		}
	case isa.EngineACT:
		switch op {
		case isa.OpCOPY, isa.OpCAST, isa.OpDMAMEMCPY, isa.OpDMA_INDIRECT, isa.OpDMA_TRANSPOSE:
			return true
		}
	case isa.EngineTPB_SP:
		switch op {
		case isa.OpDMAMEMCPY, isa.OpDMA_INDIRECT, isa.OpDMA_TRANSPOSE:
			return true
		}
	}
	return false
}

func isDMA(op isa.Opcode) bool {
	switch op {
	case isa.OpDMAMEMCPY, isa.OpDMA_INDIRECT, isa.OpDMA_TRANSPOSE, isa.OpDMA_GATHER_TRANSPOSE:
		return true
	}
	return false
}

// EngineExecutes reports whether the machine's queue of engine e executes op (the engine check
// of the run, rule opcode_legal_on_engine); EnginesFor names the queues that do. `tpbsim check`
// uses them so that it refuses what `run` refuses.
func EngineExecutes(e isa.Engine, op isa.Opcode) bool { return engineAllows(e, op) }

// EnginesFor names the queues that execute op, e.g. "DVE, POOL".
func EnginesFor(op isa.Opcode) string { return enginesFor(op) }

func enginesFor(op isa.Opcode) string {
	s := ""
	for _, e := range queueEngines {
		if engineAllows(e, op) {
			if s != "" {
				s += ", "
			}
			s += e.String()
		}
	}
	if s == "" {
		return "none of DVE, POOL, ACT, SP"
	}
	return s
}

// Check runs on p every check Run makes before it executes anything (engine, isa.Validate on
// the machine's generation, executable event modes, work limits, DMA planning) and returns what
// Run would return for them: nil, or a *ProgramError listing every refused instruction. Tools
// that only check (tpbsim check, the kernel lowering's self-check) call it, so they refuse
// exactly what run refuses.
func (m *Machine) Check(p *Program) error { return m.check(p) }

// check runs every check that needs no machine state on every instruction of p.
func (m *Machine) check(p *Program) error {
	var errs []*InstError
	for k := range p.BoundRegs {
		if k < 0 || k >= len(m.dma.engines.Regs) {
			errs = append(errs, &InstError{Kind: ErrInvalid, Index: -1, Offset: -1, File: p.File, Rule: RuleBoundRegIndex,
				Fields: []Field{{Path: "bound_regs", Value: fmt.Sprint(k), Legal: "0..63"}},
				Msg:    "the bound-check register file has 64 registers"})
		}
	}
	for _, q := range p.Queues {
		name := q.Engine.String()
		if queueSlot(q.Engine) < 0 {
			errs = append(errs, &InstError{Kind: ErrUnsupported, Engine: name, Index: -1, Offset: -1, File: p.File,
				Rule: RuleEngineModelled, Msg: fmt.Sprintf("tpbsim does not model the %v queue (%d instructions)", q.Engine, len(q.Insts))})
			continue
		}
		for _, in := range q.Insts {
			if ie := m.checkInst(q.Engine, in); ie != nil {
				ie.Engine, ie.Index, ie.Offset, ie.Line, ie.File, ie.Origin = name, in.Index, in.Offset, in.Line, p.File, in.Origin
				ie.Opcode = opcodeOf(in.Inst)
				errs = append(errs, ie)
			}
		}
	}
	if errs != nil {
		return &ProgramError{Errs: errs}
	}
	return nil
}

func (m *Machine) checkInst(eng isa.Engine, in Instr) *InstError {
	if in.Inst == nil {
		return &InstError{Kind: ErrInvalid, Rule: RuleHasValidNeuronHeader, Msg: "no instruction"}
	}
	op := opcodeOf(in.Inst)
	if !engineAllows(eng, op) {
		return &InstError{Kind: ErrInvalid, Rule: RuleOpcodeLegalOnEngine,
			Fields: []Field{{Path: "header.opcode", Value: fmt.Sprintf("%v (0x%02x)", op, uint8(op)), Legal: "on " + enginesFor(op)}},
			Msg:    fmt.Sprintf("the %v queue does not execute it", eng)}
	}
	if vs := validate(in.Inst, m.gen, eng); len(vs) > 0 {
		ie := &InstError{Kind: ErrInvalid, Rule: vs[0].rule, Fields: vs[0].fields}
		if len(vs) > 1 {
			ie.Msg = fmt.Sprintf("(and %d more rule(s) below)", len(vs)-1)
			for _, v := range vs[1:] {
				ie.Violations = append(ie.Violations, v.text)
			}
		}
		return ie
	}
	if ie := m.checkEvents(in.Inst.Evt()); ie != nil {
		return ie
	}
	if !executable(op) {
		return &InstError{Kind: ErrUnsupported, Rule: RuleOpcodeExecutable,
			Msg: fmt.Sprintf("tpbsim names %v but does not execute it", op)}
	}
	if x, ok := in.Inst.(*isa.S4D4TR); ok {
		if ie := checkImmediate(x); ie != nil {
			return ie
		}
		// A reduce / scan op the model does not compute (e.g. POOL's AMAX_INT) fails here,
		// before anything runs, not when reached.
		if err := dve.CheckOp(x); err != nil {
			ie := &InstError{Kind: ErrInvalid, Err: err}
			fromDVE(ie, err)
			return ie
		}
	}
	var plan *dge.Plan
	if isDMA(op) {
		var err error
		if plan, err = m.dma.plan(m.gen, in.Inst); err != nil {
			return &InstError{Kind: dmaErrKind(err), Rule: ruleOf(err, dma.RuleDescriptorValid), Err: err}
		}
	}
	if ie := m.checkWork(workOf(in.Inst, plan)); ie != nil {
		return ie
	}
	if eng == isa.EnginePOOL {
		if x, ok := in.Inst.(*isa.S4D4TR); ok {
			for _, f := range []struct {
				path string
				a    isa.Addr4
			}{{"src_mem_pattern.start_addr", x.SrcMemPattern.StartAddr}, {"dst_mem_pattern.start_addr", x.DstMemPattern.StartAddr}} {
				if m.inPSUM(f.a) {
					return &InstError{Kind: ErrInvalid, Rule: RuleGpSimdCannotAccessPSUM,
						Fields: []Field{{Path: f.path, Value: fmt.Sprintf("0x%08x", uint32(f.a)), Legal: "an SBUF address"}},
						Msg:    "GpSimd engine cannot access PSUM"}
				}
			}
		}
	}
	return nil
}

// checkImmediate refuses the ADDR4 forms the memory cannot resolve (register, shape-register,
// indirect; mem.Resolve's rule addr4_immediate) before the run: they are valid ISA, resolved by
// hardware registers tpbsim does not model, and the check needs no machine state.
func checkImmediate(x *isa.S4D4TR) *InstError {
	for _, f := range []struct {
		path string
		a    isa.Addr4
	}{{"src_mem_pattern.start_addr", x.SrcMemPattern.StartAddr}, {"dst_mem_pattern.start_addr", x.DstMemPattern.StartAddr}} {
		if f.a.IsAddrReg() || f.a.ShapeFromRegister() || f.a.IsIndirect() {
			return &InstError{Kind: ErrUnsupported, Rule: mem.RuleAddr4Immediate,
				Fields: []Field{{Path: f.path, Value: fmt.Sprintf("0x%08x (marker 0x%02x)", uint32(f.a), f.a.Marker()), Legal: "an immediate ADDR4 (marker 0x00)"}},
				Msg:    "register, shape-register and indirect ADDR4 forms are resolved by hardware registers tpbsim does not model"}
		}
	}
	return nil
}

// raiseHint says how to raise the work limits.
const raiseHint = "raise it with tpbsim run --max-elements N, or sim.Config.MaxElements"

// checkWork applies the work limits (Provenance sim.max_elements, sim.max_stream_bytes).
func (m *Machine) checkWork(w work) *InstError {
	if rule, msg := workLimit(w, m.cfg, m.bytesDerived, raiseHint, raiseHint+" or MaxStreamBytes"); rule != "" {
		return &InstError{Kind: ErrLimit, Rule: rule, Msg: msg}
	}
	return nil
}

// workLimit applies the limits of cfg (defaults applied; derived: MaxStreamBytes was derived
// from MaxElements) to w. It returns the rule broken and the message, which ends with the hint
// on raising the element limit, or on raising the derived byte limit; rule is "" when w passes.
func workLimit(w work, cfg Config, derived bool, hint, bytesHint string) (rule, msg string) {
	if w.elems > cfg.MaxElements {
		return RuleMaxElements, fmt.Sprintf("streams %d elements%s; tpbsim's limit is %d (%s)", w.elems, w.per, cfg.MaxElements, hint)
	}
	if w.bytes > cfg.MaxStreamBytes {
		lim := fmt.Sprintf("%d bytes (sim.Config.MaxStreamBytes)", cfg.MaxStreamBytes)
		hint := "raise it with sim.Config.MaxStreamBytes"
		if derived {
			lim = fmt.Sprintf("%d bytes, %d per element of the element limit %d", cfg.MaxStreamBytes, StreamBytesPerElement, cfg.MaxElements)
			hint = bytesHint
		}
		return RuleMaxStreamBytes, fmt.Sprintf("streams %d bytes: %s; tpbsim's limit is %s (%s)", w.bytes, w.how, lim, hint)
	}
	return "", ""
}

// LimitError is a work limit a DGE request run outside a program breaks (Config.CheckPlan). It
// unwraps to ErrLimit.
type LimitError struct {
	Rule string // RuleMaxElements or RuleMaxStreamBytes
	Msg  string // the work, the limit and how to raise it
}

func (e *LimitError) Error() string  { return ErrLimit.Error() + ": rule " + e.Rule + ": " + e.Msg }
func (e *LimitError) Unwrap() error  { return ErrLimit }
func (e *LimitError) RuleID() string { return e.Rule }

// CheckPlan applies the work limits of a DMA instruction (Provenance sim.max_elements,
// sim.max_stream_bytes) to a DGE plan made outside a program, as tpbsim dge run does before it
// allocates or fills anything: the elements its descriptors move in all, and their source plus
// destination bytes. The error is a *LimitError whose message names the work and the limit and
// says "raise it with " + how (e.g. "tpbsim dge run --max-elements N").
func (c Config) CheckPlan(p *dge.Plan, how string) error {
	derived := c.MaxStreamBytes == 0
	c.MaxElements, c.MaxStreamBytes = c.Limits()
	hint := "raise it with " + how
	if rule, msg := workLimit(workOf(nil, p), c, derived, hint, hint); rule != "" {
		return &LimitError{Rule: rule, Msg: msg}
	}
	return nil
}

func (m *Machine) inPSUM(a isa.Addr4) bool {
	if a.IsAddrReg() {
		return false
	}
	b := a.ByteAddr()
	return m.geo.PSUMSize > 0 && b >= m.geo.PSUMOffset && b-m.geo.PSUMOffset < m.geo.PSUMSize
}

// checkEvents accepts the EVENTS forms the machine executes: no wait or an immediate semaphore
// compare (UNORDERED on MAVERICK), and no update or an immediate semaphore update. Register and
// event forms are named by the ISA but need registers tpbsim does not model.
func (m *Machine) checkEvents(ev isa.Events) *InstError {
	w := ev.WaitMode
	switch {
	case w == isa.WaitNone, w.IsSemImm(), w == isa.WaitUnordered && m.gen == isa.MAVERICK:
	case w.Known() && w != isa.WaitInvalid:
		return &InstError{Kind: ErrUnsupported, Rule: RuleExecutableWaitMode,
			Fields: []Field{{Path: "events.wait_mode", Value: w.String(), Legal: "NONE or WAIT_FOR_SEM_{EQ,LT,LE,GT,GE}_IMM"}},
			Msg:    "register and event wait forms are not modelled"}
	default:
		return &InstError{Kind: ErrInvalid, Rule: RuleHasValidNeuronEvents,
			Fields: []Field{{Path: "events.wait_mode", Value: fmt.Sprintf("0x%02x", uint8(w)), Legal: "a WAIT_MODE value"}}}
	}
	u := ev.UpdateMode
	if u == isa.UpdateNone {
		return nil
	}
	if _, ok := u.Apply(0, 0); ok {
		return nil
	}
	if u.Known() && u != isa.UpdateInvalid {
		return &InstError{Kind: ErrUnsupported, Rule: RuleExecutableUpdateMode,
			Fields: []Field{{Path: "events.update_mode", Value: u.String(), Legal: "NONE or SEM_{INC,DEC,ADD_IMM,SUB_IMM,WR_IMM}_{READ,COMPLETE}"}},
			Msg:    "register update forms are not modelled"}
	}
	return &InstError{Kind: ErrInvalid, Rule: RuleHasValidNeuronEvents,
		Fields: []Field{{Path: "events.update_mode", Value: fmt.Sprintf("0x%02x", uint8(u)), Legal: "an UPDATE_MODE value"}}}
}

// executable reports the opcodes the machine can execute.
func executable(op isa.Opcode) bool {
	return op.Struct() == isa.StructS4D4_TR || op == isa.OpLOAD_MASK_SELECT || op == isa.OpMEMSET || isDMA(op)
}
