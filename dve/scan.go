package dve

// The scan kernels. They run the four lanes in one loop: a fold (a reduce) only updates the
// accumulators, a scan (keep) also writes each running value to y; the two are separate loops,
// so that a fold keeps its lanes and accumulators in registers. scanF32, scanI64 and scanU64
// (scan_gen.go) are written out per op from one description (internal/kernelgen); scanEach
// runs the other ops through their class's evaluator.

//go:generate go run ./internal/kernelgen/gen

// scanEach is the scan of the ops without a loop of their own: f is the class's evaluator.
func scanEach[T laneValue](l *lanes[T], f func(acc, x T) T) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	if !l.keep {
		for i, v := range x0 {
			a0, a1, a2, a3 = f(a0, v), f(a1, x1[i]), f(a2, x2[i]), f(a3, x3[i])
		}
	} else {
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = f(a0, v), f(a1, x1[i]), f(a2, x2[i]), f(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	}
	l.done(a0, a1, a2, a3)
}

// done keeps the four accumulators, and writes them to res when a fold has one, from the
// registers (a load of acc just stored would wait).
func (l *lanes[T]) done(a0, a1, a2, a3 T) {
	l.acc = [4]T{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 {
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

func negateAll[T float32 | int64](xs []T) {
	for i, v := range xs {
		xs[i] = -v
	}
}
