package kernel

import (
	"bytes"
	"errors"
	"math/rand"
	randv2 "math/rand/v2"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/fuzzin"
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

// kernelSize is the extent of randomKernel's tensors: tiles of [P, F] and HBM tables of
// [Rows, 2F] (Rows a multiple of P).
type kernelSize struct{ P, F, Rows int }

// fullSize is the tests' size: [32, 32] tiles over [128, 64] tables. fuzzSize is FuzzRandomKernel's:
// [32, 8] tiles over [64, 16] tables cut an exec's cost by about a fifth (the copies, the DVE rows
// and the inputs scale with F) while every call keeps its shape rules and its cross-engine
// dependencies. It keeps 32 partitions, a whole nc_stream_shuffle quadrant: 16 saved about 6%
// more, as the DMA descriptors, shadow cells and index rows scale with P.
var (
	fullSize = kernelSize{P: 32, F: 32, Rows: 128}
	fuzzSize = kernelSize{P: 32, F: 8, Rows: 64}
)

// randomKernel builds a kernel of random calls over a few HBM inputs and SBUF/PSUM tiles:
// loads of slices, copies and casts between tiles (on DVE, POOL, ACT), VE transposes, reduces,
// shuffles, memsets, DMA transposes, gathers, stores to random slices of the outputs. Tiles are
// reused across calls, so dependencies (RAW, WAR, WAW) cross engines and queues. The preamble
// loads every tile and the index tile and zeroes the PSUM tile first; without it (preamble
// false) the calls read whatever the tiles hold.
func randomKernel(r drawer, calls int, preamble ...bool) (*Kernel, map[int][]byte) {
	return randomKernelOf(r, calls, len(preamble) == 0 || preamble[0], fullSize)
}

// randomKernelOf is randomKernel at size sz.
func randomKernelOf(r drawer, calls int, preamble bool, sz kernelSize) (*Kernel, map[int][]byte) {
	b := newKB()
	P, F, R := sz.P, sz.F, sz.Rows
	in := b.tensor("in", []int{R, 2 * F}, "float32", BufHBM, true)
	idx := b.tensor("idx", []int{P, 1}, "uint32", BufHBM, true)
	out := b.tensor("out", []int{R, 2 * F}, "float32", BufSharedHBM, false)
	out2 := b.tensor("out2", []int{2 * P, 2 * F}, "bfloat16", BufSharedHBM, false)
	var tiles, bftiles []int
	for i := 0; i < 4; i++ {
		tiles = append(tiles, b.tensor("t"+itoa(i), []int{P, F}, "float32", BufSBUF, false))
	}
	for i := 0; i < 2; i++ {
		bftiles = append(bftiles, b.tensor("h"+itoa(i), []int{P, F}, "bfloat16", BufSBUF, false))
	}
	ps := b.tensor("p", []int{P, F}, "float32", BufPSUM, false)
	red := b.tensor("r", []int{P, 1}, "float32", BufSBUF, false)
	it := b.tensor("it", []int{P, 1}, "uint32", BufSBUF, false)
	tile := func() int {
		if r.Intn(5) == 0 {
			return ps
		}
		return tiles[r.Intn(len(tiles))]
	}
	block := func(t int) *View { // a [P, F] block of in or out at a random block row and column
		r0, c0 := P*r.Intn(R/P), F*r.Intn(2)
		return &View{Tensor: t, Offset: int64(r0*2*F + c0), Pattern: [][2]int64{{int64(2 * F), int64(P)}, {1, int64(F)}}}
	}
	tileView := func(t int) *View { return full(t, []int{P, F}) }
	engines := []string{"vector", "gpsimd", "scalar"}
	if preamble {
		b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(it, []int{P, 1}), Src: full(idx, []int{P, 1})})
		for i := range tiles {
			b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: tileView(tiles[i]), Src: block(in)})
		}
		zero := Number(0)
		b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: tileView(ps), Value: &zero})
	}
	for n := 0; n < calls; n++ {
		switch r.Intn(10) {
		case 0:
			b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: tileView(tiles[r.Intn(len(tiles))]), Src: block(in)})
		case 1:
			e := engines[r.Intn(3)]
			d, s := tiles[r.Intn(len(tiles))], tiles[r.Intn(len(tiles))]
			if d != s {
				b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: tileView(d), Src: tileView(s), Engine: &e})
			}
		case 2:
			b.call(Call{Op: OpTensorCopy, Call: "nisa.tensor_copy", Dst: tileView(bftiles[r.Intn(2)]), Src: tileView(tile())})
		case 3: // a [rows, cols] corner of s transposed into a [cols, rows] corner of d (all of a PSUM tile)
			d, s := tile(), tiles[r.Intn(len(tiles))]
			if d != s {
				rows, cols := 1+r.Intn(F), 1+r.Intn(F)
				if d == ps {
					rows, cols = F, F
				}
				b.call(Call{Op: OpNCTranspose, Call: "nisa.nc_transpose",
					Dst:  &View{Tensor: d, Pattern: [][2]int64{{int64(F), int64(cols)}, {1, int64(rows)}}},
					Data: &View{Tensor: s, Pattern: [][2]int64{{int64(F), int64(rows)}, {1, int64(cols)}}}})
			}
		case 4:
			ops := []string{"add", "maximum", "minimum", "multiply"}
			b.call(Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Dst: full(red, []int{P, 1}), Data: tileView(tile()), ReduceOp: ops[r.Intn(4)], Axis: []int{1}})
		case 5:
			d, s := tiles[r.Intn(len(tiles))], tiles[r.Intn(len(tiles))]
			mask := make([]int, 32) // a shuffle mask has 32 entries, whatever the partitions
			for i := range mask {
				mask[i] = r.Intn(P)
				if r.Intn(6) == 0 {
					mask[i] = 255
				}
			}
			b.call(Call{Op: OpStreamShuffle, Call: "nisa.nc_stream_shuffle", Dst: tileView(d), Src: tileView(s), ShuffleMask: mask})
		case 6:
			b.call(Call{Op: OpReciprocal, Call: "nisa.reciprocal", Dst: tileView(tile()), Data: tileView(tiles[r.Intn(len(tiles))])})
		case 7: // a gather of P rows of in (their first F columns) by the index tile
			src := &View{Tensor: in, Pattern: [][2]int64{{int64(2 * F), int64(P)}, {1, int64(F)}}}
			src.Indirect = &Indirect{Index: *full(it, []int{P, 1}), Dim: 0}
			oob := []string{"error", "skip"}[r.Intn(2)]
			b.call(Call{Op: OpDMACopy, Call: "nisa.dma_copy", Dst: tileView(tiles[r.Intn(len(tiles))]), Src: src, OOBMode: oob})
		case 8:
			b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: block(out), Src: tileView(tile())})
		case 9:
			b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: &View{Tensor: out2, Offset: int64(P * 2 * F * r.Intn(2)), Pattern: [][2]int64{{int64(2 * F), int64(P)}, {1, int64(F)}}},
				Src: tileView(bftiles[r.Intn(2)])})
		}
	}
	b.k.Outputs = []int{out, out2}
	return &b.k, randomInputs(in, idx, r.Uint64(), sz)
}

// randomInputs are randomKernel's inputs from seed st by a 64-bit LCG (Knuth's MMIX constants):
// the table in ([sz.Rows, 2*sz.F]) holds values in [-8, 8), idx sz.P indices to all of its rows.
// The inputs of a seed are made once (the fuzzer's drawer always gives the same seed).
func randomInputs(in, idx int, st uint64, sz kernelSize) map[int][]byte {
	key := inputKey{in, idx, st, sz}
	inputCache.Lock()
	defer inputCache.Unlock()
	if m, ok := inputCache.m[key]; ok {
		return m
	}
	inputs := map[int][]byte{}
	next := func() uint64 { st = st*6364136223846793005 + 1442695040888963407; return st >> 33 }
	x := make([]float32, sz.Rows*2*sz.F)
	for i := range x {
		x[i] = float32(int32(next()<<1)) / (1 << 28)
	}
	inputs[in] = f32bytes(x)
	ib := make([]byte, 4*sz.P)
	for k := 0; k < sz.P; k++ {
		ib[4*k] = byte(next() % uint64(sz.Rows))
	}
	inputs[idx] = ib
	if len(inputCache.m) < 64 {
		inputCache.m[key] = inputs
	}
	return inputs
}

type inputKey struct {
	in, idx int
	st      uint64
	sz      kernelSize
}

// inputCache keeps the inputs of a few seeds (the fuzzer's one, the tests' first ones); runs
// only read them.
var inputCache = struct {
	sync.Mutex
	m map[inputKey]map[int][]byte
}{m: map[inputKey]map[int][]byte{}}

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
// fuzz bytes (then from seed's PCG), at fuzzSize, without the preamble (TestRandomKernelsRaceFree
// keeps it) and with at most 3 calls, so that an execution stays small: each lowers without a
// *LoweringError and runs race-free to its end (randomKernelFuzz).
func FuzzRandomKernel(f *testing.F) {
	for i := int64(0); i < 4; i++ {
		f.Add(i, []byte{byte(i), 7, byte(3 * i), 5, 9})
	}
	f.Fuzz(func(t *testing.T, seed int64, data []byte) { randomKernelFuzz(t, seed, data) })
}

// randomKernelFuzz is FuzzRandomKernel's body; it says how the kernel ended: "ok" (ran to its
// end), "refused" (by a rule of Lower's: a call's src and dst overlap) or "bounds" (an index past
// its table under oob_mode=error, the one run-time failure allowed).
func randomKernelFuzz(t testing.TB, seed int64, data []byte) string {
	d := &byteDrawer{c: choices{b: data}, r: randv2.New(randv2.NewPCG(uint64(seed), 0))}
	k, inputs := randomKernelOf(d, 1+d.Intn(3), false, fuzzSize)
	// The machine's check is made once, by the run (DeferCheck: it refuses with Lower's
	// errors), and the outputs are left on the machine (Exec): planning the DMA words
	// twice and reading back what nobody looks at were 13% of an exec.
	lw, err := Lower(k, Options{Gen: isa.CAYMAN, DeferCheck: true})
	if err != nil {
		return "refused"
	}
	m, put := fuzzMachine(t, lw.Gen)
	defer put()
	_, err = lw.Exec(m, inputs)
	var le *LoweringError
	var ke *Error
	switch {
	case errors.As(err, &le):
		t.Fatalf("lowering: %v", err)
	case err == nil:
		return "ok"
	case errors.As(err, &ke) && !ke.Malformed:
		return "refused"
	case !errors.Is(err, fault.ErrBounds):
		t.Fatalf("%v\n%s", err, lw.Text())
	}
	return "bounds"
}

// At the fuzz size the kernels still lower and run: of a fixed set of fuzz inputs (seed i, 0-32
// choice bytes from a PCG) nearly all run to their end, as at the tests' size.
func TestRandomKernelFuzzOutcomes(t *testing.T) {
	count := map[string]int{}
	const n = 1000
	for seed, d := range fuzzin.Random(5, 6, n, 32) {
		count[randomKernelFuzz(t, int64(seed), d)]++
	}
	if count["ok"] < n*95/100 {
		t.Fatalf("outcomes of %d fuzz kernels: %v", n, count)
	}
	t.Logf("outcomes of %d fuzz kernels: %v", n, count)
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
