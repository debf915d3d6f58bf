package dge

import (
	"math/bits"
	"sort"

	"github.com/tpbsim/tpbsim/isa"
)

// Overlapping source and destination (rule dge_src_dst_disjoint, Provenance): the DMA engines
// give no ordering between the reads and writes of different descriptors, or of the engines a
// request is sprayed over, so a request whose source and destination byte ranges overlap has no
// defined result and is refused. The one exception is exact identity: a plain copy (no cast, no
// compute_op) whose permuted source walk visits the same addresses in the same order as its
// destination walk reads and writes every element in place — a no-op, accepted.
//
// The check is exact on the byte footprints (a strided source interleaved with a strided
// destination, or two tensors sharing SBUF partitions at different offsets, is disjoint), up to
// maxFootprintRuns contiguous runs per side; beyond that a pair whose bounding ranges overlap is
// refused as "cannot rule out an overlap". Gather/scatter (INDIRECT1D, GATHER_XPOSE) footprints
// depend on index values and are not checked here.

// maxFootprintRuns bounds the exact check: runs are enumerated, sorted and merged per side.
const maxFootprintRuns = 1 << 20

type byteRun struct{ lo, hi uint64 }

// checkDisjoint reports a request whose source and destination bytes overlap (identity excepted).
func (r *Request) checkDisjoint() error {
	if r.In == r.Out && r.ComputeOp == isa.DGEComputeNONE && sameWalk(permuted(r.Src, r.Perm), r.Dst) {
		return nil // exact identity: every element is read and written at one address, a no-op
	}
	sb, ok1 := bounds(r.Src)
	db, ok2 := bounds(r.Dst)
	if !ok1 || !ok2 || sb.hi <= db.lo || db.hi <= sb.lo {
		return nil // disjoint (or an address walk that overflows, refused later by the bounds checks)
	}
	sr, ok1 := footprint(r.Src)
	dr, ok2 := footprint(r.Dst)
	if !ok1 || !ok2 {
		return reqErr(RuleSrcDstDisjoint, "src bytes [0x%x, 0x%x) and dst bytes [0x%x, 0x%x) overlap in range and the views have more than %d runs: "+
			"tpbsim cannot rule out an overlap, and the DMA engines give no ordering between overlapping reads and writes", sb.lo, sb.hi, db.lo, db.hi, maxFootprintRuns)
	}
	if a, ok := firstCommon(sr, dr); ok {
		return reqErr(RuleSrcDstDisjoint, "src bytes [0x%x, 0x%x) and dst bytes [0x%x, 0x%x) share byte 0x%x: the DMA engines give no ordering "+
			"between the reads and writes of overlapping ranges (only an identical plain copy, a no-op, may name the same bytes)", sb.lo, sb.hi, db.lo, db.hi, a)
	}
	return nil
}

type vdim struct {
	n      uint64
	stride uint64 // bytes, > 0
}

// norm returns v's footprint base and its dims with n > 1 and non-zero steps as positive byte
// strides (a negative step walks the same bytes from the other end); ok is false when the walk
// overflows 64 bits.
func norm(v View) (base uint64, dims []vdim, ok bool) {
	base = v.Base
	es := uint64(v.ElemSize)
	for k := 0; k < 4; k++ {
		n, s := uint64(v.NumElem[k]), v.StepElem[k]
		if n <= 1 || s == 0 {
			continue
		}
		neg := s < 0
		if neg {
			s = -s
		}
		hi, stride := bits.Mul64(uint64(s), es)
		if hi != 0 {
			return 0, nil, false
		}
		hi, ext := bits.Mul64(n-1, stride)
		if hi != 0 {
			return 0, nil, false
		}
		if neg {
			if ext > base {
				return 0, nil, false
			}
			base -= ext
		}
		dims = append(dims, vdim{n, stride})
	}
	return base, dims, true
}

// bounds is the byte range [lo, hi) v's walk can touch.
func bounds(v View) (byteRun, bool) {
	base, dims, ok := norm(v)
	if !ok {
		return byteRun{}, false
	}
	hi := base + uint64(v.ElemSize)
	if hi < base {
		return byteRun{}, false
	}
	for _, d := range dims {
		ext := (d.n - 1) * d.stride
		if hi+ext < hi {
			return byteRun{}, false
		}
		hi += ext
	}
	return byteRun{base, hi}, true
}

// footprint returns v's bytes as sorted, merged runs; false when it has more than
// maxFootprintRuns runs (or overflows).
func footprint(v View) ([]byteRun, bool) {
	base, dims, ok := norm(v)
	if !ok {
		return nil, false
	}
	sort.Slice(dims, func(i, j int) bool { return dims[i].stride < dims[j].stride })
	run := uint64(v.ElemSize)
	for len(dims) > 0 && dims[0].stride <= run {
		// copies of a run at a stride no longer than the run abut or overlap: one longer run
		run += (dims[0].n - 1) * dims[0].stride
		dims = dims[1:]
	}
	count := uint64(1)
	for _, d := range dims {
		count *= d.n
		if count > maxFootprintRuns {
			return nil, false
		}
	}
	out := make([]byteRun, 0, count)
	var walk func(k int, off uint64)
	walk = func(k int, off uint64) {
		if k < 0 {
			out = append(out, byteRun{base + off, base + off + run})
			return
		}
		for i := uint64(0); i < dims[k].n; i++ {
			walk(k-1, off+i*dims[k].stride)
		}
	}
	walk(len(dims)-1, 0)
	sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r.lo <= merged[n-1].hi {
			merged[n-1].hi = max(merged[n-1].hi, r.hi)
			continue
		}
		merged = append(merged, r)
	}
	return merged, true
}

// firstCommon returns the lowest byte in both sorted, merged run lists.
func firstCommon(a, b []byteRun) (uint64, bool) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].lo, b[j].lo), min(a[i].hi, b[j].hi)
		if lo < hi {
			return lo, true
		}
		if a[i].hi <= b[j].hi {
			i++
		} else {
			j++
		}
	}
	return 0, false
}

// sameWalk reports whether two views visit the same element addresses in the same order with
// the same element size (dims of count 1 dropped, chained dims merged).
func sameWalk(a, b View) bool {
	if a.Base != b.Base || a.ElemSize != b.ElemSize {
		return false
	}
	ca, cb := canon(a), canon(b)
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		if ca[i] != cb[i] {
			return false
		}
	}
	return true
}

type sdim struct {
	n    uint64
	step int64
}

func canon(v View) []sdim {
	var out []sdim
	for k := 0; k < 4; k++ {
		n, s := uint64(v.NumElem[k]), v.StepElem[k]
		if n == 1 {
			continue
		}
		if l := len(out); l > 0 && s == out[l-1].step*int64(out[l-1].n) {
			out[l-1].n *= n
			continue
		}
		out = append(out, sdim{n, s})
	}
	return out
}
