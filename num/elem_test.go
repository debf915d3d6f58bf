package num

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

func TestKindTable(t *testing.T) {
	tests := []struct {
		k                      Kind
		name                   string
		bits                   int
		float, integer, signed bool
	}{
		{INVALID, "INVALID", 0, false, false, false},
		{UINT64, "UINT64", 64, false, true, false},
		{INT8, "INT8", 8, false, true, true},
		{UINT8, "UINT8", 8, false, true, false},
		{INT16, "INT16", 16, false, true, true},
		{UINT16, "UINT16", 16, false, true, false},
		{BFLOAT16, "BFLOAT16", 16, true, false, true},
		{FP16, "FP16", 16, true, false, true},
		{INT32, "INT32", 32, false, true, true},
		{UINT32, "UINT32", 32, false, true, false},
		{FP32, "FP32", 32, true, false, true},
		{FP32R, "FP32R", 32, true, false, true},
		{INT64, "INT64", 64, false, true, true},
		{FP8_EXP3, "FP8_EXP3", 8, true, false, true},
		{FP8_EXP4, "FP8_EXP4", 8, true, false, true},
		{FP8_EXP5, "FP8_EXP5", 8, true, false, true},
		{FP4_EXP2, "FP4_EXP2", 4, true, false, true},
		{FP8_EXP2, "FP8_EXP2", 8, true, false, true},
		{INT4, "INT4", 4, false, true, true},
		{SFP8_E8, "SFP8_E8", 8, true, false, false},
		{SFP8_E5, "SFP8_E5", 8, true, false, false},
		{CPTC3, "CPTC3", 0, false, false, false},
		{Kind(0x17), "Kind(0x17)", 0, false, false, false},
		{Kind(0xff), "Kind(0xff)", 0, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.k.String(); got != tc.name {
				t.Errorf("String() = %q", got)
			}
			if got := tc.k.SizeBits(); got != tc.bits {
				t.Errorf("SizeBits() = %d", got)
			}
			if got := tc.k.Size(); got != tc.bits/8 {
				t.Errorf("Size() = %d", got)
			}
			if tc.k.IsFloat() != tc.float || tc.k.IsInteger() != tc.integer || tc.k.IsSigned() != tc.signed {
				t.Errorf("IsFloat/IsInteger/IsSigned = %v/%v/%v", tc.k.IsFloat(), tc.k.IsInteger(), tc.k.IsSigned())
			}
			if tc.k.Numeric() != (tc.float || tc.integer) {
				t.Errorf("Numeric() = %v", tc.k.Numeric())
			}
		})
	}
	if CPTC5.CPTCBits() != 5 || !CPTC1.IsCPTC() || Kind(0x18).IsCPTC() || FP32.CPTCBits() != 0 {
		t.Error("CPTC test")
	}
	if got := len(Kinds()); got != 22 {
		t.Errorf("len(Kinds()) = %d, want 22 numeric kinds", got)
	}
	if FP4_EXP2.BytesFor(3) != 2 || FP32.BytesFor(3) != 12 {
		t.Error("BytesFor")
	}
}

func TestParseKind(t *testing.T) {
	for k := Kind(0); k < numKinds; k++ {
		if !k.Known() && k != INVALID {
			continue
		}
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
		if got, err := ParseKind(fmt.Sprintf("%#x", uint8(k))); err != nil || got != k {
			t.Errorf("ParseKind(%#x) = %v, %v", uint8(k), got, err)
		}
	}
	for s, want := range map[string]Kind{"bfloat16": BFLOAT16, "Float8_E4M3": FP8_EXP4, "float8_e5m2": FP8_EXP5,
		"float16": FP16, "float32": FP32, "int32": INT32, "bool": UINT8, "float8_e8m0fnu": SFP8_E8, "10": FP32} {
		if got, err := ParseKind(s); err != nil || got != want {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"float8_e4m3fn", "tfloat32", "nope", "0x100", ""} {
		if _, err := ParseKind(s); err == nil {
			t.Errorf("ParseKind(%q) succeeded", s)
		}
	}
}

func TestStoreF32Integers(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		k    Kind
		v    float32
		want int64
	}{
		{INT8, 1.9, 1}, {INT8, -1.9, -1}, {INT8, 127.5, 127}, {INT8, 1000, 127}, {INT8, -1000, -128},
		{INT8, nan, 0}, {INT8, inf, 127}, {INT8, -inf, -128},
		{UINT8, -0.5, 0}, {UINT8, -7, 0}, {UINT8, 255.99, 255}, {UINT8, 300, 255}, {UINT8, nan, 0},
		{INT16, -32768.9, -32768}, {INT16, 40000, 32767}, {UINT16, 65535.5, 65535}, {UINT16, 7e4, 65535},
		{INT32, 2147483648, math.MaxInt32}, {INT32, -2147483904, math.MinInt32}, {INT32, 16777217, 16777216},
		{INT32, -3.99, -3}, {UINT32, 4294967296, math.MaxUint32}, {UINT32, -1, 0}, {UINT32, 3e9, 3000000000},
		{INT64, 9.3e18, math.MaxInt64}, {INT64, -9.3e18, math.MinInt64}, {INT64, 1e18, 999999984306749440},
		{INT4, 7.9, 7}, {INT4, 8, 7}, {INT4, -8.5, -8}, {INT4, -3.2, -3},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v/%g", tc.k, tc.v), func(t *testing.T) {
			b := make([]byte, 8)
			StoreF32(tc.k, b, tc.v)
			if got := LoadInt(tc.k, b); got != tc.want {
				t.Errorf("StoreF32(%v, %g): LoadInt = %d, want %d", tc.k, tc.v, got, tc.want)
			}
		})
	}
	b := make([]byte, 8)
	StoreF32(UINT64, b, 1.8446744e19)
	if LoadUint(UINT64, b) != math.MaxUint64 {
		t.Errorf("UINT64 saturation: %#x", LoadUint(UINT64, b))
	}
	StoreF32(UINT64, b, 1e19)
	if LoadUint(UINT64, b) != 9999999980506447872 {
		t.Errorf("UINT64 1e19: %d", LoadUint(UINT64, b))
	}
}

func TestIntegerExactPaths(t *testing.T) {
	b := make([]byte, 8)
	for _, tc := range []struct {
		k Kind
		v int64
	}{{INT32, 16777217}, {INT32, math.MinInt32}, {UINT32, math.MaxUint32}, {INT64, math.MaxInt64 - 1}, {INT64, math.MinInt64 + 3}} {
		t.Run(fmt.Sprintf("%v/%d", tc.k, tc.v), func(t *testing.T) {
			StoreInt(tc.k, b, tc.v)
			if got := LoadInt(tc.k, b); got != tc.v {
				t.Errorf("%v: StoreInt/LoadInt %d -> %d", tc.k, tc.v, got)
			}
		})
	}
	StoreUint(UINT64, b, math.MaxUint64-5)
	if LoadUint(UINT64, b) != math.MaxUint64-5 || LoadInt(UINT64, b) != math.MaxInt64 {
		t.Error("UINT64 exact path")
	}
	StoreInt(INT8, b, 1000)
	if LoadInt(INT8, b) != 127 {
		t.Error("StoreInt saturation")
	}
	StoreInt(UINT16, b, -5)
	if LoadInt(UINT16, b) != 0 {
		t.Error("StoreInt unsigned negative")
	}
	StoreUint(INT16, b, 1<<40)
	if LoadInt(INT16, b) != math.MaxInt16 {
		t.Error("StoreUint saturation")
	}
	StoreBits(INT8, b, 0xff)
	if LoadInt(INT8, b) != -1 || LoadUint(INT8, b) != 0 {
		t.Error("signed load")
	}
	// Floats through the integer paths go via FP32.
	StoreInt(BFLOAT16, b, 257)
	if LoadBits(BFLOAT16, b) != 0x4380 || LoadInt(BFLOAT16, b) != 256 {
		t.Errorf("StoreInt bf16 257: %#x", LoadBits(BFLOAT16, b))
	}
	StoreF64(FP32, b, 1+math.Ldexp(1, -30))
	if LoadF32(FP32, b) != 1 {
		t.Error("StoreF64 rounds to FP32")
	}
	StoreF64(INT64, b, 9007199254740993)
	if LoadInt(INT64, b) != 9007199254740992 {
		t.Error("StoreF64 int64")
	}
	if LoadF64(INT32, []byte{1, 0, 0, 1}) != 16777217 {
		t.Error("LoadF64 int32 exact")
	}
	if LoadF32(INT32, []byte{1, 0, 0, 1}) != 16777216 {
		t.Error("LoadF32 int32 rounds")
	}
}

func TestNibbles(t *testing.T) {
	b := []byte{0xa0}
	StoreF32(FP4_EXP2, b, -6)
	if b[0] != 0xaf || LoadF32(FP4_EXP2, b) != -6 {
		t.Errorf("FP4 store keeps high nibble: %#x", b[0])
	}
	StoreInt(INT4, b, -1)
	if b[0] != 0xaf || LoadInt(INT4, b) != -1 {
		t.Errorf("INT4: %#x", b[0])
	}
	src := []byte{0x21, 0x43, 0x05} // INT4 elements 1,2,3,4,5
	dst := []byte{0, 0, 0, 0, 0}
	if err := ConvertSlice(dst, INT8, src, INT4, 5); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, []byte{1, 2, 3, 4, 5}) {
		t.Errorf("INT4 -> INT8: % x", dst)
	}
	back := []byte{0, 0, 0xf0}
	if err := ConvertSlice(back, INT4, dst, INT8, 5); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, []byte{0x21, 0x43, 0xf5}) {
		t.Errorf("INT8 -> INT4 keeps the trailing nibble: % x", back)
	}
	same := []byte{0, 0, 0xf0}
	if err := ConvertSlice(same, INT4, src, INT4, 5); err != nil || !bytes.Equal(same, []byte{0x21, 0x43, 0xf5}) {
		t.Errorf("INT4 copy: % x %v", same, err)
	}
}

// oneByOne is the per-element definition ConvertSlice must match: LoadF32 then StoreF32.
func oneByOne(dst []byte, dk Kind, src []byte, sk Kind, n int) {
	if sk == dk {
		copySame(dst, src, sk, n)
		return
	}
	tmp := make([]byte, 8)
	for i := 0; i < n; i++ {
		var v float32
		if sk.SizeBits() == 4 {
			tmp[0] = src[i/2] >> (4 * (i & 1))
			v = LoadF32(sk, tmp)
		} else {
			v = LoadF32(sk, src[i*sk.Size():])
		}
		if dk.SizeBits() == 4 {
			tmp[0] = 0
			StoreF32(dk, tmp, v)
			sh := 4 * uint(i&1)
			dst[i/2] = dst[i/2]&^(0xf<<sh) | (tmp[0]&0xf)<<sh
		} else {
			StoreF32(dk, dst[i*dk.Size():], v)
		}
	}
}

// TestConvertSliceAllPairs checks every (source, destination) pair, fast paths included,
// against the per-element definition on random bytes and special values.
func TestConvertSliceAllPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 257
	specials := []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0x3f800000, 0x477ff000, 0x4f000000, 0xcf000000, 0x5f800000}
	for _, sk := range Kinds() {
		t.Run(sk.String(), func(t *testing.T) {
			src := make([]byte, sk.BytesFor(n))
			for i := range src {
				src[i] = uint8(rng.Uint32())
			}
			if sk == FP32 {
				for i, x := range specials {
					StoreBits(FP32, src[4*i:], uint64(x))
				}
			}
			for _, dk := range Kinds() {
				want := make([]byte, dk.BytesFor(n))
				got := make([]byte, dk.BytesFor(n))
				for i := range want {
					want[i] = uint8(i * 7)
					got[i] = uint8(i * 7)
				}
				oneByOne(want, dk, src, sk, n)
				if err := ConvertSlice(got, dk, src, sk, n); err != nil {
					t.Fatalf("%v -> %v: %v", sk, dk, err)
				}
				if !bytes.Equal(got, want) {
					i := 0
					for got[i] == want[i] {
						i++
					}
					t.Errorf("%v -> %v: first difference at byte %d: got %#x want %#x", sk, dk, i, got[i], want[i])
				}
				for i := 0; i < n && dk.SizeBits() >= 8 && sk.SizeBits() >= 8; i += 37 {
					raw := LoadBits(sk, src[i*sk.Size():])
					if c := Cast(dk, sk, raw); c != LoadBits(dk, want[i*dk.Size():]) {
						t.Errorf("Cast(%v <- %v, %#x) = %#x", dk, sk, raw, c)
					}
				}
			}
		})
	}
}

func TestConvertSliceErrors(t *testing.T) {
	buf := make([]byte, 16)
	tests := []struct {
		dst      []byte
		dk, sk   Kind
		src      []byte
		n        int
		want     error
		rule     string
		path     string
		contains string
	}{
		{buf, FP32, BFLOAT16, buf[:7], 4, fault.ErrBounds, RuleBufferHoldsElements, "src", "source BFLOAT16 needs 8 bytes"},
		{buf[:15], FP32, BFLOAT16, buf, 4, fault.ErrBounds, RuleBufferHoldsElements, "dst", "destination FP32 needs 16"},
		{buf, CPTC2, FP32, buf, 1, fault.ErrInvalid, RuleKindHasEncoding, "dst", "destination kind CPTC2"},
		{buf, FP32, INVALID, buf, 1, fault.ErrInvalid, RuleKindHasEncoding, "src", "source kind INVALID"},
		{buf, FP32, FP32, buf, -1, fault.ErrInvalid, RuleElementCount, "n", "n = -1"},
	}
	for _, tc := range tests {
		t.Run(tc.contains, func(t *testing.T) {
			err := fault.Wrap("cast", ConvertSlice(tc.dst, tc.dk, tc.src, tc.sk, tc.n))
			var ne *Error
			if !errors.Is(err, tc.want) || !errors.As(err, &ne) || !strings.Contains(err.Error(), tc.contains) {
				t.Fatalf("ConvertSlice(%v <- %v, n=%d) = %v", tc.dk, tc.sk, tc.n, err)
			}
			if fault.Rule(err) != tc.rule || fault.Path(err) != "cast: "+tc.path {
				t.Errorf("rule %q path %q, want %q %q", fault.Rule(err), fault.Path(err), tc.rule, "cast: "+tc.path)
			}
		})
	}
	if err := ConvertSlice(nil, FP32, nil, BFLOAT16, 0); err != nil {
		t.Error(err)
	}
}

func TestNonNumericIsTotal(t *testing.T) {
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	for _, k := range []Kind{INVALID, CPTC1, Kind(0x17), Kind(0xee)} {
		t.Run(fmt.Sprint(uint8(k)), func(t *testing.T) {
			if v := LoadF32(k, b); v == v {
				t.Errorf("LoadF32(%v) = %v, want NaN", k, v)
			}
			StoreF32(k, b, 1)
			StoreInt(k, b, 1)
			StoreUint(k, b, 1)
			StoreF64(k, b, 1)
			StoreBits(k, b, 0)
			if !bytes.Equal(b, []byte{1, 2, 3, 4, 5, 6, 7, 8}) {
				t.Errorf("store to %v changed memory", k)
			}
			if LoadInt(k, b) != 0 || LoadUint(k, b) != 0 || LoadBits(k, b) != 0 || Cast(FP32, k, 1) != 0 {
				t.Errorf("%v loads non-zero", k)
			}
			if FP8ToF32(k, 1) != 0x7fc00000 || F32ToFP8(k, 0x3f800000) != 0 || k.MaxFinite() != 0 {
				t.Errorf("%v small-float helpers", k)
			}
		})
	}
}

func TestProvenance(t *testing.T) {
	seen := map[string]bool{}
	ds := Provenance()
	for _, d := range ds {
		if d.ID == "" || d.Text == "" || d.Source == "" || d.Reason == "" {
			t.Errorf("%q has an empty field", d.ID)
		}
		if !strings.HasPrefix(d.ID, "num.") || seen[d.ID] || (d.Kind != "" && d.Kind != "rule") {
			t.Errorf("bad or duplicate id %q", d.ID)
		}
		seen[d.ID] = true
		lv, kind, ok := strings.Cut(d.Confidence, "/")
		if !ok || !strings.Contains("HIGH MED LOW", lv) || (kind != "INFERRED" && kind != "INVENTED") {
			t.Errorf("%s: confidence %q", d.ID, d.Confidence)
		}
	}
	ds[0].ID = "changed"
	if Provenance()[0].ID == "changed" {
		t.Error("Provenance shares its slice")
	}
	for _, id := range append([]string{"num.fp8.e4m3", "num.fp8.e5m2", "num.fp8.e3m4", "num.fp32r", "num.cast.float_to_int", "num.nan"}, RuleIDs()...) {
		if !seen[id] {
			t.Errorf("missing decision %s", id)
		}
	}
}
