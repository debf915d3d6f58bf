package dve

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// T31: the butterfly's lane-permute width form is keyed to the dtype byte width (seed 000 §5.4:
// "So an int8 transpose uses the 2NX8 (64-lane) permute, a bf16/fp16/int16 transpose the NX16
// (32-lane), an int32/fp32 transpose the N_2X32 (16-lane)"; §5.1: "the dtype byte-width sets each
// transposed cell's size"). Every dtype StreamTranspose admits on some generation (in_dtype passes
// is_valid_dtype without FP32R; out_dtype must equal it) takes, by its num.Kind size, the form
// the seed names: the dtypes the seed lists by name against its literal names and lane counts,
// the others by the width rule the seed states, and every form fills the 512-bit register.
func TestSeedT31PermuteFormByDtypeWidth(t *testing.T) {
	type form struct {
		name  string
		lanes int
	}
	named := map[num.Kind]form{ // seed 000 §5.4, quoted
		num.INT8:     {"2NX8", 64},
		num.BFLOAT16: {"NX16", 32}, num.FP16: {"NX16", 32}, num.INT16: {"NX16", 32},
		num.INT32: {"N_2X32", 16}, num.FP32: {"N_2X32", 16},
	}
	byWidth := map[int]form{1: {"2NX8", 64}, 2: {"NX16", 32}, 4: {"N_2X32", 16}} // §5.4's rule
	seen := map[num.Kind]bool{}
	for _, g := range isa.Generations {
		for c := 0; c < 256; c++ {
			d := isa.DType(c)
			if !isa.IsValidDType(d, g, false) || seen[num.Kind(d)] {
				continue
			}
			k := num.Kind(d)
			seen[k] = true
			t.Run(k.String(), func(t *testing.T) {
				want, ok := named[k]
				if !ok {
					want, ok = byWidth[k.Size()]
				}
				if !ok {
					t.Fatalf("%v (%d bytes on %v) is a legal StreamTranspose dtype with no form in the seed", k, k.Size(), g)
				}
				got, ok := permuteFormFor(k.Size())
				if !ok || got.name != want.name || got.lanes != want.lanes {
					t.Errorf("%v (%d-byte cells): the butterfly takes %q with %d lanes (ok %v), the seed %q with %d", k, k.Size(), got.name, got.lanes, ok, want.name, want.lanes)
				}
				if got.lanes*8*k.Size() != 512 {
					t.Errorf("%v: %d lanes of %d bits do not fill the 512-bit register (seed 000 §5.1)", k, got.lanes, 8*k.Size())
				}
			})
		}
	}
	for k := range named {
		if !seen[k] {
			t.Errorf("%v, which the seed names, is not a legal StreamTranspose dtype on any generation", k)
		}
	}
	for _, es := range []int{0, 3, 8} {
		if f, ok := permuteFormFor(es); ok {
			t.Errorf("%d-byte cells take %q: no dtype of the legal set has that width", es, f.name)
		}
	}
}

// T30: TRANSPOSE_TENSOR_REDUCE_ARITH_OP (0x83) is "same as TensorReduceOp, but preceeded by a 32
// element x 32 channel transpose" (seed 000 §3, s4d4_tr.h:16). Channel c holds 32c + e at element
// e; after the transpose channel c holds 32e + c, so an ADD over X gives 32*496 + 32c, where the
// reduce alone gives 1024c + 496. Both transpose implementations.
func TestSeedT30TransposeThenReduce(t *testing.T) {
	g := isa.CAYMAN
	for _, impl := range []TransposeImpl{TransposeFast, TransposeButterfly} {
		t.Run(impl.String(), func(t *testing.T) {
			m := newMem(t, g, mem.Options{})
			for c := 0; c < 32; c++ {
				p := m.Partition(mem.SBUF, c)
				for e := 0; e < 32; e++ {
					binary.LittleEndian.PutUint32(p[4*e:], math.Float32bits(float32(32*c+e)))
				}
			}
			in := s4(isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, lin(sbufAddr(g, 0, 0), 32), lin(sbufAddr(g, 0, 1024), 1), isa.DTypeFP32, isa.DTypeFP32, 32)
			in.Op, in.OpDim = isa.ALUAdd, isa.SubdimX
			d := DVE{Transpose: impl}
			if _, err := d.Execute(m, in, g); err != nil {
				t.Fatal(err)
			}
			for c := 0; c < 32; c++ {
				got := math.Float32frombits(binary.LittleEndian.Uint32(m.Partition(mem.SBUF, c)[1024:]))
				if want := float32(32*496 + 32*c); got != want {
					t.Errorf("channel %d: %v, want %v (the reduce without the transpose gives %v)", c, got, want, float32(1024*c+496))
				}
			}
		})
	}
}
