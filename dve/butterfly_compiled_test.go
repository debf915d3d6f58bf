package dve

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

// lanesOf unpacks a register into its n lanes of w bits.
func lanesOf(r *vreg, w int) []uint32 {
	n := 512 / w
	out := make([]uint32, n)
	for l := 0; l < n; l++ {
		out[l] = uint32(r[l*w/64] >> (l * w % 64) & (1<<w - 1))
	}
	return out
}

// TestCompiledDselMatchesLanes checks the word programs against the lane-level DSEL for the
// butterfly selectors of every width, the register swap and random selector tables, on random
// registers, including outputs that alias the inputs.
func TestCompiledDselMatchesLanes(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	type tc struct {
		name string
		c    *dselCtrl
		w    int
	}
	var cases []tc
	for s := 0; s < 5; s++ {
		cases = append(cases, tc{"2NX8", ctrl2NX8[s], 8}, tc{"NX16", ctrlNX16[s], 16})
	}
	for s := 0; s < 4; s++ {
		cases = append(cases, tc{"N_2X32", ctrlN2X32[s], 32})
	}
	cases = append(cases, tc{"swap", ctrlSwap, 32})
	for _, w := range []int{8, 16, 32} {
		for k := 0; k < 20; k++ {
			n := 512 / w
			c := &dselCtrl{u: make([]uint8, n), t: make([]uint8, n)}
			for l := 0; l < n; l++ {
				c.u[l], c.t[l] = uint8(rng.Intn(2*n)), uint8(rng.Intn(2*n))
			}
			cases = append(cases, tc{"random", c, w})
		}
	}
	// Whole-word selections: random word permutations (progPerm) and random exchange sets between
	// the two registers (progExch outside the butterfly's fixed patterns).
	wordTable := func(w int, perm [16]int) *dselCtrl {
		n, lpw := 512/w, 64/w
		c := &dselCtrl{u: make([]uint8, n), t: make([]uint8, n)}
		for ow := 0; ow < 16; ow++ {
			for k := 0; k < lpw; k++ {
				l, src := (ow%8)*lpw+k, perm[ow]*lpw+k
				if ow < 8 {
					c.u[l] = uint8(src)
				} else {
					c.t[l] = uint8(src)
				}
			}
		}
		return c
	}
	for _, w := range []int{8, 16, 32} {
		for k := 0; k < 10; k++ {
			var perm [16]int
			copy(perm[:], rng.Perm(16))
			cases = append(cases, tc{"word permutation", wordTable(w, perm), w})
			for i := range perm {
				perm[i] = i
			}
			js := rng.Perm(8)
			for _, ws := range rng.Perm(8)[:1+rng.Intn(8)] {
				j := js[ws]
				perm[ws], perm[8+j] = 8+j, ws
			}
			cases = append(cases, tc{"word exchange", wordTable(w, perm), w})
		}
	}
	kinds := map[uint8]int{}
	for ci, c := range cases {
		p := compileDsel(c.c, c.w)
		kinds[p.kind]++
		for trial := 0; trial < 20; trial++ {
			var vs, vr vreg
			for i := range vs {
				vs[i], vr[i] = rng.Uint64(), rng.Uint64()
			}
			n := 512 / c.w
			ls, lr := lanesOf(&vs, c.w), lanesOf(&vr, c.w)
			wu, wt := make([]uint32, n), make([]uint32, n)
			var cat [128]uint32
			dsel(wu, wt, ls, lr, c.c, &cat)
			var vu, vt vreg
			p.run(&vu, &vt, &vs, &vr)
			a, b := vs, vr
			p.run(&a, &b, &a, &b) // aliased outputs
			ia, ib := vs, vr
			p.runInPlace(&ia, &ib)
			for l := 0; l < n; l++ {
				if lanesOf(&vu, c.w)[l] != wu[l] || lanesOf(&vt, c.w)[l] != wt[l] ||
					lanesOf(&a, c.w)[l] != wu[l] || lanesOf(&b, c.w)[l] != wt[l] ||
					lanesOf(&ia, c.w)[l] != wu[l] || lanesOf(&ib, c.w)[l] != wt[l] {
					t.Fatalf("case %d (%s, %d-bit lanes): lane %d differs", ci, c.name, c.w, l)
				}
			}
		}
	}
	if kinds[progPerm] == 0 || kinds[progExch] == 0 || kinds[progSwap] == 0 || kinds[progGeneric] == 0 {
		t.Fatalf("program kinds covered: %v, want every kind", kinds)
	}
}

// TestButterflyParallelAgrees checks the goroutine split of the butterfly model against one
// goroutine, with odd tile counts (the zero-padded 2NX8 half).
func TestButterflyParallelAgrees(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for _, es := range []int{1, 2, 4} {
		for _, T := range []int{1, 33, 67} {
			nac, E := 64, 32*T
			src := make([]byte, nac*E*es)
			rng.Read(src)
			a, b := make([]byte, len(src)), make([]byte, len(src))
			rows := func(b []byte) [][]byte {
				r := make([][]byte, nac)
				for c := range r {
					r[c] = b[c*E*es : (c+1)*E*es]
				}
				return r
			}
			butterflyRows(1, rows(a), rows(src), E, es)
			butterflyRows(3, rows(b), rows(src), E, es)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("es %d T %d: byte %d differs", es, T, i)
				}
			}
			// spot-check the mapping O[32g+i][32t+j] = S[32g+j][32t+i]
			row := E * es
			for k := 0; k < 200; k++ {
				g, i, j, tt := rng.Intn(nac/32), rng.Intn(32), rng.Intn(32), rng.Intn(T)
				o := a[(32*g+i)*row+(32*tt+j)*es:][:es]
				s := src[(32*g+j)*row+(32*tt+i)*es:][:es]
				if binary.LittleEndian.Uint32(append(append([]byte{}, o...), 0, 0, 0, 0)) != binary.LittleEndian.Uint32(append(append([]byte{}, s...), 0, 0, 0, 0)) {
					t.Fatalf("es %d T %d: O[%d][%d] != S[%d][%d]", es, T, 32*g+i, 32*tt+j, 32*g+j, 32*tt+i)
				}
			}
		}
	}
}

// TestButterflyProgramsSpecialised pins which word form each butterfly selector compiles to:
// in-word lane blocks are delta swaps, whole-word blocks and the register swap are word
// exchanges between the two registers.
func TestButterflyProgramsSpecialised(t *testing.T) {
	for s := 0; s < 5; s++ {
		want := uint8(progSwap)
		if 8<<s >= 64 {
			want = progExch
		}
		if prog2NX8[s].kind != want {
			t.Errorf("2NX8 stage %d: kind %d, want %d", s, prog2NX8[s].kind, want)
		}
		want = progSwap
		if 16<<s >= 64 {
			want = progExch
		}
		if progNX16[s].kind != want {
			t.Errorf("NX16 stage %d: kind %d, want %d", s, progNX16[s].kind, want)
		}
	}
	for s := 0; s < 4; s++ {
		want := uint8(progSwap)
		if 32<<s >= 64 {
			want = progExch
		}
		if progN2X32[s].kind != want {
			t.Errorf("N_2X32 stage %d: kind %d, want %d", s, progN2X32[s].kind, want)
		}
	}
	if progRegSwap.kind != progExch || progRegSwap.nx != 8 {
		t.Errorf("register swap: kind %d", progRegSwap.kind)
	}
}

// TestButterflyLargeRows runs the butterfly on instructions of more than ntMin dst bytes, where
// its runs' dst rows go out with non-temporal stores (copyOut), with dst rows 16-byte aligned and
// not, a partial last tile, and guard bytes after every row, against a cell-by-cell transpose.
func TestButterflyLargeRows(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	const nac = 128
	for _, es := range []int{1, 2, 4} {
		for _, shift := range []int{0, es} {
			E := (ntMin/nac + 8<<10) / es / 32 * 32
			D := E - 7
			if nac*D*es < ntMin {
				t.Fatalf("es %d: %d dst bytes, not above ntMin", es, nac*D*es)
			}
			src, got, all := make([][]byte, nac), make([][]byte, nac), make([][]byte, nac)
			for c := range src {
				src[c] = make([]byte, E*es)
				rng.Read(src[c])
				all[c] = make([]byte, shift+D*es+16)
				rng.Read(all[c])
				got[c] = all[c][shift : shift+D*es]
			}
			want := make([][]byte, nac)
			for c := range want {
				want[c] = bytes.Clone(all[c])
				for d := 0; d < D; d++ {
					g, tt, j := c/32, d/32, d%32
					i := c % 32
					copy(want[c][shift+d*es:shift+(d+1)*es], src[32*g+j][(32*tt+i)*es:])
				}
			}
			butterflyRows(2, got, src, E, es)
			for c := range all {
				if !bytes.Equal(all[c], want[c]) {
					t.Fatalf("es %d shift %d: row %d differs", es, shift, c)
				}
			}
		}
	}
}
