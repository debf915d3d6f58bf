package dve

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/tpbsim/tpbsim/num"
)

// Element access of the reduce and scan paths: one element, or a chunk of them, decoded into an
// op class's values and encoded back.

// stream is one channel's elements in a uniform form for the ALU.
type valueKind struct {
	class opClass
	in    num.Kind
	out   num.Kind
	width int // bits of the input (bitvec)
}

func (v *valueKind) loadF(b []byte, i int) float32 {
	sz := v.in.Size()
	return num.LoadF32(v.in, b[i*sz:])
}

func (v *valueKind) loadI(b []byte, i int) int64 {
	sz := v.in.Size()
	if v.in == num.UINT64 {
		return int64(num.LoadBits(v.in, b[i*sz:]))
	}
	return num.LoadInt(v.in, b[i*sz:])
}

func (v *valueKind) loadB(b []byte, i int) uint64 {
	sz := v.in.Size()
	return num.LoadBits(v.in, b[i*sz:])
}

// hostLittleEndian: the host stores words as the device does, so a slice of float32 or of
// integers can be read and written as the device's bytes (asBytes, view).
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// asBytes is xs's memory as bytes (the device's encoding on a little-endian host).
func asBytes[E laneValue](xs []E) []byte {
	var e E
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)*int(unsafe.Sizeof(e)))
}

// view is b's first n elements as a []E in place, when the host is little-endian and b holds
// them aligned for E; ok is false otherwise.
func view[E any](b []byte, n int) (v []E, ok bool) {
	var e E
	p := unsafe.Pointer(unsafe.SliceData(b))
	if !hostLittleEndian || n == 0 || len(b) < n*int(unsafe.Sizeof(e)) || uintptr(p)%unsafe.Alignof(e) != 0 {
		return nil, false
	}
	return unsafe.Slice((*E)(p), n), true
}

// loadF32s decodes len(xs) elements of k from b as num.LoadF32 does: num.ConvertSlice to FP32
// is LoadF32 element by element, with loops specialised on k.
func loadF32s(xs []float32, b []byte, k num.Kind) {
	if !hostLittleEndian || num.ConvertSlice(asBytes(xs), num.FP32, b, k, len(xs)) != nil {
		sz := k.Size()
		for i := range xs {
			xs[i] = num.LoadF32(k, b[i*sz:])
		}
	}
}

// storeF32s encodes xs as elements of k into b as num.StoreF32 does (num.ConvertSlice from FP32
// is StoreF32 element by element).
func storeF32s(b []byte, xs []float32, k num.Kind) {
	if !hostLittleEndian || num.ConvertSlice(b, k, asBytes(xs), num.FP32, len(xs)) != nil {
		sz := k.Size()
		for i, v := range xs {
			num.StoreF32(k, b[i*sz:], v)
		}
	}
}

// loadI64s decodes integer elements as valueKind.loadI does: sign-extended where k is signed,
// UINT64 as its bits.
func loadI64s(xs []int64, b []byte, k num.Kind) {
	switch k {
	case num.INT8:
		widen[int8](xs, b)
	case num.UINT8:
		widen[uint8](xs, b)
	case num.INT16:
		widen[int16](xs, b)
	case num.UINT16:
		widen[uint16](xs, b)
	case num.INT32:
		widen[int32](xs, b)
	case num.UINT32:
		widen[uint32](xs, b)
	default: // INT64, UINT64
		widen[uint64](xs, b)
	}
}

// loadU64s decodes integer elements as valueKind.loadB does: raw bits, zero-extended.
func loadU64s(xs []uint64, b []byte, k num.Kind) {
	switch k.Size() {
	case 1:
		widen[uint8](xs, b)
	case 2:
		widen[uint16](xs, b)
	case 4:
		widen[uint32](xs, b)
	default:
		widen[uint64](xs, b)
	}
}

// intElem is the in-memory type of an integer element.
type intElem interface {
	int8 | uint8 | int16 | uint16 | int32 | uint32 | int64 | uint64
}

// widen decodes len(xs) little-endian elements of type S from b, extended to T by S's sign.
func widen[S intElem, T int64 | uint64](xs []T, b []byte) {
	if v, ok := view[S](b, len(xs)); ok {
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
func narrow[S intElem, T int64 | uint64](b []byte, xs []T) {
	if v, ok := view[S](b, len(xs)); ok {
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

// storeI64s encodes integer-band results as storeInt does for a signed input: each int64
// saturated to k's range. k is an integer kind (opFor).
func storeI64s(b []byte, xs []int64, k num.Kind) {
	if k != num.INT64 {
		w := uint(k.SizeBits())
		lo, hi := int64(0), int64(1)<<w-1
		switch {
		case k == num.UINT64:
			hi = math.MaxInt64
		case k.IsSigned():
			lo, hi = -1<<(w-1), 1<<(w-1)-1
		}
		for i, v := range xs {
			xs[i] = max(lo, min(hi, v))
		}
	}
	storeInts(b, xs, k.Size())
}

// storeI64sUnsigned encodes integer-band results as storeInt does for a UINT64 input: each
// int64's bits read as a uint64, saturated to k's largest value.
func storeI64sUnsigned(b []byte, xs []int64, k num.Kind) {
	if k != num.UINT64 {
		hi := uint64(math.MaxInt64)
		if w := uint(k.SizeBits()); w < 64 {
			hi = 1<<w - 1
			if k.IsSigned() {
				hi >>= 1
			}
		}
		for i, v := range xs {
			xs[i] = int64(min(hi, uint64(v)))
		}
	}
	storeInts(b, xs, k.Size())
}

// storeU64s encodes bit vectors as num.StoreBits does: the low bits of each.
func storeU64s(b []byte, xs []uint64, k num.Kind) { storeInts(b, xs, k.Size()) }

func storeInts[T int64 | uint64](b []byte, xs []T, es int) {
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
