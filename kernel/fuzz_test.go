package kernel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// FuzzLower: any bytes parse or are refused; a kernel that parses lowers or is refused with a
// *Error; a lowered kernel passes the machine's checks (Lower self-checks) and runs on zero
// inputs without a panic. Seeds: the kernels under testdata/kernel.
func FuzzLower(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/kernel/*.json")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := Parse(data)
		if err != nil {
			return
		}
		total := int64(0)
		for i := range k.Tensors {
			total += k.Tensors[i].Elements()
		}
		if total > 1<<20 || len(k.Calls) > 64 {
			return
		}
		lw, err := Lower(k, Options{Gen: isa.CAYMAN})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Lower error of type %T: %v", err, err)
			}
			return
		}
		in := map[int][]byte{}
		for i := range k.Tensors {
			if k.Tensors[i].Kind == "input" {
				in[i] = make([]byte, lw.Placements[i].RowBytes)
			}
		}
		lw.Run(sim.Config{MaxElements: 1 << 16}, in)
	})
}
