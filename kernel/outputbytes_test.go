package kernel

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// TestOutputBytesCapped: a run reads every output back whole, so outputs whose bytes pass the
// machine's HBM cap are refused before the run (kernel.output_bytes, a capacity error naming the
// output) instead of the process running out of memory; at the cap they run.
func TestOutputBytesCapped(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows int
		cap  uint64
		ok   bool
	}{
		{"2^31 rows, default cap", 1 << 31, 0, false},
		{"at the cap", 1 << 11, 64 << 10, true},
		{"one row past the cap", 1<<11 + 1, 64 << 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newKB()
			a := b.tensor("a", []int{128, 16}, "float16", BufHBM, true)
			o := b.tensor("out", []int{tc.rows, 16}, "float16", BufSharedHBM, false)
			x := b.tensor("x", []int{128, 16}, "float16", BufSBUF, false)
			b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(x, []int{128, 16}), Src: full(a, []int{128, 16})})
			b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: &View{Tensor: o, Pattern: [][2]int64{{16, 128}, {1, 16}}}, Src: full(x, []int{128, 16})})
			b.k.Outputs = []int{o}
			lw, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
			if err != nil {
				t.Fatalf("lower: %v", err)
			}
			res, err := lw.Run(sim.Config{HBMCapBytes: tc.cap}, map[int][]byte{a: make([]byte, 128*16*2)})
			if tc.ok {
				if err != nil || len(res.Outputs) != 1 || len(res.Outputs[0].Data) != tc.rows*32 {
					t.Fatalf("run: %v", err)
				}
				return
			}
			var ke *Error
			if !errors.As(err, &ke) || ke.Rule != "kernel.output_bytes" || !errors.Is(err, fault.ErrCapacity) || ke.Arg != "tensor out" {
				t.Fatalf("err = %v, want a kernel.output_bytes capacity error on tensor out", err)
			}
			if res != nil {
				t.Fatalf("a refused run returned a result")
			}
		})
	}
}
