package sim_test

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// A load at a tensor request's source fills that view: values of another numpy type are
// converted (and said), an array of another element count or dtype is refused, and a load
// elsewhere is the machine's.
func TestDGERunLoad(t *testing.T) {
	dir := t.TempDir()
	req, err := dge.TensorRequest(isa.CAYMAN, 0, 0x100000, []int{4, 8}, []int{1, 0}, isa.DTypeFP16)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.NewDGERun(sim.Config{}, req, sim.DGEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f32 := writeNPY(t, dir, "f.npy", &npy.Array{Dtype: "f4", Shape: []int{32}, Data: make([]byte, 128)})
	f16 := writeNPY(t, dir, "h.npy", &npy.Array{Dtype: "f2", Shape: []int{32}, Data: make([]byte, 64)})
	ten := writeNPY(t, dir, "t.npy", &npy.Array{Dtype: "f2", Shape: []int{10}, Data: make([]byte, 20)})
	for _, tc := range []struct {
		name, arg, note, err string
	}{
		{"converted", "hbm:0x0=" + f32, "the f4 values converted to FP16", ""},
		{"own type", "hbm:0x0=" + f16, "", ""},
		{"count", "hbm:0x0=" + ten, "", "holds 10 values (shape [10]) but the request's source has 32"},
		{"dtype", "hbm:0x0=" + f32 + ":bf16", "", ":BFLOAT16 differs from the request's source dtype FP16"},
		{"elsewhere", "hbm:0x4000=" + ten, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := sim.ParseLoad(tc.arg, isa.CAYMAN)
			if err != nil {
				t.Fatal(err)
			}
			note, err := r.Load(l)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !strings.Contains(note, tc.note) || (tc.note == "") != (note == "") {
				t.Errorf("note %q, err %v; want %q", note, err, tc.note)
			}
		})
	}
}
