package dge

import (
	"math/bits"

	"github.com/tpbsim/tpbsim/dma"
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

// maxFootprintRuns bounds the exact check: runs are enumerated, sorted and merged per side
// (dma.Footprint).
const maxFootprintRuns = 1 << 20

// checkDisjoint reports a request whose source and destination bytes overlap (identity excepted).
func (r *Request) checkDisjoint() error {
	if r.In == r.Out && r.ComputeOp == isa.DGEComputeNONE && sameWalk(permuted(r.Src, r.Perm), r.Dst) {
		return nil // exact identity: every element is read and written at one address, a no-op
	}
	sb, ok1 := bounds(r.Src)
	db, ok2 := bounds(r.Dst)
	if !ok1 || !ok2 || sb.Hi <= db.Lo || db.Hi <= sb.Lo {
		return nil // disjoint (or an address walk that overflows, refused later by the bounds checks)
	}
	sr, ok1 := footprint(r.Src)
	dr, ok2 := footprint(r.Dst)
	if !ok1 || !ok2 {
		return reqErr(RuleSrcDstDisjoint, "dst", "src bytes [0x%x, 0x%x) and dst bytes [0x%x, 0x%x) overlap in range and the views have more than %d runs: "+
			"tpbsim cannot rule out an overlap, and the DMA engines give no ordering between overlapping reads and writes", sb.Lo, sb.Hi, db.Lo, db.Hi, maxFootprintRuns)
	}
	if a, ok := firstCommon(sr, dr); ok {
		return reqErr(RuleSrcDstDisjoint, "dst", "src bytes [0x%x, 0x%x) and dst bytes [0x%x, 0x%x) share byte 0x%x: the DMA engines give no ordering "+
			"between the reads and writes of overlapping ranges (only an identical plain copy, a no-op, may name the same bytes)", sb.Lo, sb.Hi, db.Lo, db.Hi, a)
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
func bounds(v View) (dma.Run, bool) {
	base, dims, ok := norm(v)
	if !ok {
		return dma.Run{}, false
	}
	hi := base + uint64(v.ElemSize)
	if hi < base {
		return dma.Run{}, false
	}
	for _, d := range dims {
		ext := (d.n - 1) * d.stride
		if hi+ext < hi {
			return dma.Run{}, false
		}
		hi += ext
	}
	return dma.Run{Lo: base, Hi: hi}, true
}

// footprint returns v's bytes as sorted, merged runs (dma.Footprint, the DMA engines' own
// overlap test); false when it has more than maxFootprintRuns runs (or overflows).
func footprint(v View) ([]dma.Run, bool) {
	return dma.Footprint(dma.Side{Addr: v.Base, ElemSize: v.ElemSize, Step: v.StepElem}, v.NumElem, maxFootprintRuns)
}

// firstCommon returns the lowest byte in both sorted, merged run lists.
func firstCommon(a, b []dma.Run) (uint64, bool) {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].Lo, b[j].Lo), min(a[i].Hi, b[j].Hi)
		if lo < hi {
			return lo, true
		}
		if a[i].Hi <= b[j].Hi {
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
