package dve

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
)

// TestTileAsmMatchesGo holds the assembly kernels (1-, 2- and 4-byte cells), with ordinary and with
// non-temporal stores, to the plain-Go staged path byte for byte: random cells, tile ranges starting and
// ending mid-row, rows longer than one staging round, a partial last tile, dst rows at 16-byte
// aligned and unaligned addresses (non-temporal stores must then give way to ordinary ones),
// and guard bytes after every row.
func TestTileAsmMatchesGo(t *testing.T) {
	if !haveTile32Asm {
		t.Skip("no assembly kernels in this build (purego or not amd64)")
	}
	rng := rand.New(rand.NewSource(31))
	for trial := 0; trial < 144; trial++ {
		es := []int{1, 2, 4}[trial%3]
		tiles := 1 + rng.Intn(3*stChunk/(32*es))
		E := 32 * tiles
		D := E - rng.Intn(32)
		nt, shift := trial%6 >= 3, 0
		if trial%4 == 3 {
			shift = es * (1 + rng.Intn(3)) // rows es-byte but not 16-byte aligned
		}
		var src, got, want, gotAll, wantAll [32][]byte
		for j := range src {
			src[j] = make([]byte, E*es)
			rng.Read(src[j])
			back := make([]byte, shift+D*es+64) // make of this size is 16-byte aligned
			rng.Read(back)
			gotAll[j] = back[shift:]
			wantAll[j] = bytes.Clone(gotAll[j])
			got[j], want[j] = gotAll[j][:D*es], wantAll[j][:D*es]
		}
		t0 := rng.Intn(min(3, tiles))
		t1 := (D+31)/32 - rng.Intn(2)
		transposeStaged(&want, &src, es, t0, t1, D)
		transposeChunks(&got, &src, es, t0, t1, D, nt)
		for i := range got {
			if !bytes.Equal(gotAll[i], wantAll[i]) {
				t.Fatalf("trial %d (es %d E %d D %d tiles [%d,%d) shift %d nt %v): dst row %d differs from the Go kernel", trial, es, E, D, t0, t1, shift, nt, i)
			}
		}
	}
}

// TestTileAsmRefuses checks that no kernel is run, and nothing written, when a row is shorter
// than the tiles, the range is empty or the cell width has no kernel.
func TestTileAsmRefuses(t *testing.T) {
	var src, dst [32][]byte
	for i := range src {
		src[i], dst[i] = make([]byte, 512), make([]byte, 512)
	}
	dst[7] = dst[7][:384]
	src[30] = src[30][:256]
	for _, r := range [][3]int{{4, 0, 4}, {4, 1, 3}, {4, 2, 2}, {4, 3, 1}, {4, -1, 1}, {2, 0, 8}, {2, 4, 5}, {1, 0, 32}, {1, 8, 9}, {3, 0, 1}, {8, 0, 1}} {
		t.Run(fmt.Sprint(r), func(t *testing.T) {
			if tileAsm(&dst, &src, r[0], r[1], r[2], false) {
				t.Errorf("es %d tiles [%d,%d): tileAsm ran", r[0], r[1], r[2])
			}
		})
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
		t.Run(fmt.Sprint(n), func(t *testing.T) {
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
		})
	}
}

// TestTileAsmDoesNotAllocate: the row-pointer arrays stay on the stack (calling the kernels
// through a func value once made them escape: two allocations per group and instruction).
func TestTileAsmDoesNotAllocate(t *testing.T) {
	if !haveTile32Asm {
		t.Skip("no assembly kernels in this build")
	}
	var src, dst [32][]byte
	for i := range src {
		src[i], dst[i] = make([]byte, 1024), make([]byte, 1024)
	}
	for _, es := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%dB", es), func(t *testing.T) {
			if n := testing.AllocsPerRun(20, func() { tileAsm(&dst, &src, es, 0, 1024/(32*es), false) }); n != 0 {
				t.Errorf("es %d: %v allocations per call", es, n)
			}
		})
	}
}
