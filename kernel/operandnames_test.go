package kernel

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// The shape and dtype rules name the operands by their tensors and dtypes as the kernel wrote
// them ("tile_a" [32 16], float16), not by the argument alone and the ISA's dtype names.
func TestRuleMessagesNameTensors(t *testing.T) {
	vector := "vector"
	for _, tc := range []struct {
		name string
		call func(b *kb, x, y int) Call
		ys   []int // y's shape
		ydt  string
		want []string
	}{
		{"tensor_copy elements", func(b *kb, x, y int) Call {
			return Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full(y, []int{32, 8}), Src: full(x, []int{32, 16})}
		}, []int{32, 8}, "float32", []string{`rule nki.same_free_elements: dst = "dst_tile" [32 8] has 8 elements per partition`, `as src "tile_a" [32 16]`}},
		{"nc_transpose dtype", func(b *kb, x, y int) Call {
			return Call{Op: OpNCTranspose, Call: "nisa.nc_transpose", Engine: &vector, Dst: full(y, []int{16, 32}), Data: full(x, []int{32, 16})}
		}, []int{16, 32}, "float16", []string{`dst = "dst_tile" [16 32] is float16`, `legal: float32, as src "tile_a" [32 16]`}},
		{"dma_copy elements", func(b *kb, x, y int) Call {
			return Call{Op: OpDMACopy, Call: "nisa.dma_copy", Dst: full(y, []int{32, 8}), Src: full(x, []int{32, 16})}
		}, []int{32, 8}, "float32", []string{`dst = "dst_tile" [32 8] has 256 elements`, `as src "tile_a" [32 16]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newKB()
			x := b.tensor("tile_a", []int{32, 16}, "float32", BufSBUF, false)
			y := b.tensor("dst_tile", tc.ys, tc.ydt, BufSBUF, false)
			b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: full(x, []int{32, 16}), Value: new(Number)})
			b.call(tc.call(b, x, y))
			_, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
			if err == nil {
				t.Fatal("lowered")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nwant it to hold %q", err, w)
				}
			}
		})
	}
}
