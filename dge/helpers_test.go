package dge

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// testCase is one random request with the layout facts the oracles need.
type testCase struct {
	req      Request
	shape    []int
	perm     []int
	in, out  isa.DType
	srcSpace string
	dstSpace string
}

func (c testCase) String() string {
	return fmt.Sprintf("%v shape=%v perm=%v %v->%v op=%v %s->%s", c.req.Gen, c.shape, c.perm, c.in, c.out, c.req.ComputeOp, c.srcSpace, c.dstSpace)
}

var testDTypes = []isa.DType{isa.DTypeUINT8, isa.DTypeINT8, isa.DTypeUINT16, isa.DTypeINT16, isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeINT32, isa.DTypeUINT32, isa.DTypeFP32}

// castDTypes are the element types the numpy oracle can reproduce exactly for casts.
var castDTypes = []isa.DType{isa.DTypeUINT8, isa.DTypeINT8, isa.DTypeINT16, isa.DTypeUINT16, isa.DTypeFP16, isa.DTypeINT32, isa.DTypeFP32}

func sbufAddr(g isa.Generation, part int, off uint64) uint64 {
	return isa.DMALocalBase + uint64(part)*uint64(g.Geometry().StateBufPartitionSize) + off
}

var dimChoices = []int{1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 32, 33, 64, 128, 130, 256}

// randCase draws a random reshape/transpose request. mode "move" keeps in == out and no compute
// op; "any" also draws casts and compute ops.
func randCase(rng *rand.Rand, mode string) testCase {
	g := isa.Generations[rng.Intn(len(isa.Generations))]
	r := 1 + rng.Intn(4)
	var shape []int
	for {
		shape = shape[:0]
		total := 1
		for i := 0; i < r; i++ {
			d := dimChoices[rng.Intn(len(dimChoices))]
			if rng.Intn(3) == 0 {
				d = 1 + rng.Intn(9)
			}
			shape = append(shape, d)
			total *= d
		}
		if total <= 1<<14 {
			break
		}
	}
	in := testDTypes[rng.Intn(len(testDTypes))]
	out := in
	op := isa.DGEComputeNONE
	if mode == "any" {
		switch rng.Intn(4) {
		case 0:
			in = castDTypes[rng.Intn(len(castDTypes))]
			out = castDTypes[rng.Intn(len(castDTypes))]
		case 1:
			in = castDTypes[rng.Intn(len(castDTypes))]
			out = in
			op = isa.DGEComputeOp(1 + rng.Intn(4))
		}
	}
	var perm []int
	if rng.Intn(4) != 0 {
		perm = rng.Perm(r)
	}
	pshape := PermutedShape(shape, perm)
	c := testCase{shape: shape, perm: perm, in: in, out: out, srcSpace: "hbm", dstSpace: "hbm"}
	geo := g.Geometry()
	rowBytes := func(s []int, es int) int {
		n := es
		for _, d := range s[1:] {
			n *= d
		}
		return n
	}
	src := uint64(0x10000000) + uint64(rng.Intn(64))*uint64(in.Size())
	dst := uint64(0x20000000) + uint64(rng.Intn(64))*uint64(out.Size())
	if rng.Intn(2) == 0 && shape[0] <= 128 && rowBytes(shape, in.Size()) <= 64<<10 {
		c.srcSpace = "sbuf"
		src = sbufAddr(g, rng.Intn(128-shape[0]+1), uint64(rng.Intn(16)*in.Size()))
	}
	if rng.Intn(3) != 0 && pshape[0] <= 128 && rowBytes(pshape, out.Size()) <= 64<<10 {
		c.dstSpace = "sbuf"
		dst = sbufAddr(g, rng.Intn(128-pshape[0]+1), 100<<10+uint64(rng.Intn(16)*32))
	}
	_ = geo
	sv, err := LayoutView(src, uint32(in.Size()), shape, g)
	if err != nil {
		panic(err)
	}
	dv, err := LayoutView(dst, uint32(out.Size()), pshape, g)
	if err != nil {
		panic(err)
	}
	c.req = Request{Gen: g, Src: sv, Dst: dv, Perm: perm, In: in, Out: out, ComputeOp: op, Semaphore: rng.Intn(256), SemIncrement: 1 + rng.Intn(16)}
	if rng.Intn(3) == 0 {
		c.req.DMACfg = uint32(1 + rng.Intn(1<<g.Geometry().DMAEngineCount-1))
	}
	if rng.Intn(3) == 0 {
		c.req.CarveoutCfg = uint32(1+rng.Intn(8)) << 16
	}
	return c
}

// fillRandom writes random bytes over a view's bbox; float dtypes get finite values.
func fillView(t testing.TB, rng *rand.Rand, m dma.Memory, v View, d isa.DType) {
	n := v.Elements()
	buf := make([]byte, int(n)*int(v.ElemSize))
	k := num.Kind(d)
	for i := 0; i < int(n); i++ {
		e := buf[i*int(v.ElemSize):]
		switch {
		case d != 0 && k.IsFloat():
			num.StoreF32(k, e, float32(rng.NormFloat64()*8))
		case d != 0 && k.IsInteger() && k.Size() == 4:
			num.StoreInt(k, e, int64(rng.Intn(1<<20))-(1<<19)*int64(b2i(k.IsSigned())))
		default:
			rng.Read(e[:v.ElemSize])
		}
	}
	walk(v, func(i uint64, off int64) {
		a := offsetAddr(v.Base, off)
		if err := m.WriteAt(a, buf[i*uint64(v.ElemSize):(i+1)*uint64(v.ElemSize)]); err != nil {
			t.Fatalf("fill 0x%x: %v", a, err)
		}
	})
}

func walk(v View, fn func(i uint64, off int64)) { Walk(v, fn) }

func readView(t testing.TB, m dma.Memory, v View) []byte {
	b, err := ReadView(m, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func reference(t testing.TB, m dma.Memory, r Request) {
	if err := Reference(m, r); err != nil {
		t.Fatal(err)
	}
}

// runPlanned plans and runs a request on m.
func runPlanned(m dma.Memory, r Request, opt Options) (*Plan, *dma.Result, error) {
	p, err := PlanRequest(r, opt)
	if err != nil {
		return nil, nil, err
	}
	eng := dma.New(r.Gen)
	res, err := eng.Run(m, &p.Job)
	return p, res, err
}

// twinMemories returns two memories of c's generation whose src and dst views hold the same
// random values, written by fill (fillView, or fillSpecials for NaN/Inf-rich ones).
func twinMemories(t *testing.T, rng *rand.Rand, c testCase, fill func(testing.TB, *rand.Rand, dma.Memory, View, isa.DType)) (*dmatest.Memory, *dmatest.Memory) {
	m1, m2 := dmatest.New(c.req.Gen), dmatest.New(c.req.Gen)
	seed := rng.Int63()
	for _, m := range []*dmatest.Memory{m1, m2} {
		r := rand.New(rand.NewSource(seed))
		fill(t, r, m, c.req.Src, c.in)
		fill(t, r, m, c.req.Dst, c.out)
	}
	return m1, m2
}

// checkCase runs a case through the planner and the engines and through the reference on a
// twin memory, and compares the destination.
func checkCase(t *testing.T, rng *rand.Rand, c testCase) *Plan {
	t.Helper()
	m1, m2 := twinMemories(t, rng, c, fillView)
	p, _, err := runPlanned(m1, c.req, Options{})
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	reference(t, m2, c.req)
	got, want := readView(t, m1, c.req.Dst), readView(t, m2, c.req.Dst)
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && got[i] == want[i] {
			i++
		}
		t.Fatalf("%v: kind %v: dst differs at byte %d: got %x want %x\n%s", c, p.Kind, i, got[i:min(i+8, len(got))], want[i:min(i+8, len(want))], p.Text())
	}
	return p
}
