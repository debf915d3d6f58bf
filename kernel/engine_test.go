package kernel

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// A compute call runs on the engine it names when the ISA's opcode table gives that engine the
// call's instructions, and is refused otherwise: never moved to another queue.
func TestComputeEngineFromOpcodeTable(t *testing.T) {
	for _, c := range []struct {
		name, engine string
		op           string
		want         isa.Engine // EngineNone: refused
	}{
		{"tensor_copy on gpsimd", "gpsimd", OpTensorCopy, isa.EnginePOOL},
		{"tensor_copy on scalar", "scalar", OpTensorCopy, isa.EngineACT},
		{"tensor_copy on vector", "vector", OpTensorCopy, isa.EngineDVE},
		{"memset on vector", "vector", OpMemset, isa.EngineDVE},
		{"memset on gpsimd", "gpsimd", OpMemset, isa.EngineNone}, // MEMSET is a DVE opcode
		{"memset on scalar", "scalar", OpMemset, isa.EngineNone},
		{"nc_transpose on gpsimd", "gpsimd", OpNCTranspose, isa.EngineNone}, // STREAM_TRANSPOSE: DVE
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newKB()
			x := b.tensor("x", []int{32, 32}, "float32", BufSBUF, false)
			y := b.tensor("y", []int{32, 32}, "float32", BufSBUF, false)
			e, zero := c.engine, Number(0)
			switch c.op {
			case OpMemset:
				b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: full(x, []int{32, 32}), Value: &zero, Engine: &e})
			case OpTensorCopy:
				b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: full(x, []int{32, 32}), Value: &zero})
				b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full(y, []int{32, 32}), Src: full(x, []int{32, 32}), Engine: &e})
			case OpNCTranspose:
				b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: full(x, []int{32, 32}), Value: &zero})
				b.call(Call{Op: OpNCTranspose, Call: "nisa.nc_transpose", Dst: full(y, []int{32, 32}), Data: full(x, []int{32, 32}), Engine: &e})
			}
			lw, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
			if c.want == isa.EngineNone {
				if !errors.Is(err, fault.ErrUnsupported) || fault.Rule(err) != "kernel.engine_modelled" {
					t.Fatalf("err %v (rule %q); want fault.ErrUnsupported under kernel.engine_modelled", err, fault.Rule(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			last := lw.Insts[len(lw.Insts)-1]
			if last.Engine != c.want {
				t.Errorf("the call runs on %v, want %v", last.Engine, c.want)
			}
		})
	}
}
