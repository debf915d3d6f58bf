package dve

import (
	"sync"
	"unsafe"
)

// On amd64 (without the purego tag) whole tiles of every width go to the SSE2 assembly kernels
// (tileAsm, transpose_amd64.s); this file's plain-Go staged path runs everywhere else, and for
// the partial last tile. The history below is why (BENCHMARKS.md has the recorded runs).
//
// Plain-Go limits (issue 3 item 8; AMD EPYC Zen 4 KVM guest, 2 shared cores, 1 MiB L2 per core,
// 32 MiB L3; go test -bench StreamTranspose -cpu 1,2; run-to-run spread on this shared machine
// +-10-50%):
//
//	4-byte 1 MiB:  x-copy 0.27 -> 0.36-0.45 on one core since the kernel writes dst rows directly
//	4-byte full:   x-copy 0.17-0.19 -> 0.20-0.22 on one core with huge pages (goal 0.3 not reached)
//	2-byte full:   x-copy 0.13-0.15 -> 0.20 with huge pages and direct dst writes (quad16)
//	1-byte full:   x-copy 0.12-0.13 -> 0.14-0.15 with huge pages and direct dst writes (oct8)
//
// Session 2 (2026-11-30) measurements, 4-byte at full size, one core, in a copy of this code
// with each part switched off in turn (copy() of the 14 MiB: 0.57-0.60 ms):
//
//	4 KiB pages, whole transpose                         4.3-4.8 ms
//	2 MiB pages (mem.Options.HugePages), whole transpose 2.9-3.3 ms   TLB: 64 rows 224 KiB apart
//	  only the copies of src rows into sb                0.56-0.64 ms
//	  only the kernel, sb and dst L2-resident            0.93 ms      (15.7 GB/s of scalar SWAR)
//	  only the kernel, writing the real dst rows         2.0-2.2 ms
//	  copy src->dst row pieces, no staging, 32 KiB runs  0.95-1.0 ms
//
// So the dst side sets the speed: a store to a line not in cache waits in the store buffer for
// the line to be read for ownership, and eight-byte stores fill that buffer with only a few
// lines' worth of misses, while copy() of >= 1 MiB uses non-temporal 32-byte stores that need
// no read at all. A transpose cannot get those from plain Go: no dst run is longer than one
// partition row (112 KiB, rows 224 KiB apart), and copy() only goes non-temporal at 1 MiB. The
// kernel's own ~0.9 ms and the ~1.1 ms of dst misses overlap only partly, the src reads not at
// all. Tried in session 2 and dropped (within noise or slower): loading one byte of every dst
// line before the kernel stores to it (row-sequential, so the prefetchers follow; +-5%, worse
// at 1 MiB); the same loads spread between the kernel's row pairs for the next round (slower:
// each miss holds the reorder buffer); 8/16 KiB rounds with either; 0.25-32 KiB dBlock. Tried
// in session 1: staging sizes, a 32 x 0.5-4 KiB L1 tile flushed with copy(), double-buffered
// rounds interleaving the kernel with the previous write-out and the next read-in.
//
// Session 3 (2026-11-30): 4-byte tiles go to an SSE2 assembly kernel (transpose_amd64.s, via
// tileAsm), measured at each step on one core (x copy at 1 MiB / full size):
//
//	plain-Go staged pair32 (tile32d)                            0.45 / 0.19
//	assembly on the staged rows, 16-byte ordinary stores         0.74-0.80 / 0.19
//	  the same with non-temporal stores                          0.59-0.61 / 0.38-0.52
//	assembly reading the src rows in place, no staging           0.97 / 0.39-0.42
//	  the same with software prefetch 512 bytes ahead            0.96-1.0 / 0.64-0.79
//
// (non-temporal stores from ntMin dst bytes on). 2-byte tiles followed with the same structure
// (tile16sse, 8x8 blocks): 0.27 -> 0.79-0.85x at 1 MiB, 0.20 -> 0.50-0.67x at full size (the
// noisier figure: each 8x8 block leaves eight dst lines open in the write-combining buffers,
// against four for 4-byte cells; staging each line on the stack to store it in one go measured
// 6x slower, dropping the prefetch the same). 1-byte tiles (tile8sse) transpose 16 cells of 16
// rows as two 8x16 byte blocks, the first parked on the stack, combined into 16-byte stores:
// 0.19 -> 0.59-0.72x at 1 MiB, 0.14-0.15 -> 0.16-0.21x at full size (ordinary stores, see
// tileAsm; prefetch gained ~20% at full size and cost ~15% at 1 MiB). The second line shows the read for ownership,
// not the store width or the kernel, as the plain-Go limit at full size. With prefetch one core
// reaches most of the machine's memory bandwidth, so a second core adds little there (two cores
// 0.91-0.98x copy either way; a copy() split over two goroutines measured no faster than one).
// tile32d stays as the kernel of other platforms and of the purego build tag, and as the
// reference the assembly is tested against (TestTileAsmMatchesGo; CI runs both builds).
//
// Work split (transposeParallel): items of whole 64-byte runs of every row, taken by the workers
// (the caller plus procs-1 goroutines) from an atomic counter, element-range-major. With the
// machine otherwise idle the static split already gave 1.85-1.91x (GB/s 1-core -> 2-core, full
// size: 1B 2.39 -> 4.56, 2B 2.96 -> 5.48, 4B 3.24 -> 6.05). With a fuzzer holding ~1.2 of the 2
// cores, 2 workers are slower than 1 for either split (ratio 0.84-0.89 static, 0.87-0.98 work-
// stealing, medians of 8 alternating runs): the counter lets the worker on the free core take
// the items the other cannot, but cannot make the goal measurable under that load. 8 items per
// core instead of 4, or group-major item order, measured no better (within noise).

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
// row measured (session 2, full size, one core) 8-15% faster for 1- and 2-byte cells and
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
// butterfly's copyOut) use non-temporal stores. Measured (session 3, one core, 4-byte cells, src and dst in SBUF):
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
	// 10.5 ms at full size against 2.8-4.0 ms with ordinary stores (session 3).
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
