package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/isa"
)

// engineAllows is the engine check, the first step of the runtime's validator (FACTS §F.2:
// "engine check (opcode legal on this engine)", rule opcode_legal_on_engine): the queues whose
// executor runs op in the machine (isa.Opcode.Engines, the opcode table's). An opcode tpbsim
// only names is legal on its own engine's queue (isa.Opcode.Engine): what is missing there is
// tpbsim's executor (opcode_executable), not a hardware rule.
func engineAllows(e isa.Engine, op isa.Opcode) bool { return legalEngines(op).Has(e) }

// legalEngines is the set of queues the engine check lets issue op.
func legalEngines(op isa.Opcode) isa.EngineSet {
	if s := op.Engines(); s != 0 {
		return s
	}
	if op.Known() {
		return isa.EngineSetOf(op.Engine())
	}
	return 0
}

// enginesFor names the queues the engine check lets issue op, e.g. "DVE, POOL, ACT".
func enginesFor(op isa.Opcode) string {
	if s := legalEngines(op); s != 0 {
		return s.String()
	}
	return "none of DVE, POOL, ACT, SP"
}

// raiseHint says how to raise the work limits.
const raiseHint = "raise it with --max-elements N of tpbsim run or check, or sim.Config.MaxElements"

// workLimit applies the limits of cfg (defaults applied; derived: MaxStreamBytes was derived
// from MaxElements) to w. It returns the rule broken and the message, which ends with the hint
// on raising the element limit, or on raising the derived byte limit; rule is "" when w passes.
func workLimit(w work, cfg Config, derived bool, hint, bytesHint string) (rule, msg string) {
	if w.elems > cfg.MaxElements {
		return RuleMaxElements, fmt.Sprintf("streams %d elements%s; tpbsim's limit is %d (%s)", w.elems, w.per(), cfg.MaxElements, hint)
	}
	if w.bytes > cfg.MaxStreamBytes {
		lim := fmt.Sprintf("%d bytes (sim.Config.MaxStreamBytes)", cfg.MaxStreamBytes)
		hint := "raise it with sim.Config.MaxStreamBytes"
		if derived {
			lim = fmt.Sprintf("%d bytes, %d per element of the element limit %d", cfg.MaxStreamBytes, StreamBytesPerElement, cfg.MaxElements)
			hint = bytesHint
		}
		return RuleMaxStreamBytes, fmt.Sprintf("streams %d bytes: %s; tpbsim's limit is %s (%s)", w.bytes, w.how(), lim, hint)
	}
	return "", ""
}

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
		return &LimitError{Rule: rule, Path: "descriptors", Msg: msg}
	}
	return nil
}

// executable reports the opcodes the machine executes: those some queue's executor runs
// (isa.Opcode.Engines).
func executable(op isa.Opcode) bool { return op.Engines() != 0 }
