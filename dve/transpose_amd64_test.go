package dve

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestTile32AsmMatchesGo holds the assembly 4-byte kernel, with ordinary and with non-temporal
// stores, to the plain-Go staged path byte for byte: random cells, tile ranges starting and
// ending mid-row, rows longer than one staging round, a partial last tile, dst rows at 16-byte
// aligned and unaligned addresses (non-temporal stores must then give way to ordinary ones),
// and guard bytes after every row.
func TestTile32AsmMatchesGo(t *testing.T) {
	if !haveTile32Asm {
		t.Skip("no assembly kernel in this build (purego or not amd64)")
	}
	rng := rand.New(rand.NewSource(31))
	for trial := 0; trial < 48; trial++ {
		tiles := 1 + rng.Intn(3*stChunk/128)
		E := 32 * tiles
		D := E - rng.Intn(32)
		nt, shift := trial%2 == 1, 0
		if trial%3 == 2 {
			shift = 4 * (1 + rng.Intn(3)) // rows 4-byte but not 16-byte aligned
		}
		var src, got, want, gotAll, wantAll [32][]byte
		for j := range src {
			src[j] = make([]byte, E*4)
			rng.Read(src[j])
			back := make([]byte, shift+D*4+64) // make of this size is 16-byte aligned
			rng.Read(back)
			gotAll[j] = back[shift:]
			wantAll[j] = bytes.Clone(gotAll[j])
			got[j], want[j] = gotAll[j][:D*4], wantAll[j][:D*4]
		}
		t0 := rng.Intn(min(3, tiles))
		t1 := (D+31)/32 - rng.Intn(2)
		transposeStaged(&want, &src, 4, t0, t1, D)
		transposeChunks(&got, &src, 4, t0, t1, D, nt)
		for i := range got {
			if !bytes.Equal(gotAll[i], wantAll[i]) {
				t.Fatalf("trial %d (E %d D %d tiles [%d,%d) shift %d nt %v): dst row %d differs from the Go kernel", trial, E, D, t0, t1, shift, nt, i)
			}
		}
	}
}

// TestTile32AsmRefuses checks that the kernel is not run, and nothing written, when a row is
// shorter than the tiles or the range is empty.
func TestTile32AsmRefuses(t *testing.T) {
	var src, dst [32][]byte
	for i := range src {
		src[i], dst[i] = make([]byte, 512), make([]byte, 512)
	}
	dst[7] = dst[7][:384]
	src[30] = src[30][:256]
	for _, r := range [][2]int{{0, 4}, {1, 3}, {2, 2}, {3, 1}, {-1, 1}} {
		if tile32asm(&dst, &src, r[0], r[1], false) {
			t.Errorf("tiles [%d,%d) with short rows: tile32asm ran", r[0], r[1])
		}
	}
	for i := range dst {
		if !bytes.Equal(dst[i], make([]byte, len(dst[i]))) {
			t.Fatalf("dst row %d written by a refused call", i)
		}
	}
}

// TestCopyOut checks copyOut, with and without non-temporal stores, against copy(): lengths
// around the 64-byte steps of the assembly, 16-byte aligned and unaligned destinations, dst and
// src of different lengths, and the bytes around the copied range untouched.
func TestCopyOut(t *testing.T) {
	rng := rand.New(rand.NewSource(37))
	for _, n := range []int{0, 1, 63, 64, 65, 127, 128, 1000, 4096, 8192 + 17} {
		for _, shift := range []int{0, 4, 8} {
			for _, nt := range []bool{false, true} {
				src := make([]byte, n+rng.Intn(3))
				rng.Read(src)
				back := make([]byte, shift+n+32)
				rng.Read(back)
				want := bytes.Clone(back)
				copy(want[shift:shift+n], src)
				copyOut(back[shift:shift+n], src, nt)
				if !bytes.Equal(back, want) {
					t.Fatalf("n %d shift %d nt %v: differs from copy()", n, shift, nt)
				}
			}
		}
	}
}
