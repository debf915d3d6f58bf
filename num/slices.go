package num

import (
	"encoding/binary"
	"math"
)

// The bulk loops of ConvertSlice. Every cast is "widen the source to FP32, narrow FP32 to the
// destination" (num.cast.via_fp32), so one widening loop per source kind and one narrowing loop
// per destination kind cover every pair: an FP32 side runs one of them in place, any other pair
// runs both over a chunk of FP32 words on the stack. Each loop does per element exactly what
// toF32Bits or fromF32Bits does, with the kind decided once per call or chunk; the tests hold
// every pair to convertGeneric.

// chunkElems is the number of elements a two-step cast widens into its FP32 buffer at a time. It
// is even, so every chunk of a 4-bit kind starts on a whole byte.
const chunkElems = 256

// tableMinElems is the smallest n for which an 8-bit source is cast through a 256-entry table
// of its codes (below it, building the table costs more than it saves).
const tableMinElems = 1024

// widenSlice widens n elements of k in s (4-bit kinds: element 0 in the low nibble of s[0]) to
// FP32 words in d: floats exactly, integers rounded to nearest even (toF32Bits).
func widenSlice(k Kind, d, s []byte, n int) {
	d = d[:4*n]
	switch k {
	case FP32, FP32R:
		copy(d, s[:4*n])
	case BFLOAT16:
		bf16ToF32Slice(d, s[:2*n])
	case FP16:
		fp16ToF32Slice(d, s[:2*n])
	case FP8_EXP3, FP8_EXP4, FP8_EXP5, FP8_EXP2, SFP8_E8, SFP8_E7, SFP8_E6, SFP8_E5:
		widenBytes(d, s[:n], (*[256]uint32)(smallTable(k)))
	case INT8:
		widenBytes(d, s[:n], &tabInt8)
	case UINT8:
		widenBytes(d, s[:n], &tabUint8)
	case FP4_EXP2:
		widenNibbles(d, s, n, (*[16]uint32)(tabE2M1))
	case INT4:
		widenNibbles(d, s, n, &tabInt4)
	case INT16:
		s = s[:2*n]
		for len(s) >= 4 && len(d) >= 8 {
			w := binary.LittleEndian.Uint32(s)
			binary.LittleEndian.PutUint64(d, uint64(math.Float32bits(float32(int16(w))))|
				uint64(math.Float32bits(float32(int16(w>>16))))<<32)
			s, d = s[4:], d[8:]
		}
		if len(s) >= 2 && len(d) >= 4 {
			binary.LittleEndian.PutUint32(d, math.Float32bits(float32(int16(binary.LittleEndian.Uint16(s)))))
		}
	case UINT16:
		s = s[:2*n]
		for len(s) >= 4 && len(d) >= 8 {
			w := binary.LittleEndian.Uint32(s)
			binary.LittleEndian.PutUint64(d, uint64(math.Float32bits(float32(w&0xffff)))|
				uint64(math.Float32bits(float32(w>>16)))<<32)
			s, d = s[4:], d[8:]
		}
		if len(s) >= 2 && len(d) >= 4 {
			binary.LittleEndian.PutUint32(d, math.Float32bits(float32(binary.LittleEndian.Uint16(s))))
		}
	case INT32:
		s = s[:4*n]
		for len(s) >= 8 && len(d) >= 8 {
			w := binary.LittleEndian.Uint64(s)
			binary.LittleEndian.PutUint64(d, uint64(math.Float32bits(float32(int32(w))))|
				uint64(math.Float32bits(float32(int32(w>>32))))<<32)
			s, d = s[8:], d[8:]
		}
		if len(s) >= 4 && len(d) >= 4 {
			binary.LittleEndian.PutUint32(d, math.Float32bits(float32(int32(binary.LittleEndian.Uint32(s)))))
		}
	case UINT32:
		s = s[:4*n]
		for len(s) >= 8 && len(d) >= 8 {
			w := binary.LittleEndian.Uint64(s)
			binary.LittleEndian.PutUint64(d, uint64(math.Float32bits(float32(int64(w&0xffffffff))))|
				uint64(math.Float32bits(float32(int64(w>>32))))<<32)
			s, d = s[8:], d[8:]
		}
		if len(s) >= 4 && len(d) >= 4 {
			binary.LittleEndian.PutUint32(d, math.Float32bits(float32(int64(binary.LittleEndian.Uint32(s)))))
		}
	case INT64:
		for i := range n {
			v := int64(binary.LittleEndian.Uint64(s[8*i:]))
			binary.LittleEndian.PutUint32(d[4*i:], math.Float32bits(float32(v)))
		}
	case UINT64:
		for i := range n {
			v := binary.LittleEndian.Uint64(s[8*i:])
			binary.LittleEndian.PutUint32(d[4*i:], math.Float32bits(float32(v)))
		}
	}
}

// widenBytes widens 8-bit codes through their table.
func widenBytes(d, s []byte, t *[256]uint32) {
	for len(s) >= 2 && len(d) >= 8 {
		binary.LittleEndian.PutUint64(d, uint64(t[s[0]])|uint64(t[s[1]])<<32)
		s, d = s[2:], d[8:]
	}
	if len(s) >= 1 && len(d) >= 4 {
		binary.LittleEndian.PutUint32(d, t[s[0]])
	}
}

// tabInt8 and tabUint8 widen every INT8 and UINT8 code.
var tabInt8, tabUint8 = func() (ti, tu [256]uint32) {
	for c := range ti {
		ti[c] = math.Float32bits(float32(int8(c)))
		tu[c] = math.Float32bits(float32(c))
	}
	return ti, tu
}()

// tabInt4 widens every INT4 code (num.int4: two's complement, -8..7).
var tabInt4 = func() (t [16]uint32) {
	for c := range t {
		t[c] = math.Float32bits(float32(int8(uint8(c)<<4) >> 4))
	}
	return t
}()

// widenNibbles widens n 4-bit codes, low nibble first, through t.
func widenNibbles(d, s []byte, n int, t *[16]uint32) {
	for j, c := range s[:n/2] {
		binary.LittleEndian.PutUint64(d[8*j:], uint64(t[c&0xf])|uint64(t[c>>4])<<32)
	}
	if n&1 != 0 {
		binary.LittleEndian.PutUint32(d[4*(n-1):], t[s[n/2]&0xf])
	}
}

// narrowSlice narrows n FP32 words in s to k in d (fromF32Bits): floats round to nearest even,
// integers truncate toward zero and saturate, NaN -> 0. A 4-bit kind's trailing half byte keeps
// its high nibble.
func narrowSlice(k Kind, d, s []byte, n int) {
	s = s[:4*n]
	switch k {
	case FP32:
		copy(d[:4*n], s)
	case FP32R:
		d = d[:4*n]
		for i := 0; i < len(s); i += 4 {
			binary.LittleEndian.PutUint32(d[i:], RoundFP32R(binary.LittleEndian.Uint32(s[i:])))
		}
	case BFLOAT16:
		f32ToBF16Slice(d[:2*n], s)
	case FP16:
		f32ToFP16Slice(d[:2*n], s)
	case FP8_EXP3, FP8_EXP4, FP8_EXP5, FP8_EXP2:
		narrowFast(d[:n], s, fastEncoderFor(k))
	case SFP8_E8, SFP8_E7, SFP8_E6, SFP8_E5:
		f := smallFormat(k)
		for i := range d[:n] {
			d[i] = uint8(f.encode(binary.LittleEndian.Uint32(s[4*i:])))
		}
	case FP4_EXP2:
		e := &encE2M1
		for j := range d[:n/2] {
			d[j] = uint8(e.encode(binary.LittleEndian.Uint32(s[8*j:]))) |
				uint8(e.encode(binary.LittleEndian.Uint32(s[8*j+4:])))<<4
		}
		if n&1 != 0 {
			d[n/2] = d[n/2]&0xf0 | uint8(e.encode(binary.LittleEndian.Uint32(s[4*(n-1):])))
		}
	case INT4:
		for j := range d[:n/2] {
			w := binary.LittleEndian.Uint64(s[8*j:])
			d[j] = uint8(satWord(uint32(w), rangeInt4))&0xf | uint8(satWord(uint32(w>>32), rangeInt4))<<4
		}
		if n&1 != 0 {
			d[n/2] = d[n/2]&0xf0 | uint8(satWord(binary.LittleEndian.Uint32(s[4*(n-1):]), rangeInt4))&0xf
		}
	case INT8:
		narrowInt8(d[:n], s, rangeInt8)
	case UINT8:
		narrowInt8(d[:n], s, rangeUint8)
	case INT16:
		narrowInt16(d[:2*n], s, rangeInt16)
	case UINT16:
		narrowInt16(d[:2*n], s, rangeUint16)
	case INT32:
		narrowInt32(d[:4*n], s, rangeInt32)
	case UINT32:
		narrowInt32(d[:4*n], s, rangeUint32)
	case INT64:
		for i := range n {
			v := satTrunc(f32At(s, i), math.MinInt64, 1<<63, math.MaxInt64)
			binary.LittleEndian.PutUint64(d[8*i:], uint64(v))
		}
	case UINT64:
		for i := range n {
			binary.LittleEndian.PutUint64(d[8*i:], truncSatU64(float64(f32At(s, i))))
		}
	}
}

// narrowFast narrows FP32 words in s to one-byte codes of e in d.
func narrowFast(d, s []byte, e *fastEncoder) {
	enc := *e // in registers
	for i := range d {
		x := binary.LittleEndian.Uint32(s[4*i:])
		c, ok := enc.encodeInRange(x)
		if !ok {
			c = enc.f.encode(x)
		}
		d[i] = uint8(c)
	}
}

// f32At is FP32 word i of s as a float32.
func f32At(s []byte, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(s[4*i:])) }

// satTrunc is truncSat(float64(f), lo, hi) for an integer range whose bounds lo and hi1 = hi+1
// are float32 values: inside [lo, hi1) the conversion truncates toward zero and cannot leave the
// range; NaN gives 0; beyond either end, the end (Provenance num.cast.float_to_int).
func satTrunc(f, lo, hi1 float32, hi int64) int64 {
	if f >= lo && f < hi1 {
		return int64(f)
	}
	if f != f {
		return 0
	}
	if f > 0 {
		return hi
	}
	return int64(lo)
}

// intRange32 is an integer kind's range [lo, hi] for satWord, which narrows FP32 bits to it
// without data-dependent branches: lo is -(hi+1) for a signed kind and 0 for an unsigned one, and
// hi+1 is a power of two no larger than 2^32.
type intRange32 struct {
	signBit uint32 // 1<<31 for a signed kind, else 0: the sign an FP32 word keeps
	negZero uint32 // 1<<31 for an unsigned kind, else 0: a negative word becomes 0
	bound   uint32 // FP32 bits of hi+1: the magnitude is clamped to it
	hi      int64
}

func newIntRange32(hi int64, signed bool) intRange32 {
	r := intRange32{bound: math.Float32bits(float32(hi + 1)), hi: hi}
	if signed {
		r.signBit = 1 << 31
	} else {
		r.negZero = 1 << 31
	}
	return r
}

// Ranges of the integer kinds up to 32 bits (constant after package initialisation).
var (
	rangeInt4   = newIntRange32(7, true)
	rangeInt8   = newIntRange32(math.MaxInt8, true)
	rangeUint8  = newIntRange32(math.MaxUint8, false)
	rangeInt16  = newIntRange32(math.MaxInt16, true)
	rangeUint16 = newIntRange32(math.MaxUint16, false)
	rangeInt32  = newIntRange32(math.MaxInt32, true)
	rangeUint32 = newIntRange32(math.MaxUint32, false)
)

// satWord is truncSat(float64(f), lo, hi) of the FP32 word x, branch-free: NaN and (for an
// unsigned kind) negative words become +0, the magnitude is clamped to hi+1 keeping the sign
// (-(hi+1) is lo), the result truncated toward zero (clamping to integer bounds first gives what
// truncating first does) and held to hi.
func satWord(x uint32, r intRange32) int64 {
	a := x & 0x7fffffff
	if a > 0x7f800000 {
		a = 0
	}
	a = min(a, r.bound)
	a = a&^uint32(int32(x&r.negZero)>>31) | x&r.signBit
	return min(int64(math.Float32frombits(a)), r.hi)
}

// narrowInt8 narrows FP32 words to a 1-byte integer kind, four at a time.
func narrowInt8(d, s []byte, r intRange32) {
	for len(d) >= 4 && len(s) >= 16 {
		w0, w1 := binary.LittleEndian.Uint64(s), binary.LittleEndian.Uint64(s[8:])
		binary.LittleEndian.PutUint32(d, uint32(uint8(satWord(uint32(w0), r)))|
			uint32(uint8(satWord(uint32(w0>>32), r)))<<8|
			uint32(uint8(satWord(uint32(w1), r)))<<16|
			uint32(uint8(satWord(uint32(w1>>32), r)))<<24)
		d, s = d[4:], s[16:]
	}
	for len(d) >= 1 && len(s) >= 4 {
		d[0] = uint8(satWord(binary.LittleEndian.Uint32(s), r))
		d, s = d[1:], s[4:]
	}
}

// narrowInt16 narrows FP32 words to a 2-byte integer kind, two at a time.
func narrowInt16(d, s []byte, r intRange32) {
	for len(d) >= 4 && len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		binary.LittleEndian.PutUint32(d, uint32(uint16(satWord(uint32(w), r)))|
			uint32(uint16(satWord(uint32(w>>32), r)))<<16)
		d, s = d[4:], s[8:]
	}
	for len(d) >= 2 && len(s) >= 4 {
		binary.LittleEndian.PutUint16(d, uint16(satWord(binary.LittleEndian.Uint32(s), r)))
		d, s = d[2:], s[4:]
	}
}

// narrowInt32 narrows FP32 words to a 4-byte integer kind, two at a time.
func narrowInt32(d, s []byte, r intRange32) {
	for len(d) >= 8 && len(s) >= 8 {
		w := binary.LittleEndian.Uint64(s)
		binary.LittleEndian.PutUint64(d, uint64(uint32(satWord(uint32(w), r)))|
			uint64(uint32(satWord(uint32(w>>32), r)))<<32)
		d, s = d[8:], s[8:]
	}
	for len(d) >= 4 && len(s) >= 4 {
		binary.LittleEndian.PutUint32(d, uint32(satWord(binary.LittleEndian.Uint32(s), r)))
		d, s = d[4:], s[4:]
	}
}

// convertChunked casts through FP32 chunkElems elements at a time, in a buffer on the stack.
func convertChunked(dst []byte, dk Kind, src []byte, sk Kind, n int) {
	var buf [4 * chunkElems]byte
	for i := 0; i < n; i += chunkElems {
		m := min(chunkElems, n-i)
		widenSlice(sk, buf[:], src[sk.BytesFor(i):], m)
		narrowSlice(dk, dst[dk.BytesFor(i):], buf[:], m)
	}
}

// convertByTable casts an 8-bit source through a table of what each of its 256 codes becomes,
// made by the same widening and narrowing loops.
func convertByTable(dst []byte, dk Kind, src []byte, sk Kind, n int) {
	var codes [256]byte
	for c := range codes {
		codes[c] = uint8(c)
	}
	var tab [8 * 256]byte
	convertChunked(tab[:], dk, codes[:], sk, 256)
	s := src[:n]
	switch dk.SizeBits() {
	case 4:
		var t [256]uint8
		for c := range t {
			t[c] = tab[c/2] >> (4 * (c & 1)) & 0xf
		}
		for j := range n / 2 {
			dst[j] = t[s[2*j]] | t[s[2*j+1]]<<4
		}
		if n&1 != 0 {
			dst[n/2] = dst[n/2]&0xf0 | t[s[n-1]]
		}
	case 8:
		d := dst[:n]
		for len(s) >= 8 && len(d) >= 8 {
			binary.LittleEndian.PutUint64(d, uint64(tab[s[0]])|uint64(tab[s[1]])<<8|uint64(tab[s[2]])<<16|
				uint64(tab[s[3]])<<24|uint64(tab[s[4]])<<32|uint64(tab[s[5]])<<40|uint64(tab[s[6]])<<48|
				uint64(tab[s[7]])<<56)
			s, d = s[8:], d[8:]
		}
		for i, c := range s {
			d[i] = tab[c]
		}
	case 16:
		var t [256]uint16
		for c := range t {
			t[c] = binary.LittleEndian.Uint16(tab[2*c:])
		}
		d := dst[:2*n]
		for len(s) >= 4 && len(d) >= 8 {
			binary.LittleEndian.PutUint64(d, uint64(t[s[0]])|uint64(t[s[1]])<<16|uint64(t[s[2]])<<32|uint64(t[s[3]])<<48)
			s, d = s[4:], d[8:]
		}
		for i, c := range s {
			binary.LittleEndian.PutUint16(d[2*i:], t[c])
		}
	case 32:
		var t [256]uint32
		for c := range t {
			t[c] = binary.LittleEndian.Uint32(tab[4*c:])
		}
		widenBytes(dst[:4*n], s, &t)
	case 64:
		var t [256]uint64
		for c := range t {
			t[c] = binary.LittleEndian.Uint64(tab[8*c:])
		}
		d := dst[:8*n]
		for i, c := range s {
			binary.LittleEndian.PutUint64(d[8*i:], t[c])
		}
	}
}

// intsExact reports whether an integer-to-integer cast through FP32 is a plain saturating copy:
// when either side is an 8- or 16-bit integer, every value inside the destination's range is
// below 2^24 in magnitude and so exact in FP32, and a value beyond one end rounds to that end or
// beyond, which saturates the same (num.cast.via_fp32 loses nothing such a cast keeps).
func intsExact(dk, sk Kind) bool {
	return dk.IsInteger() && sk.IsInteger() && dk.SizeBits() >= 8 && sk.SizeBits() >= 8 &&
		(dk.SizeBits() <= 16 || sk.SizeBits() <= 16)
}

// convertInts is the cast of an intsExact pair: each value clamped to the destination's range,
// through a chunk of int64 on the stack.
func convertInts(dst []byte, dk Kind, src []byte, sk Kind, n int) {
	var buf [chunkElems]int64
	ss, ds := sk.Size(), dk.Size()
	for i := 0; i < n; i += chunkElems {
		v := buf[:min(chunkElems, n-i)]
		LoadExtendedSlice(v, src[i*ss:], sk)
		if sk == UINT64 { // its values above MaxInt64 read as negative: they saturate high
			for j, x := range v {
				if x < 0 {
					v[j] = math.MaxInt64
				}
			}
		}
		StoreIntSlice(dst[i*ds:], v, dk) // UINT64: [0, MaxInt64] holds every value of a 16-bit source
	}
}
