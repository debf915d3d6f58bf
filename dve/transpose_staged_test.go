package dve

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
)

// TestTransposeChunksMatchesNaive checks the staged kernels (several rounds per row, work items
// starting and ending mid-row, a partial last tile) against a cell-by-cell transpose, and that
// nothing past each dst row is written.
func TestTransposeChunksMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for _, es := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%dB", es), func(t *testing.T) {
			for _, tiles := range []int{2 * stMin / (32 * es), stChunk/(32*es) + 3, 2*stChunk/(32*es) + 1} {
				E := 32 * tiles
				for _, cut := range []int{0, 1, 31} {
					D := E - cut
					var src, got, want [32][]byte
					var gotAll, wantAll [32][]byte // dst rows plus 8 guard bytes
					for j := range src {
						src[j] = make([]byte, E*es)
						rng.Read(src[j])
						gotAll[j] = make([]byte, D*es+8)
						rng.Read(gotAll[j])
						wantAll[j] = bytes.Clone(gotAll[j])
						got[j], want[j] = gotAll[j][:D*es], wantAll[j][:D*es]
					}
					nt := (D + 31) / 32
					t0 := rng.Intn(3)
					t1 := nt - rng.Intn(2)
					for tt := t0; tt < t1; tt++ {
						for i := 0; i < 32; i++ {
							for j := 0; j < 32 && 32*tt+j < D; j++ {
								copy(want[i][(32*tt+j)*es:(32*tt+j+1)*es], src[j][(32*tt+i)*es:])
							}
						}
					}
					transposeChunks(&got, &src, es, t0, t1, D, cut == 1)
					for i := range got {
						if !bytes.Equal(gotAll[i], wantAll[i]) {
							t.Fatalf("es %d tiles %d D %d tiles [%d,%d): dst row %d differs", es, tiles, D, t0, t1, i)
						}
					}
				}
			}
		})
	}
}

// TestTransposeParallelMatchesSerial checks the work-stealing split (items of whole 64-byte
// runs of each row, taken from an atomic counter) against the serial path for several item
// counts, worker counts, widths and partial last tiles.
func TestTransposeParallelMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewSource(23))
	defer func(w int, gm bool) { workPerProc, itemsGroupMajor = w, gm }(workPerProc, itemsGroupMajor)
	for _, es := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%dB", es), func(t *testing.T) {
			for _, E := range []int{32 * 3, 32 * 197, 32 * (stChunk/(32*es) + 77)} {
				for _, cut := range []int{0, 5} {
					D := E - cut
					groups := 1 + rng.Intn(4)
					src := make([][32][]byte, groups)
					want, got := make([][32][]byte, groups), make([][32][]byte, groups)
					for g := range src {
						for j := 0; j < 32; j++ {
							src[g][j] = make([]byte, E*es)
							rng.Read(src[g][j])
							want[g][j] = make([]byte, D*es)
							got[g][j] = make([]byte, D*es)
						}
					}
					tiles := (D + 31) / 32
					transposeParallel(1, want, src, es, tiles, D)
					for _, wpp := range []int{1, 4, 8} {
						for _, procs := range []int{2, 3} {
							workPerProc, itemsGroupMajor = wpp, rng.Intn(2) == 0
							for g := range got {
								for j := range got[g] {
									clear(got[g][j])
								}
							}
							transposeParallel(procs, got, src, es, tiles, D)
							for g := range got {
								for j := range got[g] {
									if !bytes.Equal(got[g][j], want[g][j]) {
										t.Fatalf("es %d E %d D %d groups %d wpp %d procs %d: group %d row %d differs", es, E, D, groups, wpp, procs, g, j)
									}
								}
							}
						}
					}
				}
			}
		})
	}
}
