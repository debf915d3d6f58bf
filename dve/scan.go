package dve

import (
	"github.com/tpbsim/tpbsim/isa"
)

// The scan kernels. They run the four lanes in one loop: a fold (a reduce) only updates the
// accumulators, a scan (keep) also writes each running value to y; the two are separate loops,
// so that a fold keeps its lanes and accumulators in registers.

// scanF32 is the FP32 op class: evalFloat, with the common ops written out.
func scanF32(l *lanes[float32]) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	switch l.op {
	case isa.ALUAdd:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUSubtract:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0-v, a1-x1[i], a2-x2[i], a3-x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0-v, a1-x1[i], a2-x2[i], a3-x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMult:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0*v, a1*x1[i], a2*x2[i], a3*x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0*v, a1*x1[i], a2*x2[i], a3*x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMax:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = fmax(a0, v), fmax(a1, x1[i]), fmax(a2, x2[i]), fmax(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = fmax(a0, v), fmax(a1, x1[i]), fmax(a2, x2[i]), fmax(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMin:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = fmin(a0, v), fmin(a1, x1[i]), fmin(a2, x2[i]), fmin(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = fmin(a0, v), fmin(a1, x1[i]), fmin(a2, x2[i]), fmin(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	default:
		scanEach(l, func(a, b float32) float32 { return evalFloat(l.op, a, b) })
		return
	}
	l.acc = [4]float32{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 { // from the registers: a load of acc just stored would wait
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

// scanI64 is the integer band: evalInt, with the common ops written out.
func scanI64(l *lanes[int64]) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	switch l.op {
	case isa.ALUAddInt:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0+v, a1+x1[i], a2+x2[i], a3+x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMaxInt:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = max(a0, v), max(a1, x1[i]), max(a2, x2[i]), max(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = max(a0, v), max(a1, x1[i]), max(a2, x2[i]), max(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUMinInt:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = min(a0, v), min(a1, x1[i]), min(a2, x2[i]), min(a3, x3[i])
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = min(a0, v), min(a1, x1[i]), min(a2, x2[i]), min(a3, x3[i])
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	default:
		scanEach(l, func(a, b int64) int64 { return evalInt(l.op, a, b) })
		return
	}
	l.acc = [4]int64{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 { // from the registers: a load of acc just stored would wait
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

// scanU64 is the bitvec class on zero-extended values: evalBits, with AND, OR and XOR written
// out (their results stay inside the width, so they need no mask).
func scanU64(l *lanes[uint64]) {
	x0, x1, x2, x3 := lanes4(l)
	a0, a1, a2, a3 := l.acc[0], l.acc[1], l.acc[2], l.acc[3]
	switch l.op {
	case isa.ALUBitwiseAnd:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0&v, a1&x1[i], a2&x2[i], a3&x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0&v, a1&x1[i], a2&x2[i], a3&x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUBitwiseOr:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0|v, a1|x1[i], a2|x2[i], a3|x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0|v, a1|x1[i], a2|x2[i], a3|x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	case isa.ALUBitwiseXor:
		if !l.keep {
			for i, v := range x0 {
				a0, a1, a2, a3 = a0^v, a1^x1[i], a2^x2[i], a3^x3[i]
			}
			break
		}
		y0, y1, y2, y3 := outs4(l, len(x0))
		for i, v := range x0 {
			a0, a1, a2, a3 = a0^v, a1^x1[i], a2^x2[i], a3^x3[i]
			y0[i], y1[i], y2[i], y3[i] = a0, a1, a2, a3
		}
	default:
		scanEach(l, func(a, b uint64) uint64 { return evalBits(l.op, a, b, l.width) })
		return
	}
	l.acc = [4]uint64{a0, a1, a2, a3}
	if r := l.res; len(r) == 4 { // from the registers: a load of acc just stored would wait
		r[0], r[1], r[2], r[3] = a0, a1, a2, a3
	}
}

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
