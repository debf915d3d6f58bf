package dge

import (
	"bytes"
	"slices"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
)

// fuzzShapes are the axis lengths a fuzzed tensor request draws: units, primes, the crossbar's
// 16 and one past it, powers of two.
var fuzzShapes = []int{1, 2, 3, 4, 5, 7, 8, 16, 17, 32, 64, 128}

// fuzzDTypes are the element types a fuzzed request draws (0: raw bytes; sub-byte, 8-byte and
// unknown codes the planner refuses).
var fuzzDTypes = []isa.DType{0, isa.DTypeUINT8, isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeFP32, isa.DTypeINT32, isa.DTypeFP4_EXP2, isa.DTypeUINT64, 0x1A}

// reqFromBytes decodes a few fuzz bytes into a bounded request: at most 4096 elements of at most
// 8 bytes, either a tensor layout (TensorRequest: a shape of up to four axes, an axis
// permutation, HBM or a partition of SBUF / PSUM on either side) or two raw views (counts 0..8 a
// dim, steps -128..127 elements, at bases near HBM, SBUF, PSUM and their edges). Bytes past the
// input read as 0.
//
//	0 generation (0 and 6 invalid), 1 bit 0: raw views, bits 1-2: rank-1, bits 3-7: permutation,
//	2..5 axes (tensor) or src num_elem (raw), 6..9 dst num_elem, 10..17 src/dst steps (raw),
//	18/19 in/out dtype, 20 compute_op, 21/22 src/dst base, 23/24 their offsets, 25 MEMCOPY_DMA_CFG
//	(engines), 26 its queue bits, 27 semaphore, 28 sem_increment, 29 carveout, 30 dst bound register.
func reqFromBytes(b []byte) (Request, error) {
	get := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	g := isa.Generation(get(0) % 7)
	geo := isa.CAYMAN.Geometry()
	if g.Valid() {
		geo = g.Geometry()
	}
	in, out := fuzzDTypes[int(get(18))%len(fuzzDTypes)], fuzzDTypes[int(get(19))%len(fuzzDTypes)]
	bases := []uint64{0x1000, 1 << 46, isa.DMALocalBase + 0x40, isa.DMALocalBase + 0x8000, isa.DMALocalBase + uint64(geo.StateBufPartitionSize)*127,
		isa.DMALocalBase + uint64(geo.PSUMOffset), isa.DMALocalBase + uint64(geo.PSUMOffset) - 64}
	src := bases[int(get(21))%len(bases)] + uint64(get(23))*2
	dst := bases[int(get(22))%len(bases)] + uint64(get(24))*2
	var r Request
	if get(1)&1 == 0 {
		rank := 1 + int(get(1)>>1&3)
		shape := make([]int, rank)
		for k := range shape {
			shape[k] = fuzzShapes[int(get(2+k))%len(fuzzShapes)]
		}
		for product(shape) > 4096 { // halve the longest axis
			k := 0
			for i := range shape {
				if shape[i] > shape[k] {
					k = i
				}
			}
			shape[k] /= 2
		}
		perm := nthPerm(rank, int(get(1)>>3))
		d := in
		if d == 0 {
			d = isa.DTypeUINT8
		}
		var err error
		if r, err = TensorRequest(g, src, dst, shape, perm, d); err != nil {
			return Request{}, err
		}
		if in != 0 && out != 0 && out.Size() > 0 && in.Size() > 0 {
			r.Out, r.Dst.ElemSize = out, uint32(out.Size())*r.Dst.ElemSize/uint32(in.Size())
		}
	} else {
		mk := func(base uint64, nums, steps int, es uint32) View {
			v := View{Base: base, ElemSize: es}
			for k := 0; k < 4; k++ {
				v.NumElem[k] = uint32(get(nums+k)) % 9
				v.StepElem[k] = int64(int8(get(steps + k)))
			}
			return v
		}
		es := func(d isa.DType) uint32 {
			if d.Size() > 0 {
				return uint32(d.Size())
			}
			return 1 + uint32(get(31))%8
		}
		r = Request{Gen: g, Src: mk(src, 2, 10, es(in)), Dst: mk(dst, 6, 14, es(out)), In: in, Out: out}
		if n := int(get(1) >> 1 & 3); n > 1 {
			r.Perm = nthPerm(n, int(get(1)>>3))
		}
	}
	r.ComputeOp = isa.DGEComputeOp(get(20) % 6)
	r.DMACfg = uint32(get(25)) | uint32(get(26))<<16
	r.Semaphore, r.SemIncrement = int(int8(get(27))), int(get(28)%20)
	r.CarveoutCfg = uint32(get(29)%8) << 16
	r.DstBound = isa.BoundCheckReg(get(30))
	return r, nil
}

func product(s []int) int {
	n := 1
	for _, x := range s {
		n *= x
	}
	return n
}

// nthPerm is permutation k (mod n!) of 0..n-1, in lexicographic order.
func nthPerm(n, k int) []int {
	left := make([]int, n)
	fact := 1
	for i := range left {
		left[i] = i
		fact *= i + 1
	}
	k %= fact
	out := make([]int, 0, n)
	for i := n; i > 0; i-- {
		fact /= i
		j := k / fact
		k %= fact
		out = append(out, left[j])
		left = append(left[:j], left[j+1:]...)
	}
	return out
}

// fuzzMems holds, per generation, the two reusable memories a planner iteration runs on (the
// planned job's and the reference's twin); Reset gives each iteration zeros without allocating
// SBUF and PSUM again.
var fuzzMems = map[isa.Generation]*[2]*dmatest.Memory{}

func fuzzMemPair(g isa.Generation) (m, twin *dmatest.Memory) {
	p := fuzzMems[g]
	if p == nil {
		p = &[2]*dmatest.Memory{dmatest.NewReusable(g), dmatest.NewReusable(g)}
		fuzzMems[g] = p
	}
	p[0].Reset()
	p[1].Reset()
	return p[0], p[1]
}

// FuzzPlanner: any request either is rejected or plans into descriptors that validate, whose
// element counts add up, and that run (or fail their checks) without a panic; where the result
// cannot depend on the order the descriptors run in, it equals the element-by-element reference.
func FuzzPlanner(f *testing.F) {
	// byte:    0  1          2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
	f.Add([]byte{2, 0, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})                              // CAYMAN: a copy HBM -> HBM
	f.Add([]byte{2, 2 | 1<<3, 7, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2})                       // a 16x32 bf16 transpose HBM -> SBUF: the crossbar
	f.Add([]byte{4, 2 | 1<<3, 9, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 0, 2, 3})                      // MARIANA_PLUS SBUF -> SBUF: sb2sb
	f.Add([]byte{4, 2 | 1<<3, 9, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 0, 2, 3, 0, 0, 1, 0, 3, 4, 1}) // ... on one engine, a 1-deep ring: credits
	f.Add([]byte{1, 6 | 5<<3, 3, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 2, 1, 0, 1})                       // SUNDA: a 4-D permute with a cast and ADD
	f.Add([]byte{3, 1, 4, 4, 1, 1, 4, 4, 1, 1, 1, 4, 0, 0, 4, 1, 0, 0, 2, 2, 0, 0, 1})                              // raw views: a transposing walk
	f.Add([]byte{5, 1, 8, 8, 2, 1, 8, 8, 2, 1, 0xff, 8, 64, 0, 1, 0xf8, 0x80, 0, 5, 5, 3, 3, 1, 0, 0})              // raw views: negative steps, MAX into HBM
	f.Add([]byte{0, 0, 1})                                                                                          // an invalid generation
	f.Fuzz(plannerCase)
}

// plannerCase is FuzzPlanner's body.
func plannerCase(t *testing.T, b []byte) {
	r, err := reqFromBytes(b)
	if err != nil {
		return
	}
	p, err := PlanRequest(r, Options{})
	if err != nil {
		return
	}
	var n uint64 // source bytes (the planner folds contiguous runs into wider elements)
	for _, q := range p.Job.Queues {
		for i := range q {
			if err := q[i].Validate(); err != nil {
				t.Fatalf("planned descriptor does not validate: %v\n%+v", err, q[i])
			}
			n += q[i].Elements() * uint64(q[i].Src.ElemSize)
		}
	}
	if want := r.Src.Elements() * uint64(r.Src.ElemSize); n != want {
		t.Fatalf("descriptors read %d source bytes, the request %d", n, want)
	}
	// Run on a patterned source; where the result cannot depend on the order the
	// descriptors run in (the destination's elements are distinct bytes, apart from the
	// source's), it must equal the element-by-element reference's on a twin memory.
	mm, tm := fuzzMemPair(r.Gen)
	m, twin := dmatest.Unsliced{M: mm}, dmatest.Unsliced{M: tm}
	pat := make([]byte, r.Src.Elements()*uint64(r.Src.ElemSize))
	for i := range pat {
		pat[i] = byte(i*131 + i>>8)
	}
	srcOK := WriteView(m, r.Src, pat) == nil
	_, err = dma.New(r.Gen).Run(m, &p.Job)
	if err != nil || !srcOK || !disjointElems(r.Dst) || overlaps(r.Src, r.Dst) {
		return
	}
	if WriteView(twin, r.Src, pat) != nil || Reference(twin, r) != nil {
		return
	}
	got, err1 := ReadView(m, r.Dst)
	want, err2 := ReadView(twin, r.Dst)
	if err1 != nil || err2 != nil {
		t.Fatalf("reading back the destination: %v, %v", err1, err2)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for got[i] == want[i] {
			i++
		}
		t.Fatalf("planned run differs from the reference at dst byte %d (got %x, want %x)\nrequest %+v\n%s", i, got[i], want[i], r, p.Text())
	}
}

// bytesOf returns the lowest and one past the highest byte address a view's elements touch.
func bytesOf(v View) (lo, hi int64) {
	lo, hi = 1<<62, -1<<62
	Walk(v, func(_ uint64, off int64) {
		lo, hi = min(lo, off), max(hi, off+int64(v.ElemSize))
	})
	return int64(v.Base) + lo, int64(v.Base) + hi
}

// overlaps reports whether the byte ranges two views span meet (a conservative test).
func overlaps(a, b View) bool {
	alo, ahi := bytesOf(a)
	blo, bhi := bytesOf(b)
	return alo < bhi && blo < ahi
}

// disjointElems reports whether no two elements of v share a byte.
func disjointElems(v View) bool {
	var offs []int64
	Walk(v, func(_ uint64, off int64) { offs = append(offs, off) })
	slices.Sort(offs)
	for i := 1; i < len(offs); i++ {
		if offs[i]-offs[i-1] < int64(v.ElemSize) {
			return false
		}
	}
	return true
}
