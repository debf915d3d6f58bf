package dma_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// naive executes a KindCopy/KindXbar descriptor element by element through ReadAt/WriteAt.
func naive(t testing.TB, m dma.Memory, d *dma.Descriptor) {
	n := d.Num
	dn := d.DstNum
	if dn == ([4]uint32{}) {
		dn = n
	}
	var src [][]byte
	ses, des := int64(d.Src.ElemSize), int64(d.Dst.ElemSize)
	for a := int64(0); a < int64(n[3]); a++ {
		for b := int64(0); b < int64(n[2]); b++ {
			for c := int64(0); c < int64(n[1]); c++ {
				for e := int64(0); e < int64(n[0]); e++ {
					off := (a*d.Src.Step[3] + b*d.Src.Step[2] + c*d.Src.Step[1] + e*d.Src.Step[0]) * ses
					buf := make([]byte, ses)
					if err := m.ReadAt(uint64(int64(d.Src.Addr)+off), buf); err != nil {
						t.Fatal(err)
					}
					src = append(src, buf)
				}
			}
		}
	}
	i := 0
	for a := int64(0); a < int64(dn[3]); a++ {
		for b := int64(0); b < int64(dn[2]); b++ {
			for c := int64(0); c < int64(dn[1]); c++ {
				for e := int64(0); e < int64(dn[0]); e++ {
					off := (a*d.Dst.Step[3] + b*d.Dst.Step[2] + c*d.Dst.Step[1] + e*d.Dst.Step[0]) * des
					addr := uint64(int64(d.Dst.Addr) + off)
					out := make([]byte, des)
					if d.In != 0 && (d.In != d.Out || d.ComputeOp != 0) {
						m.ReadAt(addr, out)
						is, os := d.In.Size(), d.Out.Size()
						for j := 0; j < int(ses)/is; j++ {
							x := num.LoadF32(d.In, src[i][j*is:])
							y := num.LoadF32(d.Out, out[j*os:])
							v := dma.Compute(d.ComputeOp, y, x)
							num.StoreF32(d.Out, out[j*os:], v)
						}
					} else {
						copy(out, src[i])
					}
					if err := m.WriteAt(addr, out); err != nil {
						t.Fatal(err)
					}
					i++
				}
			}
		}
	}
}

func randDesc(rng *rand.Rand) dma.Descriptor {
	d := dma.Descriptor{Kind: dma.KindCopy, Sem: -1}
	es := []uint32{1, 2, 4, 8, 3, 12}[rng.Intn(6)]
	d.Src.ElemSize, d.Dst.ElemSize = es, es
	d.Num = [4]uint32{1, 1, 1, 1}
	for k := 0; k < 4; k++ {
		d.Num[k] = uint32(1 + rng.Intn(6))
		if k == 0 && rng.Intn(2) == 0 {
			d.Num[k] = uint32(1 + rng.Intn(40))
		}
		d.Src.Step[k] = int64(rng.Intn(200) - 60)
		d.Dst.Step[k] = int64(rng.Intn(200) - 60)
	}
	// make destinations distinct: a dense permuted layout
	perm := rng.Perm(4)
	st := int64(1)
	for _, k := range perm {
		d.Dst.Step[k] = st
		if rng.Intn(4) == 0 {
			d.Dst.Step[k] = -st
		}
		st *= int64(d.Num[k])
	}
	if rng.Intn(3) == 0 { // xbar-shaped
		d.Src.ElemSize, d.Dst.ElemSize = 2, 2
		d.Num[0], d.Num[1] = uint32(1+rng.Intn(16)), uint32(2+rng.Intn(100))
		d.Src.Step[0], d.Src.Step[1] = int64(d.Num[1]+uint32(rng.Intn(4))), 1
		// tile rows and tiles start 32-byte aligned (16 two-byte elements): the xbar's dst rule
		d.Dst.Step[0], d.Dst.Step[1] = 1, 16
		d.Dst.Step[2] = 16 * int64(d.Num[1])
		d.Dst.Step[3] = d.Dst.Step[2] * int64(d.Num[2])
		d.Src.Step[2] = int64(d.Num[0]) * d.Src.Step[0]
		d.Src.Step[3] = d.Src.Step[2] * int64(d.Num[2])
		d.Kind = dma.KindXbar
	}
	d.Src.Addr = 0x100000
	d.Dst.Addr = 0x800000
	if rng.Intn(3) == 0 {
		d.Dst.Addr = isa.DMALocalBase + 0x10000
	}
	if rng.Intn(4) == 0 && d.Kind == dma.KindCopy {
		k := []num.Kind{num.FP32, num.FP16, num.INT16, num.INT8, num.BFLOAT16}
		d.In, d.Out = k[rng.Intn(len(k))], k[rng.Intn(len(k))]
		d.Src.ElemSize, d.Dst.ElemSize = uint32(d.In.Size()), uint32(d.Out.Size())
		if d.In == d.Out || rng.Intn(2) == 0 {
			d.Out = d.In
			d.Dst.ElemSize = d.Src.ElemSize
			d.ComputeOp = isa.DGEComputeOp(rng.Intn(5))
		}
	}
	return d
}

func fill(m dma.Memory, rng *rand.Rand) {
	b := make([]byte, 1<<16)
	rng.Read(b)
	m.WriteAt(0x100000-0x8000, b)
	rng.Read(b)
	m.WriteAt(0x800000-0x8000, b)
	m.WriteAt(isa.DMALocalBase+0x8000, b[:0x8000])
}

func snapshot(m dma.Memory) []byte {
	b := make([]byte, 3<<16)
	m.ReadAt(0x100000-0x8000, b[:1<<16])
	m.ReadAt(0x800000-0x8000, b[1<<16:2<<16])
	m.ReadAt(isa.DMALocalBase, b[2<<16:])
	return b
}

// TestKernelsAgainstNaive: every kernel (contiguous, xbar, strided, buffered with casts and
// compute ops, Slicer and plain-memory paths) against element-by-element execution.
func TestKernelsAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 500; i++ {
		d := randDesc(rng)
		seed := rng.Int63()
		g := isa.CAYMAN
		want := dmatest.New(g)
		fill(want, rand.New(rand.NewSource(seed)))
		naive(t, want, &d)
		for _, plain := range []bool{false, true} {
			got := dmatest.New(g)
			fill(got, rand.New(rand.NewSource(seed)))
			var m dma.Memory = got
			if plain {
				m = dmatest.Plain{M: got}
			}
			job := &dma.Job{Queues: [][]dma.Descriptor{{d}}, Sem: -1}
			// copyDesc's staging buffers come from a pool: every case after the first runs on
			// buffers an earlier case left (other sizes, other bytes), as a new one must.
			if _, err := dma.New(g).Run(m, job); err != nil {
				t.Fatalf("case %d %+v: %v", i, d, err)
			}
			if !bytes.Equal(snapshot(got), snapshot(want)) {
				t.Fatalf("case %d (plain=%v): %+v differs from the naive walk", i, plain, d)
			}
		}
	}
}

func TestBoundsErrorWording(t *testing.T) {
	g := isa.CAYMAN
	m := dmatest.New(g)
	geo := g.Geometry()
	// 2 partitions x (active+2) bytes: the tail of each row is past the active area
	d := dma.Descriptor{Kind: dma.KindCopy, Num: [4]uint32{geo.StateBufPartitionActive + 2, 2, 1, 1}, Sem: -1}
	d.Src = dma.Side{Addr: 0, ElemSize: 1, Step: [4]int64{1, int64(geo.StateBufPartitionActive + 2)}}
	d.Dst = dma.Side{Addr: isa.DMALocalBase, ElemSize: 1, Step: [4]int64{1, int64(geo.StateBufPartitionSize)}}
	_, err := dma.New(g).Run(m, &dma.Job{Queues: [][]dma.Descriptor{{d}}, Sem: 9, SemIncrement: 2})
	var be *dma.BoundsError
	if !errors.As(err, &be) || !errors.Is(err, fault.ErrBounds) {
		t.Fatalf("want a BoundsError, got %v", err)
	}
	// the firmware's line, saying the increment it names was not applied (the semaphore is unchanged)
	if !strings.HasPrefix(err.Error(), "S: DGE: Failed bounds check. $S[9]+=2 not applied: the failed job changes no memory and no semaphore. ") ||
		be.Side != "dst" || be.Reg != -1 {
		t.Fatalf("message / fields: %v %+v", err, be)
	}
	if be.Lo != isa.DMALocalBase+uint64(geo.StateBufPartitionActive) {
		t.Fatalf("first bad byte 0x%x", be.Lo)
	}
}

func TestBoundsErrorUnwrap(t *testing.T) {
	cause := errors.New("memory's own sentinel")
	for _, c := range []struct {
		name      string
		err       error
		withCause bool
	}{
		{"the memory refused", &dma.BoundsError{Reg: -1, Err: fmt.Errorf("detail: %w", cause)}, true},
		{"a bound register", &dma.BoundsError{Reg: 3}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !errors.Is(c.err, fault.ErrBounds) || errors.Is(c.err, cause) != c.withCause {
				t.Errorf("%v: errors.Is(fault.ErrBounds) %v, errors.Is(the memory's error) %v, want true, %v",
					c.err, errors.Is(c.err, fault.ErrBounds), errors.Is(c.err, cause), c.withCause)
			}
		})
	}
}

func TestScheduleAndSemaphores(t *testing.T) {
	g := isa.MARIANA_PLUS
	e := dma.New(g)
	mk := func(n int) []dma.Descriptor {
		var q []dma.Descriptor
		for i := 0; i < n; i++ {
			d := dma.Descriptor{Kind: dma.KindCopy, Num: [4]uint32{4096, 1, 1, 1}, Sem: -1}
			d.Src = dma.Side{Addr: uint64(i) << 20, ElemSize: 1, Step: [4]int64{1}}
			d.Dst = dma.Side{Addr: uint64(i)<<20 + 1<<40, ElemSize: 1, Step: [4]int64{1}}
			q = append(q, d)
		}
		return q
	}
	job := &dma.Job{Queues: [][]dma.Descriptor{mk(6), mk(2), nil}, RingDepth: 2, GenNs: 10, Sem: 3, SemIncrement: 5}
	res := e.Schedule(job)
	if len(res.Records) != 8 || res.CreditWaits == 0 {
		t.Fatalf("records %d waits %d", len(res.Records), res.CreditWaits)
	}
	var total uint32
	for _, s := range res.Sems {
		if s.Sem != 3 {
			t.Fatalf("sem %d", s.Sem)
		}
		total += s.Delta
	}
	if total != 5 || len(res.Sems) != 2 {
		t.Fatalf("semaphore updates %+v", res.Sems)
	}
	for _, r := range res.Records {
		if r.End <= r.Start || r.Start < r.Ready {
			t.Fatalf("record %+v", r)
		}
	}
	// the stepping API
	eng := dma.NewEngine(g, 4)
	m := dmatest.New(g)
	for _, d := range mk(3) {
		eng.Push(d, 0, 7, 1)
	}
	steps := 0
	for {
		rec, ups, ok, err := eng.Step(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		steps++
		if rec.Engine != 4 || len(ups) != 1 || ups[0].Sem != 7 {
			t.Fatalf("step %d: %+v %+v", steps, rec, ups)
		}
	}
	if steps != 3 || eng.Pending() != 0 {
		t.Fatalf("steps %d pending %d", steps, eng.Pending())
	}
}

func TestValidateRejects(t *testing.T) {
	good := dma.Descriptor{Kind: dma.KindCopy, Num: [4]uint32{1, 1, 1, 1}}
	good.Src.ElemSize, good.Dst.ElemSize = 2, 2
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := []func(d *dma.Descriptor){
		func(d *dma.Descriptor) { d.Kind = 0 },
		func(d *dma.Descriptor) { d.Num[2] = 0 },
		func(d *dma.Descriptor) { d.Src.ElemSize = 0 },
		func(d *dma.Descriptor) { d.Dst.ElemSize = 3 },
		func(d *dma.Descriptor) { d.In = num.FP32 },
		func(d *dma.Descriptor) { d.ComputeOp = isa.DGEComputeADD },
		func(d *dma.Descriptor) { d.Kind = dma.KindXbar; d.Num[0] = 17 },
		// the crossbar's destination: start and every tile row 32-byte aligned (seed 003 §3.3)
		func(d *dma.Descriptor) { d.Kind = dma.KindXbar; d.Dst.Addr = 0x802 },
		func(d *dma.Descriptor) { d.Kind = dma.KindXbar; d.Num[1] = 4; d.Dst.Step[1] = 8 },
		func(d *dma.Descriptor) { d.Kind = dma.KindXbar; d.Num[2] = 2; d.Dst.Step[2] = 40 },
		func(d *dma.Descriptor) { d.Kind = dma.KindGather },
		func(d *dma.Descriptor) { d.Kind = dma.KindGatherXpose },
	}
	xbar := good
	xbar.Kind, xbar.Num, xbar.Dst.Addr = dma.KindXbar, [4]uint32{16, 4, 2, 1}, 0x820
	xbar.Dst.Step = [4]int64{1, 16, 64, 7} // a unit level's step does not matter
	if err := xbar.Validate(); err != nil {
		t.Fatalf("aligned xbar descriptor: %v", err)
	}
	for i, f := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			d := good
			f(&d)
			if err := d.Validate(); !errors.Is(err, fault.ErrInvalid) {
				t.Errorf("case %d: want ErrDescriptor, got %v", i, err)
			}
		})
	}
}
