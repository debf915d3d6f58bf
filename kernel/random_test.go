package kernel

import (
	"bytes"
	"errors"
	"math/rand"
	randv2 "math/rand/v2"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/timing"
)

// drawer is where randomKernel's choices come from: a *rand.Rand, or the fuzzer's bytes.
type drawer interface {
	Intn(n int) int
	Uint64() uint64
}

// byteDrawer draws choices from fuzz bytes, one byte a choice (at most maxChoiceBytes of them),
// then from r (a PCG: seeding a math/rand source took 5% of an exec); the input values are
// always the same (they steer no control flow).
type byteDrawer struct {
	c choices
	r *randv2.Rand
}

func (d *byteDrawer) Intn(n int) int {
	if d.c.i < len(d.c.b) && d.c.i < maxChoiceBytes {
		return d.c.n(n)
	}
	return d.r.IntN(n)
}

// Uint64 seeds the input values: always 1, so the fuzzer's inputs are made once.
func (d *byteDrawer) Uint64() uint64 { return 1 }

// randomKernel builds a kernel of random calls over a few HBM inputs and SBUF/PSUM tiles:
// loads of slices, copies and casts between tiles (on DVE, POOL, ACT), VE transposes, reduces,
// shuffles, memsets, DMA transposes, gathers, stores to random slices of the outputs. Tiles are
// reused across calls, so dependencies (RAW, WAR, WAW) cross engines and queues. The preamble
// loads every tile and the index tile and zeroes the PSUM tile first; without it (preamble
// false) the calls read whatever the tiles hold.
func randomKernel(r drawer, calls int, preamble ...bool) (*Kernel, map[int][]byte) {
	b := newKB()
	const P, F = 32, 32
	in := b.tensor("in", []int{128, 64}, "float32", BufHBM, true)
	idx := b.tensor("idx", []int{32, 1}, "uint32", BufHBM, true)
	out := b.tensor("out", []int{128, 64}, "float32", BufSharedHBM, false)
	out2 := b.tensor("out2", []int{64, 64}, "bfloat16", BufSharedHBM, false)
	var tiles, bftiles []int
	for i := 0; i < 4; i++ {
		tiles = append(tiles, b.tensor("t"+itoa(i), []int{P, F}, "float32", BufSBUF, false))
	}
	for i := 0; i < 2; i++ {
		bftiles = append(bftiles, b.tensor("h"+itoa(i), []int{P, F}, "bfloat16", BufSBUF, false))
	}
	ps := b.tensor("p", []int{P, F}, "float32", BufPSUM, false)
	red := b.tensor("r", []int{P, 1}, "float32", BufSBUF, false)
	it := b.tensor("it", []int{32, 1}, "uint32", BufSBUF, false)
	tile := func() int {
		if r.Intn(5) == 0 {
			return ps
		}
		return tiles[r.Intn(len(tiles))]
	}
	slice := func(t int, rows, cols, r0, c0 int) *View {
		return &View{Tensor: t, Offset: int64(r0*cols + c0), Pattern: [][2]int64{{int64(cols), int64(rows)}, {1, int64(cols)}}}
	}
	hslice := func(r0, c0 int) *View { // a [32, 32] block of in/out
		return &View{Tensor: in, Offset: int64(r0*64 + c0), Pattern: [][2]int64{{64, P}, {1, F}}}
	}
	full32 := func(t int) *View { return full(t, []int{P, F}) }
	engines := []string{"vector", "gpsimd", "scalar"}
	if len(preamble) == 0 || preamble[0] {
		b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(it, []int{32, 1}), Src: full(idx, []int{32, 1})})
		for i := range tiles {
			b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full32(tiles[i]), Src: hslice(32*r.Intn(4), 32*r.Intn(2))})
		}
		zero := Number(0)
		b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: full32(ps), Value: &zero})
	}
	for n := 0; n < calls; n++ {
		switch r.Intn(10) {
		case 0:
			b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full32(tiles[r.Intn(len(tiles))]), Src: hslice(32*r.Intn(4), 32*r.Intn(2))})
		case 1:
			e := engines[r.Intn(3)]
			d, s := tiles[r.Intn(len(tiles))], tiles[r.Intn(len(tiles))]
			if d != s {
				b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full32(d), Src: full32(s), Engine: &e})
			}
		case 2:
			b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: full32(bftiles[r.Intn(2)]), Src: full32(tile())})
		case 3:
			d, s := tile(), tiles[r.Intn(len(tiles))]
			if d != s {
				rows, cols := 1+r.Intn(32), 1+r.Intn(32)
				if d == ps {
					rows, cols = 32, 32
				}
				b.call(Call{Op: OpNCTranspose, Call: "nisa.nc_transpose", Dst: slice(d, cols, F, 0, 0), Data: slice(s, rows, F, 0, 0)})
				b.k.Calls[len(b.k.Calls)-1].Dst = &View{Tensor: d, Pattern: [][2]int64{{F, int64(cols)}, {1, int64(rows)}}}
				b.k.Calls[len(b.k.Calls)-1].Data = &View{Tensor: s, Pattern: [][2]int64{{F, int64(rows)}, {1, int64(cols)}}}
			}
		case 4:
			ops := []string{"add", "maximum", "minimum", "multiply"}
			b.call(Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Dst: full(red, []int{P, 1}), Data: full32(tile()), ReduceOp: ops[r.Intn(4)], Axis: []int{1}})
		case 5:
			d, s := tiles[r.Intn(len(tiles))], tiles[r.Intn(len(tiles))]
			mask := make([]int, 32)
			for i := range mask {
				mask[i] = r.Intn(32)
				if r.Intn(6) == 0 {
					mask[i] = 255
				}
			}
			b.call(Call{Op: OpStreamShuffle, Call: "nisa.nc_stream_shuffle", Dst: full32(d), Src: full32(s), ShuffleMask: mask})
		case 6:
			b.call(Call{Op: OpReciprocal, Call: "nisa.reciprocal", Dst: full32(tile()), Data: full32(tiles[r.Intn(len(tiles))])})
		case 7:
			src := &View{Tensor: in, Pattern: [][2]int64{{64, 32}, {1, 32}}}
			src.Indirect = &Indirect{Index: *full(it, []int{32, 1}), Dim: 0}
			oob := []string{"error", "skip"}[r.Intn(2)]
			b.call(Call{Op: OpDMACopy, Call: "nisa.dma_copy", Dst: full32(tiles[r.Intn(len(tiles))]), Src: src, OOBMode: oob})
		case 8:
			r0, c0 := 32*r.Intn(4), 32*r.Intn(2)
			b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: &View{Tensor: out, Offset: int64(r0*64 + c0), Pattern: [][2]int64{{64, P}, {1, F}}}, Src: full32(tile())})
		case 9:
			b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: &View{Tensor: out2, Offset: int64(32 * 64 * r.Intn(2)), Pattern: [][2]int64{{64, P}, {1, F}}}, Src: full32(bftiles[r.Intn(2)])})
		}
	}
	b.k.Outputs = []int{out, out2}
	return &b.k, randomInputs(in, idx, r.Uint64())
}

// randomInputs are randomKernel's inputs from seed st by a 64-bit LCG (Knuth's MMIX constants):
// the table in holds values in [-8, 8), idx indices 0..127 (all rows of the [128, 64] table).
// The inputs of a seed are made once (the fuzzer's drawer always gives the same seed).
func randomInputs(in, idx int, st uint64) map[int][]byte {
	key := [3]uint64{uint64(in), uint64(idx), st}
	inputCache.Lock()
	defer inputCache.Unlock()
	if m, ok := inputCache.m[key]; ok {
		return m
	}
	inputs := map[int][]byte{}
	next := func() uint64 { st = st*6364136223846793005 + 1442695040888963407; return st >> 33 }
	x := make([]float32, 128*64)
	for i := range x {
		x[i] = float32(int32(next()<<1)) / (1 << 28)
	}
	inputs[in] = f32bytes(x)
	ib := make([]byte, 4*32)
	for k := 0; k < 32; k++ {
		ib[4*k] = byte(next() % 128)
	}
	inputs[idx] = ib
	if len(inputCache.m) < 64 {
		inputCache.m[key] = inputs
	}
	return inputs
}

// inputCache keeps the inputs of a few seeds (the fuzzer's one, the tests' first ones); runs
// only read them.
var inputCache = struct {
	sync.Mutex
	m map[[3]uint64]map[int][]byte
}{m: map[[3]uint64]map[int][]byte{}}

// Random kernels lower to words the machine accepts, run without a data race or a deadlock
// (the sync the lowering inserts is complete), and give the same bytes under another timing
// model (the results do not depend on timing).
func TestRandomKernelsRaceFree(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 10
	}
	for seed := 0; seed < n; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		k, inputs := randomKernel(r, 10+r.Intn(40))
		lw, err := Lower(k, Options{Gen: isa.CAYMAN})
		if err != nil {
			var ke *Error
			var le *LoweringError
			if !errors.As(err, &ke) || errors.As(err, &le) {
				t.Fatalf("seed %d: lowering: %v", seed, err)
			}
			continue
		}
		res, err := lw.Run(sim.Config{}, inputs)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, lw.Text())
		}
		other := timing.Default(isa.SUNDA)
		res2, err := lw.Run(sim.Config{Timing: &other}, inputs)
		if err != nil {
			t.Fatalf("seed %d under SUNDA timing: %v", seed, err)
		}
		for i := range res.Outputs {
			if !bytes.Equal(res.Outputs[i].Data, res2.Outputs[i].Data) {
				t.Fatalf("seed %d: output %d differs under another timing model", seed, i)
			}
		}
	}
}

// FuzzRandomKernel: the random kernels of TestRandomKernelsRaceFree, their choices drawn from the
// fuzz bytes (then from seed's PCG), without the preamble (TestRandomKernelsRaceFree keeps it) and with
// at most 3 calls, so that an execution stays small: each lowers without a *LoweringError and runs race-free to its end (an
// index past its table under oob_mode=error is the one failure allowed).
func FuzzRandomKernel(f *testing.F) {
	for i := int64(0); i < 4; i++ {
		f.Add(i, []byte{byte(i), 7, byte(3 * i), 5, 9})
	}
	f.Fuzz(func(t *testing.T, seed int64, data []byte) {
		d := &byteDrawer{c: choices{b: data}, r: randv2.New(randv2.NewPCG(uint64(seed), 0))}
		k, inputs := randomKernel(d, 1+d.Intn(3), false)
		// The machine's check is made once, by the run (DeferCheck: it refuses with Lower's
		// errors), and the outputs are left on the machine (Exec): planning the DMA words
		// twice and reading back 40 KB nobody looks at were 13% of an exec.
		lw, err := Lower(k, Options{Gen: isa.CAYMAN, DeferCheck: true})
		if err != nil {
			return
		}
		m, put := fuzzMachine(t, lw.Gen)
		defer put()
		_, err = lw.Exec(m, inputs)
		var le *LoweringError
		var ke *Error
		switch {
		case errors.As(err, &le):
			t.Fatalf("lowering: %v", err)
		case err == nil, errors.As(err, &ke) && !ke.Malformed: // refused by a rule of Lower's (a call's src and dst overlap)
		case !errors.Is(err, fault.ErrBounds):
			t.Fatalf("%v\n%s", err, lw.Text())
		}
	})
}

// The race-free result above means something: the same kernels with their waits stripped are
// reported racy by the machine's detector.
func TestStrippedSyncIsRacy(t *testing.T) {
	racy := 0
	for seed := 0; seed < 10; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		k, inputs := randomKernel(r, 30)
		lw, err := Lower(k, Options{Gen: isa.CAYMAN})
		if err != nil {
			continue
		}
		for _, in := range lw.Insts {
			ev := eventsOf(in.Inst)
			ev.WaitMode, ev.WaitIdx = isa.WaitNone, 0
		}
		if _, err := lw.Run(sim.Config{}, inputs); errors.Is(err, fault.ErrRace) {
			racy++
		}
	}
	if racy < 8 {
		t.Fatalf("only %d of 10 kernels without waits were reported racy", racy)
	}
}
