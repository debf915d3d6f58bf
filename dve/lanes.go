package dve

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// The lanes: the element pipeline of one reduce or scan instruction in its op class's values.

// laneChunk is how many elements of a group a lane decodes at a time: four lanes of int64
// are 16 KiB, which stays in L1 with the results beside them.
const laneChunk = 512

// laneValue is the value type an op class computes in: FP32, the integer band's int64, and
// raw bit vectors (uint32 for the dtypes of up to 32 bits, uint64 for the others).
type laneValue interface {
	float32 | int64 | uint64 | uint32
}

// lanes is the element pipeline of one reduce or scan instruction in the value type T of its op
// class: the dtype and op specialised loops chosen for it, the four lanes the scan runs (x,
// from the accumulators acc, into y) and the buffer they are decoded into.
type lanes[T laneValue] struct {
	op      isa.ALUOp
	in, out num.Kind
	width   int
	negate  bool
	keep    bool                                         // scans keep every running value, in y (TensorCumulative)
	outRaw  bool                                         // out's bytes are T's own and store copies them: a scan writes the destination itself
	raw     bool                                         // the in dtype's bytes are T's own (FP32 for float32, 8-byte integers)
	load    func(xs []T, b []byte, k num.Kind)           // decode len(xs) elements of k from b
	scan    func(l *lanes[T])                            // per lane: acc = op(acc, x[i]); if keep, y[i] = acc
	store   func(b []byte, xs []T, k num.Kind)           // encode xs as k into b (may change xs)
	put     func(l *lanes[T], b []byte, xs []T, run int) // store results (see putF32)
	finish  func(xs []T)                                 // negate reduce results
	acc     [4]T
	res     []T // where a fold also writes its four results (the lanes' results of short groups), or nil
	x       [4][]T
	y       [4][]T // where a scan writes its running values: x[k] itself, the buffer, or the destination
	buf     []T    // 8 x laneChunk: decoded elements, then reduce results
	nans    []byte // laneChunk default NaNs encoded as nansOf (putF32)
	nansOf  num.Kind
}

func (l *lanes[T]) set(op isa.ALUOp, vk valueKind, negate, raw bool, load func([]T, []byte, num.Kind),
	scan func(*lanes[T]), store func([]byte, []T, num.Kind), put func(*lanes[T], []byte, []T, int), finish func([]T)) {
	l.op, l.in, l.out, l.width, l.negate, l.raw = op, vk.in, vk.out, vk.width, negate, raw
	l.load, l.scan, l.store, l.put, l.finish = load, scan, store, put, finish
	l.outRaw = false
}

// buffer returns the lanes' buffer, allocated on first use.
func (l *lanes[T]) buffer() []T {
	if l.buf == nil {
		l.buf = make([]T, 8*laneChunk)
	}
	return l.buf
}

// foldGroups folds (cumulative false) or scans every group of G consecutive elements of each
// source row into the destination rows. Groups of up to laneChunk elements are decoded (or
// viewed, raw) a block of whole groups of one row at a time and run four by four; larger groups
// run four at a time (consecutive groups, across rows) a chunk of each at a time. A scan writes
// its running values (y) to the lanes' buffer, or into the destination row itself when the out
// dtype holds them as they are (outRaw: FP32; no store then, but putF32's NaN patches). Lanes
// past the last group repeat the last real lane (the scans read all four lanes' x[i] before
// writing any).
func foldGroups[T laneValue](l *lanes[T], rows, orows [][]byte, es, esOut, G int, cumulative bool) {
	buf := l.buffer()
	l.keep = cumulative
	if G <= laneChunk {
		per := len(buf) / 2 / G // groups per block (at least 4)
		data, res := buf[:per*G], buf[len(buf)/2:]
		for c, row := range rows {
			R := len(row) / (es * G)
			for r0 := 0; r0 < R; r0 += per {
				n := min(per, R-r0)
				// A scan writes its running values (ys) into the buffer (over the decoded
				// elements, unless raw ones are read in place), or into the destination itself
				// when that holds them as they are (outRaw).
				xs, ys := l.read(data[:n*G], row[r0*G*es:]), data[:n*G]
				if cumulative && l.outRaw {
					if v, ok := num.View[T](orows[c][r0*G*esOut:], n*G); ok {
						ys = v
					}
				}
				if G > 1 {
					for j := 0; j < n && !cumulative; j += 4 { // a fold's four results go to res (l.res)
						for k := range 4 {
							q := min(j+k, n-1) * G
							l.acc[k], l.x[k] = xs[q], xs[q+1:q+G]
						}
						if j+4 <= n {
							l.res = res[j : j+4]
						}
						l.scan(l)
						if l.res = nil; j+4 > n {
							copy(res[j:n], l.acc[:])
						}
					}
					for j := 0; j < n && cumulative; j += 4 {
						for k := range 4 {
							q := min(j+k, n-1) * G
							l.acc[k], l.x[k], l.y[k], ys[q] = xs[q], xs[q+1:q+G], ys[q+1:q+G], xs[q]
						}
						l.scan(l)
					}
				} else {
					copy(res, xs)
					if cumulative {
						copy(ys, xs)
					}
				}
				if cumulative {
					l.put(l, orows[c][r0*G*esOut:], ys, G) // never xs, which may be the source
					continue
				}
				if l.negate {
					l.finish(res[:n])
				}
				l.put(l, orows[c][r0*esOut:], res[:n], 1)
			}
		}
		return
	}
	R := len(rows[0]) / (es * G)
	total := len(rows) * R
	for q0 := 0; q0 < total; q0 += 4 {
		real := min(4, total-q0)
		for off := 0; off < G; off += laneChunk {
			n := min(laneChunk, G-off)
			var ys [4][]T // each lane's running values (a scan): its buffer, or the destination (outRaw)
			for k := range 4 {
				if k >= real {
					l.x[k], l.y[k] = l.x[real-1], l.y[real-1]
					continue
				}
				q := q0 + k
				l.x[k] = l.read(buf[k*laneChunk:k*laneChunk+n], rows[q/R][(q%R*G+off)*es:])
				ys[k] = buf[k*laneChunk : k*laneChunk+n]
				if cumulative && l.outRaw {
					if v, ok := num.View[T](orows[q/R][(q%R*G+off)*esOut:], n); ok {
						ys[k] = v
					}
				}
				l.y[k] = ys[k]
			}
			if off == 0 {
				for k := range 4 {
					l.y[k][0] = l.x[k][0]
					l.acc[k], l.x[k], l.y[k] = l.x[k][0], l.x[k][1:], l.y[k][1:]
				}
			}
			l.scan(l)
			for k := 0; cumulative && k < real; k++ {
				q := q0 + k
				l.put(l, orows[q/R][(q%R*G+off)*esOut:], ys[k], n)
			}
		}
		if !cumulative {
			res := buf[4*laneChunk : 4*laneChunk+real]
			copy(res, l.acc[:])
			if l.negate {
				l.finish(res)
			}
			for k := range res {
				q := q0 + k
				l.put(l, orows[q/R][q%R*esOut:], res[k:k+1], 1)
			}
		}
	}
}

// read returns the len(dst) elements at b as values: b itself, viewed in place, when its bytes
// are the values' own encoding (raw; the scans write their running values to y, never to x),
// else decoded into dst.
func (l *lanes[T]) read(dst []T, b []byte) []T {
	if l.raw {
		if v, ok := num.View[T](b, len(dst)); ok {
			return v
		}
	}
	l.load(dst, b, l.in)
	return dst
}

// lanes4 returns the four lanes, resliced to one length so that the scans index them without
// bounds checks.
func lanes4[T laneValue](l *lanes[T]) (x0, x1, x2, x3 []T) {
	x0 = l.x[0]
	return x0, l.x[1][:len(x0)], l.x[2][:len(x0)], l.x[3][:len(x0)]
}

// outs4 returns where the four lanes' running values go (y), resliced to the lanes' length n.
func outs4[T laneValue](l *lanes[T], n int) (y0, y1, y2, y3 []T) {
	return l.y[0][:n], l.y[1][:n], l.y[2][:n], l.y[3][:n]
}
