package dma

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// specialBits are FP32 words and integers every cast and compute_op must treat alike in both
// forms: signed zeros, infinities, NaNs with payloads, denormals, rounding ties, range ends.
var specialBits = []uint32{0, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x00000001,
	0x807fffff, 0x3f800000, 0xbf800000, 0x4b800001, 0x477fe000, 0x47800000, 0x3f808000, 0x3f818000,
	0x7f7fffff, 0x437f0000, 0xc3000000, 0x4f000000, 0xcf000000, 0x7fff, 0xffff, 0x8000, 0x80, 0xff, 0x7f}

// TestTransformMatchesElementwise holds the chunked compute_op path to the element-by-element
// reference for every pair of byte-sized kinds and every op, on special and random bytes, over
// lengths around the chunk size; bytes past the elements are left alone.
func TestTransformMatchesElementwise(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var kinds []num.Kind
	for _, k := range num.Kinds() {
		if k.Size() > 0 {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) < 15 {
		t.Fatalf("only %d byte-sized kinds", len(kinds))
	}
	ops := []isa.DGEComputeOp{isa.DGEComputeADD, isa.DGEComputeMULTIPLY, isa.DGEComputeMAX, isa.DGEComputeMIN}
	fill := func(b []byte) {
		for i := 0; i+4 <= len(b); i += 4 {
			w := rng.Uint32()
			if rng.Intn(3) == 0 {
				w = specialBits[rng.Intn(len(specialBits))]
			}
			binary.LittleEndian.PutUint32(b[i:], w)
		}
		for i := len(b) &^ 3; i < len(b); i++ {
			b[i] = byte(rng.Intn(256))
		}
	}
	cases := 0
	for _, in := range kinds {
		for _, out := range kinds {
			for _, op := range ops {
				for _, n := range []int{1, 255, 256, 257, 700} {
					src := make([]byte, n*in.Size())
					dst := make([]byte, n*out.Size()+8)
					fill(src)
					fill(dst)
					want := append([]byte(nil), dst...)
					transformElementwise(want[:n*out.Size()], out, src, in, op)
					if err := transform(dst[:n*out.Size()], out, src, in, op); err != nil {
						t.Fatalf("%v -> %v %v: %v", in, out, op, err)
					}
					if !bytes.Equal(dst, want) {
						for j := 0; j < n; j++ {
							a, b := dst[j*out.Size():(j+1)*out.Size()], want[j*out.Size():(j+1)*out.Size()]
							if !bytes.Equal(a, b) {
								t.Fatalf("%v -> %v %v, n %d, element %d: src % x, got % x, want % x", in, out, op, n, j, src[j*in.Size():(j+1)*in.Size()], a, b)
							}
						}
						t.Fatalf("%v -> %v %v, n %d: bytes past the elements changed", in, out, op, n)
					}
					cases++
				}
			}
		}
	}
	t.Logf("%d cases", cases)
}

// computeNaNInputs are FP32 words TestComputeNaNIsDefault combines: NaNs of both signs, quiet
// and signalling, with payloads; infinities; signed zeros; finite values.
var computeNaNInputs = []uint32{0x7FC12345, 0xFFC00001, 0x7F800001, 0xFFBFFFFF, 0x7F800000, 0xFF800000, 0, 0x80000000, 0x3F800000, 0xBF800000}

// TestComputeNaNIsDefault pins Provenance num.alu_nan on the DMA: every NaN a compute_op stores
// (dst = dst op src for ADD, MULTIPLY, MAX, MIN) is the default NaN 0x7FC00000 narrowed to the
// out kind (BF16 0x7FC0, FP16 0x7E00; INT8 0), whether it comes from a NaN operand of either
// sign with any payload or from Inf-Inf or 0*Inf, in the chunked path and the element-by-element
// one alike; a transfer without a compute_op keeps num.nan's payload.
func TestComputeNaNIsDefault(t *testing.T) {
	inf, ninf := math.Float32frombits(0x7F800000), math.Float32frombits(0xFF800000)
	if v := inf + ninf; v == v {
		t.Fatal("Inf + -Inf is not a NaN")
	}
	if v := inf * 0; v == v {
		t.Fatal("Inf * 0 is not a NaN")
	}
	ops := map[isa.DGEComputeOp]func(y, x float32) float32{
		isa.DGEComputeADD: func(y, x float32) float32 { return y + x }, isa.DGEComputeMULTIPLY: func(y, x float32) float32 { return y * x },
		isa.DGEComputeMAX: func(y, x float32) float32 { return max(y, x) }, isa.DGEComputeMIN: func(y, x float32) float32 { return min(y, x) },
	}
	n := len(computeNaNInputs)
	nans := 0
	for _, in := range []num.Kind{num.FP32, num.BFLOAT16, num.FP16} {
		for _, out := range []num.Kind{num.FP32, num.BFLOAT16, num.FP16, num.INT8} {
			// Every ordered pair (dst y, src x); dst elements of an integer out kind are 0.
			src, dst := make([]byte, n*n*in.Size()), make([]byte, n*n*out.Size())
			for i := 0; i < n*n; i++ {
				num.StoreF32(in, src[i*in.Size():], math.Float32frombits(computeNaNInputs[i%n]))
				num.StoreF32(out, dst[i*out.Size():], math.Float32frombits(computeNaNInputs[i/n]))
			}
			for op, f := range ops {
				want := make([]byte, len(dst))
				for i := 0; i < n*n; i++ {
					v := f(num.LoadF32(out, dst[i*out.Size():]), num.LoadF32(in, src[i*in.Size():]))
					if v != v {
						v = math.Float32frombits(num.DefaultNaNF32)
						nans++
					}
					num.StoreF32(out, want[i*out.Size():], v)
				}
				chunked, elementwise := append([]byte(nil), dst...), append([]byte(nil), dst...)
				if err := transform(chunked, out, src, in, op); err != nil {
					t.Fatal(err)
				}
				transformElementwise(elementwise, out, src, in, op)
				for name, got := range map[string][]byte{"chunked": chunked, "elementwise": elementwise} {
					if !bytes.Equal(got, want) {
						for i := 0; i < n*n; i++ {
							if g, w := got[i*out.Size():(i+1)*out.Size()], want[i*out.Size():(i+1)*out.Size()]; !bytes.Equal(g, w) {
								t.Fatalf("%s %v->%v %v: dst % x op src % x = % x, want % x", name, in, out, op,
									dst[i*out.Size():(i+1)*out.Size()], src[i*in.Size():(i+1)*in.Size()], g, w)
							}
						}
					}
				}
			}
		}
	}
	if nans == 0 {
		t.Fatal("no NaN results")
	}
	// Without a compute_op, a cast keeps the sign and top payload bits (num.nan).
	src, got := make([]byte, 4), make([]byte, 2)
	binary.LittleEndian.PutUint32(src, 0xFFC12345)
	if err := transform(got, num.BFLOAT16, src, num.FP32, isa.DGEComputeNONE); err != nil || binary.LittleEndian.Uint16(got) != 0xFFC1 {
		t.Fatalf("FP32 0xFFC12345 cast to BF16: % x (%v), want c1 ff", got, err)
	}
}

// BenchmarkTransform: a casting compute_op DMA's element work (1 Mi elements, dst op= src), the
// chunked path beside the element-by-element reference, with x-copy = copy() of the source bytes
// over the same time.
func BenchmarkTransform(b *testing.B) {
	const n = 1 << 20
	for _, c := range []struct {
		in, out num.Kind
		op      isa.DGEComputeOp
	}{
		{num.BFLOAT16, num.FP32, isa.DGEComputeADD},
		{num.FP32, num.FP32, isa.DGEComputeADD},
		{num.FP32, num.BFLOAT16, isa.DGEComputeMAX},
		{num.INT32, num.INT32, isa.DGEComputeADD},
	} {
		src, dst := make([]byte, n*c.in.Size()), make([]byte, n*c.out.Size())
		rng := rand.New(rand.NewSource(1))
		for i := range src {
			src[i] = byte(rng.Intn(256) & 0x3f)
		}
		cp := make([]byte, len(src))
		for _, impl := range []string{"chunked", "elementwise"} {
			b.Run(c.in.String()+"-"+c.out.String()+"-"+c.op.String()+"/"+impl, func(b *testing.B) {
				t0 := time.Now()
				for i := 0; i < 20; i++ {
					copy(cp, src)
				}
				perCopy := time.Since(t0) / 20
				b.SetBytes(int64(len(src)))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if impl == "chunked" {
						if err := transform(dst, c.out, src, c.in, c.op); err != nil {
							b.Fatal(err)
						}
					} else {
						transformElementwise(dst, c.out, src, c.in, c.op)
					}
				}
				b.ReportMetric(perCopy.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "x-copy")
			})
		}
	}
}
