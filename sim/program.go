package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Instr is one instruction of a queue with where it came from, so an error can name it.
type Instr struct {
	Inst isa.Inst
	// Index is its position in its engine's queue (0-based), as the loaders (FromList, FromAsm,
	// FileCheckProgram) set it. The machine does not read it: the check pipeline's Report, the
	// errors, the race reports and the trace name an instruction by its position in its engine's
	// queue (the Program's Queues of one engine counted as one, in order), so a hand-built
	// Program may leave it 0.
	Index  int
	Offset int64 // byte offset of the 64-byte word in its file, -1 when not from a binary file
	Line   int   // source line in an assembly / JSON file, 0 when unknown
	// Origin names what the instruction was made from when that is not File:Line, e.g. the
	// NKI call "kernel.py:12 nl.load" a lowered instruction came from; "" for none. Errors,
	// the trace and race reports print it.
	Origin string
}

// Queue is the instruction queue of one engine.
type Queue struct {
	Engine isa.Engine
	Insts  []Instr
}

// Program is a set of engine queues that run concurrently on one Machine. Several Queues of the
// same engine run as one queue, in their order; an instruction's index in every report is its
// position along that combined queue (the deadlock report's "instruction i of n" too).
type Program struct {
	File   string // for messages; may be empty
	Queues []Queue
	// BoundRegs sets bound-check registers (index 0..63 -> value) before the run: the register
	// file the BOUND_CHECK_REG fields of DMA instructions name (bc_reg; FACTS §C.6). A register
	// not named here is 0 (or what Machine.SetBoundReg set). See Provenance sim.bound_regs.
	BoundRegs map[int]uint32
	// AddrRegs sets address registers (index 0..63, NUM_ADDR_REGISTERS -> value) before the
	// run: what an ADDR4 in register mode (reg:N) and the register EVENTS forms read. A register
	// not named here (nor by Machine.SetAddrReg) has no value, and reading it fails the
	// instruction. See Provenance sim.addr_regs.
	AddrRegs map[int]uint32
}

// QueueEngines are the instruction queues the machine runs, in scheduling order (Provenance
// sim.schedule_order). PE is not modelled.
var queueEngines = [...]isa.Engine{isa.EngineDVE, isa.EnginePOOL, isa.EngineACT, isa.EngineTPB_SP}

// QueueEngines lists the engines whose queues a Program may fill, in scheduling order.
func QueueEngines() []isa.Engine { return append([]isa.Engine(nil), queueEngines[:]...) }

func queueSlot(e isa.Engine) int {
	for i, q := range queueEngines {
		if q == e {
			return i
		}
	}
	return -1
}

// FromList builds the program of a bare instruction list (a raw .bin file): each instruction
// runs on the queue of the engine that executes its opcode (isa.Opcode.Engine), in list order.
// offsets[i] is the byte offset of insts[i] in its file (nil: i*64). An instruction whose opcode
// no modelled queue executes goes to its engine's queue (EngineNone for an unknown opcode),
// which the check pipeline refuses (engine_modelled, opcode_has_engine), naming it. The error
// is an offsets list of another length.
func FromList(file string, insts []isa.Inst, offsets []int64) (*Program, error) {
	if offsets != nil && len(offsets) != len(insts) {
		return nil, fmt.Errorf("sim.FromList: %d offsets for %d instructions: %w", len(offsets), len(insts), fault.ErrInvalid)
	}
	p := &Program{File: file}
	byEng := map[isa.Engine]int{}
	for i, in := range insts {
		off := int64(i) * isa.InstNBytes
		if offsets != nil {
			off = offsets[i]
		}
		eng := opcodeOf(in).Engine()
		qi, ok := byEng[eng]
		if !ok {
			qi = len(p.Queues)
			byEng[eng] = qi
			p.Queues = append(p.Queues, Queue{Engine: eng})
		}
		q := &p.Queues[qi]
		q.Insts = append(q.Insts, Instr{Inst: in, Index: len(q.Insts), Offset: off})
	}
	return p, nil
}

// Len is the total number of instructions.
func (p *Program) Len() int {
	n := 0
	for _, q := range p.Queues {
		n += len(q.Insts)
	}
	return n
}

func opcodeOf(in isa.Inst) isa.Opcode {
	if in == nil {
		return 0
	}
	return in.Hdr().Opcode
}

// Opcodes lists, in first-use order and without repeats, the opcodes of engine e's queue(s).
func (p *Program) Opcodes(e isa.Engine) []isa.Opcode {
	var seen [256]bool
	var out []isa.Opcode
	for _, q := range p.Queues {
		if q.Engine != e {
			continue
		}
		for _, in := range q.Insts {
			op := opcodeOf(in.Inst)
			if !seen[op] {
				seen[op] = true
				out = append(out, op)
			}
		}
	}
	return out
}

// FromAsm builds the program of an assembled source (asm.Parse, asm.ParseJSON): its queues in
// order of first appearance, each instruction keeping its line, and its bound-check and address
// register settings. A word outside every `.engine` section (asm.Program.CheckEngines refuses those for a
// run) goes to a queue of EngineNone, which the check pipeline reports.
func FromAsm(file string, ap *asm.Program) *Program {
	p := &Program{File: file, BoundRegs: ap.BoundRegs, AddrRegs: ap.AddrRegs}
	for _, e := range ap.Engines {
		q := Queue{Engine: e}
		for i, it := range ap.Queues[e] {
			q.Insts = append(q.Insts, Instr{Inst: it.Inst, Index: i, Offset: -1, Line: it.Line})
		}
		p.Queues = append(p.Queues, q)
	}
	return p
}
