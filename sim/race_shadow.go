package sim

import "sort"

// Shadow memory of the race detector: per region (SBUF, PSUM, HBM), the bytes accessed so far as
// segments of partition offsets (HBM: of addresses, one partition), each holding cells of
// partition ranges with the same history: the last writer and the readers since. An access is a
// box (partitions x one byte run), so an instruction over 128 partitions is one segment update,
// not 128 per-byte or per-partition ones.

// box is partitions [p0, p1) x bytes [lo, hi) of one region.
type box struct {
	region int // shadowSBUF, shadowPSUM, shadowHBM
	p0, p1 int32
	lo, hi uint64
}

const (
	shadowSBUF = iota
	shadowPSUM
	shadowHBM
	numShadow
)

const noActor = -1

type cell struct {
	p0, p1 int32
	w      int32   // actor of the last write, noActor for none
	reads  []int32 // actors that read since; shared between cells, never changed in place
}

type seg struct {
	lo, hi uint64
	cells  []cell // sorted by p0, disjoint
}

// shadowMap is one region's segments; hw is the longest segs has been since the last release
// (merging shortens it, leaving segments past its length that release has to clear).
type shadowMap struct {
	segs []seg
	hw   int
}

// visitor checks one cell against the access and updates it.
type visitor func(c *cell, lo, hi uint64)

func (m *shadowMap) apply(b box, visit visitor) {
	if b.lo >= b.hi || b.p0 >= b.p1 {
		return
	}
	segs := m.segs
	i := sort.Search(len(segs), func(i int) bool { return segs[i].hi > b.lo })
	first := i
	if i < len(segs) && segs[i].lo < b.lo {
		m.splitSeg(i, b.lo)
		i++
		first = i
	}
	cur := b.lo
	for cur < b.hi {
		if i == len(m.segs) || m.segs[i].lo >= b.hi {
			m.insertSeg(i, seg{lo: cur, hi: b.hi})
		} else if m.segs[i].lo > cur {
			m.insertSeg(i, seg{lo: cur, hi: m.segs[i].lo})
		} else if m.segs[i].hi > b.hi {
			m.splitSeg(i, b.hi)
		}
		s := &m.segs[i]
		s.cells = applyCells(s.cells, b.p0, b.p1, s.lo, s.hi, visit)
		cur = s.hi
		i++
	}
	m.mergeSegs(max(first-1, 0), min(i+1, len(m.segs)))
}

func (m *shadowMap) insertSeg(i int, s seg) {
	m.segs = append(m.segs, seg{})
	m.hw = max(m.hw, len(m.segs))
	copy(m.segs[i+1:], m.segs[i:])
	m.segs[i] = s
}

// splitSeg splits segment i at at (inside it); both halves share the cells' read lists.
func (m *shadowMap) splitSeg(i int, at uint64) {
	s := m.segs[i]
	right := seg{lo: at, hi: s.hi, cells: append([]cell(nil), s.cells...)}
	m.segs[i].hi = at
	m.insertSeg(i+1, right)
}

// mergeSegs joins touching neighbours in [from, to) with equal cells.
func (m *shadowMap) mergeSegs(from, to int) {
	out := from
	for k := from + 1; k < to; k++ {
		a, b := &m.segs[out], &m.segs[k]
		if a.hi == b.lo && cellsEqual(a.cells, b.cells) {
			a.hi = b.hi
			continue
		}
		out++
		m.segs[out] = m.segs[k]
	}
	if removed := to - out - 1; removed > 0 && to > from {
		m.segs = append(m.segs[:out+1], m.segs[to:]...)
	}
}

// applyCells visits the cells of [p0, p1), making empty ones for partitions never accessed.
func applyCells(cs []cell, p0, p1 int32, lo, hi uint64, visit visitor) []cell {
	if inPlace(cs, p0, p1) {
		for k := range cs {
			if cs[k].p0 >= p0 && cs[k].p1 <= p1 {
				visit(&cs[k], lo, hi)
			}
		}
		return joinCells(cs)
	}
	var out []cell
	if len(cs) == 0 {
		out = []cell{{p0: p0, p1: p1, w: noActor}}
		visit(&out[0], lo, hi)
		return out
	}
	out = make([]cell, 0, len(cs)+2)
	cur := p0
	for _, c := range cs {
		if c.p1 <= p0 || c.p0 >= p1 {
			if c.p0 >= p1 && cur < p1 {
				out = append(out, cell{p0: cur, p1: p1, w: noActor})
				visit(&out[len(out)-1], lo, hi)
				cur = p1
			}
			out = append(out, c)
			continue
		}
		if c.p0 < cur { // the part before the access
			l := c
			l.p1 = cur
			out = append(out, l)
			c.p0 = cur
		} else if c.p0 > cur { // a gap inside the access
			out = append(out, cell{p0: cur, p1: c.p0, w: noActor})
			visit(&out[len(out)-1], lo, hi)
		}
		in := c
		in.p1 = min(c.p1, p1)
		out = append(out, in)
		visit(&out[len(out)-1], lo, hi)
		cur = in.p1
		if c.p1 > p1 { // the part after the access
			r := c
			r.p0 = p1
			out = append(out, r)
		}
	}
	if cur < p1 {
		out = append(out, cell{p0: cur, p1: p1, w: noActor})
		visit(&out[len(out)-1], lo, hi)
	}
	return joinCells(out)
}

// inPlace reports whether cells cs already cover [p0, p1) with boundaries at p0 and p1, so an
// access can visit them where they are.
func inPlace(cs []cell, p0, p1 int32) bool {
	cur := p0
	for _, c := range cs {
		if c.p1 <= p0 {
			continue
		}
		if c.p0 >= p1 {
			break
		}
		if c.p0 != cur || c.p1 > p1 {
			return false
		}
		cur = c.p1
	}
	return cur == p1
}

// joinCells joins touching cells with the same history, in place.
func joinCells(out []cell) []cell {
	if len(out) < 2 {
		return out
	}
	n := 0
	for k := 1; k < len(out); k++ {
		if out[n].p1 == out[k].p0 && sameHistory(&out[n], &out[k]) {
			out[n].p1 = out[k].p1
			continue
		}
		n++
		out[n] = out[k]
	}
	return out[:n+1]
}

func sameHistory(a, b *cell) bool {
	if a.w != b.w || len(a.reads) != len(b.reads) {
		return false
	}
	for i := range a.reads {
		if a.reads[i] != b.reads[i] {
			return false
		}
	}
	return true
}

func cellsEqual(a, b []cell) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].p0 != b[i].p0 || a[i].p1 != b[i].p1 || !sameHistory(&a[i], &b[i]) {
			return false
		}
	}
	return true
}
