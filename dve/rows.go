package dve

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// Row I/O of the fast paths: rows in place, lanes of decoded values.
//
// The fast paths of TensorReduce, TransposeTensorReduce (its reduce half), TensorCumulative,
// Cast, Reciprocal and StreamShuffle compute exactly what the element-by-element code
// computes (the reference, DVE.reference; TestFastMatchesReference holds them to the same bytes
// for every op, dtype pair and shape class). They differ in how: a channel's elements are
// decoded a chunk at a time by a loop specialised on the dtype, folded or scanned by a loop
// specialised on the ALU op (four groups at a time, whose independent accumulators hide the
// FP32 add's latency; each group still folds left to right from its first element), and
// encoded a chunk at a time; contiguous source rows are read where they are (no gather) when
// never-written tracking is off, contiguous destination rows are written where they are when
// that cannot change a byte still to be read; and every buffer is reused, as gatherAll's is.

// opScratch holds the buffers the fast paths reuse from one instruction to the next (a DVE runs
// one instruction at a time). Byte buffers above scratchMax are allocated per instruction and
// not kept; the row tables are cleared after each instruction so they keep no buffer alive.
type opScratch struct {
	out        []byte       // a destination built whole, then scattered
	transposed []byte       // TransposeTensorReduce's transposed source
	rows       [][]byte     // each channel's source walk
	orows      [][]byte     // each channel's destination walk
	tiles      [][32][]byte // TransposeTensorReduce's row tables, source then destination
	sets       []laneSet    // each worker's lanes (runRows)
	job        rowJob       // the job runRows runs
}

// rowSlots returns n entries of *s, grown when short.
func rowSlots(s *[][]byte, n int) [][]byte {
	if cap(*s) < n {
		*s = make([][]byte, n)
	}
	return (*s)[:n]
}

// readsInPlace reports whether the source walk can be read where it is: contiguous, not empty,
// and nothing to check (never-written tracking off, which only the gather checks).
func (d *DVE) readsInPlace(m *mem.Memory, o *operands) bool {
	return !d.reference && !m.Options().TrackUninit && o.src.Contiguous() && o.src.Elements() > 0
}

// srcRows returns each channel's source walk as one run of bytes: pre's rows when given
// (TransposeTensorReduce's transposed source), the partition bytes themselves when readsInPlace
// (inPlace), else the gathered source.
func (d *DVE) srcRows(m *mem.Memory, o *operands, pre []byte) (rows [][]byte, inPlace bool, err error) {
	n := o.src.Bytes()
	rows = rowSlots(&d.ops.rows, o.nac)
	switch {
	case pre != nil:
	case d.readsInPlace(m, o):
		off := o.src.Offset()
		for c := range rows {
			rows[c] = m.Partition(o.src.Start.Region, o.src.Partition(c))[off : off+n]
		}
		return rows, true, nil
	default:
		if pre, err = d.gatherAll(m, o); err != nil {
			return nil, false, err
		}
	}
	for c := range rows {
		rows[c] = pre[c*n : (c+1)*n]
	}
	return rows, false, nil
}

// dstRows returns where each channel's destination walk is built: the partition bytes
// themselves (inPlace) when the walk is contiguous and writing it cannot change a byte still to
// be read (the source is not read in place, or the two do not overlap), else d's buffer,
// channel-major. putRows finishes the write.
func (d *DVE) dstRows(m *mem.Memory, o *operands, srcInPlace bool) (rows [][]byte, inPlace bool) {
	n := o.dst.Bytes()
	rows = rowSlots(&d.ops.orows, o.nac)
	if !d.reference && o.dst.Contiguous() && n > 0 && !(srcInPlace && o.src.Span().Overlaps(o.dst.Span())) {
		off := o.dst.Offset()
		for c := range rows {
			rows[c] = m.Partition(o.dst.Start.Region, o.dst.Partition(c))[off : off+n]
		}
		return rows, true
	}
	buf := scratch(&d.ops.out, o.nac*n)
	for c := range rows {
		rows[c] = buf[c*n : (c+1)*n]
	}
	return rows, false
}

// putRows finishes a destination dstRows began: rows written in place are marked written (as
// Scatter marks the bytes it writes), a buffer is scattered. The row tables are cleared.
func (d *DVE) putRows(m *mem.Memory, o *operands, rows [][]byte, inPlace bool) {
	for c, row := range rows {
		if inPlace {
			m.MarkInit(o.dst.Start.Region, o.dst.Partition(c), o.dst.Offset(), len(row))
		} else {
			m.Scatter(o.dst, c, row)
		}
	}
	clear(rows)
	clear(d.ops.rows)
}

// foldRows is the fast TensorReduce (cumulative false: one result per group of G elements,
// negated when negate) and TensorCumulative (every running value).
func (d *DVE) foldRows(m *mem.Memory, o *operands, pre []byte, op isa.ALUOp, vk valueKind, G int, negate, cumulative bool) error {
	rows, srcInPlace, err := d.srcRows(m, o, pre)
	if err != nil {
		return err
	}
	orows, dstInPlace := d.dstRows(m, o, srcInPlace)
	if G > 0 && o.src.Elements() > 0 {
		d.runRows(o, rowJob{kind: jobFold, rows: rows, orows: orows, esIn: o.esIn, esOut: o.esOut,
			op: op, vk: vk, G: G, negate: negate, cumulative: cumulative})
	}
	d.putRows(m, o, orows, dstInPlace)
	return nil
}

// rowJob is the computation of a fast path, channel row by channel row: rows into orows.
type rowJob struct {
	kind        jobKind
	rows, orows [][]byte
	esIn, esOut int
	in, out     num.Kind // Cast, Reciprocal
	op          isa.ALUOp
	vk          valueKind
	G           int
	negate      bool
	cumulative  bool
}

type jobKind uint8

const (
	jobFold jobKind = iota // reduce or scan: foldGroups in the op class's lanes
	jobReciprocal
	jobCast // num.ConvertSlice, whose kinds the caller has checked
)

// laneSet is one worker's lanes, one per op class.
type laneSet struct {
	f32 lanes[float32]
	i64 lanes[int64]
	u64 lanes[uint64]
	u32 lanes[uint32]
}

// runRows runs j over all channel rows: on the caller's goroutine, or, for an instruction as
// large as a transpose that would go parallel (d.procs), split by rows over that many workers,
// each with its own lanes (the rows are independent; each worker writes its own).
func (d *DVE) runRows(o *operands, job rowJob) {
	d.ops.job = job // in d, so that the workers' closure need not copy it to the heap
	defer func() { d.ops.job = rowJob{} }()
	j := &d.ops.job
	n := min(d.procs(o.nac*(o.src.Bytes()+o.dst.Bytes())), len(j.rows))
	if len(d.ops.sets) < n {
		d.ops.sets = append(d.ops.sets, make([]laneSet, n-len(d.ops.sets))...)
	}
	if n <= 1 {
		j.run(&d.ops.sets[0], 0, len(j.rows))
		return
	}
	sets, rows := d.ops.sets, len(j.rows)
	parallel(n, n, func(w int) { j.run(&sets[w], w*rows/n, (w+1)*rows/n) })
}

// run computes rows [lo, hi) of j in the lanes of s.
func (j *rowJob) run(s *laneSet, lo, hi int) {
	rows, orows := j.rows[lo:hi], j.orows[lo:hi]
	switch j.kind {
	case jobFold:
		op, vk, negate := j.op, j.vk, j.negate
		switch vk.class {
		case classFloat:
			s.f32.set(op, vk, negate, vk.in == num.FP32 || vk.in == num.FP32R, num.LoadF32Slice, scanF32, num.StoreF32Slice, putF32, negateAll[float32])
			s.f32.outRaw = vk.out == num.FP32
			foldGroups(&s.f32, rows, orows, j.esIn, j.esOut, j.G, j.cumulative)
		case classInt:
			store := num.StoreIntSlice
			if vk.in == num.UINT64 {
				store = storeUnsigned
			}
			s.i64.set(op, vk, negate, vk.in.Size() == 8, num.LoadExtendedSlice, scanI64, store, putAsIs[int64], negateAll[int64])
			foldGroups(&s.i64, rows, orows, j.esIn, j.esOut, j.G, j.cumulative)
		default:
			if b := vk.in.SizeBits(); b >= 8 && b <= 32 { // uint32 lanes hold them; 4-bit and 64-bit dtypes take uint64
				s.u32.set(op, vk, false, b == 32, num.LoadBitsSlice[uint32], scanU32, num.StoreBitsSlice[uint32], putAsIs[uint32], nil)
				foldGroups(&s.u32, rows, orows, j.esIn, j.esOut, j.G, j.cumulative)
				break
			}
			s.u64.set(op, vk, false, vk.in.Size() == 8, num.LoadBitsSlice[uint64], scanU64, num.StoreBitsSlice[uint64], putAsIs[uint64], nil)
			foldGroups(&s.u64, rows, orows, j.esIn, j.esOut, j.G, j.cumulative)
		}
	case jobReciprocal:
		xs := s.f32.buffer()
		for c, row := range rows {
			for lo, E := 0, len(row)/j.esIn; lo < E; lo += len(xs) {
				x := xs[:min(len(xs), E-lo)]
				num.LoadF32Slice(x, row[lo*j.esIn:], j.in)
				for i, v := range x {
					x[i] = num.CanonicalNaN(1 / v)
				}
				num.StoreF32Slice(orows[c][lo*j.esOut:], x, j.out)
			}
		}
	case jobCast:
		for c, row := range rows {
			_ = num.ConvertSlice(orows[c], j.out, row, j.in, len(row)/j.esIn) // cannot fail: kinds checked, sizes exact
		}
	}
}
