package dge

import (
	"github.com/tpbsim/tpbsim/isa"
)

// partitionsInRegion refuses an on-chip view some of whose elements lie past the last partition
// of the region its first element is in (RulePartitionInRange): SBUF rows past partition 127 are
// not SBUF rows, even though the on-chip address map puts PSUM right after them, and a walk that
// runs into them would write PSUM (or nothing) without a word. The error names the first element
// in walk order that leaves the region and the row (partition) it would be.
func partitionsInRegion(name string, v View, g isa.Generation) error {
	rg := regionOf(v.Base, g)
	if !rg.onChip {
		return nil
	}
	geo := g.Geometry()
	nparts, what := geo.StateBufNumPartitions, "SBUF"
	if !rg.sbuf {
		if geo.PSUMSize == 0 || rg.base != geo.PSUMOffset {
			return nil // in neither region: the dma bounds check names it
		}
		nparts, what = geo.PSUMNumPartitions, "PSUM"
	}
	stride := int64(rg.stride)
	// lo, hi: the region relative to the view's base, in bytes.
	lo := int64(rg.base) - int64(rg.local)
	hi := int64(rg.base) + int64(nparts)*stride - int64(rg.local)
	b, ok := bounds(v)
	first := int64((rg.local - rg.base) / rg.stride)
	if !ok || b.Hi-b.Lo > 1<<40 {
		return reqErr(RulePartitionInRange, name, "%s starts in %s partition %d and its walk spans more than 2^40 bytes: %s has partitions 0..%d only",
			name, what, first, what, nparts-1)
	}
	if int64(v.Base-b.Lo) <= -lo && int64(b.Hi-v.Base) <= hi {
		return nil
	}
	idx, off, found := firstOutside(v, lo, hi)
	if !found {
		return nil
	}
	row := floorDiv(int64(rg.local-rg.base)+off, stride)
	return reqErr(RulePartitionInRange, name, "%s starts in %s partition %d, and its element %d (byte offset %d from the start) would be row %d: %s has partitions 0..%d only (a walk may not run past the last partition, or before the first)",
		name, what, first, idx, off, row, what, nparts-1)
}

// firstOutside finds the first element of v in walk order (dim 0 innermost) whose bytes leave
// [lo, hi) (byte offsets from v.Base): its element index and byte offset. The elements inside at
// each level form one interval of indices (each sub-box's extent moves linearly with the index),
// so the search is a few divisions per level.
func firstOutside(v View, lo, hi int64) (idx uint64, off int64, found bool) {
	es := int64(v.ElemSize)
	// sub[k]: the byte extent [slo, shi) of levels 0..k-1 from an origin.
	var slo, shi [5]int64
	shi[0] = es
	for k := 0; k < 4; k++ {
		d := int64(v.NumElem[k]-1) * v.StepElem[k] * es
		slo[k+1], shi[k+1] = slo[k], shi[k]
		if d < 0 {
			slo[k+1] += d
		} else {
			shi[k+1] += d
		}
	}
	var weight [4]uint64
	w := uint64(1)
	for k := 0; k < 4; k++ {
		weight[k] = w
		w *= uint64(v.NumElem[k])
	}
	o := int64(0)
	for k := 3; k >= 0; k-- {
		n := int64(v.NumElem[k])
		s := v.StepElem[k] * es
		// index i is inside iff lo <= o + i*s + slo[k] and o + i*s + shi[k] <= hi.
		a, b := int64(0), n-1
		switch {
		case s == 0 || n == 1:
			if o+slo[k] < lo || o+shi[k] > hi {
				a, b = 1, 0 // none inside
			}
		case s > 0:
			a = max(a, ceilDiv(lo-o-slo[k], s))
			b = min(b, floorDiv(hi-o-shi[k], s))
		default:
			t := -s
			a = max(a, ceilDiv(o+shi[k]-hi, t))
			b = min(b, floorDiv(o+slo[k]-lo, t))
		}
		var i int64
		switch {
		case a > b || a > 0:
			i = 0
		case b < n-1:
			i = b + 1
		default:
			return 0, 0, false // every index inside: the box was inside
		}
		idx += uint64(i) * weight[k]
		o += i * s
		if k == 0 {
			return idx, o, true
		}
		// descend: the failing sub-box of index i holds the first outside element; the indices
		// before it are wholly inside and counted by weight.
	}
	return 0, 0, false
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }
