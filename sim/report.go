package sim

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// The check pipeline (DESIGN.md §2: "the one check pipeline"). Every check Run makes before it
// executes anything is made here, once, on every instruction: the queue's engine check, the
// instruction layer's validator on the machine's generation, whether the model executes the
// queue, the EVENTS forms, the opcode and the address forms, the executor's op checks, the
// DGE's lowering of a DMA instruction, the work limits and the GpSimd PSUM rule. Run refuses a
// program whose Report is not OK, with the Report's verdicts as its errors; `tpbsim check`
// prints the Report; the NKI lowering checks its output with it. The executors then trust it:
// what they still refuse is what needs the machine's state (bounds with the run's registers,
// never-written bytes, the HBM cap, a shuffle mask).

// InstReport is the verdict of the check pipeline on one instruction.
type InstReport struct {
	Engine isa.Engine // the queue it runs on
	Index  int        // its position in its engine's queue (the program's Queues of that engine counted as one, in order)
	Offset int64      // byte offset of its word in its file, -1 unknown
	Line   int        // source line, 0 unknown
	Origin string     // what it was lowered from (Instr.Origin)
	Opcode isa.Opcode
	// Modelled reports whether tpbsim models the instruction's struct (isa.Supported); when it
	// does not, only the header and the events were checked.
	Modelled bool
	// Kind is the category of the refusal: nil when Run executes the instruction, else one of
	// package fault's sentinels (fault.ErrInvalid, fault.ErrBounds, fault.ErrLimit, fault.ErrUnsupported).
	Kind error
	// Violations lists every rule the instruction breaks (Kind is not fault.ErrUnsupported). A word
	// that breaks a rule of the instruction layer or the engine check is not lowered or measured
	// further: the later checks assume a valid word.
	Violations []fault.Violation
	// Unsupported is the form tpbsim does not execute when Kind is fault.ErrUnsupported
	// (event and register-offset EVENTS forms, shape-register and indirect ADDR4s, a register
	// EVENTS operand outside 0..63, an opcode the model does not execute, a reduce op it does not
	// compute); its Rule is "" otherwise. An ADDR4 in register mode passes with its register
	// number checked: its value is checked when the instruction issues (Provenance sim.addr_regs).
	Unsupported fault.Violation
	// Cause is the error of the package that refused it (the DGE, the executor's op check),
	// nil when the instruction layer or the machine itself refused it.
	Cause error

	plan *dge.Plan // the DGE's lowering of a DMA instruction that passed
}

// Valid reports whether the instruction breaks no rule (an unsupported one may still be valid).
func (r *InstReport) Valid() bool { return len(r.Violations) == 0 }

// Executable reports whether Run accepts the instruction.
func (r *InstReport) Executable() bool { return r.Kind == nil }

// Rules lists the ids of the rules the instruction breaks, then the unsupported form's.
func (r *InstReport) Rules() []string {
	var out []string
	for _, v := range r.Violations {
		out = append(out, v.Rule)
	}
	if r.Unsupported.Rule != "" {
		out = append(out, r.Unsupported.Rule)
	}
	return out
}

// Plan is the DGE's lowering of a DMA instruction the pipeline accepted (nil otherwise): the plan
// Run executes.
func (r *InstReport) Plan() *dge.Plan { return r.plan }

// Err is the error Run returns for the instruction (nil when it is executable); file names the
// program's file in the message.
func (r *InstReport) Err(file string) *InstError {
	if r.Kind == nil {
		return nil
	}
	eng := r.Engine.String()
	if r.Engine == isa.EngineNone {
		eng = "" // a word on no queue is named by its file, index and offset
	}
	ie := &InstError{Kind: r.Kind, Engine: eng, Index: r.Index, Offset: r.Offset, Line: r.Line, File: file,
		Origin: r.Origin, Opcode: r.Opcode, Err: r.Cause, quiet: r.Cause != nil}
	if r.Unsupported.Rule != "" {
		ie.Violations = []fault.Violation{r.Unsupported}
	} else {
		ie.Violations = append([]fault.Violation(nil), r.Violations...)
	}
	if len(ie.Violations) > 0 {
		ie.Rule = ie.Violations[0].Rule
	}
	return ie
}

// Report is the verdict of the check pipeline on a program: one InstReport per instruction,
// queue after queue in the program's order, and the program's settings that break a rule.
type Report struct {
	Gen   isa.Generation
	File  string
	Insts []InstReport
	// Settings lists the program-level settings that break a rule (bound-check registers the
	// file does not have).
	Settings []fault.Violation
}

// OK reports whether Run executes the program: every instruction executable, every setting valid.
func (r *Report) OK() bool {
	if len(r.Settings) > 0 {
		return false
	}
	for i := range r.Insts {
		if r.Insts[i].Kind != nil {
			return false
		}
	}
	return true
}

// Err is what Run returns for the program before it executes anything: nil when OK, else a
// *ProgramError listing every refused instruction (and setting).
func (r *Report) Err() error {
	var errs []*InstError
	for _, v := range r.Settings {
		errs = append(errs, &InstError{Kind: fault.ErrInvalid, Index: -1, Offset: -1, File: r.File, Rule: v.Rule, Violations: []fault.Violation{v}})
	}
	for i := range r.Insts {
		if ie := r.Insts[i].Err(r.File); ie != nil {
			errs = append(errs, ie)
		}
	}
	if errs == nil {
		return nil
	}
	return &ProgramError{Errs: errs}
}

// checker holds what the check pipeline needs of a machine's configuration: no memory, no state.
type checker struct {
	cfg     Config // limits applied
	gen     isa.Generation
	geo     isa.Geometry
	feat    isa.Features // the generation's row of the instruction layer's feature table
	derived bool         // cfg.MaxStreamBytes was derived from cfg.MaxElements
	dge     dge.Config
}

func newChecker(cfg Config) (checker, error) {
	feat, err := cfg.Gen.Features() // an invalid generation is an *isa.GenerationError, never a default
	if err != nil {
		return checker{}, fmt.Errorf("sim: %w", err)
	}
	derived := cfg.MaxStreamBytes == 0
	cfg.MaxElements, cfg.MaxStreamBytes = cfg.Limits()
	return checker{cfg: cfg, gen: cfg.Gen, geo: feat.Geometry, feat: feat, derived: derived}, nil
}

// CheckProgram runs the check pipeline of a machine configured by cfg on p, without building
// the machine (no memory is allocated): the verdicts Run of a machine New(cfg) makes before it
// executes anything. The error is an invalid configuration (the generation).
func CheckProgram(p *Program, cfg Config) (*Report, error) {
	c, err := newChecker(cfg)
	if err != nil {
		return nil, err
	}
	return c.report(p), nil
}

// CheckInst runs the check pipeline of a machine configured by cfg on one instruction on the
// queue of engine e (what `tpbsim dge run` does with the instruction of an index request).
func CheckInst(cfg Config, e isa.Engine, in isa.Inst) (InstReport, error) {
	c, err := newChecker(cfg)
	if err != nil {
		return InstReport{}, err
	}
	r := c.inst(e, in)
	r.Offset = -1
	return r, nil
}

// Report runs the check pipeline on p: the verdicts Run makes before it executes anything.
func (m *Machine) Report(p *Program) *Report { return m.chk.report(p) }

// Check runs on p every check Run makes before it executes anything and returns what Run would
// return for them: nil, or a *ProgramError listing every refused instruction (Report.Err).
func (m *Machine) Check(p *Program) error { return m.Report(p).Err() }

func (c *checker) report(p *Program) *Report {
	rep := &Report{Gen: c.gen, File: p.File, Insts: make([]InstReport, 0, p.Len())}
	rep.Settings = settingsViolations(p)
	var x isa.Validator // one per report: it allocates nothing for a valid word after the first
	for qi, q := range p.Queues {
		at := 0 // the Queues of one engine are one queue: its instructions in the earlier ones come first
		for _, o := range p.Queues[:qi] {
			if o.Engine == q.Engine {
				at += len(o.Insts)
			}
		}
		for i, in := range q.Insts {
			r := c.instWith(&x, q.Engine, in.Inst)
			r.Index, r.Offset, r.Line, r.Origin = at+i, in.Offset, in.Line, in.Origin
			rep.Insts = append(rep.Insts, r)
		}
	}
	return rep
}

// inst is the pipeline on one instruction of the queue of engine e.
func (c *checker) inst(e isa.Engine, in isa.Inst) InstReport {
	var x isa.Validator
	return c.instWith(&x, e, in)
}

// instWith is inst validating with x (reused by report across a program's instructions).
func (c *checker) instWith(x *isa.Validator, e isa.Engine, in isa.Inst) InstReport {
	r := InstReport{Engine: e, Opcode: opcodeOf(in), Modelled: isa.Supported(in)}
	if in == nil {
		r.invalid(nil, fault.Violation{Rule: RuleHasValidNeuronHeader, Path: "header", Offset: -1, Msg: "no instruction"})
		return r
	}
	op := r.Opcode
	// The engine check (FACTS §F.2) and the instruction layer: every violation, so that a
	// word's report is complete.
	if queueSlot(e) >= 0 && op.Known() && !engineAllows(e, op) {
		r.Violations = append(r.Violations, fault.Violation{Rule: RuleOpcodeLegalOnEngine, Path: "opcode",
			Value: fmt.Sprintf("%v on the %v queue", op, e), Legal: "on " + enginesFor(op), Offset: 0})
	}
	vs := x.AppendOn(nil, in, c.gen, e)
	r.Violations = append(r.Violations, isa.Faults(vs)...)
	if len(r.Violations) > 0 {
		r.Kind = fault.ErrInvalid
		if len(vs) > 0 && len(vs) == len(r.Violations) {
			r.Cause = vs[0] // errors.As reaches the instruction layer's own violation
		}
		return r
	}
	switch {
	case e == isa.EngineNone:
		r.unsupported(nil, fault.Violation{Rule: RuleOpcodeHasEngine, Path: "opcode", Value: op.String(), Legal: "on " + enginesFor(op), Offset: 0,
			Msg: fmt.Sprintf("the word is on no engine queue (%v's own engine: %v)", op, op.Engine())})
		return r
	case queueSlot(e) < 0:
		r.unsupported(nil, fault.Violation{Rule: RuleEngineModelled, Path: "engine", Value: e.String(), Legal: "DVE, POOL, ACT or SP", Offset: -1,
			Msg: fmt.Sprintf("tpbsim does not model the %v queue", e)})
		return r
	}
	if v, invalid := c.events(op, in.Evt()); v.Rule != "" {
		if invalid {
			r.invalid(nil, v)
		} else {
			r.unsupported(nil, v)
		}
		return r
	}
	if !r.Modelled || !executable(op) {
		msg := fmt.Sprintf("tpbsim names %v but does not execute it", op)
		if !r.Modelled {
			msg = fmt.Sprintf("tpbsim names %v but does not model its struct (header and events checked only)", op)
		}
		r.unsupported(nil, fault.Violation{Rule: RuleOpcodeExecutable, Path: "opcode", Value: fmt.Sprintf("%v (0x%02x)", op, uint8(op)), Offset: 0, Msg: msg})
		return r
	}
	if v := immediateAddrs(in); v.Rule != "" {
		r.unsupported(nil, v)
		return r
	}
	if x, ok := in.(*isa.S4D4TR); ok {
		// A reduce / scan op the model does not compute (e.g. POOL's AMAX_INT), or an op the
		// executor cannot run on these dtypes, fails here, before anything runs.
		if err := dve.CheckOp(x); err != nil {
			v := dveViolation(x, err)
			if errors.Is(err, fault.ErrUnsupported) {
				r.unsupported(err, v)
			} else {
				r.invalid(err, v)
			}
			return r
		}
	}
	if op.IsDMA() {
		// A register index address is planned at a placeholder here and again, with the
		// register's value, when the instruction issues (resolveAddrRegs).
		plan, err := dge.PlanInst(c.gen, staticPlanInst(in), c.dge, dge.Options{Quiet: true})
		if err != nil {
			v := planViolation(err)
			if k := dmaErrKind(err); k == fault.ErrUnsupported {
				r.unsupported(err, v)
			} else {
				r.Kind, r.Cause, r.Violations = k, err, append(r.Violations, v)
			}
			return r
		}
		r.plan = plan
	}
	if rule, msg := workLimit(workOf(in, r.plan), c.cfg, c.derived, raiseHint, raiseHint+" or MaxStreamBytes"); rule != "" {
		r.Kind, r.plan = fault.ErrLimit, nil
		r.Violations = append(r.Violations, fault.Violation{Rule: rule, Offset: -1, Msg: msg})
		return r
	}
	if e == isa.EnginePOOL {
		if x, ok := in.(*isa.S4D4TR); ok {
			for _, f := range s4d4Addrs(x) {
				if c.inPSUM(f.a) {
					r.invalid(nil, fault.Violation{Rule: RuleGpSimdCannotAccessPSUM, Path: f.path, Value: fmt.Sprintf("0x%08x", uint32(f.a)),
						Legal: "an SBUF address", Offset: f.at, Msg: "GpSimd engine cannot access PSUM"})
					return r
				}
			}
		}
	}
	return r
}

func (r *InstReport) invalid(cause error, v fault.Violation) {
	r.Kind, r.Cause, r.plan = fault.ErrInvalid, cause, nil
	r.Violations = append(r.Violations, v)
}

func (r *InstReport) unsupported(cause error, v fault.Violation) {
	r.Kind, r.Cause, r.Unsupported, r.plan = fault.ErrUnsupported, cause, v, nil
}

// planViolation is the broken rule of a DMA instruction the DGE refuses to plan: the DGE error's
// own violation, else (an error of another layer) its rule, path and message.
func planViolation(err error) fault.Violation {
	var de *dge.Error
	if errors.As(err, &de) {
		return de.Violation()
	}
	return fault.Violation{Rule: ruleOf(err, dma.RuleDescriptorValid), Path: fault.Path(err), Offset: -1, Msg: err.Error()}
}

// dveViolation is the executor's op check as a violation: its rule, field and detail.
func dveViolation(x *isa.S4D4TR, err error) fault.Violation {
	v := fault.Violation{Rule: dve.RuleMemoryAccess, Offset: -1, Msg: err.Error()}
	var de *dve.Error
	switch {
	case !errors.As(err, &de):
		return v
	case de.Violation != nil:
		return *de.Violation
	}
	v.Rule, v.Path, v.Msg = de.Rule, de.Field, de.Detail
	switch de.Field {
	case "op":
		v.Value = x.Op.String()
	case "op_dim":
		v.Value = x.OpDim.String()
	case "in_dtype":
		v.Value = x.InDtype.String()
	case "out_dtype":
		v.Value = x.OutDtype.String()
	}
	if v.Path != "" {
		v.Offset = fieldOffset(x.Hdr().Opcode, v.Path)
	}
	return v
}

type addrField struct {
	path string
	at   int
	a    isa.Addr4
}

// s4d4Addrs are the two start addresses of an S4D4_TR instruction.
func s4d4Addrs(x *isa.S4D4TR) [2]addrField {
	return [2]addrField{
		{"src_mem_pattern.start_addr", fieldOffset(x.Hdr().Opcode, "src_mem_pattern.start_addr"), x.SrcMemPattern.StartAddr},
		{"dst_mem_pattern.start_addr", fieldOffset(x.Hdr().Opcode, "dst_mem_pattern.start_addr"), x.DstMemPattern.StartAddr},
	}
}

// immediateAddrs refuses the pattern ADDR4 forms the machine cannot resolve (shape-register,
// indirect; mem.Resolve's rule addr4_immediate) before the run: they are valid ISA, resolved by
// hardware registers tpbsim does not model, and the check needs no machine state. Register mode
// (ADDR_REG, reg:N) is resolved from the address registers when the instruction issues
// (resolveAddrRegs).
func immediateAddrs(in isa.Inst) fault.Violation {
	var fs []addrField
	switch x := in.(type) {
	case *isa.S4D4TR:
		a := s4d4Addrs(x)
		fs = a[:]
	case *isa.Memset:
		fs = []addrField{{"dst_mem_pattern.start_addr", fieldOffset(x.Hdr().Opcode, "dst_mem_pattern.start_addr"), x.DstMemPattern.StartAddr}}
	}
	for _, f := range fs {
		if f.a.ShapeFromRegister() || f.a.IsIndirect() {
			return fault.Violation{Rule: mem.RuleAddr4Immediate, Path: f.path, Value: fmt.Sprintf("0x%08x (marker 0x%02x)", uint32(f.a), f.a.Marker()),
				Legal: "an immediate ADDR4 (marker 0x00) or an address register (marker 0x80, reg:N)", Offset: f.at,
				Msg: "shape-register and indirect ADDR4 forms take their shape or indices from hardware registers tpbsim does not model"}
		}
	}
	return fault.Violation{}
}

// events accepts the EVENTS forms the machine executes: no wait, a semaphore compare against
// an immediate or an address register (and UNORDERED where the generation has it,
// isa.Features.RegOffsetWaits), and no update, an immediate semaphore update or
// SEM_WR_REG_COMPLETE (Provenance sim.reg_events: the register in semaphore_value, 0..63).
// Event waits and SEM_*_REG_OFFSET are named by the ISA but have no semantics in the sources:
// unsupported. invalid reports a value the ISA does not list (isa.Validate refuses it first; this
// keeps the executors from ever seeing one).
func (c *checker) events(op isa.Opcode, ev isa.Events) (v fault.Violation, invalid bool) {
	w := ev.WaitMode
	wat, uat := fieldOffset(op, "events.wait_mode"), fieldOffset(op, "events.update_mode")
	switch {
	case w == isa.WaitNone, w.IsSemImm(), isSemRegWait(w), w == isa.WaitUnordered && c.feat.RegOffsetWaits: // UNORDERED executes as no wait
	case w.Known() && w != isa.WaitInvalid:
		return fault.Violation{Rule: RuleExecutableWaitMode, Path: "events.wait_mode", Value: w.String(), Offset: wat,
			Legal: "NONE or WAIT_FOR_SEM_{EQ,LT,LE,GT,GE}_{IMM,REG}", Msg: "event waits and SEM_*_REG_OFFSET are not modelled (the sources give them no semantics)"}, false
	default:
		return fault.Violation{Rule: RuleHasValidNeuronEvents, Path: "events.wait_mode", Value: fmt.Sprintf("0x%02x", uint8(w)), Offset: wat,
			Legal: "a WAIT_MODE value"}, true
	}
	u := ev.UpdateMode
	if _, ok := u.Apply(0, 0); ok || u == isa.UpdateNone || u == isa.SemWrRegComplete {
		return eventRegOperand(op, ev), false
	}
	if u.Known() && u != isa.UpdateInvalid {
		return fault.Violation{Rule: RuleExecutableUpdateMode, Path: "events.update_mode", Value: u.String(), Offset: uat,
			Legal: "NONE, SEM_{INC,DEC,ADD_IMM,SUB_IMM,WR_IMM}_{READ,COMPLETE} or SEM_WR_REG_COMPLETE", Msg: "this update form is not modelled"}, false
	}
	return fault.Violation{Rule: RuleHasValidNeuronEvents, Path: "events.update_mode", Value: fmt.Sprintf("0x%02x", uint8(u)), Offset: uat,
		Legal: "an UPDATE_MODE value"}, true
}

func (c *checker) inPSUM(a isa.Addr4) bool {
	if a.IsAddrReg() {
		return false
	}
	b := a.ByteAddr()
	return c.geo.PSUMSize > 0 && b >= c.geo.PSUMOffset && b-c.geo.PSUMOffset < c.geo.PSUMSize
}

// fieldOffset is the byte offset of a field of op's struct in the 64-byte word, -1 unknown.
func fieldOffset(op isa.Opcode, path string) int {
	if l := isa.LayoutOf(op); l != nil {
		return l.Offset(path)
	}
	return -1
}

// numBoundRegs is the size of the bound-check register file (bc_reg: 6 bits).
const numBoundRegs = len(dma.BoundRegs{})
