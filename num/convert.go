package num

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/tpbsim/tpbsim/fault"
)

// ConvertSlice converts n consecutive elements of kind sk in src to kind dk in dst, the way the
// DVE Cast and the DMA engines' casts do: through FP32 (FACTS §A.1 "the cast hub"; DESIGN §4),
// rounding to nearest even into floats and toward zero, saturating (NaN -> 0) into integers.
// Integer-to-integer casts therefore also pass through FP32 and lose the low bits of values
// beyond 2^24 (Provenance num.cast.via_fp32). When sk == dk the bytes are copied bit for bit.
//
// 4-bit kinds pack element 2j in the low nibble and 2j+1 in the high nibble of byte j
// (Provenance num.nibble_order); a trailing half byte of dst keeps its other nibble.
// dst and src must not overlap unless they are the same slice and sk == dk.
//
// No pair dispatches per element (slices.go): FP32 to or from any kind runs one loop for the
// other kind; an 8-bit source looks its codes up in a 256-entry table made for the call; a
// 16-bit source cast to an 8-, 16- or 32-bit kind other than FP32, in a 64K-entry table made on
// first use for a large n (wideTableFor); BF16 <-> FP16 runs one fused loop, an integer pair that cannot lose
// bits in FP32 a saturating integer copy, and every other pair widens to FP32 and narrows again
// a chunk at a time. convertGeneric is the per-element reference they are all tested against.
//
// The error is a *Error: a kind without an element encoding or a negative n (fault.ErrInvalid),
// a buffer shorter than n elements (fault.ErrBounds).
func ConvertSlice(dst []byte, dk Kind, src []byte, sk Kind, n int) error {
	if !sk.Numeric() {
		return errorf(fault.ErrInvalid, RuleKindHasEncoding, "src", "source kind %v has no element encoding", sk)
	}
	if !dk.Numeric() {
		return errorf(fault.ErrInvalid, RuleKindHasEncoding, "dst", "destination kind %v has no element encoding", dk)
	}
	if n < 0 {
		return errorf(fault.ErrInvalid, RuleElementCount, "n", "n = %d; legal: >= 0", n)
	}
	if need := sk.BytesFor(n); len(src) < need {
		return errorf(fault.ErrBounds, RuleBufferHoldsElements, "src", "source %v needs %d bytes for %d elements, has %d", sk, need, n, len(src))
	}
	if need := dk.BytesFor(n); len(dst) < need {
		return errorf(fault.ErrBounds, RuleBufferHoldsElements, "dst", "destination %v needs %d bytes for %d elements, has %d", dk, need, n, len(dst))
	}
	if n == 0 {
		return nil
	}
	if sk == dk {
		copySame(dst, src, sk, n)
		return nil
	}
	if sk == FP32R { // inputs reject FP32R (FACTS §A.1); read it as the FP32 word it is
		sk = FP32
	}
	if t := wideTableFor(dk, sk, n); t != nil {
		t.convert(dst, src, n)
		return nil
	}
	convertPair(dst, dk, src, sk, n)
	return nil
}

// convertPair is ConvertSlice of two different kinds (an FP32R source read as FP32) short of
// the 64K-entry tables of widetable.go (it is what builds them).
func convertPair(dst []byte, dk Kind, src []byte, sk Kind, n int) {
	switch {
	case sk == FP32:
		narrowSlice(dk, dst, src, n)
	case dk == FP32:
		widenSlice(sk, dst, src, n)
	case sk == BFLOAT16 && dk == FP16:
		bf16ToFP16Slice(dst[:2*n], src[:2*n])
	case sk == FP16 && dk == BFLOAT16:
		fp16ToBF16Slice(dst[:2*n], src[:2*n])
	case sk.SizeBits() == 8 && n >= tableMinElems:
		convertByTable(dst, dk, src, sk, n)
	case intsExact(dk, sk):
		convertInts(dst, dk, src, sk, n)
	default:
		convertChunked(dst, dk, src, sk, n)
	}
}

func fastEncoderFor(k Kind) *fastEncoder {
	switch k {
	case FP8_EXP3:
		return &encE3M4
	case FP8_EXP4:
		return &encE4M3
	case FP8_EXP5:
		return &encE5M2
	case FP8_EXP2:
		return &encE2M5
	}
	return &encE2M1
}

// copySame copies n elements of k bit for bit, keeping the other nibble of a trailing half byte.
func copySame(dst, src []byte, k Kind, n int) {
	if k.SizeBits() != 4 {
		copy(dst[:k.BytesFor(n)], src)
		return
	}
	copy(dst[:n/2], src[:n/2])
	if n&1 != 0 {
		dst[n/2] = dst[n/2]&0xf0 | src[n/2]&0x0f
	}
}

// f32ToBF16Slice is the hot FP32 -> BF16 loop (d has 2 bytes per element, s 4).
func f32ToBF16Slice(d, s []byte) {
	for len(s) >= 16 && len(d) >= 8 {
		x0 := binary.LittleEndian.Uint32(s[0:])
		x1 := binary.LittleEndian.Uint32(s[4:])
		x2 := binary.LittleEndian.Uint32(s[8:])
		x3 := binary.LittleEndian.Uint32(s[12:])
		w := uint64(F32ToBF16(x0)) | uint64(F32ToBF16(x1))<<16 | uint64(F32ToBF16(x2))<<32 | uint64(F32ToBF16(x3))<<48
		binary.LittleEndian.PutUint64(d, w)
		s, d = s[16:], d[8:]
	}
	for len(s) >= 4 && len(d) >= 2 {
		binary.LittleEndian.PutUint16(d, F32ToBF16(binary.LittleEndian.Uint32(s)))
		s, d = s[4:], d[2:]
	}
}

// bf16ToF32Slice is the hot BF16 -> FP32 loop (d has 4 bytes per element, s 2).
func bf16ToF32Slice(d, s []byte) {
	for len(s) >= 8 && len(d) >= 16 {
		w := binary.LittleEndian.Uint64(s)
		binary.LittleEndian.PutUint64(d[0:], (w&0xffff)<<16|(w&0xffff0000)<<32)
		binary.LittleEndian.PutUint64(d[8:], (w>>32&0xffff)<<16|(w>>48)<<48)
		s, d = s[8:], d[16:]
	}
	for len(s) >= 2 && len(d) >= 4 {
		binary.LittleEndian.PutUint32(d, BF16ToF32(binary.LittleEndian.Uint16(s)))
		s, d = s[2:], d[4:]
	}
}

// f32ToFP16Slice is the hot FP32 -> FP16 loop: the normal range inline, the rest via F32ToFP16.
func f32ToFP16Slice(d, s []byte) {
	for len(s) >= 4 && len(d) >= 2 {
		x := binary.LittleEndian.Uint32(s)
		h, ok := fp16Normal(x)
		if !ok {
			h = F32ToFP16(x)
		}
		binary.LittleEndian.PutUint16(d, h)
		s, d = s[4:], d[2:]
	}
}

// fp16Normal is F32ToFP16 of an x whose result is a normal FP16 number, and false for any other
// x (small enough to inline).
func fp16Normal(x uint32) (uint16, bool) {
	a := x & 0x7fffffff
	if a-0x38800000 >= 0x477ff000-0x38800000 { // not 2^-14 <= |x| < 65520
		return 0, false
	}
	a -= 112 << 23
	return uint16(x>>16)&0x8000 | uint16((a+0xfff+(a>>13)&1)>>13), true
}

// bf16ToFP16Slice is the BF16 -> FP16 loop: the BF16 word is the top half of its FP32 word.
func bf16ToFP16Slice(d, s []byte) {
	for len(s) >= 2 && len(d) >= 2 {
		x := uint32(binary.LittleEndian.Uint16(s)) << 16
		h, ok := fp16Normal(x)
		if !ok {
			h = F32ToFP16(x)
		}
		binary.LittleEndian.PutUint16(d, h)
		s, d = s[2:], d[2:]
	}
}

// fp16ToBF16Slice is the FP16 -> BF16 loop: widen by table, narrow inline.
func fp16ToBF16Slice(d, s []byte) {
	t := fp16Table()
	for len(s) >= 2 && len(d) >= 2 {
		binary.LittleEndian.PutUint16(d, F32ToBF16(t[binary.LittleEndian.Uint16(s)]))
		s, d = s[2:], d[2:]
	}
}

// fp16Table widens every FP16 code (256 KiB, built on the first FP16 widening, not at start-up:
// most runs of tpbsim never cast from FP16).
var fp16Table = sync.OnceValue(func() *[1 << 16]uint32 {
	var t [1 << 16]uint32
	for h := range t {
		t[h] = FP16ToF32(uint16(h))
	}
	return &t
})

// fp16ToF32Slice is the hot FP16 -> FP32 loop: one table load per element.
func fp16ToF32Slice(d, s []byte) {
	t := fp16Table()
	for len(s) >= 8 && len(d) >= 16 {
		w := binary.LittleEndian.Uint64(s)
		binary.LittleEndian.PutUint64(d[0:], uint64(t[uint16(w)])|uint64(t[uint16(w>>16)])<<32)
		binary.LittleEndian.PutUint64(d[8:], uint64(t[uint16(w>>32)])|uint64(t[uint16(w>>48)])<<32)
		s, d = s[8:], d[16:]
	}
	for len(s) >= 2 && len(d) >= 4 {
		binary.LittleEndian.PutUint32(d, t[binary.LittleEndian.Uint16(s)])
		s, d = s[2:], d[4:]
	}
}

// rawAt reads the raw bits of element i of k in b (4-bit kinds: nibble i, low first).
func rawAt(k Kind, b []byte, i int) uint64 {
	if k.SizeBits() == 4 {
		return uint64(b[i/2]>>(4*(i&1))) & 0x0f
	}
	sz := k.Size()
	return LoadBits(k, b[i*sz:])
}

// putRawAt writes the raw bits of element i of k in b, keeping the other nibble of a 4-bit pair.
func putRawAt(k Kind, b []byte, i int, raw uint64) {
	if k.SizeBits() == 4 {
		sh := 4 * uint(i&1)
		b[i/2] = b[i/2]&^(0x0f<<sh) | uint8(raw&0x0f)<<sh
		return
	}
	sz := k.Size()
	StoreBits(k, b[i*sz:], raw)
}

// toF32Bits takes the raw bits of one element of k to FP32 bits (integers round to nearest even).
func toF32Bits(k Kind, raw uint64) uint32 {
	switch {
	case k.IsFloat():
		return decodeF32(k, raw)
	case k == UINT64:
		return math.Float32bits(float32(raw))
	}
	return math.Float32bits(float32(signExtend(k, raw)))
}

// fromF32Bits takes FP32 bits to the raw bits of one element of k.
func fromF32Bits(k Kind, x uint32) uint64 {
	switch {
	case k.IsFloat():
		return encodeF32(k, x)
	case k == UINT64:
		return truncSatU64(float64(math.Float32frombits(x)))
	}
	lo, hi := intRange(k)
	return uint64(truncSat(float64(math.Float32frombits(x)), lo, hi))
}

// convertGeneric is the per-element definition of a cast, toF32Bits then fromF32Bits with the
// kinds dispatched for every element. No ConvertSlice path runs it any more; it is the reference
// the tests hold every specialised loop to (convert_diff_test.go).
func convertGeneric(dst []byte, dk Kind, src []byte, sk Kind, n int) {
	for i := 0; i < n; i++ {
		putRawAt(dk, dst, i, fromF32Bits(dk, toF32Bits(sk, rawAt(sk, src, i))))
	}
}

// Cast converts one element's raw bits (the low sk.SizeBits() bits of raw) from sk to dk through
// FP32, exactly as ConvertSlice does per element, and returns dk's raw bits zero-extended
// (sk == dk returns them unchanged). Non-numeric kinds give 0.
func Cast(dk, sk Kind, raw uint64) uint64 {
	if !sk.Numeric() || !dk.Numeric() {
		return 0
	}
	raw &= widthMask(sk)
	if sk == dk {
		return raw
	}
	if sk == FP32R {
		sk = FP32
	}
	return fromF32Bits(dk, toF32Bits(sk, raw)) & widthMask(dk)
}

// widthMask keeps the low k.SizeBits() bits.
func widthMask(k Kind) uint64 {
	if k.SizeBits() >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(k.SizeBits()) - 1
}
