package kernel

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

func seq(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(i%97) - 40 + float32(i)/1024
	}
	return out
}

// loadComputeStore builds: a (HBM [P,F]) -> x (SBUF) -> op -> y (SBUF [Q,G]) -> out (HBM).
func loadComputeStore(P, F, Q, G int, inDT, outDT string, op func(b *kb, x, y int)) (*kb, int, int) {
	b := newKB()
	a := b.tensor("a", []int{P, F}, inDT, BufHBM, true)
	o := b.tensor("out", []int{Q, G}, outDT, BufSharedHBM, false)
	x := b.tensor("x", []int{P, F}, inDT, BufSBUF, false)
	y := b.tensor("y", []int{Q, G}, outDT, BufSBUF, false)
	b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(x, []int{P, F}), Src: full(a, []int{P, F})})
	op(b, x, y)
	b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: full(o, []int{Q, G}), Src: full(y, []int{Q, G})})
	b.k.Outputs = []int{o}
	return b, a, o
}

func TestVectorTranspose(t *testing.T) {
	for _, sh := range [][2]int{{32, 32}, {32, 2}, {2, 32}, {32, 8}, {5, 7}, {1, 32}, {32, 1}, {17, 32}} {
		P, F := sh[0], sh[1]
		t.Run(itoa(P)+"x"+itoa(F), func(t *testing.T) {
			b, a, _ := loadComputeStore(P, F, F, P, "float32", "float32", func(b *kb, x, y int) {
				b.call(Call{Op: OpNCTranspose, Call: "nisa.nc_transpose", Dst: full(y, []int{F, P}), Data: full(x, []int{P, F})})
			})
			in := seq(P * F)
			lw, res := runKernel(t, &b.k, map[int][]byte{a: f32bytes(in)})
			got := bytesF32(res.Outputs[0].Data)
			for f := 0; f < F; f++ {
				for p := 0; p < P; p++ {
					if got[f*P+p] != in[p*F+f] {
						t.Fatalf("out[%d][%d] = %v, want %v\n%s", f, p, got[f*P+p], in[p*F+f], lw.Text())
					}
				}
			}
		})
	}
}

func TestTensorReduce(t *testing.T) {
	for _, tc := range []struct {
		name string
		op   string
		neg  bool
		f    func(acc, x float64) float64
		init float64
		in   func(i int) float32 // nil: seq
	}{
		{"add", "add", false, func(a, x float64) float64 { return a + x }, 0, nil},
		{"max", "maximum", false, math.Max, math.Inf(-1), nil},
		{"negated add", "add", true, func(a, x float64) float64 { return a + x }, 0, nil},
		// the logical ops are ALU arith ops (FACTS §A.2): a reduce of them folds to 0 or 1
		{"logical or", "logical_or", false, func(a, x float64) float64 { return b2f(a != 0 || x != 0) }, 0, func(i int) float32 { return float32(i % 3 * (i / 7 % 2)) }},
		{"logical and", "logical_and", false, func(a, x float64) float64 { return b2f(a != 0 && x != 0) }, 1, func(i int) float32 { return float32((i + i/16) % 17) }},
		{"logical xor", "logical_xor", false, func(a, x float64) float64 { return b2f((a != 0) != (x != 0)) }, 0, func(i int) float32 { return float32(i % 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			P, A, B := 64, 4, 16
			b := newKB()
			a := b.tensor("a", []int{P, A, B}, "float32", BufHBM, true)
			o := b.tensor("out", []int{P, A}, "float32", BufSharedHBM, false)
			x := b.tensor("x", []int{P, A, B}, "float32", BufSBUF, false)
			y := b.tensor("y", []int{P, A}, "float32", BufSBUF, false)
			b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(x, []int{P, A, B}), Src: full(a, []int{P, A, B})})
			b.call(Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Dst: full(y, []int{P, A}), Data: full(x, []int{P, A, B}), ReduceOp: tc.op, Axis: []int{2}, Negate: tc.neg})
			b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: full(o, []int{P, A}), Src: full(y, []int{P, A})})
			b.k.Outputs = []int{o}
			in := seq(P * A * B)
			if tc.in != nil {
				for i := range in {
					in[i] = tc.in(i)
				}
			}
			_, res := runKernel(t, &b.k, map[int][]byte{a: f32bytes(in)})
			got := bytesF32(res.Outputs[0].Data)
			for p := 0; p < P; p++ {
				for i := 0; i < A; i++ {
					acc := tc.init
					for j := 0; j < B; j++ {
						acc = tc.f(acc, float64(in[(p*A+i)*B+j]))
					}
					if tc.neg {
						acc = -acc
					}
					if math.Abs(float64(got[p*A+i])-acc) > 1e-3*math.Max(1, math.Abs(acc)) {
						t.Fatalf("out[%d][%d] = %v, want %v", p, i, got[p*A+i], acc)
					}
				}
			}
		})
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func TestShuffleBroadcast(t *testing.T) {
	b := newKB()
	a := b.tensor("a", []int{1, 16}, "float32", BufHBM, true)
	o := b.tensor("out", []int{32, 16}, "float32", BufSharedHBM, false)
	x := b.tensor("x", []int{1, 16}, "float32", BufSBUF, false)
	y := b.tensor("y", []int{32, 16}, "float32", BufSBUF, false)
	b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(x, []int{1, 16}), Src: full(a, []int{1, 16})})
	b.call(Call{Op: OpStreamShuffle, Call: "nisa.nc_stream_shuffle", Dst: full(y, []int{32, 16}), Src: full(x, []int{1, 16}), ShuffleMask: make([]int, 32)})
	b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: full(o, []int{32, 16}), Src: full(y, []int{32, 16})})
	b.k.Outputs = []int{o}
	in := seq(16)
	lw, res := runKernel(t, &b.k, map[int][]byte{a: f32bytes(in)})
	got := bytesF32(res.Outputs[0].Data)
	for p := 0; p < 32; p++ {
		for f := 0; f < 16; f++ {
			if got[p*16+f] != in[f] {
				t.Fatalf("out[%d][%d] = %v, want %v\n%s", p, f, got[p*16+f], in[f], lw.Text())
			}
		}
	}
}

func TestCastReciprocalMemset(t *testing.T) {
	b, a, _ := loadComputeStore(8, 16, 8, 16, "float32", "float32", func(b *kb, x, y int) {
		z := b.tensor("z", []int{8, 16}, "bfloat16", BufSBUF, false)
		w := b.tensor("w", []int{8, 16}, "float32", BufPSUM, false)
		one := Number(1)
		b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: full(w, []int{8, 16}), Value: &one})
		b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full(z, []int{8, 16}), Src: full(x, []int{8, 16})})
		b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full(w, []int{8, 16}), Src: full(z, []int{8, 16})})
		b.call(Call{Op: OpReciprocal, Call: "nisa.reciprocal", Dst: full(y, []int{8, 16}), Data: full(w, []int{8, 16})})
	})
	in := []float32{}
	for i := 0; i < 128; i++ {
		in = append(in, float32(i+1)*0.75)
	}
	_, res := runKernel(t, &b.k, map[int][]byte{a: f32bytes(in)})
	got := bytesF32(res.Outputs[0].Data)
	for i, x := range in {
		want := 1 / float64(x) // through bf16 (8 bits of mantissa): within 1%
		if math.Abs(float64(got[i])-want) > 0.01*want {
			t.Fatalf("out[%d] = %v, want about %v", i, got[i], want)
		}
	}
}

func TestGatherScatterDMA(t *testing.T) {
	R, F, n := 40, 8, 16
	b := newKB()
	tab := b.tensor("table", []int{R, F}, "float32", BufHBM, true)
	idxH := b.tensor("idx", []int{n, 1}, "uint32", BufHBM, true)
	o := b.tensor("out", []int{n, F}, "float32", BufSharedHBM, false)
	it := b.tensor("it", []int{n, 1}, "uint32", BufSBUF, false)
	g := b.tensor("g", []int{n, F}, "float32", BufSBUF, false)
	b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(it, []int{n, 1}), Src: full(idxH, []int{n, 1})})
	src := full(tab, []int{n, F})
	src.Indirect = &Indirect{Index: *full(it, []int{n, 1}), Dim: 0}
	b.call(Call{Op: OpDMACopy, Call: "nisa.dma_copy", Dst: full(g, []int{n, F}), Src: src, OOBMode: "skip"})
	b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: full(o, []int{n, F}), Src: full(g, []int{n, F})})
	b.k.Outputs = []int{o}
	table := seq(R * F)
	idx := make([]byte, 4*n)
	want := make([]float32, n*F)
	for k := 0; k < n; k++ {
		v := (k*7 + 3) % R
		if k == 5 {
			v = R + 3 // out of bounds: skipped, the row keeps what g held (never written: zero)
		}
		idx[4*k] = byte(v)
		for f := 0; f < F; f++ {
			if v < R {
				want[k*F+f] = table[v*F+f]
			}
		}
	}
	lw, res := runKernel(t, &b.k, map[int][]byte{tab: f32bytes(table), idxH: idx})
	got := bytesF32(res.Outputs[0].Data)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("out[%d] = %v, want %v\n%s", i, got[i], want[i], lw.Text())
		}
	}
	// oob_mode error: the same kernel fails at run time with the index error
	b.k.Calls[1].OOBMode = "error"
	lw, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lw.Run(sim.Config{}, map[int][]byte{tab: f32bytes(table), idxH: idx})
	if !errors.Is(err, fault.ErrBounds) {
		t.Fatalf("oob_mode=error run: %v, want ErrBounds", err)
	}
	// the error names the call's tensors and the index's position in the index tile
	for _, w := range []string{`gather of "table" rows by index "it", positions 0..15`, "src_idx[5] = 43, legal < 40"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("oob_mode=error run: %v\nwant it to hold %q", err, w)
		}
	}
}

func TestDMATranspose(t *testing.T) {
	for _, shape := range [][]int{{16, 128}, {16, 40}, {2, 3, 8, 8}, {2, 8, 8}} {
		t.Run(itoa(len(shape))+"d", func(t *testing.T) {
			perm := transposePerm(len(shape))
			dshape := make([]int, len(shape))
			for i, p := range perm {
				dshape[i] = shape[p]
			}
			n := 1
			for _, s := range shape {
				n *= s
			}
			b := newKB()
			a := b.tensor("a", shape, "bfloat16", BufHBM, true)
			o := b.tensor("out", dshape, "bfloat16", BufSharedHBM, false)
			y := b.tensor("y", dshape, "bfloat16", BufSBUF, false)
			b.call(Call{Op: OpDMATranspose, Call: "nisa.dma_transpose", Dst: full(y, dshape), Src: full(a, shape)})
			b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: full(o, dshape), Src: full(y, dshape)})
			b.k.Outputs = []int{o}
			in := make([]byte, 2*n)
			for i := 0; i < n; i++ {
				in[2*i], in[2*i+1] = byte(i), byte(i>>8)
			}
			lw, res := runKernel(t, &b.k, map[int][]byte{a: in})
			xbar := 0
			for _, in := range lw.Insts {
				if in.Inst.Hdr().Opcode == isa.OpDMA_TRANSPOSE {
					xbar++
				}
			}
			t.Logf("%v: %d of %d words on the crossbar", shape, xbar, len(lw.Insts))
			if shape[0] == 16 && xbar == 0 {
				t.Errorf("a [16, %d] bf16 transpose did not use the crossbar:\n%s", shape[1], lw.Text())
			}
			got := res.Outputs[0].Data
			// dst[idx permuted] = src[idx]
			idx := make([]int, len(shape))
			for i := 0; i < n; i++ {
				r := i
				for d := len(shape) - 1; d >= 0; d-- {
					idx[d] = r % shape[d]
					r /= shape[d]
				}
				off := 0
				for d := range dshape {
					off = off*dshape[d] + idx[perm[d]]
				}
				if got[2*off] != in[2*i] || got[2*off+1] != in[2*i+1] {
					t.Fatalf("dst at %v (flat %d) != src flat %d", idx, off, i)
				}
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	mk := func() *kb {
		b, _, _ := loadComputeStore(64, 64, 64, 64, "float32", "float32", func(b *kb, x, y int) {
			b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full(y, []int{64, 64}), Src: full(x, []int{64, 64})})
		})
		return b
	}
	for _, tc := range []struct {
		name string
		edit func(b *kb)
		kind error
		rule string
	}{
		{"transpose too big for VE", func(b *kb) {
			b.k.Calls[1] = Call{Op: OpNCTranspose, Call: "nisa.nc_transpose", Loc: "t.py:11", Dst: full(3, []int{64, 64}), Data: full(2, []int{64, 64})}
		}, fault.ErrUnsupported, "kernel.nc_transpose_engine"},
		{"capacity", func(b *kb) {
			b.k.Tensors[2].Shape = []int{64, 65536}
			b.k.Calls[0].Dst = full(2, []int{64, 65536})
			b.k.Calls[1].Src = full(2, []int{64, 65536})
		}, fault.ErrCapacity, "kernel.capacity"},
		{"reduce op", func(b *kb) {
			b.k.Calls[1] = Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Loc: "t.py:11", Dst: full(3, []int{64, 1}), Data: full(2, []int{64, 64}), ReduceOp: "power", Axis: []int{1}}
		}, fault.ErrInvalid, "nki.tensor_reduce.op"},
		// FuzzLower's testdata 61aff1c7b5fb39c7: a transposed data view (axis 1 walks the
		// partitions) was lowered as if axis 1 were free, to a word the check refused
		{"reduce over partitions", func(b *kb) {
			b.k.Calls[1] = Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Loc: "t.py:11", Dst: &View{Tensor: 3, Pattern: [][2]int64{{64, 64}, {1, 1}}},
				Data: &View{Tensor: 2, Pattern: [][2]int64{{1, 64}, {64, 64}}}, ReduceOp: "add", Axis: []int{1}}
		}, fault.ErrInvalid, "nki.tensor_reduce.partition_axis"},
		// a free axis 0 was dropped from the walk: the sum of 1 of the 4 rows asked for
		{"reduce with a free axis 0", func(b *kb) {
			b.k.Calls[1] = Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Loc: "t.py:11", Dst: &View{Tensor: 3, Pattern: [][2]int64{{1, 1}}},
				Data: &View{Tensor: 2, Pattern: [][2]int64{{16, 4}, {1, 16}}}, ReduceOp: "add", Axis: []int{1}}
		}, fault.ErrInvalid, "nki.tensor_reduce.partition_axis"},
		{"start partition", func(b *kb) {
			v := full(2, []int{4, 64})
			v.Offset = 5 * 64
			w := full(3, []int{4, 64})
			b.k.Calls[1] = Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Loc: "t.py:11", Dst: w, Src: v}
		}, fault.ErrInvalid, "nki.start_partition"},
		{"elements differ", func(b *kb) { b.k.Calls[1].Dst = &View{Tensor: 3, Pattern: [][2]int64{{64, 64}, {1, 32}}} }, fault.ErrInvalid, "nki.same_free_elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := mk()
			tc.edit(b)
			_, err := Lower(&b.k, Options{Gen: isa.CAYMAN})
			var ke *Error
			if !errors.As(err, &ke) || !errors.Is(err, tc.kind) || ke.Rule != tc.rule {
				t.Fatalf("err = %v; want kind %v rule %s", err, tc.kind, tc.rule)
			}
			if ke.Loc == "" {
				t.Fatalf("error names no location: %v", err)
			}
		})
	}
}

func TestStridedBoxes(t *testing.T) {
	// rows of 64 bytes, 256 apart: [0,64) [256,320) [512,576) ...
	a := box{space: 0, p1: 1, lo: 0, hi: 3*256 + 64, run: 64, stride: 256, n: 4}
	b := a
	b.lo, b.hi = 64, 64+3*256+64 // the next column block: never meets a
	for _, tc := range []struct {
		x, y box
		want bool
	}{
		{a, b, false},
		{a, box{p1: 1, lo: 300, hi: 301}, true},
		{a, box{p1: 1, lo: 320, hi: 512}, false},
		{a, box{p1: 1, lo: 319, hi: 512}, true},
		{a, box{p1: 1, lo: 832, hi: 900}, false},
		{b, box{p1: 1, lo: 0, hi: 64}, false},
		{b, box{p1: 1, lo: 0, hi: 65}, true},
	} {
		t.Run(fmt.Sprintf("%d-%d+%d", tc.y.lo, tc.y.hi, tc.y.stride), func(t *testing.T) {
			if got := tc.x.overlaps(tc.y); got != tc.want {
				t.Errorf("%+v overlaps %+v = %v, want %v", tc.x, tc.y, got, tc.want)
			}
			if got := tc.y.overlaps(tc.x); got != tc.want {
				t.Errorf("%+v overlaps %+v = %v, want %v (reversed)", tc.y, tc.x, got, tc.want)
			}
		})
	}
}
