package num

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// elemAt is element i of k at b as the one-element forms take it (a 4-bit element: a byte
// holding its nibble low).
func elemAt(k Kind, b []byte, i int) []byte {
	if k.SizeBits() == 4 {
		return []byte{b[i/2] >> (4 * (i & 1))}
	}
	return b[i*k.Size():]
}

// putAt writes the one-element bytes e back as element i of k at b.
func putAt(k Kind, b []byte, i int, e []byte) {
	if k.SizeBits() == 4 {
		sh := 4 * (i & 1)
		b[i/2] = b[i/2]&^(0xf<<sh) | (e[0]&0xf)<<sh
		return
	}
	copy(b[i*k.Size():(i+1)*k.Size()], e)
}

// Every slice form does, element by element, what its one-element form does: every kind (and a
// non-numeric one), odd lengths, aligned and unaligned buffers, values at the ranges' ends.
func TestSliceFormsMatchOneElementForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ints := []int64{0, 1, -1, 127, -128, 255, 256, 32767, -32768, 65535, math.MaxInt32, math.MinInt32, math.MaxUint32,
		math.MaxInt64, math.MinInt64}
	kinds := append(Kinds(), CPTC1)
	for _, k := range kinds {
		for _, n := range []int{1, 7, 64} {
			for _, off := range []int{0, 1} {
				t.Run(fmt.Sprintf("%v/n=%d/off=%d", k, n, off), func(t *testing.T) {
					size := max(k.BytesFor(n), 1) + 8
					src := make([]byte, size+off)
					for i := range src {
						src[i] = byte(rng.Uint32())
					}
					b := src[off:]
					ref := func(store func(i int, e []byte)) []byte {
						out := bytes.Clone(b)
						for i := range n {
							e := make([]byte, 8)
							copy(e, elemAt(k, out, i))
							store(i, e)
							putAt(k, out, i, e[:max(k.Size(), 1)])
						}
						return out
					}
					f32s, i64s, u64s := make([]float32, n), make([]int64, n), make([]uint64, n)
					LoadF32Slice(f32s, b, k)
					LoadExtendedSlice(i64s, b, k)
					LoadBitsSlice(u64s, b, k)
					u32s := make([]uint32, n) // the uint32 words hold the raw bits of kinds up to 32 bits
					if k.SizeBits() <= 32 {
						LoadBitsSlice(u32s, b, k)
					}
					for i := range n {
						e := elemAt(k, b, i)
						if w := LoadF32(k, e); math.Float32bits(w) != math.Float32bits(f32s[i]) {
							t.Fatalf("LoadF32Slice[%d] = %v, LoadF32 %v", i, f32s[i], w)
						}
						if w := LoadExtended(k, e); w != i64s[i] {
							t.Fatalf("LoadExtendedSlice[%d] = %d, LoadExtended %d", i, i64s[i], w)
						}
						if w := LoadBits(k, e); w != u64s[i] {
							t.Fatalf("LoadBitsSlice[%d] = %d, LoadBits %d", i, u64s[i], w)
						}
						if w := LoadBits(k, e); k.SizeBits() <= 32 && uint64(u32s[i]) != w {
							t.Fatalf("LoadBitsSlice[uint32][%d] = %d, LoadBits %d", i, u32s[i], w)
						}
					}
					for i := range n {
						f32s[i] = math.Float32frombits(rng.Uint32())
						i64s[i] = ints[rng.IntN(len(ints))] + int64(rng.IntN(3)-1)
						u64s[i] = uint64(ints[rng.IntN(len(ints))]) + uint64(rng.IntN(3)) - 1
						u32s[i] = uint32(u64s[i])
					}
					wantF := ref(func(i int, e []byte) { StoreF32(k, e, f32s[i]) })
					wantI := ref(func(i int, e []byte) { StoreInt(k, e, i64s[i]) })
					wantU := ref(func(i int, e []byte) { StoreUint(k, e, u64s[i]) })
					wantB := ref(func(i int, e []byte) { StoreBits(k, e, u64s[i]) })
					wantB32 := ref(func(i int, e []byte) { StoreBits(k, e, uint64(u32s[i])) })
					for _, c := range []struct {
						name  string
						store func(out []byte)
						want  []byte
					}{
						{"StoreF32Slice", func(out []byte) { StoreF32Slice(out, append([]float32(nil), f32s...), k) }, wantF},
						{"StoreIntSlice", func(out []byte) { StoreIntSlice(out, append([]int64(nil), i64s...), k) }, wantI},
						{"StoreUintSlice", func(out []byte) { StoreUintSlice(out, append([]uint64(nil), u64s...), k) }, wantU},
						{"StoreBitsSlice", func(out []byte) { StoreBitsSlice(out, append([]uint64(nil), u64s...), k) }, wantB},
						{"StoreBitsSlice[uint32]", func(out []byte) { StoreBitsSlice(out, append([]uint32(nil), u32s...), k) }, wantB32},
					} {
						out := bytes.Clone(b)
						c.store(out)
						if !bytes.Equal(out, c.want) {
							t.Errorf("%s: % x, element by element % x", c.name, out, c.want)
						}
					}
				})
			}
		}
	}
}

// View refuses what it cannot view in place: a short buffer, a misaligned one, no elements.
func TestView(t *testing.T) {
	buf := make([]uint64, 4)
	b := Bytes(buf)
	for _, c := range []struct {
		name string
		b    []byte
		n    int
		ok   bool
	}{
		{"whole", b, 4, true},
		{"short", b[:31], 4, false},
		{"misaligned", b[1:], 3, false},
		{"empty", b, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, ok := View[uint64](c.b, c.n)
			if ok != c.ok || (ok && (len(v) != c.n || &v[0] != &buf[0])) {
				t.Errorf("View = %d words, %v; want %v", len(v), ok, c.ok)
			}
		})
	}
}
