package dma

import (
	"cmp"
	"slices"
	"sort"
)

// Run is the byte range [Lo, Hi).
type Run struct{ Lo, Hi uint64 }

// MaxOverlapRuns bounds the byte runs the overlap test of a job (Job.Conflicts, and Run with
// SerialSharedDst) collects over all its descriptors, destinations and sources together. A
// walk contributes one run per position of its loop levels that do not continue a contiguous
// run (levels are taken smallest step first, so a crossbar tile's 16-element rows and the row
// tiles after them make one run per destination line). Above the bound the test gives the
// conservative answer: the job may conflict.
const MaxOverlapRuns = 1 << 18

// runLevel is a loop level of a walk: its count and its (positive) byte step.
type runLevel struct {
	n uint64
	b int64
}

// appendRuns appends the byte runs the walk of side s over nest n touches, in no particular
// order and not merged, spending at most *budget runs. It reports false when the walk does not
// fit the offset arithmetic (checkSpan) or the address space, or needs more than *budget runs.
func appendRuns(out []Run, s Side, n [MaxLevels]uint32, budget *int) ([]Run, bool) {
	for _, v := range n {
		if v == 0 {
			return out, true // no element
		}
	}
	if checkSpan("", s, n) != nil {
		return out, false
	}
	es := int64(s.ElemSize)
	var off int64 // offset of the lowest byte from s.Addr
	var lsBuf [MaxLevels]runLevel
	ls := lsBuf[:0]
	for k := 0; k < MaxLevels; k++ {
		b := s.Step[k] * es
		if n[k] <= 1 || b == 0 {
			continue // every position at the same bytes
		}
		if b < 0 { // the same bytes walked from the other end
			off += int64(n[k]-1) * b
			b = -b
		}
		ls = append(ls, runLevel{uint64(n[k]), b})
	}
	base, ok := addrAt(s.Addr, off)
	if !ok {
		return out, false
	}
	slices.SortFunc(ls, func(x, y runLevel) int { return cmp.Compare(x.b, y.b) })
	// Copies of a run at a step no longer than the run abut or overlap: one longer run.
	run := es
	for len(ls) > 0 && ls[0].b <= run {
		run += int64(ls[0].n-1) * ls[0].b
		ls = ls[1:]
	}
	count, ext := uint64(1), run
	for _, l := range ls {
		count *= l.n // at most budget x 2^32 (checkSpan bounds each level): no wrap
		if count > uint64(*budget) {
			return out, false
		}
		ext += int64(l.n-1) * l.b
	}
	if _, ok := addrAt(base, ext); !ok {
		return out, false
	}
	*budget -= int(count)
	start := len(out)
	out = append(out, Run{base, base + uint64(run)})
	for _, l := range ls {
		m := len(out) - start
		for j := uint64(1); j < l.n; j++ {
			d := j * uint64(l.b)
			for _, x := range out[start : start+m] {
				out = append(out, Run{x.Lo + d, x.Hi + d})
			}
		}
	}
	return out, true
}

// mergeRuns sorts runs by address and joins those that overlap or touch, in place.
func mergeRuns(rs []Run) []Run {
	slices.SortFunc(rs, func(a, b Run) int { return cmp.Compare(a.Lo, b.Lo) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi {
			out[n-1].Hi = max(out[n-1].Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Footprint returns the bytes the walk of side s over nest n (counts innermost first; any level
// order gives the same bytes) touches, as runs sorted by address with overlapping or adjacent
// runs merged. ok is false when the walk spans more than 2^58 bytes, leaves the 64-bit address
// space, or needs more than maxRuns runs before merging.
func Footprint(s Side, n [MaxLevels]uint32, maxRuns int) (runs []Run, ok bool) {
	runs, ok = appendRuns(nil, s, n, &maxRuns)
	if !ok {
		return nil, false
	}
	return mergeRuns(runs), true
}

// owned is a run of one descriptor (id).
type owned struct {
	Run
	id int
}

// jobRuns collects the runs each descriptor of a job writes and reads, within a budget.
type jobRuns struct {
	w, r   []owned
	budget int
	dw, dr []Run // the current descriptor's runs
}

// walk adds the walk of side s over nest n to the current descriptor (w: written, else read).
func (j *jobRuns) walk(s Side, n [MaxLevels]uint32, w bool) (ok bool) {
	if w {
		j.dw, ok = appendRuns(j.dw, s, n, &j.budget)
	} else {
		j.dr, ok = appendRuns(j.dr, s, n, &j.budget)
	}
	return ok
}

// row adds one run of n bytes at a to the current descriptor.
func (j *jobRuns) row(a, n uint64, w bool) bool {
	if j.budget == 0 || a+n < a {
		return false
	}
	j.budget--
	if w {
		j.dw = append(j.dw, Run{a, a + n})
	} else {
		j.dr = append(j.dr, Run{a, a + n})
	}
	return true
}

// desc adds what descriptor d (id) writes and reads, each merged. p is its pre-flight result
// (the resolved rows of an indirect transfer), or nil: a scatter or gather then cannot be
// bounded.
func (j *jobRuns) desc(id int, d *Descriptor, p *prepared) bool {
	j.dw, j.dr = j.dw[:0], j.dr[:0]
	if !j.descRuns(d, p) {
		return false
	}
	for _, r := range mergeRuns(j.dw) {
		j.w = append(j.w, owned{r, id})
	}
	for _, r := range mergeRuns(j.dr) {
		j.r = append(j.r, owned{r, id})
	}
	return true
}

func (j *jobRuns) descRuns(d *Descriptor, p *prepared) bool {
	switch d.Kind {
	case KindCopy, KindXbar:
		return j.walk(d.Dst, d.dstNum(), true) && j.walk(d.Src, d.Num, false)
	case KindGather:
		if p == nil {
			return false
		}
		for _, rw := range p.rows {
			if !rw.skip && !(j.row(rw.dst, uint64(d.Dst.ElemSize), true) && j.row(rw.src, uint64(d.Src.ElemSize), false)) {
				return false
			}
		}
		return true
	case KindGatherXpose:
		g := d.GatherXpose
		if g == nil || p == nil {
			return false
		}
		// dst[f][j] at Dst.Addr + (f*Step[1] + j)*2 for f < Cols, First <= j < First+Count
		dst := d.Dst
		var ok bool
		if dst.Addr, ok = addrAt(d.Dst.Addr, int64(g.First)*2); !ok {
			return false
		}
		dst.Step = [MaxLevels]int64{1, d.Dst.Step[1]}
		if !j.walk(dst, [MaxLevels]uint32{uint32(g.Count), uint32(g.Cols), 1, 1}, true) {
			return false
		}
		for _, rw := range p.rows {
			src := Side{Addr: rw.src, ElemSize: d.Src.ElemSize, Step: [MaxLevels]int64{d.Src.Step[0]}}
			if !rw.skip && !j.walk(src, [MaxLevels]uint32{uint32(g.Cols), 1, 1, 1}, false) {
				return false
			}
		}
		return true
	}
	return false
}

// conflict reports whether a byte written by one descriptor is written or read by another.
func (j *jobRuns) conflict() bool {
	byLo := func(s []owned) {
		slices.SortFunc(s, func(a, b owned) int { return cmp.Compare(a.Lo, b.Lo) })
	}
	byLo(j.w)
	// Sorted by start, a run overlaps an earlier one only if it starts before the furthest end
	// so far; the run reaching furthest is another descriptor's, since each descriptor's own
	// runs are merged (separated by at least one byte).
	var reach uint64
	for _, x := range j.w {
		if x.Lo < reach {
			return true
		}
		reach = max(reach, x.Hi)
	}
	// The written runs are now disjoint. A read run conflicts when a written run of another
	// descriptor overlaps it.
	for _, x := range j.r {
		for k := sort.Search(len(j.w), func(k int) bool { return j.w[k].Hi > x.Lo }); k < len(j.w) && j.w[k].Lo < x.Hi; k++ {
			if j.w[k].id != x.id {
				return true
			}
		}
	}
	return false
}

// Conflicts reports whether two descriptors of the job (on two engines, or on one: parallel
// workers take descriptors, not engines) may touch a common byte that at least one of them
// writes, so that running them on parallel workers could make the result depend on the
// workers' timing. It compares the exact byte runs of every destination and source walk
// (interleaved but disjoint footprints, such as the row blocks of a transpose in every
// partition, do not conflict). It answers true, conservatively, for a gather or scatter beside
// another descriptor (its rows depend on indices in memory; Run resolves them first), for a walk
// that cannot be bounded, and for a job of more than MaxOverlapRuns runs.
func (j *Job) Conflicts() bool { return j.conflicts(nil) }

// conflicts is Conflicts with the pre-flight results of the job's descriptors (nil: none).
func (j *Job) conflicts(prep [][]*prepared) bool {
	n := 0
	for _, q := range j.Queues {
		n += len(q)
	}
	if n < 2 {
		return false
	}
	jr := jobRuns{budget: MaxOverlapRuns}
	id := 0
	for q := range j.Queues {
		for i := range j.Queues[q] {
			var p *prepared
			if prep != nil {
				p = prep[q][i]
			}
			if !jr.desc(id, &j.Queues[q][i], p) {
				return true
			}
			id++
		}
	}
	return jr.conflict()
}
