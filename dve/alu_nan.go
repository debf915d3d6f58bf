package dve

import (
	"math"
	"unsafe"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// Storing ALU results: every NaN an ALU op stores is the default NaN (Provenance num.alu_nan).

// putAsIs stores xs as they are (the integer band and bit vectors have no NaN).
func putAsIs[T laneValue](l *lanes[T], b []byte, xs []T, run int) {
	if !inPlace(b, xs) {
		l.store(b, xs, l.out)
	}
}

// inPlace reports xs written where b is (a scan's running values written to the destination).
func inPlace[T laneValue](b []byte, xs []T) bool {
	return len(xs) > 0 && len(b) > 0 && unsafe.Pointer(unsafe.SliceData(xs)) == unsafe.Pointer(unsafe.SliceData(b))
}

// putF32 stores FP32 ALU results with every NaN the default NaN (Provenance num.alu_nan), or
// only makes their NaNs so when xs is the destination itself (inPlace). xs is whole runs of run
// consecutive running values of one group each (a scan; reduce results are runs of one).
// Checking every value would cost a scan about as much as its FP32 add, so under an op for which
// a NaN accumulator stays a NaN (nanSticky) the NaNs of a run are its suffix: one look at the
// run's last value; when that is a NaN, a short run is patched from its end back, a long one
// searched (firstNaN) and its suffix patched when short, else stored from l's block of default
// NaNs already encoded (the bytes stored stay those of one store). Other ops: value by value.
func putF32(l *lanes[float32], b []byte, xs []float32, run int) {
	direct := inPlace(b, xs) // xs is the destination: nothing to store but the NaNs
	if run <= 1 || !nanSticky(l.op) {
		num.CanonicalNaNs(xs)
		if !direct {
			l.store(b, xs, l.out)
		}
		return
	}
	es, start := l.out.Size(), 0
	nan := math.Float32frombits(num.DefaultNaNF32)
	for end := run; end <= len(xs); end += run {
		if v := xs[end-1]; v == v {
			continue
		}
		r := xs[end-run : end]
		if run <= putPatchMax { // short: patched from the end back
			for i := run - 1; i >= 0 && r[i] != r[i]; i-- {
				r[i] = nan
			}
			continue
		}
		first := 0
		if v := r[0]; v == v { // else the whole run is NaN (a long group's later lane chunks)
			first = firstNaN(r)
		}
		if run-first <= putPatchMax {
			for i := range r[first:] {
				r[first+i] = nan
			}
			continue
		}
		if s := end - run + first; s > start && !direct {
			l.store(b[start*es:], xs[start:s], l.out)
		}
		l.storeNaNs(b[(end-run+first)*es:], run-first)
		start = end
	}
	if start < len(xs) && !direct {
		l.store(b[start*es:], xs[start:], l.out)
	}
}

// firstNaN is the index of the first NaN of r, whose NaNs are a suffix that is not empty: a
// binary search whose steps select rather than branch (the data decides them at random).
func firstNaN(r []float32) int {
	first, n := 0, len(r) // the first NaN is in r[first:first+n]
	for n > 1 {
		half := n >> 1
		nan := int(int32(0x7F800000-math.Float32bits(r[first+half-1])&0x7FFFFFFF) >> 31) // -1 for a NaN, else 0
		first += half &^ nan
		n -= half
	}
	return first
}

// putPatchMax is the longest run putF32 patches from its end back, and the longest NaN suffix
// of a longer run it patches in place rather than storing apart.
const putPatchMax = 64

// nanSticky reports an FP32 op whose result is a NaN whenever its accumulator (src0) is: every
// float-class op but POW (pow(NaN, 0) is 1) and the comparisons and logic ops (0 or 1).
func nanSticky(op isa.ALUOp) bool {
	switch op {
	case isa.ALUBypass, isa.ALUAdd, isa.ALUSubtract, isa.ALUMult, isa.ALUDivide, isa.ALUMax, isa.ALUMin, isa.ALUAbsoluteDiff,
		isa.ALUAbsoluteValue, isa.ALUMod, isa.ALURsqrt, isa.ALUAbsMax, isa.ALUAbsMin, isa.ALUReLU, isa.ALUSquare:
		return true
	}
	return false
}

// storeNaNs writes n default NaNs encoded as l.out at b, from a block encoded once per out kind.
func (l *lanes[T]) storeNaNs(b []byte, n int) {
	es := l.out.Size()
	if l.nans == nil || l.nansOf != l.out {
		if l.nans == nil {
			l.nans = make([]byte, laneChunk*8)
		}
		for i := 0; i < laneChunk; i++ {
			num.StoreF32(l.out, l.nans[i*es:], math.Float32frombits(num.DefaultNaNF32))
		}
		l.nansOf = l.out
	}
	for n > 0 {
		k := min(n, laneChunk)
		copy(b[:k*es], l.nans)
		b, n = b[k*es:], n-k
	}
}
