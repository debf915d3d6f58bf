package dve

import (
	"sync"
	"unsafe"
)

// On amd64 (without the purego tag) whole tiles of every width go to the SSE2 assembly kernels
// (tileAsm, transpose_amd64.s); this file's plain-Go staged path runs everywhere else, and for
// the partial last tile. Why the kernels are shaped as they are: the dst side sets the speed. A
// store to a line not in cache waits for the line to be read for ownership, while copy() of
// >= 1 MiB uses non-temporal stores that need no read; no dst run of a transpose is longer than
// one partition row, so plain Go cannot do the same, and the assembly kernels read the src rows
// in place with prefetch and store non-temporally from ntMin bytes on. tile32d stays as the
// kernel of other platforms and of the purego build tag, and as the reference the assembly is
// tested against (TestTileAsmMatchesGo; CI runs both builds). The work split (transposeParallel)
// hands out items of whole 64-byte runs of every row from an atomic counter, so a worker slowed
// by other load takes fewer items. What was measured and tried for each of these choices is in
// BENCHMARKS.md ("StreamTranspose: the kernels' measured steps").

// The staged transpose, the plain-Go fast path at every size: each round copies up to stChunk bytes
// of every src row of a 32-channel group into a cache-resident buffer at the compile-time row
// stride stRS (32 sequential reads), and kernels that address all 32 staged rows from one
// pointer with constant displacements (no per-row pointers to keep in registers, no bounds
// checks in the kernels) write the dst rows directly in runs along each row (oct8 for 1-byte,
// quad16 for 2-byte, pair32 for 4-byte cells; each a SWAR transpose inside uint64 words), then
// the next round's src rows are read in. Main memory thus sees 32 sequential src streams of
// stChunk bytes per round, which the prefetchers follow, instead of 32 interleaved 8-to-128-
// byte pieces per tile. At full size (rows of 112 KiB, from DRAM) 32 KiB rounds were measured
// ~15-25% faster than 4 KiB ones (longer runs per stream); smaller instructions fit one round.
// Writing the dst rows directly rather than through a second staging buffer copied out row by
// row measured 8-15% faster at full size on one core for 1- and 2-byte cells and
// saves 1 MiB of staging per worker; at 1 MiB 1-byte cells are ~8% slower that way (0.19-0.20x
// copy, goal 0.08). Instructions of a tile or two per row pay ~1 us for the staging (4 KiB:
// 4.5 us against 3.5 us for per-row tile kernels without staging, which were dropped so that
// each SWAR step exists once; from 8 tiles per row staging is as fast).
const (
	stChunk = 32 << 10
	stRS    = stChunk + 64 // 64 mod 4096: the 32 rows of a column fall in 32 different L1 sets
	// stMin is the fewest bytes per row a parallel work item gets (transposeParallel).
	stMin = 2048
)

// stage is one worker's staging buffer.
type stage struct{ s [32 * stRS]byte }

var stagePool = sync.Pool{New: func() any { return new(stage) }}

// transposeChunks transposes element tiles [t0, t1) of one 32-channel group (src rows of E
// cells, dst rows of D cells). A partial last tile (D not a multiple of 32) goes through
// transposeTilePartial.
// Whole tiles go to the assembly kernels where there are any (nt: non-temporal stores).
func transposeChunks(dst, src *[32][]byte, es, t0, t1, D int, nt bool) {
	if full := min(t1, D/32); t0 < full && tileAsm(dst, src, es, t0, full, nt) {
		t0 = full
	}
	transposeStaged(dst, src, es, t0, t1, D)
}

// transposeStaged is transposeChunks in plain Go, through the staging buffer.
func transposeStaged(dst, src *[32][]byte, es, t0, t1, D int) {
	tb := 32 * es // bytes of one tile in one row
	full := min(t1, D/32)
	per := stChunk / tb
	if t0 < full {
		st := stagePool.Get().(*stage)
		sb := &st.s
		span := func(c0 int) (lo, hi int) { return c0 * tb, min(full, c0+per) * tb }
		lo, hi := span(t0)
		for j := 0; j < 32; j++ {
			copy(sb[j*stRS:j*stRS+hi-lo], src[j][lo:hi])
		}
		for c0 := t0; c0 < full; c0 += per {
			lo, hi := span(c0)
			// The kernels write the dst rows themselves, whole cache lines at a time.
			switch es {
			case 4:
				tile32d(dst, sb, lo, hi-lo)
			case 2:
				tile16d(dst, sb, lo, hi-lo)
			default:
				tile8d(dst, sb, lo, hi-lo)
			}
			nlo, nhi := span(c0 + per)
			for j := 0; nlo < nhi && j < 32; j++ {
				copy(sb[j*stRS:j*stRS+nhi-nlo], src[j][nlo:nhi])
			}
		}
		stagePool.Put(st)
	}
	for t := max(full, t0); t < t1; t++ {
		transposeTilePartial(dst, src, es, t, D-32*t)
	}
}

// ntMin is the fewest dst bytes of one StreamTranspose for which the assembly kernels (and the
// butterfly's copyOut) use non-temporal stores. Measured on one core, 4-byte cells, src and dst in SBUF:
// below it ordinary stores are 5-10% faster (the dst stays in cache: 2 MiB 0.64 against 0.60x
// copy, 4 MiB 0.64 against 0.59x); above it ordinary stores fall off a cliff once src and dst
// outgrow the cache (6 MiB 0.23 against 0.56x, 8 MiB 0.17 against 0.56x, 14 MiB 0.19 against
// 0.38-0.41x), because each dst line must first be read for ownership. copy() switches to
// non-temporal stores at 1 MiB for the same reason.
const ntMin = 4 << 20

// tileAsm runs the assembly kernel (where there is one) for es-byte cells (2 or 4) on whole
// tiles [t0, t1) of one 32-channel group, reading the src rows in place, and reports whether it
// did: every row must hold the tiles. nt asks for non-temporal stores, which it uses only where
// every dst row's first byte is 16-byte aligned.
func tileAsm(dst, src *[32][]byte, es, t0, t1 int, nt bool) bool {
	tb := 32 * es
	lo, hi := tb*t0, tb*t1
	if !haveTile32Asm || (es != 1 && es != 2 && es != 4) || t0 < 0 || t0 >= t1 {
		return false
	}
	var d, s [32]*byte
	var align uintptr
	for i := range d {
		if len(dst[i]) < hi || len(src[i]) < hi {
			return false
		}
		d[i], s[i] = &dst[i][0], &src[i][0]
		align |= uintptr(unsafe.Pointer(d[i])) + uintptr(lo)
	}
	// 1-byte tiles keep ordinary stores: tile8sse leaves 16-32 dst lines partly written at a
	// time (a line spans two tiles), and non-temporal stores then flush partial lines, measured
	// 10.5 ms at full size against 2.8-4.0 ms with ordinary stores.
	nt = nt && align%16 == 0 && es != 1
	// Assembly is not preempted: calls of at most asmTiles tiles (a few tens of microseconds)
	// keep a stop-the-world from waiting on a whole group (~1-2 ms at full size). The kernels
	// are called directly: through a func value d and s would escape (//go:noescape is lost)
	// and be allocated per call.
	for t := t0; t < t1; t += asmTiles {
		off, n := uintptr(tb*t), min(asmTiles, t1-t)
		switch es {
		case 4:
			tile32sse(&d, &s, off, n, nt)
		case 2:
			tile16sse(&d, &s, off, n, nt)
		default:
			tile8sse(&d, &s, off, n, nt)
		}
	}
	return true
}

// asmTiles is the most tiles one call of an assembly kernel transposes.
const asmTiles = 256

// copyOut copies src into dst (the shorter length), with non-temporal stores if nt, an
// assembly kernel exists and dst starts 16-byte aligned (at least 64 bytes: the rest with copy).
func copyOut(dst, src []byte, nt bool) {
	n := min(len(dst), len(src))
	if k := n &^ 63; nt && haveTile32Asm && k > 0 && uintptr(unsafe.Pointer(&dst[0]))%16 == 0 {
		copyNT(&dst[0], &src[0], k)
		copy(dst[k:n], src[k:n])
		return
	}
	copy(dst[:n], src[:n])
}

// dBlock is the bytes of every dst row tile32d writes per pass over the 32 rows: 32 KiB of
// output, so the 32 src strips it reads (32 x 1 KiB of sb) stay in L1 across the 16 row pairs.
const dBlock = 1024
