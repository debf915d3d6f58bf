package num

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestWideTableConcurrentFirstUse: goroutines that all want a 64K-entry table that is not built
// yet get the same, complete table (run with -race; it runs before the tests that build tables).
func TestWideTableConcurrentFirstUse(t *testing.T) {
	const n = wideTableMinElems + 5
	src := make([]byte, 2*n)
	for i := range src {
		src[i] = uint8(i*131 + i>>9)
	}
	want := make([]byte, n)
	convertPair(want, SFP8_E6, src, UINT16, n)
	errs := make(chan error, 4)
	outs := make([][]byte, 4)
	for g := range outs {
		outs[g] = make([]byte, n)
		go func() { errs <- ConvertSlice(outs[g], SFP8_E6, src, UINT16, n) }()
	}
	for range outs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for g, out := range outs {
		if !bytes.Equal(out, want) {
			t.Errorf("goroutine %d: table result differs from convertPair", g)
		}
	}
}

// TestConvertSliceMatchesGeneric holds every specialised path of ConvertSlice (slices.go: the
// FP32 loops, the chunked two-step casts, the 8-bit sources' 256-entry tables, the saturating
// integer copies, the fused BF16 <-> FP16 loops; widetable.go: the 64K-entry tables, which
// n = 65537 reaches) to convertGeneric, the per-element reference, for every (source,
// destination) pair of Kinds(): every code of the 4-, 8- and 16-bit sources, and special plus
// random values of the 32- and 64-bit ones; for several n (odd ones, about the chunk size and
// the table thresholds), with destination bytes beyond n elements and a trailing half byte that
// must be left alone.
func TestConvertSliceMatchesGeneric(t *testing.T) {
	for _, sk := range Kinds() {
		t.Run(sk.String(), func(t *testing.T) {
			src, n := diffSource(sk)
			for _, dk := range Kinds() {
				for _, m := range diffLengths(n) {
					checkAgainstGeneric(t, dk, src, sk, m)
				}
			}
		})
	}
}

// diffLengths are the element counts tried on a source of n elements: the whole of it (every
// code of a narrow kind), and counts about the chunk size and the table threshold.
func diffLengths(n int) []int {
	ms := []int{n}
	for _, m := range []int{1, 2, 3, chunkElems - 1, chunkElems, chunkElems + 1, 2*chunkElems + 3,
		tableMinElems - 1, tableMinElems, tableMinElems + 1} {
		if m < n {
			ms = append(ms, m)
		}
	}
	return ms
}

func checkAgainstGeneric(t *testing.T, dk Kind, src []byte, sk Kind, n int) {
	t.Helper()
	size := dk.BytesFor(n) + 9
	want, got := make([]byte, size), make([]byte, size)
	for i := range want {
		want[i] = uint8(0xa5 ^ i*13)
	}
	copy(got, want)
	if sk == dk {
		for i := 0; i < n; i++ {
			putRawAt(dk, want, i, rawAt(sk, src, i))
		}
	} else {
		convertGeneric(want, dk, src, sk, n)
	}
	if err := ConvertSlice(got, dk, src, sk, n); err != nil {
		t.Fatalf("%v -> %v n=%d: %v", sk, dk, n, err)
	}
	if bytes.Equal(got, want) {
		return
	}
	for i := 0; i < n; i++ {
		if g, w := rawAt(dk, got, i), rawAt(dk, want, i); g != w {
			t.Errorf("%v -> %v n=%d: element %d of source bits %#x: got %#x, convertGeneric %#x",
				sk, dk, n, i, rawAt(sk, src, i), g, w)
			return
		}
	}
	t.Errorf("%v -> %v n=%d: bytes beyond the %d elements differ: got % x, want % x",
		sk, dk, n, n, got[dk.BytesFor(n)-1:], want[dk.BytesFor(n)-1:])
}

// diffSource is the test source of sk and its element count.
func diffSource(sk Kind) ([]byte, int) {
	rng := rand.New(rand.NewPCG(21, uint64(sk)))
	switch sk.SizeBits() {
	case 4: // every pair of codes in one byte, then an odd count: the last byte's high half is left over
		b := make([]byte, 256+tableMinElems)
		for i := range b {
			b[i] = uint8(i)
			if i >= 256 {
				b[i] = uint8(rng.Uint32())
			}
		}
		return b, 2*len(b) - 1
	case 8: // every code, then more in random order (odd count, past the table threshold)
		b := make([]byte, 256+tableMinElems+3)
		for i := range b {
			b[i] = uint8(i)
			if i >= 256 {
				b[i] = uint8(rng.Uint32())
			}
		}
		return b, len(b)
	case 16: // every code, then one more
		b := make([]byte, 2*(1<<16+1))
		for c := 0; c < 1<<16; c++ {
			StoreBits(sk, b[2*c:], uint64(c))
		}
		StoreBits(sk, b[2<<16:], 0x3c01)
		return b, 1<<16 + 1
	}
	var xs []uint64
	if sk == FP32 || sk == FP32R {
		for _, x := range diffFloats(rng) {
			xs = append(xs, uint64(x))
		}
	} else {
		for _, v := range diffInts(rng) {
			xs = append(xs, uint64(v))
		}
	}
	b := make([]byte, len(xs)*sk.Size())
	for i, x := range xs {
		StoreBits(sk, b[i*sk.Size():], x)
	}
	return b, len(xs)
}

// diffFloats are FP32 bit patterns: NaN payloads, infinities, zeros, subnormals, the values on
// and next to every integer kind's bounds and x.5 ties, the rounding midpoints of every narrower
// float format, then random patterns and random values of every magnitude.
func diffFloats(rng *rand.Rand) []uint32 {
	xs := []uint32{
		0, 0x80000000, 0x7f800000, 0xff800000, // ±0, ±Inf
		0x7f800001, 0x7f802000, 0x7f810000, 0x7fa00000, 0x7fbfffff, 0x7fc00000, 0x7fc00001,
		0x7fffffff, 0xff800001, 0xffc00000, 0xffd55555, 0xffffffff, // NaN payloads, signalling and quiet
		0x00000001, 0x00000002, 0x003fffff, 0x00400000, 0x007fffff, 0x80000001, 0x807fffff, // subnormals
		0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, // smallest normal, largest finite
	}
	for _, v := range []float64{0.25, 0.5, 0.75, 1, 1.5, 2.5, 3.5, 6, 7, 7.5, 8, 8.5, 9, 127, 127.5, 128,
		128.5, 129, 129.5, 255, 255.5, 256, 256.5, 257, 32767, 32767.5, 32768, 32768.5, 32769, 65504,
		65519, 65520, 65535, 65535.5, 65536, 65537, 1<<24 - 1, 1 << 24, 1<<24 + 2, 1<<31 - 128, 1 << 31,
		1<<32 - 256, 1 << 32, 1 << 53, 1<<63 - 1<<39, 1 << 63, 1<<64 - 1<<40, 1 << 64, 1e30} {
		xs = append(xs, neighbours(v)...)
	}
	for _, r := range refAll {
		c := r.cands
		step := 1 + len(c)/4096 // every midpoint of the small formats, a sample of BF16's
		for i := 0; i+1 < len(c); i += step {
			if m := (c[i].v + c[i+1].v) / 2; float64(float32(m)) == m {
				xs = append(xs, neighbours(m)...)
			}
		}
	}
	for i := 0; i < 20000; i++ {
		xs = append(xs, rng.Uint32())
		v := rng.NormFloat64() * math.Ldexp(1, rng.IntN(70)-4)
		xs = append(xs, math.Float32bits(float32(v)))
	}
	return xs
}

// diffInts are integer values, stored truncated to each kind's width: each integer kind's bounds
// and their neighbours, 2^24 +- small (where FP32 starts to round), values on either side of
// FP32's and BF16's/FP16's rounding ties, then random ones of every magnitude.
func diffInts(rng *rand.Rand) []int64 {
	var vs []int64
	for _, v := range []int64{0, 1, 2, 3, 7, 8, 9, 127, 128, 129, 255, 256, 257, 259, 32767, 32768, 32769,
		65503, 65504, 65519, 65520, 65535, 65536, 65537, 1<<24 - 1, 1 << 24, 1<<24 + 1, 1<<24 + 2,
		1<<24 + 3, 1<<25 + 2, 1<<25 + 6, 1<<31 - 65, 1<<31 - 64, 1<<31 - 63, 1<<31 - 1, 1 << 31,
		1<<32 - 129, 1<<32 - 128, 1<<32 - 1, 1 << 32, 1<<53 + 1, math.MaxInt64 - 1<<39 + 1, math.MaxInt64 - 1<<38, math.MaxInt64} {
		vs = append(vs, v, -v, v-1, -v-1)
	}
	vs = append(vs, math.MinInt64, math.MinInt64+1)
	for i := 0; i < 20000; i++ {
		vs = append(vs, int64(rng.Uint64()), int64(rng.Uint64())>>rng.IntN(64))
	}
	return vs
}

// TestConvertSliceTableAndChunkAgree: an 8-bit source gives the same bytes through its table
// (n >= tableMinElems) as through the chunked loops, element for element.
func TestConvertSliceTableAndChunkAgree(t *testing.T) {
	src := make([]byte, tableMinElems+1)
	for i := range src {
		src[i] = uint8(i * 37)
	}
	for _, sk := range Kinds() {
		t.Run(sk.String(), func(t *testing.T) {
			if sk.SizeBits() != 8 {
				return
			}
			for _, dk := range Kinds() {
				if dk == sk || dk == FP32 {
					continue
				}
				n := len(src)
				a, b := make([]byte, dk.BytesFor(n)), make([]byte, dk.BytesFor(n))
				convertByTable(a, dk, src, sk, n)
				convertChunked(b, dk, src, sk, n)
				if !bytes.Equal(a, b) {
					t.Errorf("%v -> %v: table and chunked loops differ", sk, dk)
				}
			}
		})
	}
}

func TestConvertSliceTwoStepAllocs(t *testing.T) {
	src := make([]byte, 8*4096)
	dst := make([]byte, 8*4096)
	for _, p := range []struct{ dk, sk Kind }{{INT8, BFLOAT16}, {FP8_EXP4, BFLOAT16}, {BFLOAT16, UINT8},
		{INT8, INT32}, {FP16, BFLOAT16}, {INT4, FP4_EXP2}, {UINT64, SFP8_E8}} {
		t.Run(fmt.Sprintf("%v->%v", p.sk, p.dk), func(t *testing.T) {
			if a := testing.AllocsPerRun(10, func() { _ = ConvertSlice(dst, p.dk, src, p.sk, 4000) }); a != 0 {
				t.Errorf("%v per call", a)
			}
		})
	}
}
