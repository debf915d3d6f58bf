package num

import (
	"encoding/binary"
	"unsafe"
)

// Element access a slice at a time: each function does, for len(xs) consecutive elements of k
// at b, what its one-element form (LoadF32, StoreF32, LoadExtended, LoadBits, StoreInt,
// StoreUint, StoreBits) does, with the kind decided once per call (the DVE's reduce and scan
// lanes run on them). b must hold the elements (k.BytesFor(len(xs)) bytes; 4-bit kinds pack two
// per byte, low nibble first, as in ConvertSlice).

// Word is the in-memory type of an element, or of the value an op computes in.
type Word interface {
	float32 | int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64
}

// hostLittleEndian: the host stores words as the device does, so a slice of words can be read
// and written as the device's bytes (Bytes, View).
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Bytes is xs's memory as bytes: the device's encoding of the words on a little-endian host.
func Bytes[E Word](xs []E) []byte {
	var e E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)*int(unsafe.Sizeof(e)))
}

// View is b's first n elements as a []E in place, when the host is little-endian and b holds
// them aligned for E; ok is false otherwise (and for n == 0).
func View[E Word](b []byte, n int) (v []E, ok bool) {
	var e E
	p := unsafe.Pointer(unsafe.SliceData(b))
	if !hostLittleEndian || n <= 0 || len(b) < n*int(unsafe.Sizeof(e)) || uintptr(p)%unsafe.Alignof(e) != 0 {
		return nil, false
	}
	return unsafe.Slice((*E)(p), n), true
}

// LoadF32Slice is LoadF32 of each element: ConvertSlice to FP32, which is LoadF32 element by
// element with loops specialised on k.
func LoadF32Slice(xs []float32, b []byte, k Kind) {
	if !hostLittleEndian || ConvertSlice(Bytes(xs), FP32, b, k, len(xs)) != nil {
		eachLoad(k, b, len(xs), func(i int, e []byte) { xs[i] = LoadF32(k, e) })
	}
}

// StoreF32Slice is StoreF32 of each value (ConvertSlice from FP32).
func StoreF32Slice(b []byte, xs []float32, k Kind) {
	if !hostLittleEndian || ConvertSlice(b, k, Bytes(xs), FP32, len(xs)) != nil {
		eachStore(k, b, len(xs), func(i int, e []byte) { StoreF32(k, e, xs[i]) })
	}
}

// LoadExtended reads one element's bits extended by k's sign to 64 bits: a signed integer
// kind's value, an unsigned one's, and for INT64, UINT64 and the float kinds their bits (so a
// UINT64 above MaxInt64 reads as the negative int64 of the same bits).
func LoadExtended(k Kind, b []byte) int64 { return signExtend(k, LoadBits(k, b)) }

// LoadExtendedSlice is LoadExtended of each element.
func LoadExtendedSlice(xs []int64, b []byte, k Kind) {
	switch k {
	case INT8:
		widen[int8](xs, b)
	case UINT8:
		widen[uint8](xs, b)
	case INT16:
		widen[int16](xs, b)
	case UINT16:
		widen[uint16](xs, b)
	case INT32:
		widen[int32](xs, b)
	case UINT32:
		widen[uint32](xs, b)
	case INT64, UINT64:
		widen[uint64](xs, b)
	default:
		eachLoad(k, b, len(xs), func(i int, e []byte) { xs[i] = LoadExtended(k, e) })
	}
}

// Bits is the type of a raw bit vector held in a word: uint32 holds the kinds of up to 32 bits,
// uint64 every kind.
type Bits interface{ uint32 | uint64 }

// LoadBitsSlice is LoadBits of each element: the raw bits, zero-extended to T (for T uint32, a
// 64-bit kind keeps only its low 32 bits).
func LoadBitsSlice[T Bits](xs []T, b []byte, k Kind) {
	switch k.SizeBits() {
	case 8:
		widen[uint8](xs, b)
	case 16:
		widen[uint16](xs, b)
	case 32:
		widen[uint32](xs, b)
	case 64:
		widen[uint64](xs, b)
	default:
		eachLoad(k, b, len(xs), func(i int, e []byte) { xs[i] = T(LoadBits(k, e)) })
	}
}

// StoreIntSlice is StoreInt of each value: integer kinds saturate to their range. It may
// change xs (the values held to the range).
func StoreIntSlice(b []byte, xs []int64, k Kind) {
	if !k.IsInteger() || k.SizeBits() < 8 {
		eachStore(k, b, len(xs), func(i int, e []byte) { StoreInt(k, e, xs[i]) })
		return
	}
	if k != INT64 {
		lo, hi := intRange(k) // UINT64: [0, MaxInt64], as StoreInt holds a negative v to 0
		for i, v := range xs {
			xs[i] = max(lo, min(hi, v))
		}
	}
	narrowTo(b, xs, k.Size())
}

// StoreUintSlice is StoreUint of each value: integer kinds saturate to their largest value. It
// may change xs (the values held to the range).
func StoreUintSlice(b []byte, xs []uint64, k Kind) {
	if !k.IsInteger() || k.SizeBits() < 8 {
		eachStore(k, b, len(xs), func(i int, e []byte) { StoreUint(k, e, xs[i]) })
		return
	}
	if k != UINT64 {
		_, hi := intRange(k)
		for i, v := range xs {
			xs[i] = min(uint64(hi), v)
		}
	}
	narrowTo(b, xs, k.Size())
}

// StoreBitsSlice is StoreBits of each value: the low bits.
func StoreBitsSlice[T Bits](b []byte, xs []T, k Kind) {
	if k.SizeBits() < 8 {
		eachStore(k, b, len(xs), func(i int, e []byte) { StoreBits(k, e, uint64(xs[i])) })
		return
	}
	narrowTo(b, xs, k.Size())
}

// eachLoad calls load with each of the n elements of k at b: its bytes, or for a 4-bit kind a
// byte holding it in the low nibble (the one-element forms' reading).
func eachLoad(k Kind, b []byte, n int, load func(i int, e []byte)) {
	if k.SizeBits() == 4 {
		for i := range n {
			load(i, []byte{b[i/2] >> (4 * (i & 1))})
		}
		return
	}
	sz := k.Size()
	for i := range n {
		load(i, b[i*sz:])
	}
}

// eachStore calls store with where each of the n elements of k at b goes: its bytes, or for a
// 4-bit kind a byte whose low nibble is then written to the element's own nibble.
func eachStore(k Kind, b []byte, n int, store func(i int, e []byte)) {
	if k.SizeBits() == 4 {
		for i := range n {
			sh := 4 * (i & 1)
			e := []byte{b[i/2] >> sh}
			store(i, e)
			b[i/2] = b[i/2]&^(0xf<<sh) | (e[0]&0xf)<<sh
		}
		return
	}
	sz := k.Size()
	for i := range n {
		store(i, b[i*sz:])
	}
}

// narrowTo writes the low es bytes of each value, little-endian.
func narrowTo[T int64 | uint64 | uint32](b []byte, xs []T, es int) {
	switch es {
	case 1:
		narrow[uint8](b, xs)
	case 2:
		narrow[uint16](b, xs)
	case 4:
		narrow[uint32](b, xs)
	default:
		narrow[uint64](b, xs)
	}
}

// intWord is the in-memory type of an integer element.
type intWord interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64
}

// widen decodes len(xs) little-endian elements of type S from b, extended to T by S's sign.
func widen[S intWord, T int64 | uint64 | uint32](xs []T, b []byte) {
	if v, ok := View[S](b, len(xs)); ok {
		for i, x := range v {
			xs[i] = T(x)
		}
		return
	}
	sz := int(unsafe.Sizeof(S(0)))
	var w [8]byte
	for i := range xs {
		copy(w[:], b[i*sz:(i+1)*sz])
		xs[i] = T(S(binary.LittleEndian.Uint64(w[:])))
	}
}

// narrow encodes xs as little-endian elements of type S into b: the low bits of each.
func narrow[S intWord, T int64 | uint64 | uint32](b []byte, xs []T) {
	if v, ok := View[S](b, len(xs)); ok {
		for i, x := range xs {
			v[i] = S(x)
		}
		return
	}
	sz := int(unsafe.Sizeof(S(0)))
	var w [8]byte
	for i, x := range xs {
		binary.LittleEndian.PutUint64(w[:], uint64(S(x)))
		copy(b[i*sz:(i+1)*sz], w[:sz])
	}
}
