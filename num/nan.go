package num

import (
	"math"
	"unsafe"
)

// DefaultNaNF32 is the FP32 default quiet NaN: sign 0, quiet bit set, no payload. Every NaN an
// FP32 ALU operation of the model produces (the DVE's float reduces, scans and reciprocal, the
// DMA's compute_op) is this word before it is narrowed to the output kind, whatever the host
// computed (Provenance num.alu_nan).
const DefaultNaNF32 uint32 = 0x7FC00000

// CanonicalNaN returns v, or the default NaN (DefaultNaNF32) when v is a NaN of any sign or
// payload (Provenance num.alu_nan).
func CanonicalNaN(v float32) float32 {
	if v != v {
		return math.Float32frombits(DefaultNaNF32)
	}
	return v
}

// CanonicalNaNs replaces every NaN of xs by the default NaN, in place. It works on two values
// at a time without a branch on the data: where NaNs fall at random (a reduce's results), a
// branch per value mispredicts often enough to cost twice as much.
func CanonicalNaNs(xs []float32) {
	if len(xs) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(xs)))%8 != 0 {
		xs[0] = CanonicalNaN(xs[0])
		xs = xs[1:]
	}
	ws := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)/2)
	const abs, low, top = 0x7FFFFFFF7FFFFFFF, 0x007FFFFF007FFFFF, 0x8000000080000000
	for i, w := range ws {
		m := ((w&abs + low) & top >> 31) * 0xFFFFFFFF // a word's 32 bits set where it is a NaN (magnitude above 0x7F800000)
		ws[i] = w&^m | uint64(DefaultNaNF32)*0x100000001&m
	}
	if len(xs)%2 == 1 {
		xs[len(xs)-1] = CanonicalNaN(xs[len(xs)-1])
	}
}
