package dge

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// ReadBack agrees with writing the stream through WriteView (element runs in walk order) and
// reading the view back, for views that overlap themselves (step 0, partial element overlap,
// negative steps) and views that do not.
func TestReadBackMatchesWriteThenRead(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const base = 0x100000 // HBM
	views := []View{
		{Base: base, ElemSize: 1, NumElem: [4]uint32{16, 8, 1, 1}, StepElem: [4]int64{1, 0, 1, 1}},
		{Base: base, ElemSize: 4, NumElem: [4]uint32{8, 4, 1, 1}, StepElem: [4]int64{1, 2, 1, 1}},
		{Base: base, ElemSize: 2, NumElem: [4]uint32{5, 3, 2, 1}, StepElem: [4]int64{3, -1, 0, 1}},
		{Base: base, ElemSize: 2, NumElem: [4]uint32{4, 4, 1, 1}, StepElem: [4]int64{1, 4, 1, 1}},
	}
	for k, v := range views {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			// Offsets may go below the base (negative steps): start the view well inside HBM.
			v.Base += 4096
			stream := make([]byte, v.Elements()*uint64(v.ElemSize))
			rng.Read(stream)
			m, err := mem.New(isa.CAYMAN, mem.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := WriteView(m, v, stream); err != nil {
				t.Fatal(err)
			}
			want, err := ReadView(m, v)
			if err != nil {
				t.Fatal(err)
			}
			if got := ReadBack(v, stream); !bytes.Equal(got, want) {
				t.Errorf("view %d: ReadBack differs from write-then-read", k)
			}
		})
	}
}
