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
		t.Run(in.String(), func(t *testing.T) {
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
		})
	}
	t.Logf("%d cases", cases)
}

// TestCompute pins DGE_COMPUTE_OP (dma.compute_op, num.alu_nan) with values written by hand:
// B = A, B += A, B *= A, MAX, MIN in FP32, -0 below +0, a NaN result the default NaN 0x7FC00000
// whatever made it, and NONE keeping a NaN's payload.
func TestCompute(t *testing.T) {
	const defNaN = 0x7FC00000
	f := math.Float32frombits
	for _, c := range []struct {
		name string
		op   isa.DGEComputeOp
		y, x uint32 // FP32 bits: destination, source
		want uint32
	}{
		{"NONE copies", isa.DGEComputeNONE, 0x40000000, 0x3FC00000, 0x3FC00000},
		{"NONE keeps a payload", isa.DGEComputeNONE, 0, 0xFFC12345, 0xFFC12345},
		{"ADD", isa.DGEComputeADD, 0x3FC00000, 0x40000000, 0x40600000},                    // 1.5 + 2 = 3.5
		{"MULTIPLY", isa.DGEComputeMULTIPLY, 0x40400000, 0xC0000000, 0xC0C00000},          // 3 * -2 = -6
		{"MAX", isa.DGEComputeMAX, 0x3F800000, 0x40000000, 0x40000000},                    // max(1, 2) = 2
		{"MIN", isa.DGEComputeMIN, 0x3F800000, 0x40000000, 0x3F800000},                    // min(1, 2) = 1
		{"MAX orders -0 below +0", isa.DGEComputeMAX, 0x80000000, 0x00000000, 0x00000000}, // max(-0, +0) = +0
		{"MIN orders -0 below +0", isa.DGEComputeMIN, 0x00000000, 0x80000000, 0x80000000}, // min(+0, -0) = -0
		{"MAX propagates NaN as the default", isa.DGEComputeMAX, 0x7FC12345, 0x3F800000, defNaN},
		{"MIN propagates NaN as the default", isa.DGEComputeMIN, 0x3F800000, 0xFF800001, defNaN},
		{"ADD of a payload NaN", isa.DGEComputeADD, 0xFFC00001, 0x3F800000, defNaN},
		{"Inf - Inf", isa.DGEComputeADD, 0x7F800000, 0xFF800000, defNaN},
		{"0 * Inf", isa.DGEComputeMULTIPLY, 0x00000000, 0x7F800000, defNaN},
		{"Inf + 1", isa.DGEComputeADD, 0x7F800000, 0x3F800000, 0x7F800000},
		{"an op outside the enum", isa.DGEComputeOp(5), 0x3F800000, 0x3F800000, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := math.Float32bits(Compute(c.op, f(c.y), f(c.x))); got != c.want {
				t.Errorf("%v(0x%08x, 0x%08x) = 0x%08x, want 0x%08x", c.op, c.y, c.x, got, c.want)
			}
		})
	}
}

// computeNaNInputs are FP32 words TestComputeNaNIsDefault combines: NaNs of both signs, quiet
// and signalling, with payloads; infinities; signed zeros; finite values.
var computeNaNInputs = []uint32{0x7FC12345, 0xFFC00001, 0x7F800001, 0xFFBFFFFF, 0x7F800000, 0xFF800000, 0, 0x80000000, 0x3F800000, 0xBF800000}

// TestComputeNaNIsDefault: over every ordered pair of computeNaNInputs, in and out kinds FP32,
// BF16, FP16 (and INT8 out), the chunked transform stores what the element-by-element one does,
// and every NaN either stores is the default NaN narrowed to the out kind (BF16 0x7FC0, FP16
// 0x7E00), whether it came from a NaN operand or from Inf-Inf or 0*Inf; a cast without a
// compute_op keeps num.nan's payload.
func TestComputeNaNIsDefault(t *testing.T) {
	n := len(computeNaNInputs)
	defNaN := map[num.Kind][]byte{num.FP32: {0, 0, 0xC0, 0x7F}, num.BFLOAT16: {0xC0, 0x7F}, num.FP16: {0x00, 0x7E}}
	for _, in := range []num.Kind{num.FP32, num.BFLOAT16, num.FP16} {
		for _, out := range []num.Kind{num.FP32, num.BFLOAT16, num.FP16, num.INT8} {
			for _, op := range []isa.DGEComputeOp{isa.DGEComputeADD, isa.DGEComputeMULTIPLY, isa.DGEComputeMAX, isa.DGEComputeMIN} {
				t.Run(in.String()+"-"+out.String()+"-"+op.String(), func(t *testing.T) {
					// Every ordered pair (dst y, src x); dst elements of an integer out kind are 0.
					src, dst := make([]byte, n*n*in.Size()), make([]byte, n*n*out.Size())
					for i := 0; i < n*n; i++ {
						num.StoreF32(in, src[i*in.Size():], math.Float32frombits(computeNaNInputs[i%n]))
						num.StoreF32(out, dst[i*out.Size():], math.Float32frombits(computeNaNInputs[i/n]))
					}
					chunked, elementwise := append([]byte(nil), dst...), append([]byte(nil), dst...)
					if err := transform(chunked, out, src, in, op); err != nil {
						t.Fatal(err)
					}
					transformElementwise(elementwise, out, src, in, op)
					nans := 0
					for i := 0; i < n*n; i++ {
						g, w := chunked[i*out.Size():(i+1)*out.Size()], elementwise[i*out.Size():(i+1)*out.Size()]
						if !bytes.Equal(g, w) {
							t.Fatalf("dst % x op src % x: chunked % x, elementwise % x", dst[i*out.Size():(i+1)*out.Size()], src[i*in.Size():(i+1)*in.Size()], g, w)
						}
						if v := num.LoadF32(out, g); v != v {
							nans++
							if !bytes.Equal(g, defNaN[out]) {
								t.Fatalf("dst % x op src % x = % x: a NaN that is not the default % x", dst[i*out.Size():(i+1)*out.Size()], src[i*in.Size():(i+1)*in.Size()], g, defNaN[out])
							}
						}
					}
					if out != num.INT8 && nans == 0 {
						t.Fatal("no NaN results")
					}
				})
			}
		}
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
