package kernel

import (
	"errors"
	"testing"
)

// checkStructure names the element at fault by its path in the kernel form, for tensors, calls,
// their operands and an operand's index view (the paths are built only when a check fails).
func TestFormErrorPaths(t *testing.T) {
	base := func() *Kernel {
		return &Kernel{Format: FormatName, Version: FormatVersion, Name: "k",
			Tensors: []Tensor{
				{Name: "a", Shape: []int{4, 4}, DType: "float32", Buffer: BufHBM, Kind: "input"},
				{Name: "b", Shape: []int{4, 4}, DType: "float32", Buffer: BufSBUF},
				{Name: "i", Shape: []int{4}, DType: "uint32", Buffer: BufSBUF},
			},
			Calls: []Call{
				{Op: OpMemset, Dst: &View{Tensor: 1, Pattern: [][2]int64{{4, 4}, {1, 4}}}, Value: new(Number)},
				{Op: OpDMACopy, Dst: &View{Tensor: 1, Pattern: [][2]int64{{4, 4}, {1, 4}}},
					Src: &View{Tensor: 0, Pattern: [][2]int64{{4, 4}, {1, 4}},
						Indirect: &Indirect{Index: View{Tensor: 2, Pattern: [][2]int64{{1, 4}}}}}},
			},
		}
	}
	if err := base().checkStructure(); err != nil {
		t.Fatalf("the base kernel is refused: %v", err)
	}
	for _, tc := range []struct {
		name, path, rule string
		edit             func(k *Kernel)
	}{
		{"empty shape", "tensors[1].shape", "kernel.form.tensor", func(k *Kernel) { k.Tensors[1].Shape = nil }},
		{"zero extent", "tensors[2].shape[0]", "kernel.form.tensor", func(k *Kernel) { k.Tensors[2].Shape = []int{0} }},
		{"buffer", "tensors[0].buffer", "kernel.form.tensor", func(k *Kernel) { k.Tensors[0].Buffer = "dram" }},
		{"file of a tile", "tensors[1]", "kernel.form.tensor", func(k *Kernel) { k.Tensors[1].File = "b.npy" }},
		{"memset value", "calls[0].value", "kernel.form.call", func(k *Kernel) { k.Calls[0].Value = nil }},
		{"missing src", "calls[1].src", "kernel.form.call", func(k *Kernel) { k.Calls[1].Src = nil }},
		{"extra operand", "calls[0].data", "kernel.form.call", func(k *Kernel) { k.Calls[0].Data = k.Calls[0].Dst }},
		{"view tensor", "calls[1].dst.tensor", "kernel.form.view", func(k *Kernel) { k.Calls[1].Dst.Tensor = 7 }},
		{"view num", "calls[1].src.pattern[1]", "kernel.form.view", func(k *Kernel) { k.Calls[1].Src.Pattern[1][1] = 0 }},
		{"indirect dim", "calls[1].src.indirect.dim", "kernel.form.view", func(k *Kernel) { k.Calls[1].Src.Indirect.Dim = 2 }},
		{"index view tensor", "calls[1].src.indirect.index.tensor", "kernel.form.view", func(k *Kernel) { k.Calls[1].Src.Indirect.Index.Tensor = -1 }},
		{"index view offset", "calls[1].src.indirect.index.offset", "kernel.form.view", func(k *Kernel) { k.Calls[1].Src.Indirect.Index.Offset = 1 << 41 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := base()
			tc.edit(k)
			err := k.checkStructure()
			var ke *Error
			if !errors.As(err, &ke) {
				t.Fatalf("got %v, want a *kernel.Error", err)
			}
			if ke.Arg != tc.path || ke.Rule != tc.rule || !ke.Malformed {
				t.Errorf("path %q rule %q malformed %v, want path %q rule %q malformed: %v", ke.Arg, ke.Rule, ke.Malformed, tc.path, tc.rule, err)
			}
		})
	}
}
