package num_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpbsim/tpbsim/num"
)

// A DVE Cast of four FP32 values to BFLOAT16 and FP8_EXP4: round to nearest even, overflow to
// Inf (E4M3 here is the IEEE-like format whose largest finite value is 240).
func ExampleConvertSlice() {
	src := make([]byte, 16)
	for i, v := range []float32{1, 1.00390625, 300, -0.1} {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(v))
	}
	bf := make([]byte, 8)
	f8 := make([]byte, 4)
	if err := num.ConvertSlice(bf, num.BFLOAT16, src, num.FP32, 4); err != nil {
		panic(err)
	}
	if err := num.ConvertSlice(f8, num.FP8_EXP4, src, num.FP32, 4); err != nil {
		panic(err)
	}
	for i := 0; i < 4; i++ {
		fmt.Printf("%-10g bf16 %#04x = %-11g e4m3 %#02x = %g\n", num.LoadF32(num.FP32, src[4*i:]),
			num.LoadBits(num.BFLOAT16, bf[2*i:]), num.LoadF32(num.BFLOAT16, bf[2*i:]),
			f8[i], num.LoadF32(num.FP8_EXP4, f8[i:]))
	}
	// Output:
	// 1          bf16 0x3f80 = 1           e4m3 0x38 = 1
	// 1.0039062  bf16 0x3f80 = 1           e4m3 0x38 = 1
	// 300        bf16 0x4396 = 300         e4m3 0x78 = +Inf
	// -0.1       bf16 0xbdcd = -0.100097656 e4m3 0x9d = -0.1015625
}

// Float to integer casts round toward zero and saturate; NaN becomes 0.
func ExampleStoreF32() {
	b := make([]byte, 1)
	for _, v := range []float32{2.9, -2.9, 1000, float32(math.NaN())} {
		num.StoreF32(num.INT8, b, v)
		fmt.Println(v, "->", num.LoadInt(num.INT8, b))
	}
	// Output:
	// 2.9 -> 2
	// -2.9 -> -2
	// 1000 -> 127
	// NaN -> 0
}
