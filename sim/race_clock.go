package sim

import "sort"

// Vector clocks of the race detector (race.go). A clock says which accesses are known to have
// happened: per queue engine, the instructions whose reads (r) and whose writes (w) are done
// (an instruction's epoch is its 1-based issue count on its queue: epochs <= r have their reads
// ordered before the clock's holder); per DMA task (one DMA instruction's descriptors on one DMA
// engine, numbered in issue order), the sets of tasks whose reads and whose writes are done. DMA
// tasks are not ordered among themselves, not even on one engine (Provenance sim.race_model).

const numQueues = len(queueEngines)

type qclock struct{ r, w uint32 }

type vclock struct {
	q      [numQueues]qclock
	dr, dw *idSet // DMA tasks whose reads / writes are done; nil: none
}

func (c *vclock) join(o *vclock) {
	if o == nil {
		return
	}
	for i := range c.q {
		c.q[i].r = max(c.q[i].r, o.q[i].r)
		c.q[i].w = max(c.q[i].w, o.q[i].w)
	}
	c.dr = c.dr.union(o.dr)
	c.dw = c.dw.union(o.dw)
}

// joined returns a new clock a ⊔ b (either may be nil).
func joined(a, b *vclock) *vclock {
	c := &vclock{}
	if a != nil {
		*c = *a
	}
	c.join(b)
	return c
}

// idSet is an immutable set of task ids as sorted, disjoint, non-adjacent spans [lo, hi). Sets
// are shared between clocks; every change makes a new one.
type idSet struct{ spans []idSpan }

type idSpan struct{ lo, hi uint32 }

func (s *idSet) has(id uint32) bool {
	if s == nil {
		return false
	}
	i := sort.Search(len(s.spans), func(i int) bool { return s.spans[i].hi > id })
	return i < len(s.spans) && s.spans[i].lo <= id
}

// withRange returns s ∪ [lo, hi).
func (s *idSet) withRange(lo, hi uint32) *idSet {
	if lo >= hi {
		return s
	}
	return s.union(&idSet{spans: []idSpan{{lo, hi}}})
}

// union returns s ∪ t, one of them when it already holds the other.
func (s *idSet) union(t *idSet) *idSet {
	if t == nil || len(t.spans) == 0 || s == t {
		return s
	}
	if s == nil || len(s.spans) == 0 {
		return t
	}
	out := make([]idSpan, 0, len(s.spans)+len(t.spans))
	i, j := 0, 0
	for i < len(s.spans) || j < len(t.spans) {
		var x idSpan
		if j >= len(t.spans) || (i < len(s.spans) && s.spans[i].lo <= t.spans[j].lo) {
			x = s.spans[i]
			i++
		} else {
			x = t.spans[j]
			j++
		}
		if n := len(out); n > 0 && x.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	if spansEqual(out, s.spans) {
		return s
	}
	if spansEqual(out, t.spans) {
		return t
	}
	return &idSet{spans: out}
}

func spansEqual(a, b []idSpan) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
