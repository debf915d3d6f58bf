package kernel

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// kb builds kernels in tests.
type kb struct{ k Kernel }

func newKB() *kb {
	return &kb{k: Kernel{Format: FormatName, Version: FormatVersion, Name: "t", Source: "t.py", Tensors: make([]Tensor, 0, 16)}}
}

func (b *kb) tensor(name string, shape []int, dtype, buffer string, input bool) int {
	t := Tensor{Name: name, Shape: shape, DType: dtype, Buffer: buffer, Loc: "t.py:1"}
	if input {
		t.Kind = "input"
	}
	b.k.Tensors = append(b.k.Tensors, t)
	return len(b.k.Tensors) - 1
}

func (b *kb) call(c Call) {
	if c.Loc == "" {
		c.Loc = "t.py:" + itoa(len(b.k.Calls)+10)
	}
	b.k.Calls = append(b.k.Calls, c)
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}

func f32bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// runKernel lowers and runs k on CAYMAN.
func runKernel(t *testing.T, k *Kernel, inputs map[int][]byte) (*Lowered, *Result) {
	t.Helper()
	lw, err := Lower(k, Options{Gen: isa.CAYMAN})
	if err != nil {
		t.Fatalf("lower: %v", err)
	}
	res, err := lw.Run(sim.Config{}, inputs)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, lw.Text())
	}
	return lw, res
}

func TestLoadCopyStore(t *testing.T) {
	b := newKB()
	a := b.tensor("a", []int{64, 128}, "float32", BufHBM, true)
	o := b.tensor("out", []int{64, 128}, "float32", BufSharedHBM, false)
	x := b.tensor("x", []int{64, 128}, "float32", BufSBUF, false)
	y := b.tensor("y", []int{64, 128}, "float32", BufSBUF, false)
	b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(x, []int{64, 128}), Src: full(a, []int{64, 128})})
	b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full(y, []int{64, 128}), Src: full(x, []int{64, 128})})
	b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: full(o, []int{64, 128}), Src: full(y, []int{64, 128})})
	b.k.Outputs = []int{o}
	in := make([]float32, 64*128)
	for i := range in {
		in[i] = float32(i) * 0.5
	}
	lw, res := runKernel(t, &b.k, map[int][]byte{a: f32bytes(in)})
	got := bytesF32(res.Outputs[0].Data)
	for i := range in {
		if got[i] != in[i] {
			t.Fatalf("element %d = %v, want %v\n%s", i, got[i], in[i], lw.Text())
		}
	}
	t.Log(lw.Text())
}
