package sim_test

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// FileProgram puts a source's words on their sections' queues and refuses a word on none;
// FileCheckProgram keeps that word (on EngineNone, for the check pipeline to report) and gives
// every word its offset k*64; a word file's words go to their opcodes' engines in both.
func TestFileProgram(t *testing.T) {
	cp := "COPY in=FP32 out=FP32 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]\n"
	w, err := asm.ParseLine(cp, isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	type queue struct {
		e       isa.Engine
		n       int
		offsets []int64
	}
	for _, tc := range []struct {
		name, path, src string
		data            []byte
		run, check      []queue // nil run: FileProgram refuses the file
	}{
		{"two sections", "p.s", ".engine ACT\n" + cp + ".engine DVE\n" + cp + cp, nil,
			[]queue{{isa.EngineACT, 1, []int64{-1}}, {isa.EngineDVE, 2, []int64{-1, -1}}},
			[]queue{{isa.EngineACT, 1, []int64{0}}, {isa.EngineDVE, 2, []int64{64, 128}}}},
		{"words", "p.bin", "", append(w[:], w[:]...),
			[]queue{{isa.OpCOPY.Engine(), 2, []int64{0, 64}}},
			[]queue{{isa.OpCOPY.Engine(), 2, []int64{0, 64}}}},
		{"a word on no queue", "p.s", ".word " + hexWord(0xFE) + "\n", nil,
			nil,
			[]queue{{isa.EngineNone, 1, []int64{0}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if data == nil {
				data = []byte(tc.src)
			}
			f, err := asm.Load(tc.path, data, isa.CAYMAN, false)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, p *sim.Program, want []queue) {
				if len(p.Queues) != len(want) {
					t.Fatalf("%s: %d queues, want %d", what, len(p.Queues), len(want))
				}
				for i, q := range p.Queues {
					if q.Engine != want[i].e || len(q.Insts) != want[i].n {
						t.Fatalf("%s: queue %d is %v with %d, want %v with %d", what, i, q.Engine, len(q.Insts), want[i].e, want[i].n)
					}
					for j, in := range q.Insts {
						if in.Offset != want[i].offsets[j] || in.Index != j {
							t.Errorf("%s: queue %d inst %d: offset %d index %d, want %d %d", what, i, j, in.Offset, in.Index, want[i].offsets[j], j)
						}
					}
				}
			}
			p, err := sim.FileProgram(f)
			var ae *asm.Error
			switch {
			case tc.run == nil && !errors.As(err, &ae):
				t.Errorf("FileProgram = %v, want an *asm.Error", err)
			case tc.run != nil && err != nil:
				t.Fatal(err)
			case tc.run != nil:
				check("run", p, tc.run)
			}
			cp, err := sim.FileCheckProgram(f)
			if err != nil {
				t.Fatal(err)
			}
			check("check", cp, tc.check)
		})
	}
}

// hexWord is a 64-byte word of opcode op, in hex, for a `.word` line.
func hexWord(op byte) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 128)
	for i := range b {
		b[i] = '0'
	}
	b[0], b[1] = digits[op>>4], digits[op&15]
	return string(b)
}
