package mem

import (
	"bytes"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// writers are the ways bytes reach SBUF and PSUM: each writes nonzero bytes to bytes [off,
// off+n) of partition p of r (PSUM: whole words).
var writers = map[string]func(m *Memory, r Region, p, off, n int){
	"Write": func(m *Memory, r Region, p, off, n int) {
		if err := m.Write(Loc{Region: r, Partition: p, Offset: uint32(off)}, fill(n)); err != nil {
			panic(err)
		}
	},
	"WriteAt": func(m *Memory, r Region, p, off, n int) {
		a := isa.DMALocalBase + uint64(m.OnChipAddr(Loc{Region: r, Partition: p, Offset: uint32(off)}))
		if err := m.WriteAt(a, fill(n)); err != nil {
			panic(err)
		}
	},
	"Slice": func(m *Memory, r Region, p, off, n int) {
		a := isa.DMALocalBase + uint64(m.OnChipAddr(Loc{Region: r, Partition: p, Offset: uint32(off)}))
		if m.opts.TrackUninit { // Slice hands out initialised bytes only (so the test of its own record is without tracking)
			m.MarkInit(r, p, off, n)
		}
		b, ok := m.Slice(a, n)
		if !ok {
			panic(fmt.Sprintf("Slice(0x%x, %d) refused", a, n))
		}
		copy(b, fill(n))
	},
	"Scatter": func(m *Memory, r Region, p, off, n int) {
		t := isa.Tensor4D{StartAddr: isa.Addr4(m.OnChipAddr(Loc{Region: r, Partition: p, Offset: uint32(off)})),
			StepElem: [4]int16{2, 1, 1, 1}, NumElem: [4]uint16{uint16((n/4 + 1) / 2), 1, 1, 1}}
		pt, err := m.Pattern(t, 4, 1, true)
		if err != nil {
			panic(err)
		}
		m.Scatter(pt, 0, fill(pt.Bytes()))
	},
	"Partition+MarkInit": func(m *Memory, r Region, p, off, n int) {
		copy(m.Partition(r, p)[off:off+n], fill(n))
		m.MarkInit(r, p, off, n)
	},
	"Partition+MarkWritten": func(m *Memory, r Region, p, off, n int) {
		copy(m.Partition(r, p)[off:off+n], fill(n))
		m.MarkWritten(Span{Region: r, FirstPartition: p, NumPartitions: 1, Lo: uint32(off), Hi: uint32(off + n)})
	},
}

func fill(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i%255 + 1)
	}
	return b
}

// TestResetMatchesNew: after writes by every path, everywhere or at random places, with and
// without tracking, on every generation, and HBM pages allocated, Reset leaves the memory as New
// makes it; Written covers every nonzero byte before the Reset.
func TestResetMatchesNew(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, g := range isa.Generations {
		for _, track := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v track=%v", g, track), func(t *testing.T) {
				o := Options{TrackUninit: track, HBMCapBytes: 1 << 30}
				fresh := newMem(t, g, o)
				m := newMem(t, g, o)
				for name, w := range writers {
					for _, everywhere := range []bool{true, false} {
						for _, r := range []Region{SBUF, PSUM} {
							act := m.PartitionActive(r)
							for p := 0; p < m.NumPartitions(r); p++ {
								if everywhere {
									w(m, r, p, 0, act)
									continue
								}
								if rng.Intn(4) == 0 {
									off := rng.Intn(act/4) * 4
									w(m, r, p, off, min(act-off, 4*(1+rng.Intn(600))))
								}
							}
						}
						if err := m.WriteAt(uint64(rng.Intn(1<<30)), fill(1+rng.Intn(1<<17))); err != nil {
							t.Fatal(err)
						}
						if _, ok := m.Slice(3<<30, 1<<17); !ok && !track {
							t.Fatal("HBM Slice refused")
						}
						checkWrittenCovers(t, m)
						if fresh.Diff(m) == "" {
							t.Fatalf("%v %s: the writes changed nothing", g, name)
						}
						m.Reset()
						if d := m.Diff(fresh); d != "" {
							t.Fatalf("%v track %v %s everywhere %v: after Reset: %s", g, track, name, everywhere, d)
						}
					}
				}
			})
		}
	}
}

// checkWrittenCovers fails unless every nonzero SBUF and PSUM byte is in a run Written reports.
func checkWrittenCovers(t *testing.T, m *Memory) {
	t.Helper()
	for _, r := range []Region{SBUF, PSUM} {
		seen := make([][]byte, m.NumPartitions(r))
		for p := range seen {
			seen[p] = make([]byte, m.PartitionActive(r))
		}
		m.Written(func(rr Region, p, off int, b []byte) {
			if rr == r {
				copy(seen[p][off:], b)
			}
		})
		for p := range seen {
			if !bytes.Equal(seen[p], m.Partition(r, p)) {
				t.Fatalf("%v partition %d: a written byte outside Written", r, p)
			}
		}
	}
}

// TestDirtyChunks: a mark covers the 256-byte chunks it reaches (across the words of a
// partition's bits too), runs of marked chunks come back merged and clipped to the active area,
// and Reset forgets them.
func TestDirtyChunks(t *testing.T) {
	const c = 1 << dirtyShift
	for _, g := range isa.Generations {
		m := newMem(t, g, Options{})
		for _, b := range []*bank{&m.sbuf, &m.psum} {
			if b.n == 0 {
				continue
			}
			act := int(b.active)
			cases := []struct {
				name  string
				marks [][2]int // offset, length
				want  []int    // runs: lo, hi, lo, hi, ...
			}{
				{"whole partition", [][2]int{{0, act}}, []int{0, act}},
				{"one byte", [][2]int{{c + 5, 1}}, []int{c, 2 * c}},
				{"across a word of bits", [][2]int{{64*c - 10, 20}}, []int{63 * c, 65 * c}},
				{"two apart", [][2]int{{0, 1}, {3 * c, c + 1}}, []int{0, c, 3 * c, 5 * c}},
				{"words apart", [][2]int{{0, 1}, {5*64*c + 3, 1}}, []int{0, c, 5 * 64 * c, (5*64 + 1) * c}},
				{"adjacent, merged", [][2]int{{0, c}, {c, 1}}, []int{0, 2 * c}},
				{"last byte", [][2]int{{act - 1, 1}}, []int{act - c, act}},
			}
			for _, tc := range cases {
				if slices.ContainsFunc(tc.marks, func(mk [2]int) bool { return mk[0]+mk[1] > act }) {
					continue // one word of bits covers this partition
				}
				t.Run(fmt.Sprintf("%v/%v/%s", g, b.region, tc.name), func(t *testing.T) {
					p := b.n - 1
					for _, mk := range tc.marks {
						b.markDirty(p, mk[0], mk[1])
					}
					var got []int
					b.chunks(p, func(lo, hi int) { got = append(got, lo, hi) })
					var parts []int
					b.eachTouched(func(q int) { parts = append(parts, q) })
					if !slices.Equal(got, tc.want) || !slices.Equal(parts, []int{p}) {
						t.Errorf("chunks %v in partitions %v, want %v in [%d]", got, parts, tc.want, p)
					}
					b.reset()
					got = nil
					b.chunks(p, func(lo, hi int) { got = append(got, lo, hi) })
					if len(got) != 0 || slices.ContainsFunc(b.touched, func(w uint64) bool { return w != 0 }) || slices.ContainsFunc(b.sum, func(w uint64) bool { return w != 0 }) {
						t.Errorf("after reset: chunks %v, touched %x", got, b.touched)
					}
				})
			}
		}
	}
}
