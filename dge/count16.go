package dge

// MaxLoopCount is the largest loop count of one nest level: the DGE's working state holds
// num_elem[4] as uint16_t (seed 003 §4.5), so a DIMPUSH level counts at most 65535 iterations.
const MaxLoopCount = 1<<16 - 1

// split16 rewrites groups so that no level counts more than MaxLoopCount (inner first, so the
// nest walks the same elements in the same order within each level's sub-walk):
//
//   - a level of n = a*b iterations with both factors <= MaxLoopCount becomes two levels, a (the
//     smallest such factor, so the outer level, which the spray may split, stays fine) inside b;
//   - a level with no such factorisation (n has a prime factor above 65535) is peeled: a group
//     whose level becomes m = ceil(n/65535) inside q = n/m, and a group of the remaining n - q*m
//     (< m) iterations at the offset after them.
//
// It returns the groups and the number of levels factored and peeled. Counts stay below 2^32
// (coalesce), so one split or one peel brings every level within 16 bits.
func split16(gs []group) (out []group, factored, peeled int) {
	for _, g := range gs {
		parts := []group{g}
		for k := 0; k < len(parts); k++ {
			for {
				i := wideLevel(parts[k].lv)
				if i < 0 {
					break
				}
				p := parts[k]
				l := p.lv[i]
				a := factor16(l.n)
				var r uint64
				if a > 0 {
					factored++
				} else {
					peeled++
					a = (l.n + MaxLoopCount - 1) / MaxLoopCount
					r = l.n % a
				}
				q := l.n / a
				lv := append(append(append([]level{}, p.lv[:i]...), level{a, l.ss, l.ds}, level{q, l.ss * int64(a), l.ds * int64(a)}), p.lv[i+1:]...)
				parts[k] = group{lv: lv, srcOff: p.srcOff, dstOff: p.dstOff}
				if r > 0 {
					rest := append([]level{}, p.lv...)
					rest[i] = level{r, l.ss, l.ds}
					parts = append(parts, group{lv: rest, srcOff: p.srcOff + int64(q*a)*l.ss, dstOff: p.dstOff + int64(q*a)*l.ds})
				}
			}
		}
		out = append(out, parts...)
	}
	return out, factored, peeled
}

func wideLevel(ls []level) int {
	for i, l := range ls {
		if l.n > MaxLoopCount {
			return i
		}
	}
	return -1
}

// factor16 returns the smallest a >= ceil(n/MaxLoopCount) dividing n with a <= MaxLoopCount (so
// n/a <= MaxLoopCount too), or 0 when there is none.
func factor16(n uint64) uint64 {
	for a := max((n+MaxLoopCount-1)/MaxLoopCount, 2); a <= MaxLoopCount; a++ {
		if n%a == 0 {
			return a
		}
	}
	return 0
}

// wide16 reports whether any num_elem of v exceeds MaxLoopCount.
func wide16(v View) bool {
	for _, n := range v.NumElem {
		if n > MaxLoopCount {
			return true
		}
	}
	return false
}

// split16View is v with each num_elem above MaxLoopCount factored into two dims, as the working
// state would hold it; ok is false when a count has no 16-bit factorisation or the dims pass four.
func split16View(v View) (View, bool) {
	var ns []uint32
	var ss []int64
	for k := 0; k < 4; k++ {
		n, s := v.NumElem[k], v.StepElem[k]
		if n <= MaxLoopCount {
			ns, ss = append(ns, n), append(ss, s)
			continue
		}
		a := factor16(uint64(n))
		if a == 0 {
			return v, false
		}
		ns = append(ns, uint32(a), n/uint32(a))
		ss = append(ss, s, s*int64(a))
	}
	// trailing unit dims can be dropped to make room
	for len(ns) > 4 && ns[len(ns)-1] == 1 {
		ns, ss = ns[:len(ns)-1], ss[:len(ss)-1]
	}
	if len(ns) > 4 {
		return v, false
	}
	out := v
	for k := 0; k < 4; k++ {
		out.NumElem[k], out.StepElem[k] = 1, 0
		if k < len(ns) {
			out.NumElem[k], out.StepElem[k] = ns[k], ss[k]
		}
	}
	return out, true
}
