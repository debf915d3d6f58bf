package num

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// Benchmarks of ConvertSlice (STYLE.md 11) on 2^18 elements, one pair per sub-benchmark: each
// reports source bytes per second (b.SetBytes, "MB/s") and "x-copy", the ratio to copy() of the
// same number of source bytes measured in the same process:
//
//	go test -run '^$' -bench ConvertSlice -count 3 ./num/
//
// The copy() baseline runs as the DVE benchmarks run theirs (dve/bench_test.go): the b.N
// conversions in at most eight blocks, and after each block, with the timer stopped, as many
// copy() calls of a written source of the same size, so both run in their own steady state under
// the same machine load.
//
// Data: float -> float pairs convert N(0,1) values (the bulk of activations). A pair with an
// integer side converts N(0, s) values, s a quarter of the smaller of the two kinds' largest
// values, and |N| when either side is unsigned, so that most values are in range and a few
// saturate, as in quantised data.

const benchElems = 1 << 18 // 1 MiB of FP32

// benchScale is the standard deviation of a pair's data (see above).
func benchScale(dk, sk Kind) float64 {
	if !dk.IsInteger() && !sk.IsInteger() {
		return 1
	}
	return min(dk.MaxFinite(), sk.MaxFinite()) / 4
}

// benchSrc returns benchElems elements of sk: N(0, scale) values, their magnitudes when abs,
// rounded into sk.
func benchSrc(sk Kind, scale float64, abs bool) []byte {
	rng := rand.New(rand.NewPCG(11, 12))
	f := make([]byte, 4*benchElems)
	for i := 0; i < benchElems; i++ {
		v := rng.NormFloat64() * scale
		if abs {
			v = math.Abs(v)
		}
		StoreF32(FP32, f[4*i:], float32(v))
	}
	b := make([]byte, sk.BytesFor(benchElems))
	convertGeneric(b, sk, f, FP32, benchElems)
	return b
}

// unsigned reports whether k is an unsigned integer kind.
func unsigned(k Kind) bool { return k.IsInteger() && !k.IsSigned() }

func benchConvert(b *testing.B, dk, sk Kind) {
	src := benchSrc(sk, benchScale(dk, sk), unsigned(sk) || unsigned(dk))
	dst := make([]byte, dk.BytesFor(benchElems))
	csrc, cdst := append([]byte(nil), src...), make([]byte, len(src))
	copy(cdst, csrc)
	conv := func() {
		if err := ConvertSlice(dst, dk, src, sk, benchElems); err != nil {
			b.Fatal(err)
		}
	}
	conv()
	var copyTime time.Duration
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	block := max(1, b.N/8)
	for done := 0; done < b.N; {
		k := min(block, b.N-done)
		for i := 0; i < k; i++ {
			conv()
		}
		b.StopTimer()
		t0 := time.Now()
		for i := 0; i < k; i++ {
			copy(cdst, csrc)
		}
		copyTime += time.Since(t0)
		done += k
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(copyTime.Seconds()/b.Elapsed().Seconds(), "x-copy")
}

// benchPairs are the pairs users hit: FP32 and the 16-bit floats against every common integer
// and 8-bit float, integer to integer, and BF16 <-> FP16.
var benchPairs = []struct{ dk, sk Kind }{
	{BFLOAT16, FP32}, {FP32, BFLOAT16}, {FP16, FP32}, {FP32, FP16},
	{FP8_EXP4, FP32}, {FP32, FP8_EXP4}, {FP8_EXP5, FP32}, {FP32, FP8_EXP5},
	{INT8, FP32}, {FP32, INT8}, {UINT8, FP32}, {FP32, UINT8},
	{INT16, FP32}, {FP32, INT16}, {UINT16, FP32}, {FP32, UINT16},
	{INT32, FP32}, {FP32, INT32}, {UINT32, FP32}, {FP32, UINT32},
	{INT8, BFLOAT16}, {BFLOAT16, INT8}, {INT32, BFLOAT16}, {BFLOAT16, INT32},
	{INT8, FP16}, {FP16, INT8}, {INT32, FP16}, {FP16, INT32},
	{BFLOAT16, UINT8}, {FP16, UINT8},
	{INT8, INT32}, {UINT8, INT32}, {INT16, INT32}, {INT32, UINT8}, {INT32, INT8}, {INT32, INT16}, {INT8, INT16},
	{FP16, BFLOAT16}, {BFLOAT16, FP16},
	{FP8_EXP4, BFLOAT16}, {BFLOAT16, FP8_EXP4}, {FP8_EXP5, BFLOAT16}, {BFLOAT16, FP8_EXP5},
	{FP8_EXP3, BFLOAT16}, {BFLOAT16, FP8_EXP3},
	{FP32, FP32},
}

// benchName is "src_to_dst" in short lower-case names (f32_to_bf16, e4m3_to_bf16, ...).
func benchName(dk, sk Kind) string {
	short := map[Kind]string{FP32: "f32", BFLOAT16: "bf16", FP16: "fp16", FP8_EXP3: "e3m4",
		FP8_EXP4: "e4m3", FP8_EXP5: "e5m2", INT8: "int8", UINT8: "uint8", INT16: "int16",
		UINT16: "uint16", INT32: "int32", UINT32: "uint32"}
	if dk == sk {
		return "same_kind_copy"
	}
	return fmt.Sprintf("%s_to_%s", short[sk], short[dk])
}

func BenchmarkConvertSlice(b *testing.B) {
	for _, p := range benchPairs {
		b.Run(benchName(p.dk, p.sk), func(b *testing.B) { benchConvert(b, p.dk, p.sk) })
	}
}

func TestConvertSliceAllocs(t *testing.T) {
	src := benchSrc(FP32, 1, false)[:4096]
	dst := make([]byte, 4096)
	for _, dk := range []Kind{BFLOAT16, FP16, FP8_EXP4, INT8, FP32R} {
		if a := testing.AllocsPerRun(10, func() { _ = ConvertSlice(dst, dk, src, FP32, 1024) }); a != 0 {
			t.Errorf("FP32 -> %v allocates %v per call", dk, a)
		}
	}
}
