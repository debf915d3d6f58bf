package num

import (
	"bytes"
	"math"
	"testing"
)

// FuzzConvertSlice: ConvertSlice never panics on any kinds and lengths, agrees with the
// per-element definition, and widening a float kind to FP32 and back is the identity on
// every non-NaN element.
func FuzzConvertSlice(f *testing.F) {
	f.Add([]byte{0x00, 0x80, 0x80, 0x3f, 0xff, 0x7f, 0x01, 0x00}, uint8(FP32), uint8(BFLOAT16), 2)
	f.Add([]byte{0x00, 0x7c, 0x01, 0x7c, 0xff, 0x7b}, uint8(FP16), uint8(FP8_EXP4), 3)
	f.Add([]byte{0x77, 0x78, 0x7f, 0x80}, uint8(FP8_EXP4), uint8(FP32), 4)
	f.Add([]byte{0x21, 0x43}, uint8(INT4), uint8(FP4_EXP2), 3)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint8(UINT64), uint8(INT8), 1)
	f.Add([]byte{1, 2, 3}, uint8(CPTC3), uint8(FP32), 1)
	f.Add([]byte{}, uint8(FP32), uint8(FP32R), 0)
	f.Add([]byte{0xfe, 0x00, 0xff}, uint8(SFP8_E8), uint8(FP16), -1)
	f.Fuzz(func(t *testing.T, src []byte, skb, dkb uint8, n int) {
		sk, dk := Kind(skb), Kind(dkb)
		if n < -1 || n > 4096 {
			n %= 4097
		}
		dst := make([]byte, 8*len(src)+8)
		err := ConvertSlice(dst, dk, src, sk, n)
		if err != nil {
			return
		}
		want := make([]byte, len(dst))
		oneByOne(want, dk, src, sk, n)
		if !bytes.Equal(dst, want) {
			t.Fatalf("%v -> %v n=%d: ConvertSlice differs from the per-element definition", sk, dk, n)
		}
		if !sk.IsFloat() || sk == FP32R || sk.SizeBits() < 8 || sk == FP32 {
			return
		}
		wide := make([]byte, 4*n)
		back := make([]byte, sk.BytesFor(n))
		if ConvertSlice(wide, FP32, src, sk, n) != nil || ConvertSlice(back, sk, wide, FP32, n) != nil {
			t.Fatal("widen/narrow failed")
		}
		for i := 0; i < n; i++ {
			v := LoadF32(FP32, wide[4*i:])
			if v != v {
				continue
			}
			a, b := LoadBits(sk, src[i*sk.Size():]), LoadBits(sk, back[i*sk.Size():])
			if a != b {
				t.Fatalf("%v element %d: %#x -> %g -> %#x", sk, i, a, v, b)
			}
		}
	})
}

// FuzzNarrow: every narrowing codec agrees with the slow reference on any float32.
func FuzzNarrow(f *testing.F) {
	for _, x := range []uint32{0, 0x80000000, 0x3f800000, 0x477ff000, 0x7f7fffff, 0x7f800000, 0x00000001, 0x33000001, 0x43780000, 0x47600000} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x uint32) {
		v := math.Float32frombits(x)
		for _, r := range refAll {
			got := r.fastEncode(x)
			if v != v {
				if got2 := r.fastEncode(x); got2 != got {
					t.Fatalf("%s: NaN encode not deterministic", r.name)
				}
				continue
			}
			if want := r.encode(float64(v)); got != want {
				t.Fatalf("%s encode(%#08x = %g) = %#x, want %#x", r.name, x, v, got, want)
			}
		}
		if g := RoundFP32R(x); v == v && g&0x3ff != 0 {
			t.Fatalf("RoundFP32R(%#08x) = %#08x keeps low bits", x, g)
		}
	})
}
