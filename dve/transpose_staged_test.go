package dve

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestTransposeChunksMatchesNaive checks the staged kernels (several rounds per row, work items
// starting and ending mid-row, a partial last tile) against a cell-by-cell transpose, and that
// nothing past each dst row is written.
func TestTransposeChunksMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for _, es := range []int{1, 2, 4} {
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
				transposeChunks(&got, &src, es, t0, t1, D)
				for i := range got {
					if !bytes.Equal(gotAll[i], wantAll[i]) {
						t.Fatalf("es %d tiles %d D %d tiles [%d,%d): dst row %d differs", es, tiles, D, t0, t1, i)
					}
				}
			}
		}
	}
}
