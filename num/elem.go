package num

import (
	"encoding/binary"
	"math"
)

// Element access. All element bytes are little-endian. b must hold at least one element
// (k.Size() bytes; one byte for the 4-bit kinds, whose element is the LOW nibble of b[0] here,
// the high nibble being left alone on stores): like encoding/binary, a shorter b panics, and
// callers bounds-check a whole access pattern before touching any element.
//
// Non-numeric kinds (INVALID, CPTC, unknown codes) load as NaN or 0 and store nothing.

// intRange is the value range of an integer kind other than UINT64 (whose top exceeds int64).
func intRange(k Kind) (lo, hi int64) {
	switch k {
	case INT4:
		return -8, 7
	case INT8:
		return math.MinInt8, math.MaxInt8
	case UINT8:
		return 0, math.MaxUint8
	case INT16:
		return math.MinInt16, math.MaxInt16
	case UINT16:
		return 0, math.MaxUint16
	case INT32:
		return math.MinInt32, math.MaxInt32
	case UINT32:
		return 0, math.MaxUint32
	case INT64:
		return math.MinInt64, math.MaxInt64
	case UINT64:
		return 0, math.MaxInt64
	}
	return 0, 0
}

// truncSat converts v to an integer in [lo, hi]: round toward zero, saturate, NaN -> 0
// (Provenance num.cast.float_to_int).
func truncSat(v float64, lo, hi int64) int64 {
	if v != v {
		return 0
	}
	t := math.Trunc(v)
	if t <= float64(lo) {
		return lo
	}
	if t >= float64(hi) { // float64(MaxInt64) is 2^63: any t that large saturates
		return hi
	}
	return int64(t)
}

// truncSatU64 is truncSat for the full UINT64 range.
func truncSatU64(v float64) uint64 {
	if v != v || v <= 0 {
		return 0
	}
	t := math.Trunc(v)
	if t >= 18446744073709551616.0 {
		return math.MaxUint64
	}
	return uint64(t)
}

// LoadBits returns the raw bits of one element, zero-extended (4-bit kinds: the low nibble).
func LoadBits(k Kind, b []byte) uint64 {
	switch k.SizeBits() {
	case 4:
		return uint64(b[0] & 0x0f)
	case 8:
		return uint64(b[0])
	case 16:
		return uint64(binary.LittleEndian.Uint16(b))
	case 32:
		return uint64(binary.LittleEndian.Uint32(b))
	case 64:
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// StoreBits stores the low k.SizeBits() bits of bits as one element (the bit-exact path of
// Copy and of bitvec ops). 4-bit kinds keep the high nibble of b[0].
func StoreBits(k Kind, b []byte, bits uint64) {
	switch k.SizeBits() {
	case 4:
		b[0] = b[0]&0xf0 | uint8(bits)&0x0f
	case 8:
		b[0] = uint8(bits)
	case 16:
		binary.LittleEndian.PutUint16(b, uint16(bits))
	case 32:
		binary.LittleEndian.PutUint32(b, uint32(bits))
	case 64:
		binary.LittleEndian.PutUint64(b, bits)
	}
}

// decodeF32 widens the raw bits of one element of a float kind to float32 bits.
func decodeF32(k Kind, raw uint64) uint32 {
	switch k {
	case FP32, FP32R:
		return uint32(raw)
	case BFLOAT16:
		return BF16ToF32(uint16(raw))
	case FP16:
		return FP16ToF32(uint16(raw))
	}
	return FP8ToF32(k, uint8(raw))
}

// encodeF32 narrows float32 bits to the raw bits of one element of a float kind.
func encodeF32(k Kind, x uint32) uint64 {
	switch k {
	case FP32:
		return uint64(x)
	case FP32R:
		return uint64(RoundFP32R(x))
	case BFLOAT16:
		return uint64(F32ToBF16(x))
	case FP16:
		return uint64(F32ToFP16(x))
	}
	return uint64(F32ToFP8(k, x))
}

// signExtend interprets the low k.SizeBits() bits of raw as a signed or unsigned integer of k.
func signExtend(k Kind, raw uint64) int64 {
	switch k {
	case INT4:
		return int64(int8(uint8(raw)<<4) >> 4)
	case INT8:
		return int64(int8(raw))
	case INT16:
		return int64(int16(raw))
	case INT32:
		return int64(int32(raw))
	}
	return int64(raw) // unsigned kinds zero-extended; INT64 and UINT64 as is
}

// LoadF32 reads one element of k as float32: floats widen exactly, integers round to nearest
// even (so int32/uint32/int64 values beyond 2^24 lose low bits: use LoadInt for those).
func LoadF32(k Kind, b []byte) float32 {
	switch {
	case k.IsFloat():
		return math.Float32frombits(decodeF32(k, LoadBits(k, b)))
	case k == UINT64:
		return float32(LoadBits(k, b))
	case k.IsInteger():
		return float32(signExtend(k, LoadBits(k, b)))
	}
	return float32(math.NaN())
}

// StoreF32 writes v as one element of k. Float kinds round to nearest even, overflowing to Inf
// where k has one and saturating to its largest finite value where it has none (FP32R: see
// RoundFP32R). Integer kinds round toward zero and saturate; NaN stores 0 (FACTS §A.1, DESIGN
// §4 Cast; Provenance num.cast.float_to_int).
func StoreF32(k Kind, b []byte, v float32) {
	switch {
	case k.IsFloat():
		StoreBits(k, b, encodeF32(k, math.Float32bits(v)))
	case k.IsInteger():
		storeIntFromFloat(k, b, float64(v))
	}
}

func storeIntFromFloat(k Kind, b []byte, v float64) {
	if k == UINT64 {
		StoreBits(k, b, truncSatU64(v))
		return
	}
	lo, hi := intRange(k)
	StoreBits(k, b, uint64(truncSat(v, lo, hi)))
}

// LoadF64 reads one element of k as float64: exact for every kind except 64-bit integers
// beyond 2^53 (rounded to nearest even). The DVE's FP32 datapath is LoadF32; this is for
// reference computations and reductions that want more headroom.
func LoadF64(k Kind, b []byte) float64 {
	switch {
	case k.IsFloat():
		return float64(math.Float32frombits(decodeF32(k, LoadBits(k, b))))
	case k == UINT64:
		return float64(LoadBits(k, b))
	case k.IsInteger():
		return float64(signExtend(k, LoadBits(k, b)))
	}
	return math.NaN()
}

// StoreF64 writes v as one element of k. Float kinds go through FP32 (v is first rounded to
// float32, nearest even, then to k: the hardware's cast hub, FACTS §A.1); integer kinds convert
// directly from v, toward zero, saturating, NaN -> 0.
func StoreF64(k Kind, b []byte, v float64) {
	switch {
	case k.IsFloat():
		StoreBits(k, b, encodeF32(k, math.Float32bits(float32(v))))
	case k.IsInteger():
		storeIntFromFloat(k, b, v)
	}
}

// LoadInt reads one element of k as int64. Integer kinds are exact (UINT64 above MaxInt64
// saturates: use LoadUint or LoadBits); float kinds round toward zero and saturate, NaN -> 0.
func LoadInt(k Kind, b []byte) int64 {
	switch {
	case k == UINT64:
		v := LoadBits(k, b)
		if v > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v)
	case k.IsInteger():
		return signExtend(k, LoadBits(k, b))
	case k.IsFloat():
		return truncSat(LoadF64(k, b), math.MinInt64, math.MaxInt64)
	}
	return 0
}

// StoreInt writes v as one element of k. Integer kinds saturate to their range; float kinds
// take v through FP32 (rounded to nearest even), then round to k as StoreF32 does.
func StoreInt(k Kind, b []byte, v int64) {
	switch {
	case k == UINT64:
		if v < 0 {
			v = 0
		}
		StoreBits(k, b, uint64(v))
	case k.IsInteger():
		lo, hi := intRange(k)
		v = max(lo, min(hi, v))
		StoreBits(k, b, uint64(v))
	case k.IsFloat():
		StoreBits(k, b, encodeF32(k, math.Float32bits(float32(v))))
	}
}

// LoadUint reads one element of k as uint64. Integer kinds are exact, negatives saturate to 0;
// float kinds round toward zero and saturate into [0, MaxUint64], NaN -> 0.
func LoadUint(k Kind, b []byte) uint64 {
	switch {
	case k == UINT64:
		return LoadBits(k, b)
	case k.IsInteger():
		return uint64(max(0, signExtend(k, LoadBits(k, b))))
	case k.IsFloat():
		return truncSatU64(LoadF64(k, b))
	}
	return 0
}

// StoreUint writes v as one element of k: integer kinds saturate to their largest value; float
// kinds take v through FP32 as StoreInt does.
func StoreUint(k Kind, b []byte, v uint64) {
	switch {
	case k == UINT64:
		StoreBits(k, b, v)
	case k.IsInteger():
		_, hi := intRange(k)
		StoreBits(k, b, min(v, uint64(hi)))
	case k.IsFloat():
		StoreBits(k, b, encodeF32(k, math.Float32bits(float32(v))))
	}
}
