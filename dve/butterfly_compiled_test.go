package dve

import (
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
	for ci, c := range cases {
		p := compileDsel(c.c, c.w)
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
