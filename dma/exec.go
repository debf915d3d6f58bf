package dma

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// runner executes descriptors on one memory. It is cheap; the engines make one per job.
type runner struct {
	mem  Memory
	sl   Slicer
	rc   RangeChecker
	regs *BoundRegs
	// scratch, reused by every descriptor the runner checks or runs
	idxBytes   []byte
	sidx, didx []uint32
	elems      []byte
	slab       []prepared
}

// fork is a runner on the same memory and registers with scratch of its own, for another
// goroutine.
func (r *runner) fork() *runner {
	return &runner{mem: r.mem, sl: r.sl, rc: r.rc, regs: r.regs}
}

func newRunner(mem Memory, regs *BoundRegs) *runner {
	r := &runner{mem: mem, regs: regs}
	r.sl, _ = mem.(Slicer)
	r.rc, _ = mem.(RangeChecker)
	if r.regs == nil {
		r.regs = &BoundRegs{}
	}
	return r
}

// maxSpan bounds every level's byte extent so offset arithmetic stays in int64 (2^58).
const maxSpan = 1 << 58

// checkSpan rejects nests whose byte extent could overflow the offset arithmetic.
func checkSpan(name string, s Side, n [MaxLevels]uint32) error {
	total := uint64(0)
	for k := 0; k < MaxLevels; k++ {
		st := s.Step[k]
		if st == math.MinInt64 {
			return descErr(name+": step_elem["+strconv.Itoa(k)+"]", "step_elem[%d] = %d", k, st)
		}
		if st < 0 {
			st = -st
		}
		hi, lo := bits.Mul64(uint64(st), uint64(s.ElemSize))
		if hi != 0 {
			return descErr(name+": step_elem["+strconv.Itoa(k)+"]", "step_elem[%d] = %d too large", k, s.Step[k])
		}
		hi, lo = bits.Mul64(lo, uint64(n[k]))
		if hi != 0 || lo > maxSpan {
			return descErr(name+": num_elem["+strconv.Itoa(k)+"]", "level %d spans more than 2^58 bytes", k)
		}
		total += lo
	}
	if total > maxSpan {
		return descErr(name+": num_elem", "nest spans more than 2^58 bytes")
	}
	return nil
}

// span is the byte range [lo, hi) of a walk relative to s.Addr, levels 0..top.
func span(s Side, n [MaxLevels]uint32, top int) (lo, hi int64) {
	es := int64(s.ElemSize)
	for k := 0; k <= top; k++ {
		d := int64(n[k]-1) * s.Step[k] * es
		if d < 0 {
			lo += d
		} else {
			hi += d
		}
	}
	return lo, hi + es
}

// byteSteps converts element steps to byte steps.
func byteSteps(s Side) (b [MaxLevels]int64) {
	for k := range b {
		b[k] = s.Step[k] * int64(s.ElemSize)
	}
	return
}

// addrAt adds a signed byte offset to an address, reporting wrap-around.
func addrAt(a uint64, off int64) (uint64, bool) {
	if off < 0 {
		if uint64(-off) > a {
			return 0, false
		}
		return a - uint64(-off), true
	}
	r := a + uint64(off)
	return r, r >= a
}

// checkRange asks the memory whether [a, a+n) may be accessed.
func (r *runner) checkRange(a, n uint64, write bool) error {
	if r.rc != nil {
		return r.rc.CheckRange(a, n, write)
	}
	var buf [64 << 10]byte
	for n > 0 {
		c := min(n, uint64(len(buf)))
		if err := r.mem.ReadAt(a, buf[:c]); err != nil {
			return err
		}
		a += c
		n -= c
	}
	return nil
}

// checkSide checks one side of a nest descriptor: the bound register first, then the memory's
// active areas, narrowing from the whole box to lines to elements only where the box fails.
func (r *runner) checkSide(eng, idx int, name string, s Side, n [MaxLevels]uint32, write bool, sem, inc int) error {
	if err := checkSpan(name, s, n); err != nil {
		return err
	}
	lo, hi := span(s, n, MaxLevels-1)
	alo, ok1 := addrAt(s.Addr, lo)
	ahi, ok2 := addrAt(s.Addr, hi)
	if !ok1 || !ok2 {
		return &BoundsError{Engine: eng, Desc: idx, Side: name, Lo: alo, Hi: ahi, Reg: -1, Sem: sem, SemInc: inc,
			Err: wrapError("the walk wraps the 64-bit address space")}
	}
	if err := r.checkBound(eng, idx, name, s.Bound, s.BoundBase, alo, ahi, sem, inc); err != nil {
		return err
	}
	return r.memNest(eng, idx, name, s, n, MaxLevels-1, 0, write, sem, inc)
}

func (r *runner) checkBound(eng, idx int, name string, b isa.BoundCheckReg, base, lo, hi uint64, sem, inc int) error {
	if !b.Enabled() {
		return nil
	}
	limit := uint64(r.regs[b.Reg()])
	if lo < base || hi-base > limit {
		return &BoundsError{Engine: eng, Desc: idx, Side: name, Lo: lo, Hi: hi, Reg: int(b.Reg()), Limit: limit, Base: base, Sem: sem, SemInc: inc}
	}
	return nil
}

func (r *runner) memNest(eng, idx int, name string, s Side, n [MaxLevels]uint32, lv int, off int64, write bool, sem, inc int) error {
	for lv > 0 && n[lv] == 1 {
		lv--
	}
	lo, hi := span(s, n, lv)
	a, _ := addrAt(s.Addr, off+lo)
	err := r.checkRange(a, uint64(hi-lo), write)
	if err == nil {
		return nil
	}
	bad := func(a, b uint64, e error) error {
		return &BoundsError{Engine: eng, Desc: idx, Side: name, Lo: a, Hi: b, Reg: -1, Sem: sem, SemInc: inc, Err: e}
	}
	if lv == 0 {
		if n[0] == 1 || s.Step[0] == 1 || s.Step[0] == -1 {
			// narrow to the first refused byte
			good, size := uint64(0), uint64(hi-lo)
			for l, h := uint64(0), size; l < h; {
				mid := (l + h + 1) / 2
				if r.checkRange(a, mid, write) == nil {
					l, good = mid, mid
				} else {
					h = mid - 1
				}
			}
			return bad(a+good, a+size, err)
		}
		es := int64(s.ElemSize)
		for i := int64(0); i < int64(n[0]); i++ {
			e, _ := addrAt(s.Addr, off+i*s.Step[0]*es)
			if err := r.checkRange(e, uint64(es), write); err != nil {
				return bad(e, e+uint64(es), err)
			}
		}
		return nil
	}
	st := s.Step[lv] * int64(s.ElemSize)
	for i := int64(0); i < int64(n[lv]); i++ {
		if err := r.memNest(eng, idx, name, s, n, lv-1, off+i*st, write, sem, inc); err != nil {
			return err
		}
	}
	return nil
}

// prepared is what the pre-flight check learned about a descriptor (the resolved rows of an
// indirect transfer), so execution does not repeat it.
type prepared struct {
	rows []row // KindGather, KindGatherXpose
	one  [1]row
}

// noRows is the prepared form of a descriptor without indirect rows (read only).
var noRows = &prepared{}

// newPrepared is a prepared descriptor of n rows, taken from the runner's slab (a job's gathers
// share a few allocations); one row lives in the prepared itself, the common gather of one row a
// descriptor.
func (r *runner) newPrepared(n int) *prepared {
	if len(r.slab) == 0 {
		r.slab = make([]prepared, 16)
	}
	p := &r.slab[0]
	r.slab = r.slab[1:]
	if n <= len(p.one) {
		p.rows = p.one[:n]
	} else {
		p.rows = make([]row, n)
	}
	return p
}

type row struct {
	src, dst uint64
	pos      int // index position (gather transpose: dst column j)
	skip     bool
}

// check runs every pre-flight test of one descriptor and returns what execution needs.
func (r *runner) check(d *Descriptor, eng, idx, sem, inc int) (*prepared, error) {
	p, err := r.check1(d, eng, idx, sem, inc)
	return p, refusal(err)
}

func (r *runner) check1(d *Descriptor, eng, idx, sem, inc int) (*prepared, error) {
	if err := d.validate(); err != nil {
		err.Engine, err.Desc = eng, idx
		return nil, err
	}
	switch d.Kind {
	case KindCopy, KindXbar:
		if err := r.checkSide(eng, idx, "src", d.Src, d.Num, false, sem, inc); err != nil {
			return nil, err
		}
		if err := r.checkSide(eng, idx, "dst", d.Dst, d.dstNum(), true, sem, inc); err != nil {
			return nil, err
		}
		return noRows, nil
	case KindGather:
		return r.checkIndirect(d, eng, idx, sem, inc)
	case KindGatherXpose:
		return r.checkGatherXpose(d, eng, idx, sem, inc)
	}
	return nil, descErr("kind", "kind %v", d.Kind)
}

// readIdx reads n uint32 indices at a into out's room (the runner's scratch), which it returns.
func (r *runner) readIdx(a uint64, n int, out []uint32) ([]uint32, error) {
	r.idxBytes = slices.Grow(r.idxBytes[:0], 4*n)[:4*n]
	b := r.idxBytes
	if err := r.mem.ReadAt(a, b); err != nil {
		return nil, err
	}
	out = slices.Grow(out[:0], n)[:n]
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out, nil
}

// readIdx1 reads the uint32 index at a.
func (r *runner) readIdx1(a uint64) (uint32, error) {
	var b [4]byte
	if err := r.mem.ReadAt(a, b[:]); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}

func (r *runner) idxLimit(extent uint32, b isa.BoundCheckReg) uint32 {
	lim := extent
	if b.Enabled() && r.regs[b.Reg()] < lim {
		lim = r.regs[b.Reg()]
	}
	return lim
}

func (r *runner) checkIndirect(d *Descriptor, eng, idx, sem, inc int) (*prepared, error) {
	in := d.Indirect
	var sidx, didx []uint32
	var err error
	if in.Mode == isa.SrcIndirection || in.Mode == isa.SrcDstIndirection {
		if sidx, err = r.readIdx(in.SrcIdx, in.Count, r.sidx); err != nil {
			return nil, &BoundsError{Engine: eng, Desc: idx, Side: "src_idx", Lo: in.SrcIdx, Hi: in.SrcIdx + 4*uint64(in.Count), Reg: -1, Sem: sem, SemInc: inc, Err: err}
		}
		r.sidx = sidx
	}
	if in.Mode == isa.DstIndirection || in.Mode == isa.SrcDstIndirection {
		if didx, err = r.readIdx(in.DstIdx, in.Count, r.didx); err != nil {
			return nil, &BoundsError{Engine: eng, Desc: idx, Side: "dst_idx", Lo: in.DstIdx, Hi: in.DstIdx + 4*uint64(in.Count), Reg: -1, Sem: sem, SemInc: inc, Err: err}
		}
		r.didx = didx
	}
	slim, dlim := r.idxLimit(in.SrcExtent, in.SrcIdxBound), r.idxLimit(in.DstExtent, in.DstIdxBound)
	p := r.newPrepared(in.Count)
	ses, des := int64(d.Src.ElemSize), int64(d.Dst.ElemSize)
	for i := 0; i < in.Count; i++ {
		si, di := uint32(i), uint32(i)
		rw := row{pos: i}
		if sidx != nil {
			si = sidx[i]
			if si >= slim {
				if in.IdxBoundIsErr {
					return nil, &IndexError{Engine: eng, Desc: idx, Side: "src_idx", Pos: in.First + i, Index: si, Bound: slim}
				}
				rw.skip = true
			}
		}
		if didx != nil {
			di = didx[i]
			if di >= dlim {
				if in.IdxBoundIsErr {
					return nil, &IndexError{Engine: eng, Desc: idx, Side: "dst_idx", Pos: in.First + i, Index: di, Bound: dlim}
				}
				rw.skip = true
			}
		}
		var ok1, ok2 bool
		rw.src, ok1 = addrAt(d.Src.Addr, int64(si)*d.Src.Step[0]*ses)
		rw.dst, ok2 = addrAt(d.Dst.Addr, int64(di)*d.Dst.Step[0]*des)
		if !ok1 || !ok2 {
			return nil, &BoundsError{Engine: eng, Desc: idx, Side: "src", Lo: rw.src, Hi: rw.src, Reg: -1, Sem: sem, SemInc: inc, Err: wrapError(fmt.Sprintf("row %d wraps the address space", i))}
		}
		if !rw.skip {
			if err := r.checkBound(eng, idx, "src", d.Src.Bound, d.Src.BoundBase, rw.src, rw.src+uint64(ses), sem, inc); err != nil {
				return nil, err
			}
			if err := r.checkBound(eng, idx, "dst", d.Dst.Bound, d.Dst.BoundBase, rw.dst, rw.dst+uint64(des), sem, inc); err != nil {
				return nil, err
			}
			if err := r.checkRange(rw.src, uint64(ses), false); err != nil {
				return nil, &BoundsError{Engine: eng, Desc: idx, Side: "src", Lo: rw.src, Hi: rw.src + uint64(ses), Reg: -1, Sem: sem, SemInc: inc, Err: err}
			}
			if err := r.checkRange(rw.dst, uint64(des), true); err != nil {
				return nil, &BoundsError{Engine: eng, Desc: idx, Side: "dst", Lo: rw.dst, Hi: rw.dst + uint64(des), Reg: -1, Sem: sem, SemInc: inc, Err: err}
			}
		}
		p.rows[i] = rw
	}
	return p, nil
}

func (r *runner) checkGatherXpose(d *Descriptor, eng, idx, sem, inc int) (*prepared, error) {
	g := d.GatherXpose
	p := r.newPrepared(g.Count)
	p.rows = p.rows[:0]
	lim := uint32(math.MaxUint32)
	if g.IdxBound.Enabled() {
		lim = r.regs[g.IdxBound.Reg()]
	}
	// The destination block: Cols rows of Count elements from column First.
	dst := d.Dst
	dst.Addr, _ = addrAt(d.Dst.Addr, int64(g.First)*2)
	dst.Step = [MaxLevels]int64{1, d.Dst.Step[1]}
	dn := [MaxLevels]uint32{uint32(g.Count), uint32(g.Cols), 1, 1}
	if g.Count > 0 {
		if err := r.checkSide(eng, idx, "dst", dst, dn, true, sem, inc); err != nil {
			return nil, err
		}
	}
	for j := g.First; j < g.First+g.Count; j++ {
		a, _ := addrAt(g.Idx, int64(j%g.IdxPartitions)*int64(g.PartitionStride)+int64(j/g.IdxPartitions)*4)
		v, err := r.readIdx1(a)
		if err != nil {
			return nil, &BoundsError{Engine: eng, Desc: idx, Side: "src_idx", Lo: a, Hi: a + 4, Reg: -1, Sem: sem, SemInc: inc, Err: err}
		}
		rw := row{pos: j}
		if v >= lim {
			if !g.SkipOOB {
				return nil, &IndexError{Engine: eng, Desc: idx, Side: "src_idx", Pos: j, Index: v, Bound: lim}
			}
			rw.skip = true
			p.rows = append(p.rows, rw)
			continue
		}
		src := d.Src
		var ok bool
		src.Addr, ok = addrAt(d.Src.Addr, int64(v)*d.Src.Step[1]*2)
		if !ok {
			return nil, &BoundsError{Engine: eng, Desc: idx, Side: "src", Lo: src.Addr, Hi: src.Addr, Reg: -1, Sem: sem, SemInc: inc, Err: wrapError(fmt.Sprintf("row %d wraps the address space", v))}
		}
		src.Step = [MaxLevels]int64{d.Src.Step[0]}
		if err := r.checkSide(eng, idx, "src", src, [MaxLevels]uint32{uint32(g.Cols), 1, 1, 1}, false, sem, inc); err != nil {
			return nil, err
		}
		rw.src = src.Addr
		p.rows = append(p.rows, rw)
	}
	return p, nil
}

// exec moves the bytes of one checked descriptor.
func (r *runner) exec(d *Descriptor, p *prepared) error {
	switch d.Kind {
	case KindCopy, KindXbar:
		return r.copyDesc(d)
	case KindGather:
		return r.execIndirect(d, p)
	case KindGatherXpose:
		return r.execGatherXpose(d, p)
	}
	return descErr("kind", "kind %v", d.Kind)
}

// chunkBytes is the largest descriptor the generic (buffered) path handles in one piece.
const chunkBytes = 4 << 20

func (r *runner) copyDesc(d *Descriptor) error {
	common := d.DstNum == ([MaxLevels]uint32{})
	raw := d.ComputeOp == isa.DGEComputeNONE && (d.In == d.Out)
	if raw && common && d.Src.ElemSize == d.Dst.ElemSize && r.sl != nil {
		slo, shi := span(d.Src, d.Num, MaxLevels-1)
		dlo, dhi := span(d.Dst, d.Num, MaxLevels-1)
		sa, _ := addrAt(d.Src.Addr, slo)
		da, _ := addrAt(d.Dst.Addr, dlo)
		if sb, ok := r.sl.Slice(sa, int(shi-slo)); ok {
			if db, ok := r.sl.Slice(da, int(dhi-dlo)); ok {
				copyNest(db, sb, -dlo, -slo, d.Num, byteSteps(d.Dst), byteSteps(d.Src), int64(d.Src.ElemSize))
				return nil
			}
		}
	}
	// Generic path: split large common nests along the outermost level (or the only one), then buffer.
	if common && d.Bytes() > chunkBytes {
		top := d.Levels() - 1
		if d.Num[top] > 1 {
			sub := *d
			step := uint32(1)
			if top == 0 {
				step = uint32(max(1, chunkBytes/uint64(max(d.Src.ElemSize, d.Dst.ElemSize))))
			}
			for i := uint32(0); i < d.Num[top]; i += step {
				sub.Num[top] = min(step, d.Num[top]-i)
				sub.Src.Addr, _ = addrAt(d.Src.Addr, int64(i)*d.Src.Step[top]*int64(d.Src.ElemSize))
				sub.Dst.Addr, _ = addrAt(d.Dst.Addr, int64(i)*d.Dst.Step[top]*int64(d.Dst.ElemSize))
				if err := r.copyDesc(&sub); err != nil {
					return err
				}
			}
			return nil
		}
	}
	n := d.Elements()
	sp := getBuf(n * uint64(d.Src.ElemSize))
	defer putBuf(sp)
	sbuf := *sp
	if err := r.gather(d.Src, d.Num, sbuf); err != nil { // writes every byte of sbuf
		return err
	}
	dn := d.dstNum()
	dbuf := sbuf
	if !raw || d.Src.ElemSize != d.Dst.ElemSize {
		dp := getBuf(n * uint64(d.Dst.ElemSize))
		defer putBuf(dp)
		dbuf = *dp
		if d.ComputeOp != isa.DGEComputeNONE {
			if err := r.gather(d.Dst, dn, dbuf); err != nil {
				return err
			}
		} else {
			clear(dbuf) // as a new buffer: transform's result does not depend on what it held
		}
		if err := transform(dbuf, d.Out, sbuf, d.In, d.ComputeOp); err != nil {
			return err
		}
	}
	return r.scatter(d.Dst, dn, dbuf)
}

// copyBufs holds copyDesc's staging buffers for reuse (a new pair per descriptor was 4% of the
// bytes a FuzzRandomKernel exec allocated). A sync.Pool, so the parallel workers share it and
// an Engines holds none.
var copyBufs sync.Pool

// maxPooledBuf bounds the buffers copyBufs keeps: a larger one is allocated for its descriptor
// and dropped.
const maxPooledBuf = 256 << 10

// getBuf returns a buffer of n bytes (contents arbitrary) for putBuf to give back.
func getBuf(n uint64) *[]byte {
	if n <= maxPooledBuf {
		if p, ok := copyBufs.Get().(*[]byte); ok {
			if uint64(cap(*p)) >= n {
				*p = (*p)[:n]
				return p
			}
			// too small: dropped, and the larger one made here is kept instead
		}
	}
	b := make([]byte, n)
	return &b
}

func putBuf(p *[]byte) {
	if cap(*p) <= maxPooledBuf {
		copyBufs.Put(p)
	}
}

// transform applies the cast and compute_op: dst op= src in the destination dtype via FP32
// (FACTS §C.2, §C.6 DGE_COMPUTE_OP; DESIGN §4 casts). A compute_op runs over chunks: both sides
// widened to FP32 words by num.ConvertSlice, the op in one loop, the result narrowed back
// (transformElementwise is the element-by-element reference it is tested against).
func transform(dst []byte, out num.Kind, src []byte, in num.Kind, op isa.DGEComputeOp) error {
	if in == 0 {
		copy(dst, src)
		return nil
	}
	is, os := in.Size(), out.Size()
	nv := len(src) / is
	if op == isa.DGEComputeNONE {
		return num.ConvertSlice(dst, out, src, in, nv)
	}
	const chunk = 256
	var xw, yw [chunk]float32 // FP32 words, viewed as bytes for ConvertSlice
	xb := unsafe.Slice((*byte)(unsafe.Pointer(&xw)), 4*chunk)
	yb := unsafe.Slice((*byte)(unsafe.Pointer(&yw)), 4*chunk)
	for lo := 0; lo < nv; lo += chunk {
		k := min(chunk, nv-lo)
		if err := num.ConvertSlice(xb, num.FP32, src[lo*is:], in, k); err != nil {
			return err
		}
		if err := num.ConvertSlice(yb, num.FP32, dst[lo*os:], out, k); err != nil {
			return err
		}
		swapLE(xw[:k])
		swapLE(yw[:k])
		computeF32(yw[:k], xw[:k], op)
		swapLE(yw[:k])
		if err := num.ConvertSlice(dst[lo*os:], out, yb, num.FP32, k); err != nil {
			return err
		}
	}
	return nil
}

// hostLittleEndian: the host stores a float32 as its little-endian FP32 bytes, as the device does.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// swapLE turns FP32 words held as little-endian bytes into the host's values, or back: nothing
// on a little-endian host.
func swapLE(ws []float32) {
	if hostLittleEndian {
		return
	}
	for i, w := range ws {
		ws[i] = math.Float32frombits(bits.ReverseBytes32(math.Float32bits(w)))
	}
}

// computeF32 sets every y of ys to Compute(op, y, x), x the value of xs at the same place. Each
// op has its own loop calling Compute with a constant op, so the inlined Compute's switch folds
// away and the loop body is the op alone; the semantics stay Compute's.
func computeF32(ys, xs []float32, op isa.DGEComputeOp) {
	xs = xs[:len(ys)]
	switch op {
	case isa.DGEComputeADD:
		for i, y := range ys {
			ys[i] = Compute(isa.DGEComputeADD, y, xs[i])
		}
	case isa.DGEComputeMULTIPLY:
		for i, y := range ys {
			ys[i] = Compute(isa.DGEComputeMULTIPLY, y, xs[i])
		}
	case isa.DGEComputeMAX:
		for i, y := range ys {
			ys[i] = Compute(isa.DGEComputeMAX, y, xs[i])
		}
	case isa.DGEComputeMIN:
		for i, y := range ys {
			ys[i] = Compute(isa.DGEComputeMIN, y, xs[i])
		}
	default:
		for i, y := range ys {
			ys[i] = Compute(op, y, xs[i])
		}
	}
}

// transformElementwise is transform's compute_op path one element at a time, each value
// converted alone (num.LoadF32 / num.StoreF32): the reference the chunked conversions are held to.
func transformElementwise(dst []byte, out num.Kind, src []byte, in num.Kind, op isa.DGEComputeOp) {
	is, os := in.Size(), out.Size()
	for j := 0; j < len(src)/is; j++ {
		x := num.LoadF32(in, src[j*is:])
		y := num.LoadF32(out, dst[j*os:])
		num.StoreF32(out, dst[j*os:], Compute(op, y, x))
	}
}

// lines calls fn for every innermost line of a walk, in nest order: its start address, count and
// byte step.
func lines(s Side, n [MaxLevels]uint32, fn func(a uint64, cnt int, step int64) error) error {
	bs := byteSteps(s)
	for i3 := int64(0); i3 < int64(n[3]); i3++ {
		for i2 := int64(0); i2 < int64(n[2]); i2++ {
			for i1 := int64(0); i1 < int64(n[1]); i1++ {
				a, _ := addrAt(s.Addr, i3*bs[3]+i2*bs[2]+i1*bs[1])
				if err := fn(a, int(n[0]), bs[0]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// gather reads the elements of a walk, in nest order, into buf.
func (r *runner) gather(s Side, n [MaxLevels]uint32, buf []byte) error {
	es := int(s.ElemSize)
	if r.sl != nil {
		lo, hi := span(s, n, MaxLevels-1)
		a, _ := addrAt(s.Addr, lo)
		if sb, ok := r.sl.Slice(a, int(hi-lo)); ok {
			pos := 0
			return lines(s, n, func(la uint64, cnt int, step int64) error {
				o := int64(la - a)
				if step == int64(es) {
					pos += copy(buf[pos:], sb[o:o+int64(cnt*es)])
					return nil
				}
				for i := 0; i < cnt; i++ {
					pos += copy(buf[pos:pos+es], sb[o:o+int64(es)])
					o += step
				}
				return nil
			})
		}
	}
	pos := 0
	return lines(s, n, func(la uint64, cnt int, step int64) error {
		if step == int64(es) {
			err := r.mem.ReadAt(la, buf[pos:pos+cnt*es])
			pos += cnt * es
			return err
		}
		for i := 0; i < cnt; i++ {
			e, _ := addrAt(la, int64(i)*step)
			if err := r.mem.ReadAt(e, buf[pos:pos+es]); err != nil {
				return err
			}
			pos += es
		}
		return nil
	})
}

// scatter writes buf over the elements of a walk, in nest order.
func (r *runner) scatter(s Side, n [MaxLevels]uint32, buf []byte) error {
	es := int(s.ElemSize)
	if r.sl != nil {
		lo, hi := span(s, n, MaxLevels-1)
		a, _ := addrAt(s.Addr, lo)
		if db, ok := r.sl.Slice(a, int(hi-lo)); ok {
			pos := 0
			return lines(s, n, func(la uint64, cnt int, step int64) error {
				o := int64(la - a)
				if step == int64(es) {
					pos += copy(db[o:o+int64(cnt*es)], buf[pos:])
					return nil
				}
				for i := 0; i < cnt; i++ {
					pos += copy(db[o:o+int64(es)], buf[pos:pos+es])
					o += step
				}
				return nil
			})
		}
	}
	pos := 0
	return lines(s, n, func(la uint64, cnt int, step int64) error {
		if step == int64(es) {
			err := r.mem.WriteAt(la, buf[pos:pos+cnt*es])
			pos += cnt * es
			return err
		}
		for i := 0; i < cnt; i++ {
			e, _ := addrAt(la, int64(i)*step)
			if err := r.mem.WriteAt(e, buf[pos:pos+es]); err != nil {
				return err
			}
			pos += es
		}
		return nil
	})
}

func (r *runner) execIndirect(d *Descriptor, p *prepared) error {
	ses, des := int(d.Src.ElemSize), int(d.Dst.ElemSize)
	r.elems = slices.Grow(r.elems[:0], ses+des)[:ses+des]
	sb, db := r.elems[:ses:ses], r.elems[ses:]
	for _, rw := range p.rows {
		if rw.skip {
			continue
		}
		if err := r.mem.ReadAt(rw.src, sb); err != nil {
			return err
		}
		out := sb
		if d.In != 0 && (d.In != d.Out || d.ComputeOp != isa.DGEComputeNONE) {
			if d.ComputeOp != isa.DGEComputeNONE {
				if err := r.mem.ReadAt(rw.dst, db); err != nil {
					return err
				}
			}
			if err := transform(db, d.Out, sb, d.In, d.ComputeOp); err != nil {
				return err
			}
			out = db
		}
		if err := r.mem.WriteAt(rw.dst, out); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) execGatherXpose(d *Descriptor, p *prepared) error {
	g := d.GatherXpose
	if g.Count == 0 {
		return nil
	}
	// Build the destination block: Cols rows x Count columns.
	blk := make([]byte, g.Cols*g.Count*2)
	anySkip := false
	for _, rw := range p.rows {
		anySkip = anySkip || rw.skip
	}
	rowStep := d.Dst.Step[1] * 2
	base, _ := addrAt(d.Dst.Addr, int64(g.First)*2)
	if anySkip {
		for f := 0; f < g.Cols; f++ {
			a, _ := addrAt(base, int64(f)*rowStep)
			if err := r.mem.ReadAt(a, blk[f*g.Count*2:(f+1)*g.Count*2]); err != nil {
				return err
			}
		}
	}
	line := make([]byte, g.Cols*2)
	for _, rw := range p.rows {
		if rw.skip {
			continue
		}
		src := d.Src
		src.Addr = rw.src
		src.Step = [MaxLevels]int64{d.Src.Step[0]}
		if err := r.gather(src, [MaxLevels]uint32{uint32(g.Cols), 1, 1, 1}, line); err != nil {
			return err
		}
		j := rw.pos - g.First
		for f := 0; f < g.Cols; f++ {
			o := (f*g.Count + j) * 2
			blk[o], blk[o+1] = line[2*f], line[2*f+1]
		}
	}
	for f := 0; f < g.Cols; f++ {
		a, _ := addrAt(base, int64(f)*rowStep)
		if err := r.mem.WriteAt(a, blk[f*g.Count*2:(f+1)*g.Count*2]); err != nil {
			return err
		}
	}
	return nil
}
