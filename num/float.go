package num

import (
	"math"
	"math/bits"
)

// This file holds the bit-level float codecs. Every narrowing conversion starts from the IEEE
// binary32 bit pattern (FP32 is the cast hub, FACTS §A.1) and rounds to nearest, ties to even.
// Every widening conversion is exact.

// special says how a small float format spends its top exponent code.
type special uint8

const (
	// ieee: the all-ones exponent holds Inf (mantissa 0) and NaN (mantissa != 0), as in
	// IEEE 754. Overflow rounds to Inf.
	ieee special = iota
	// finite: every code is a finite number; no Inf, no NaN (OCP FP4/FP6 style). Overflow and
	// Inf saturate to the largest finite value; NaN becomes +0.
	finite
	// scale: unsigned, no subnormals (exponent code 0 is 2^-bias), no zero, all-ones code is
	// NaN (OCP E8M0 style). Values below the smallest saturate to it; overflow and +Inf
	// saturate to the largest; negative values and NaN become NaN.
	scale
)

// format describes a small binary float: sign (optional), ebits of exponent with the given
// bias, mbits of trailing mantissa.
//
//	 width-1        mbits  0
//	+-------+-------+-------+
//	| S (1) | E     | M     |   S absent when !signed
//	+-------+-------+-------+
type format struct {
	ebits, mbits uint
	bias         int
	signed       bool
	special      special
}

// The formats behind the DTYPE codes (FACTS §A.1; the special-value choices are in Provenance).
var (
	fmtBF16 = format{ebits: 8, mbits: 7, bias: 127, signed: true, special: ieee}
	fmtFP16 = format{ebits: 5, mbits: 10, bias: 15, signed: true, special: ieee}
	fmtE3M4 = format{ebits: 3, mbits: 4, bias: 3, signed: true, special: ieee}   // FP8_EXP3
	fmtE4M3 = format{ebits: 4, mbits: 3, bias: 7, signed: true, special: ieee}   // FP8_EXP4
	fmtE5M2 = format{ebits: 5, mbits: 2, bias: 15, signed: true, special: ieee}  // FP8_EXP5
	fmtE2M5 = format{ebits: 2, mbits: 5, bias: 1, signed: true, special: finite} // FP8_EXP2
	fmtE2M1 = format{ebits: 2, mbits: 1, bias: 1, signed: true, special: finite} // FP4_EXP2
	fmtE8M0 = format{ebits: 8, mbits: 0, bias: 127, special: scale}              // SFP8_E8
	fmtE7M1 = format{ebits: 7, mbits: 1, bias: 63, special: scale}               // SFP8_E7
	fmtE6M2 = format{ebits: 6, mbits: 2, bias: 31, special: scale}               // SFP8_E6
	fmtE5M3 = format{ebits: 5, mbits: 3, bias: 15, special: scale}               // SFP8_E5
)

func (f *format) magBits() uint    { return f.ebits + f.mbits }
func (f *format) magMask() uint32  { return 1<<f.magBits() - 1 }
func (f *format) mantMask() uint32 { return 1<<f.mbits - 1 }
func (f *format) expMax() uint32   { return 1<<f.ebits - 1 }

func (f *format) signBit() uint32 {
	if f.signed {
		return 1 << f.magBits()
	}
	return 0
}

// maxCode is the magnitude code of the largest finite value.
func (f *format) maxCode() uint32 {
	switch f.special {
	case ieee:
		return (f.expMax()-1)<<f.mbits | f.mantMask()
	case scale:
		return f.magMask() - 1
	}
	return f.magMask()
}

// nanCode is the magnitude code a NaN input produces before its payload is merged in.
func (f *format) nanCode() uint32 {
	switch f.special {
	case ieee:
		return f.expMax()<<f.mbits | 1<<(f.mbits-1) // quiet bit set
	case scale:
		return f.magMask()
	}
	return 0
}

// decode widens code c to FP32 bits, exactly. NaN keeps its sign and payload (shifted to the
// top of the FP32 mantissa); nothing is quieted on the way up.
func (f *format) decode(c uint32) uint32 {
	var sign uint32
	if f.signed && c&f.signBit() != 0 {
		sign = 1 << 31
	}
	mag := c & f.magMask()
	e := mag >> f.mbits
	m := mag & f.mantMask()
	var v float64
	switch {
	case f.special == ieee && e == f.expMax():
		return sign | 0x7f800000 | m<<(23-f.mbits)
	case f.special == scale && mag == f.magMask():
		return 0x7fc00000
	case f.special == scale:
		v = math.Ldexp(float64(1<<f.mbits|m), int(e)-f.bias-int(f.mbits))
	case e == 0:
		v = math.Ldexp(float64(m), 1-f.bias-int(f.mbits))
	default:
		v = math.Ldexp(float64(1<<f.mbits|m), int(e)-f.bias-int(f.mbits))
	}
	return sign | math.Float32bits(float32(v))
}

// encode narrows FP32 bits x to a code of f, rounding to nearest, ties to even, with the
// special-value rules of f.special.
func (f *format) encode(x uint32) uint32 {
	a := x & 0x7fffffff
	neg := x>>31 != 0
	var sign uint32
	if neg {
		sign = f.signBit()
	}
	if a > 0x7f800000 { // NaN
		switch f.special {
		case ieee:
			return sign | f.nanCode() | (a>>(23-f.mbits))&f.mantMask()
		case scale:
			return f.nanCode()
		}
		return 0
	}
	if f.special == scale && neg && a != 0 {
		return f.nanCode()
	}
	if a == 0x7f800000 {
		if f.special == ieee {
			return sign | f.expMax()<<f.mbits
		}
		return sign | f.maxCode()
	}
	if a == 0 {
		return sign
	}
	be := int(a >> 23)
	sig := a & 0x7fffff
	if be == 0 { // FP32 subnormal: normalise so the leading 1 sits at bit 23
		be = 1
		for sig&(1<<23) == 0 {
			sig <<= 1
			be--
		}
	} else {
		sig |= 1 << 23
	}
	e := be - 127 // value = sig * 2^(e-23), 2^23 <= sig < 2^24
	emin := 1 - f.bias
	if f.special == scale {
		emin = -f.bias
	}
	shift := 23 - int(f.mbits)
	if e < emin {
		if f.special == scale {
			return 0 // below the smallest scale: saturate to it
		}
		shift += emin - e
	}
	// Truncate, then round the code itself: its LSB is the "even" of ties-to-even (the mantissa
	// LSB, or the exponent LSB when mbits is 0), and a carry moves into the exponent field.
	var r, rem, half uint32
	if shift <= 25 {
		r = sig >> uint(shift)
		rem = sig & (1<<uint(shift) - 1)
		half = 1 << uint(shift-1)
	} // else the value is below half the smallest subnormal: r = 0, no rounding up
	var code uint32
	switch {
	case e < emin:
		code = r // subnormal; a carry into bit mbits makes it the smallest normal
	case f.special == scale:
		code = uint32(e-emin)<<f.mbits + r - 1<<f.mbits
	default:
		code = uint32(e-emin)<<f.mbits + r // the implicit bit adds 1 to the exponent field
	}
	if rem > half || rem == half && half != 0 && code&1 != 0 {
		code++
	}
	if code > f.maxCode() {
		if f.special == ieee {
			return sign | f.expMax()<<f.mbits
		}
		return sign | f.maxCode()
	}
	return sign | code
}

// fastEncoder narrows FP32 bits to a signed ieee or finite format without per-call branching on
// the format: normal results round in the integer domain (a carry moves into the exponent
// field), subnormal results let the FPU's own round-to-nearest-even add a magic constant whose
// ulp is the format's subnormal step. Overflow, Inf and NaN take the generic path.
type fastEncoder struct {
	f         *format
	sign      uint32  // the code's sign bit
	rebias    uint32  // FP32 exponent field minus the format's, in place
	shift     uint32  // 23 - mbits
	round     uint32  // half an ulp minus one, in FP32 bits
	normMin   uint32  // FP32 bits of the smallest normal of the format
	limit     uint32  // |x| bits from which the generic path runs (max + half ulp, Inf, NaN)
	magic     float32 // 2^(emin - mbits + 23): its ulp is the subnormal step
	magicBits uint32
}

func newFastEncoder(f *format) fastEncoder {
	shift := 23 - uint32(f.mbits)
	emin := 1 - f.bias
	maxBits := f.decode(f.maxCode())
	magic := float32(math.Ldexp(1, emin-int(f.mbits)+23))
	return fastEncoder{
		f:         f,
		sign:      f.signBit(),
		rebias:    uint32(127-f.bias) << 23,
		shift:     shift,
		round:     1<<(shift-1) - 1,
		normMin:   uint32(emin+127) << 23,
		limit:     maxBits + 1<<(shift-1),
		magic:     magic,
		magicBits: math.Float32bits(magic),
	}
}

func (e *fastEncoder) encode(x uint32) uint32 {
	if c, ok := e.encodeInRange(x); ok {
		return c
	}
	return e.f.encode(x)
}

// encodeInRange is encode for |x| below e.limit (no overflow, Inf or NaN), and false for any
// other x; small enough to inline into the bulk loops.
func (e *fastEncoder) encodeInRange(x uint32) (uint32, bool) {
	a := x & 0x7fffffff
	if a >= e.limit {
		return 0, false
	}
	var code uint32
	if a >= e.normMin {
		a -= e.rebias
		code = (a + e.round + (a>>e.shift)&1) >> e.shift
	} else {
		code = math.Float32bits(math.Float32frombits(a)+e.magic) - e.magicBits
	}
	return code | (x>>31)*e.sign, true
}

// Encoders for the signed 8- and 4-bit float kinds (constant after package initialisation).
var (
	encE3M4 = newFastEncoder(&fmtE3M4)
	encE4M3 = newFastEncoder(&fmtE4M3)
	encE5M2 = newFastEncoder(&fmtE5M2)
	encE2M5 = newFastEncoder(&fmtE2M5)
	encE2M1 = newFastEncoder(&fmtE2M1)
)

// table widens every code of an 8-bit-or-narrower format; built once, never written after.
func (f *format) table() []uint32 {
	n := 1 << (f.magBits() + 1)
	if !f.signed {
		n = 1 << f.magBits()
	}
	t := make([]uint32, n)
	for c := range t {
		t[c] = f.decode(uint32(c))
	}
	return t
}

// Decode tables for the 8- and 4-bit float kinds (constant after package initialisation).
var (
	tabE3M4 = fmtE3M4.table()
	tabE4M3 = fmtE4M3.table()
	tabE5M2 = fmtE5M2.table()
	tabE2M5 = fmtE2M5.table()
	tabE2M1 = fmtE2M1.table()
	tabE8M0 = fmtE8M0.table()
	tabE7M1 = fmtE7M1.table()
	tabE6M2 = fmtE6M2.table()
	tabE5M3 = fmtE5M3.table()
)

// BF16ToF32 widens a bfloat16 bit pattern to float32 bits: the upper half of an FP32 word.
func BF16ToF32(h uint16) uint32 { return uint32(h) << 16 }

// F32ToBF16 narrows float32 bits to bfloat16, round to nearest even. Overflow rounds to Inf;
// NaN keeps its sign and top payload bits and is quieted (Provenance num.nan).
func F32ToBF16(x uint32) uint16 {
	if x&0x7fffffff > 0x7f800000 {
		return uint16(x>>16) | 0x0040
	}
	return uint16((x + 0x7fff + (x>>16)&1) >> 16)
}

// FP16ToF32 widens an IEEE binary16 bit pattern to float32 bits, exactly (subnormals, Inf and
// NaN payloads included).
func FP16ToF32(h uint16) uint32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f:
		return sign | 0x7f800000 | m<<13
	case e != 0:
		return sign | (e+112)<<23 | m<<13
	case m == 0:
		return sign
	}
	// Subnormal m * 2^-24: normalise so the leading 1 sits at bit 10.
	s := uint32(bits.LeadingZeros32(m)) - 21
	return sign | (113-s)<<23 | (m<<s&0x3ff)<<13
}

// F32ToFP16 narrows float32 bits to IEEE binary16, round to nearest even, with subnormals;
// overflow rounds to Inf; NaN keeps sign and top payload bits and is quieted.
func F32ToFP16(x uint32) uint16 {
	sign := uint16(x>>16) & 0x8000
	a := x & 0x7fffffff
	switch {
	case a > 0x7f800000:
		return sign | 0x7e00 | uint16(a>>13)&0x3ff
	case a >= 0x477ff000: // >= 65520 rounds to Inf
		return sign | 0x7c00
	case a >= 0x38800000: // >= 2^-14: normal
		a -= 112 << 23
		return sign | uint16((a+0xfff+(a>>13)&1)>>13)
	case a <= 0x33000000: // <= 2^-25: rounds to zero (2^-25 is a tie to even 0)
		return sign
	}
	shift := 126 - a>>23 // 14..24
	sig := a&0x7fffff | 0x800000
	r := sig >> shift
	rem := sig & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || rem == half && r&1 != 0 {
		r++
	}
	return sign | uint16(r)
}

// RoundFP32R rounds float32 bits to the FP32R output format: FP32 whose mantissa is rounded to
// nearest even at 13 bits (the "FP22" 1+8+13 format, FACTS §A.1) and whose low 10 bits are 0.
// Overflow rounds to Inf; NaN is quieted. See Provenance num.fp32r.
func RoundFP32R(x uint32) uint32 {
	if x&0x7fffffff > 0x7f800000 {
		return (x | 0x00400000) &^ 0x3ff
	}
	return (x + 0x1ff + (x>>10)&1) &^ 0x3ff
}

// FP8ToF32 widens an 8-bit (or 4-bit, low nibble) float code of kind k to float32 bits.
// It returns the bits of a quiet NaN when k is not a float kind of 8 bits or fewer.
func FP8ToF32(k Kind, c uint8) uint32 {
	t := smallTable(k)
	if t == nil {
		return 0x7fc00000
	}
	return t[int(c)&(len(t)-1)]
}

// F32ToFP8 narrows float32 bits to an 8-bit (or 4-bit, in the low nibble) float code of kind k,
// round to nearest even, with k's special-value rules (Provenance num.fp8.*, num.fp4, num.sfp8).
// It returns 0 when k is not a float kind of 8 bits or fewer.
func F32ToFP8(k Kind, x uint32) uint8 {
	switch k {
	case FP8_EXP3:
		return uint8(encE3M4.encode(x))
	case FP8_EXP4:
		return uint8(encE4M3.encode(x))
	case FP8_EXP5:
		return uint8(encE5M2.encode(x))
	case FP8_EXP2:
		return uint8(encE2M5.encode(x))
	case FP4_EXP2:
		return uint8(encE2M1.encode(x))
	}
	f := smallFormat(k)
	if f == nil {
		return 0
	}
	return uint8(f.encode(x))
}

func smallFormat(k Kind) *format {
	switch k {
	case FP8_EXP3:
		return &fmtE3M4
	case FP8_EXP4:
		return &fmtE4M3
	case FP8_EXP5:
		return &fmtE5M2
	case FP8_EXP2:
		return &fmtE2M5
	case FP4_EXP2:
		return &fmtE2M1
	case SFP8_E8:
		return &fmtE8M0
	case SFP8_E7:
		return &fmtE7M1
	case SFP8_E6:
		return &fmtE6M2
	case SFP8_E5:
		return &fmtE5M3
	}
	return nil
}

func smallTable(k Kind) []uint32 {
	switch k {
	case FP8_EXP3:
		return tabE3M4
	case FP8_EXP4:
		return tabE4M3
	case FP8_EXP5:
		return tabE5M2
	case FP8_EXP2:
		return tabE2M5
	case FP4_EXP2:
		return tabE2M1
	case SFP8_E8:
		return tabE8M0
	case SFP8_E7:
		return tabE7M1
	case SFP8_E6:
		return tabE6M2
	case SFP8_E5:
		return tabE5M3
	}
	return nil
}

// MaxFinite is the largest finite value of k (for integers, the largest value), or 0 for a
// non-numeric kind.
func (k Kind) MaxFinite() float64 {
	switch k {
	case FP32, FP32R:
		return math.MaxFloat32
	case BFLOAT16:
		return float64(math.Float32frombits(BF16ToF32(0x7f7f)))
	case FP16:
		return 65504
	}
	if f := smallFormat(k); f != nil {
		return float64(math.Float32frombits(f.decode(f.maxCode())))
	}
	if k.IsInteger() {
		_, hi := intRange(k)
		if k == UINT64 {
			return math.MaxUint64
		}
		return float64(hi)
	}
	return 0
}

// HasInf reports whether k can hold an infinity.
func (k Kind) HasInf() bool {
	switch k {
	case FP32, FP32R, BFLOAT16, FP16:
		return true
	}
	f := smallFormat(k)
	return f != nil && f.special == ieee
}

// HasNaN reports whether k can hold a NaN.
func (k Kind) HasNaN() bool {
	switch k {
	case FP32, FP32R, BFLOAT16, FP16:
		return true
	}
	f := smallFormat(k)
	return f != nil && f.special != finite
}
