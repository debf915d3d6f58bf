package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
)

// FileProgram is the program a run executes from a program file (asm.Load): a word file's words
// each on its opcode's engine queue (FromList), a source's queues as written (FromAsm), each
// instruction keeping its line. A source word outside every queue (no `.engine` section and an
// opcode of no engine) is an *asm.Error naming its line (asm.Program.CheckEngines).
func FileProgram(f *asm.File) (*Program, error) {
	if f.Binary() {
		return wordProgram(f)
	}
	if err := f.Src.CheckEngines(); err != nil {
		return nil, err
	}
	return FromAsm(f.Path, f.Src), nil
}

// FileCheckProgram is the program CheckProgram reports on for a program file: every word on the
// queue a run gives it (its section's in a source, EngineNone for a word in none, which the
// check pipeline reports instead of refusing the file; its opcode's engine in a word file), each
// with its byte offset in the words (word k at k*64, a source's too, so a report can be
// matched to the file's words) and a source's line.
func FileCheckProgram(f *asm.File) (*Program, error) {
	if f.Binary() {
		return wordProgram(f)
	}
	p := &Program{File: f.Path, BoundRegs: f.Src.BoundRegs, AddrRegs: f.Src.AddrRegs}
	slot := map[isa.Engine]int{}
	for k, it := range f.Src.Items {
		qi, ok := slot[it.Engine]
		if !ok {
			qi = len(p.Queues)
			slot[it.Engine] = qi
			p.Queues = append(p.Queues, Queue{Engine: it.Engine})
		}
		in, _ := isa.Decode(it.Word[:]) // a word of 64 bytes always decodes (an unknown struct as isa.Raw)
		q := &p.Queues[qi]
		q.Insts = append(q.Insts, Instr{Inst: in, Index: len(q.Insts), Offset: int64(k) * isa.InstNBytes, Line: it.Line})
	}
	return p, nil
}

// wordProgram is a word file's program: each word on its opcode's engine queue.
func wordProgram(f *asm.File) (*Program, error) {
	insts, err := isa.DecodeStream(f.Words)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return FromList(f.Path, insts, nil)
}
