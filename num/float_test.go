package num

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func f32(v float64) uint32 { return math.Float32bits(float32(v)) }

// TestDecodeExhaustive widens every code of every float format and compares with the reference.
func TestDecodeExhaustive(t *testing.T) {
	for _, r := range refAll {
		t.Run(r.name, func(t *testing.T) {
			bad := 0
			for c := 0; c < r.codes(); c++ {
				got := r.fastDecode(uint32(c))
				want, isNaN := r.value(uint32(c))
				gv := math.Float32frombits(got)
				if isNaN {
					if gv == gv {
						t.Errorf("%s code %#x: got %v, want NaN", r.name, c, gv)
						bad++
					}
					continue
				}
				if float64(gv) != want || math.Signbit(float64(gv)) != math.Signbit(want) {
					t.Errorf("%s code %#x: got %v (%#08x), want %v", r.name, c, gv, got, want)
					bad++
				}
				if bad > 10 {
					t.Fatal("too many mismatches")
				}
			}
		})
	}
}

// TestRoundTripExhaustive checks encode(decode(c)) == c for every non-NaN code, and that NaN
// codes come back as a NaN code of the same sign.
func TestRoundTripExhaustive(t *testing.T) {
	for _, r := range refAll {
		t.Run(r.name, func(t *testing.T) {
			for c := 0; c < r.codes(); c++ {
				got := r.fastEncode(r.fastDecode(uint32(c)))
				if _, isNaN := r.value(uint32(c)); isNaN {
					if _, gotNaN := r.value(got); !gotNaN || got&r.signBit() != uint32(c)&r.signBit() {
						t.Errorf("%s NaN code %#x came back as %#x", r.name, c, got)
					}
					continue
				}
				if got != uint32(c) {
					t.Fatalf("%s code %#x came back as %#x", r.name, c, got)
				}
			}
		})
	}
}

// neighbours returns x, the two float32 values next to it, and their negations.
func neighbours(v float64) []uint32 {
	x := float32(v)
	out := []uint32{}
	for _, y := range []float32{x, math.Nextafter32(x, float32(math.Inf(1))), math.Nextafter32(x, float32(math.Inf(-1)))} {
		out = append(out, math.Float32bits(y), math.Float32bits(-y))
	}
	return out
}

// TestEncodeMidpoints narrows every midpoint between adjacent values of each format (the RNE tie
// cases), and the float32 values either side of it, and compares with the reference.
func TestEncodeMidpoints(t *testing.T) {
	for _, r := range refAll {
		t.Run(r.name, func(t *testing.T) {
			cands := r.cands
			var xs []uint32
			for i := 0; i+1 < len(cands); i++ {
				m := (cands[i].v + cands[i+1].v) / 2
				if float64(float32(m)) != m {
					continue // not a float32 value (cannot be an input)
				}
				xs = append(xs, neighbours(m)...)
				xs = append(xs, neighbours(cands[i].v)...)
			}
			last := cands[len(cands)-1].v
			xs = append(xs, neighbours(last)...)
			xs = append(xs, neighbours(last*1.5)...)
			xs = append(xs, neighbours(cands[0].v/2)...) // half the smallest (0 for IEEE formats)
			xs = append(xs, neighbours(cands[1].v/2)...) // half the smallest subnormal: tie to 0
			xs = append(xs, 0, 0x80000000, 0x7f800000, 0xff800000, 0x00000001, 0x80000001, 0x7f7fffff, 0xff7fffff)
			bad := 0
			for _, x := range xs {
				got := r.fastEncode(x)
				want := r.encode(float64(math.Float32frombits(x)))
				if got != want {
					t.Errorf("%s encode(%#08x = %g): got %#x, want %#x", r.name, x, math.Float32frombits(x), got, want)
					if bad++; bad > 10 {
						t.Fatal("too many mismatches")
					}
				}
			}
		})
	}
}

// TestEncodeRandom narrows random float32 bit patterns, biased towards each format's range.
func TestEncodeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	for _, r := range refAll {
		t.Run(r.name, func(t *testing.T) {
			maxExp := r.bias + 2
			for i := 0; i < n; i++ {
				var x uint32
				if i%2 == 0 {
					x = rng.Uint32()
				} else {
					e := 127 - r.bias - r.mbits - 3 + rng.IntN(maxExp+r.bias+r.mbits+3)
					e = max(0, min(254, e))
					x = rng.Uint32()&0x807fffff | uint32(e)<<23
				}
				got := r.fastEncode(x)
				v := math.Float32frombits(x)
				if v != v {
					if _, isNaN := r.value(got); !isNaN && (r.hasInf || r.scale) {
						t.Fatalf("%s encode(NaN %#08x) = %#x, not NaN", r.name, x, got)
					}
					if !r.hasInf && !r.scale && got != 0 {
						t.Fatalf("%s encode(NaN %#08x) = %#x, want +0", r.name, x, got)
					}
					continue
				}
				if want := r.encode(float64(v)); got != want {
					t.Fatalf("%s encode(%#08x = %g): got %#x, want %#x", r.name, x, v, got, want)
				}
			}
		})
	}
}

// TestGenericMatchesFast checks the generic format codec against the hand-written BF16 and FP16
// codecs on every code and on random inputs, and against the fast FP8/FP4 encoders.
func TestGenericMatchesFast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := uint32(0); c < 1<<16; c++ {
		if g, f := fmtBF16.decode(c), BF16ToF32(uint16(c)); g != f {
			t.Fatalf("bf16 decode %#x: generic %#x fast %#x", c, g, f)
		}
		if g, f := fmtFP16.decode(c), FP16ToF32(uint16(c)); g != f {
			t.Fatalf("fp16 decode %#x: generic %#x fast %#x", c, g, f)
		}
	}
	for i := 0; i < 200000; i++ {
		x := rng.Uint32()
		if i&1 == 0 {
			x = x&0x83ffffff | uint32(100+rng.IntN(45))<<23 // around the fp16 range
		}
		if g, f := fmtBF16.encode(x), uint32(F32ToBF16(x)); g != f {
			t.Fatalf("bf16 encode %#08x: generic %#x fast %#x", x, g, f)
		}
		if g, f := fmtFP16.encode(x), uint32(F32ToFP16(x)); g != f {
			t.Fatalf("fp16 encode %#08x: generic %#x fast %#x", x, g, f)
		}
		for _, e := range []*fastEncoder{&encE3M4, &encE4M3, &encE5M2, &encE2M5, &encE2M1} {
			y := x&0x807fffff | uint32(127-e.f.bias-int(e.f.mbits)-2+rng.IntN(e.f.bias+int(e.f.mbits)+6))<<23
			if g, f := e.f.encode(y), e.encode(y); g != f {
				t.Fatalf("E%dM%d encode %#08x: generic %#x fast %#x", e.f.ebits, e.f.mbits, y, g, f)
			}
		}
	}
}

func TestNaNConventions(t *testing.T) {
	tests := []struct {
		name string
		got  uint32
		want uint32
	}{
		{"bf16 qNaN keeps payload", uint32(F32ToBF16(0x7fc12345)), 0x7fc1},
		{"bf16 sNaN is quieted", uint32(F32ToBF16(0xff810000)), 0xffc1},
		{"fp16 sNaN is quieted", uint32(F32ToFP16(0x7f802000)), 0x7e01},
		{"fp16 -qNaN", uint32(F32ToFP16(0xffc00000)), 0xfe00},
		{"fp16 sNaN widens exactly", FP16ToF32(0x7c01), 0x7f802000},
		{"e5m2 NaN", uint32(F32ToFP8(FP8_EXP5, 0x7fc00000)), 0x7e},
		{"e4m3 NaN", uint32(F32ToFP8(FP8_EXP4, 0xffc00000)), 0xfc},
		{"e3m4 NaN", uint32(F32ToFP8(FP8_EXP3, 0x7fc00000)), 0x78},
		{"e2m5 NaN -> +0", uint32(F32ToFP8(FP8_EXP2, 0xffc00000)), 0x00},
		{"e2m1 NaN -> +0", uint32(F32ToFP8(FP4_EXP2, 0x7fc00000)), 0x00},
		{"e8m0 NaN", uint32(F32ToFP8(SFP8_E8, 0x7fc00000)), 0xff},
		{"e8m0 negative -> NaN", uint32(F32ToFP8(SFP8_E8, f32(-2))), 0xff},
		{"fp32r NaN quiet", RoundFP32R(0x7f800001 | 0x400), 0x7fc00400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s: got %#x, want %#x", tc.name, tc.got, tc.want)
			}
		})
	}
}

func TestKnownValues(t *testing.T) {
	tests := []struct {
		k    Kind
		code uint32
		v    float64
	}{
		{BFLOAT16, 0x3f80, 1}, {BFLOAT16, 0xc000, -2}, {BFLOAT16, 0x7f7f, 3.3895313892515355e38},
		{BFLOAT16, 0x0001, 9.183549615799121e-41}, {BFLOAT16, 0x7f80, math.Inf(1)},
		{FP16, 0x3c00, 1}, {FP16, 0x7bff, 65504}, {FP16, 0x0001, 5.960464477539063e-08},
		{FP16, 0x0400, 6.103515625e-05}, {FP16, 0xfc00, math.Inf(-1)}, {FP16, 0x3555, 0.333251953125},
		{FP8_EXP4, 0x77, 240}, {FP8_EXP4, 0x38, 1}, {FP8_EXP4, 0x01, 0.001953125}, {FP8_EXP4, 0x78, math.Inf(1)},
		{FP8_EXP4, 0x08, 0.015625},
		{FP8_EXP5, 0x7b, 57344}, {FP8_EXP5, 0x3c, 1}, {FP8_EXP5, 0x01, 1.52587890625e-05}, {FP8_EXP5, 0xfc, math.Inf(-1)},
		{FP8_EXP3, 0x6f, 15.5}, {FP8_EXP3, 0x30, 1}, {FP8_EXP3, 0x01, 0.015625}, {FP8_EXP3, 0x70, math.Inf(1)},
		{FP8_EXP2, 0x7f, 7.875}, {FP8_EXP2, 0x20, 1}, {FP8_EXP2, 0x01, 0.03125},
		{FP4_EXP2, 0x7, 6}, {FP4_EXP2, 0x1, 0.5}, {FP4_EXP2, 0x2, 1}, {FP4_EXP2, 0x5, 3}, {FP4_EXP2, 0xf, -6},
		{SFP8_E8, 0x7f, 1}, {SFP8_E8, 0x00, math.Ldexp(1, -127)}, {SFP8_E8, 0xfe, math.Ldexp(1, 127)},
		{SFP8_E7, 0x7e, 1}, {SFP8_E7, 0x7f, 1.5}, {SFP8_E5, 0x78, 1}, {SFP8_E6, 0x7c, 1},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/%#x", tc.k, tc.code), func(t *testing.T) {
			got := float64(math.Float32frombits(decodeF32(tc.k, uint64(tc.code))))
			if got != tc.v {
				t.Errorf("%v %#x decodes to %g, want %g", tc.k, tc.code, got, tc.v)
			}
			if back := encodeF32(tc.k, f32(tc.v)); back != uint64(tc.code) {
				t.Errorf("%v %g encodes to %#x, want %#x", tc.k, tc.v, back, tc.code)
			}
		})
	}
	for _, k := range []Kind{FP8_EXP4, FP8_EXP5, FP8_EXP3, FP8_EXP2, FP4_EXP2, BFLOAT16, FP16, SFP8_E8} {
		if got := k.MaxFinite(); got != map[Kind]float64{FP8_EXP4: 240, FP8_EXP5: 57344, FP8_EXP3: 15.5,
			FP8_EXP2: 7.875, FP4_EXP2: 6, BFLOAT16: 3.3895313892515355e38, FP16: 65504, SFP8_E8: math.Ldexp(1, 127)}[k] {
			t.Errorf("%v.MaxFinite() = %g", k, got)
		}
	}
}

// TestRNETies pins hand-computed tie cases: exactly halfway rounds to the even code.
func TestRNETies(t *testing.T) {
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"bf16 1+2^-8 -> 1 (even)", encodeF32(BFLOAT16, 0x3f808000), 0x3f80},
		{"bf16 1+3*2^-8 -> 1+2^-6 (even)", encodeF32(BFLOAT16, 0x3f818000), 0x3f82},
		{"bf16 1+2^-8+ulp -> up", encodeF32(BFLOAT16, 0x3f808001), 0x3f81},
		{"bf16 max+halfulp -> inf", encodeF32(BFLOAT16, 0x7f7f8000), 0x7f80},
		{"bf16 max+halfulp-1 -> max", encodeF32(BFLOAT16, 0x7f7f7fff), 0x7f7f},
		{"fp16 2049 -> 2048", encodeF32(FP16, f32(2049)), 0x6800},
		{"fp16 2051 -> 2052", encodeF32(FP16, f32(2051)), 0x6802},
		{"fp16 65519 -> 65504", encodeF32(FP16, f32(65519)), 0x7bff},
		{"fp16 65520 -> inf", encodeF32(FP16, f32(65520)), 0x7c00},
		{"fp16 2^-25 -> 0", encodeF32(FP16, f32(math.Ldexp(1, -25))), 0x0000},
		{"fp16 3*2^-25 -> 2^-23", encodeF32(FP16, f32(3*math.Ldexp(1, -25))), 0x0002},
		{"fp16 -2^-25*1.0000001 -> -min", encodeF32(FP16, math.Float32bits(-math.Nextafter32(float32(math.Ldexp(1, -25)), 1))), 0x8001},
		{"e4m3 248 (max+half ulp) -> inf", encodeF32(FP8_EXP4, f32(248)), 0x78},
		{"e4m3 247 -> 240", encodeF32(FP8_EXP4, f32(247)), 0x77},
		{"e4m3 1.0625 -> 1", encodeF32(FP8_EXP4, f32(1.0625)), 0x38},
		{"e4m3 1.1875 -> 1.25", encodeF32(FP8_EXP4, f32(1.1875)), 0x3a},
		{"e4m3 2^-10 -> 0", encodeF32(FP8_EXP4, f32(math.Ldexp(1, -10))), 0x00},
		{"e4m3 3*2^-10 -> 2*2^-9", encodeF32(FP8_EXP4, f32(3*math.Ldexp(1, -10))), 0x02},
		{"e5m2 61440 -> inf", encodeF32(FP8_EXP5, f32(61440)), 0x7c},
		{"e5m2 61439 -> max", encodeF32(FP8_EXP5, f32(61439)), 0x7b},
		{"e5m2 1.125 -> 1", encodeF32(FP8_EXP5, f32(1.125)), 0x3c},
		{"e5m2 1.375 -> 1.5", encodeF32(FP8_EXP5, f32(1.375)), 0x3e},
		{"e3m4 15.75 -> inf", encodeF32(FP8_EXP3, f32(15.75)), 0x70},
		{"e2m5 1e9 saturates", encodeF32(FP8_EXP2, f32(1e9)), 0x7f},
		{"e2m5 -inf saturates", encodeF32(FP8_EXP2, 0xff800000), 0xff},
		{"e2m1 5 -> 4 (even)", encodeF32(FP4_EXP2, f32(5)), 0x6},
		{"e2m1 2.5 -> 2 (even)", encodeF32(FP4_EXP2, f32(2.5)), 0x4},
		{"e2m1 0.25 -> 0 (even)", encodeF32(FP4_EXP2, f32(0.25)), 0x0},
		{"e2m1 0.75 -> 1 (even)", encodeF32(FP4_EXP2, f32(0.75)), 0x2},
		{"e2m1 7 saturates", encodeF32(FP4_EXP2, f32(7)), 0x7},
		{"e8m0 3 -> 2 (even code)", encodeF32(SFP8_E8, f32(3)), 0x80},
		{"e8m0 3.01 -> 4", encodeF32(SFP8_E8, f32(3.01)), 0x81},
		{"e8m0 0 -> smallest", encodeF32(SFP8_E8, 0), 0x00},
		{"fp32r 1+2^-14 -> 1 (even)", encodeF32(FP32R, 0x3f800200), 0x3f800000},
		{"fp32r 1+3*2^-14 -> 1+2^-12", encodeF32(FP32R, 0x3f800600), 0x3f800800},
		{"fp32r max -> inf", encodeF32(FP32R, 0x7f7fffff), 0x7f800000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("%s: got %#x, want %#x", tc.name, tc.got, tc.want)
			}
		})
	}
}

// TestFP32RReference checks RoundFP32R against float64 rounding to 14 significant bits.
func TestFP32RReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200000; i++ {
		x := rng.Uint32()
		if x&0x7f800000 == 0x7f800000 || x&0x7f800000 == 0 {
			continue // Inf/NaN and FP32 subnormals are covered by TestRNETies / bit identity below
		}
		v := float64(math.Float32frombits(x))
		fr, e := math.Frexp(v) // v = fr * 2^e, 0.5 <= |fr| < 1
		want := math.Ldexp(math.RoundToEven(math.Ldexp(fr, 14)), e-14)
		got := float64(math.Float32frombits(RoundFP32R(x)))
		if math.Abs(want) > math.MaxFloat32 {
			want = math.Inf(int(1 - 2*(x>>31)))
		}
		if got != want {
			t.Fatalf("RoundFP32R(%#08x = %g) = %g, want %g", x, v, got, want)
		}
		if RoundFP32R(x)&0x3ff != 0 {
			t.Fatalf("RoundFP32R(%#08x) left low bits", x)
		}
	}
}
