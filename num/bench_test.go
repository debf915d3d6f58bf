package num

import (
	"math/rand/v2"
	"testing"
)

// Benchmarks of the hot ConvertSlice paths (STYLE.md 11) on 2^18 normally distributed values:
// each reports bytes of source per second (b.SetBytes); the copy() baseline of 1 MiB runs beside
// them in the same process.

const benchElems = 1 << 18 // 1 MiB of FP32

func benchSrc(k Kind) []byte {
	rng := rand.New(rand.NewPCG(11, 12))
	f := make([]byte, 4*benchElems)
	for i := 0; i < benchElems; i++ {
		StoreF32(FP32, f[4*i:], float32(rng.NormFloat64()))
	}
	b := make([]byte, k.BytesFor(benchElems))
	if err := ConvertSlice(b, k, f, FP32, benchElems); err != nil {
		panic(err)
	}
	return b
}

func benchConvert(b *testing.B, dk, sk Kind) {
	src := benchSrc(sk)
	dst := make([]byte, dk.BytesFor(benchElems))
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if err := ConvertSlice(dst, dk, src, sk, benchElems); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConvertSlice(b *testing.B) {
	b.Run("copy_baseline_1MiB", func(b *testing.B) {
		src := benchSrc(FP32)
		dst := make([]byte, len(src))
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			copy(dst, src)
		}
	})
	b.Run("f32_to_bf16", func(b *testing.B) { benchConvert(b, BFLOAT16, FP32) })
	b.Run("bf16_to_f32", func(b *testing.B) { benchConvert(b, FP32, BFLOAT16) })
	b.Run("f32_to_fp16", func(b *testing.B) { benchConvert(b, FP16, FP32) })
	b.Run("fp16_to_f32", func(b *testing.B) { benchConvert(b, FP32, FP16) })
	b.Run("f32_to_e4m3", func(b *testing.B) { benchConvert(b, FP8_EXP4, FP32) })
	b.Run("e4m3_to_f32", func(b *testing.B) { benchConvert(b, FP32, FP8_EXP4) })
	b.Run("f32_to_int8_generic", func(b *testing.B) { benchConvert(b, INT8, FP32) })
	b.Run("same_kind_copy", func(b *testing.B) { benchConvert(b, FP32, FP32) })
}

func TestConvertSliceAllocs(t *testing.T) {
	src := benchSrc(FP32)[:4096]
	dst := make([]byte, 4096)
	for _, dk := range []Kind{BFLOAT16, FP16, FP8_EXP4, INT8, FP32R} {
		if a := testing.AllocsPerRun(10, func() { _ = ConvertSlice(dst, dk, src, FP32, 1024) }); a != 0 {
			t.Errorf("FP32 -> %v allocates %v per call", dk, a)
		}
	}
}
