package dve

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestTile32AsmMatchesGo holds the assembly 4-byte kernels (ordinary and non-temporal stores)
// to the plain-Go tile32d byte for byte: random staged cells, 1 to stChunk/128 tiles, dst rows at
// 16-byte aligned and unaligned addresses (the non-temporal kernel must fall back to ordinary
// stores on those), and guard bytes before and after each row's written range.
func TestTile32AsmMatchesGo(t *testing.T) {
	if !haveTile32Asm {
		t.Skip("no assembly kernel on this platform or build (purego)")
	}
	rng := rand.New(rand.NewSource(31))
	st := new(stage)
	for trial := 0; trial < 60; trial++ {
		rng.Read(st.s[:])
		tiles := 1 + rng.Intn(stChunk/128)
		if trial%6 == 0 {
			tiles = stChunk / 128
		}
		n := 128 * tiles
		lo := 128 * rng.Intn(4)
		shift := 0 // start of each row in its backing array: 0 keeps rows 16-byte aligned
		if trial%3 == 2 {
			shift = 4 * (1 + rng.Intn(3))
		}
		var got, want [32][]byte
		var gotAll, wantAll [32][]byte
		for i := range got {
			back := make([]byte, shift+lo+n+64) // make of this size is at least 16-byte aligned
			rng.Read(back)
			gotAll[i] = back[shift:]
			wantAll[i] = bytes.Clone(gotAll[i])
			got[i], want[i] = gotAll[i][:lo+n], wantAll[i][:lo+n]
		}
		tile32d(&want, &st.s, lo, n)
		if !tile32asm(&got, &st.s, lo, n, trial%2 == 1) {
			t.Fatalf("trial %d: tile32asm refused lo %d n %d", trial, lo, n)
		}
		for i := range got {
			if !bytes.Equal(gotAll[i], wantAll[i]) {
				t.Fatalf("trial %d (tiles %d lo %d shift %d nt %v): dst row %d differs from tile32d", trial, tiles, lo, shift, trial%2 == 1, i)
			}
		}
	}
	// Rows too short for lo+n, or a size that is not whole tiles: refused, nothing written.
	var short [32][]byte
	for i := range short {
		short[i] = make([]byte, 256)
	}
	if tile32asm(&short, &st.s, 128, 256, false) || tile32asm(&short, &st.s, 0, 100, false) || tile32asm(&short, &st.s, 0, stChunk+128, true) {
		t.Fatal("tile32asm accepted rows shorter than lo+n or a partial tile")
	}
	for i := range short {
		if !bytes.Equal(short[i], make([]byte, 256)) {
			t.Fatalf("refused call wrote dst row %d", i)
		}
	}
}
