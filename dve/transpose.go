package dve

import (
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// StreamTranspose (seed 000 §5.1, DESIGN.md §4): for each channel c the src walk yields a stream
// S_c of E elements (E % 32 == 0). Within channel group g (32 channels) and element tile t,
//
//	O[32g+i][32t+j] = S[32g+j][32t+i]
//
// and the dst walk consumes each O_c in order; elements past the dst walk are dropped
// (same_or_fewer). Cells are raw bytes of the dtype width.

// checkTranspose enforces the StreamTranspose geometry rules the executor relies on.
func checkTranspose(o *operands, in *isa.S4D4TR) error {
	if o.nac%32 != 0 {
		return fail(o.op, ErrInvalid, "has_multiple_32_channels", "num_active_channels", "%d; legal 32, 64, 96, 128", o.nac)
	}
	if o.src.Elements()%32 != 0 {
		return fail(o.op, ErrInvalid, "has_transpose_src_element_count_t4d", "src_mem_pattern.num_elem",
			"src walks %d elements, not a multiple of 32", o.src.Elements())
	}
	if o.esIn != o.esOut || (o.esIn != 1 && o.esIn != 2 && o.esIn != 4) {
		return fail(o.op, ErrInvalid, "s4d4_tr_same_src_dst_type", "out_dtype",
			"transpose cells must be one 1-, 2- or 4-byte dtype: in %v, out %v", in.InDtype, in.OutDtype)
	}
	return nil
}

func (d *DVE) streamTranspose(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := checkTranspose(o, in); err != nil {
		return err
	}
	E, D := o.src.Elements(), o.dst.Elements()
	if D > E {
		return fail(o.op, ErrInvalid, "same_or_fewer_element_count_t4d", "dst_mem_pattern.num_elem",
			"dst walks %d elements, src only %d", D, E)
	}
	if E == 0 || D == 0 {
		return nil
	}
	es := o.esIn
	track := m.Options().TrackUninit
	procs := d.procs(o.nac * E * es)
	directSrc := o.src.Contiguous() && !track && !o.src.Span().Overlaps(o.dst.Span())
	directDst := o.dst.Contiguous() && !track
	if d.Transpose == TransposeButterfly {
		return d.butterflyStream(m, o, E, D, procs, directSrc, directDst)
	}

	groups := o.nac / 32
	srcRows := make([][32][]byte, groups)
	dstRows := make([][32][]byte, groups)
	if directSrc {
		off := o.src.Offset()
		for c := 0; c < o.nac; c++ {
			srcRows[c/32][c%32] = m.Partition(o.src.Start.Region, o.src.Partition(c))[off : off+E*es]
		}
	} else {
		sbuf := make([]byte, o.nac*E*es)
		var firstErr error
		var mu sync.Mutex
		parallel(procs, o.nac, func(c int) {
			row := sbuf[c*E*es : (c+1)*E*es]
			if err := m.Gather(o.src, c, row); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
			srcRows[c/32][c%32] = row
		})
		if firstErr != nil {
			return memFail(o.op, "src_mem_pattern", firstErr)
		}
	}
	var obuf []byte
	if directDst {
		off := o.dst.Offset()
		for c := 0; c < o.nac; c++ {
			dstRows[c/32][c%32] = m.Partition(o.dst.Start.Region, o.dst.Partition(c))[off : off+D*es]
		}
	} else {
		obuf = make([]byte, o.nac*D*es)
		for c := 0; c < o.nac; c++ {
			dstRows[c/32][c%32] = obuf[c*D*es : (c+1)*D*es]
		}
	}
	tiles := (D + 31) / 32 // tiles that reach the dst; later ones are dropped
	transposeParallel(procs, dstRows, srcRows, es, tiles, D)
	if !directDst {
		parallel(procs, o.nac, func(c int) {
			m.ScatterN(o.dst, c, obuf[c*D*es:(c+1)*D*es], D)
		})
	}
	return nil
}

// butterflyStream runs StreamTranspose through the butterfly model, reading and writing
// partition memory directly when the walks allow it, like the fast path.
func (d *DVE) butterflyStream(m *mem.Memory, o *operands, E, D, procs int, directSrc, directDst bool) error {
	es := o.esIn
	srcRows, dstRows := make([][]byte, o.nac), make([][]byte, o.nac)
	if directSrc {
		off := o.src.Offset()
		for c := range srcRows {
			srcRows[c] = m.Partition(o.src.Start.Region, o.src.Partition(c))[off : off+E*es]
		}
	} else {
		sbuf, err := gatherAll(m, o)
		if err != nil {
			return err
		}
		for c := range srcRows {
			srcRows[c] = sbuf[c*E*es : (c+1)*E*es]
		}
	}
	var obuf []byte
	if directDst {
		off := o.dst.Offset()
		for c := range dstRows {
			dstRows[c] = m.Partition(o.dst.Start.Region, o.dst.Partition(c))[off : off+D*es]
		}
	} else {
		obuf = make([]byte, o.nac*D*es)
		for c := range dstRows {
			dstRows[c] = obuf[c*D*es : (c+1)*D*es]
		}
	}
	butterflyRows(procs, dstRows, srcRows, E, es)
	if !directDst {
		parallel(procs, o.nac, func(c int) {
			m.ScatterN(o.dst, c, dstRows[c], D)
		})
	}
	return nil
}

// parallelThreshold is the instruction size (bytes) above which a transpose uses goroutines.
// Measured on 2 cores (BENCHMARKS.md): at 1 MiB a second goroutine made every width slower
// (0.65x-1.1x of one core), from full size (14 MiB) on it gains 1.5x-2.7x.
const parallelThreshold = 4 << 20

func (d *DVE) procs(bytes int) int {
	if bytes < parallelThreshold {
		return 1
	}
	p := d.MaxProcs
	if p <= 0 {
		p = runtime.GOMAXPROCS(0)
	}
	return max(1, p)
}

// parallel runs fn(0..n-1) on up to procs goroutines.
func parallel(procs, n int, fn func(i int)) {
	if procs <= 1 || n <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	procs = min(procs, n)
	var wg sync.WaitGroup
	per := (n + procs - 1) / procs
	for w := 0; w < procs; w++ {
		lo, hi := w*per, min(n, (w+1)*per)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// Work split of a parallel transpose (issue 3 item 8). A call is cut into about
// procs*workPerProc (group, tile range) items that the workers (procs-1 goroutines plus the
// caller) take in turn from an atomic counter, so a worker slowed by other load takes fewer
// items instead of holding up the end of the call. Item boundaries fall on 64 bytes of every dst
// row (and of every src row), so no two workers write the same cache line. Items run
// element-range-major (itemsGroupMajor false): the workers at any moment stream different
// partitions' rows rather than neighbouring ranges of the same ones.
var (
	workPerProc     = 4
	itemsGroupMajor = false
)

// transposeParallel splits (group, tile range) work items over procs workers.
func transposeParallel(procs int, dst, src [][32][]byte, es, tiles, D int) {
	groups := len(src)
	kernel := transposeChunks
	if procs <= 1 {
		for g := 0; g < groups; g++ {
			kernel(&dst[g], &src[g], es, 0, tiles, D)
		}
		return
	}
	// Tiles per item: a multiple of align tiles (64 bytes of a row), at least stMin bytes of a
	// row unless the whole row is shorter.
	tb := 32 * es
	align := max(1, 64/tb)
	chunks := max(1, (procs*workPerProc+groups-1)/groups)
	per := (tiles + chunks - 1) / chunks
	per = max(per, (stMin+tb-1)/tb)
	per = (per + align - 1) / align * align
	chunks = (tiles + per - 1) / per
	n := groups * chunks
	item := func(i int) {
		var g, k int
		if itemsGroupMajor {
			g, k = i/chunks, i%chunks
		} else {
			g, k = i%groups, i/groups
		}
		lo, hi := k*per, min(tiles, (k+1)*per)
		if lo < hi {
			kernel(&dst[g], &src[g], es, lo, hi, D)
		}
	}
	if n == 1 {
		item(0)
		return
	}
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			item(i)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < min(procs, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// transposeTiles transposes element tiles [t0, t1) of one 32-channel group: src rows hold E
// cells each, dst rows D cells (the last tile may be partial).
func transposeTiles(dst, src *[32][]byte, es, t0, t1, D int) {
	for t := t0; t < t1; t++ {
		if 32*(t+1) > D {
			transposeTilePartial(dst, src, es, t, D-32*t)
			continue
		}
		switch es {
		case 1:
			tile8(dst, src, 32*t)
		case 2:
			tile16(dst, src, 64*t)
		default:
			tile32(dst, src, 128*t)
		}
	}
}

// transposeTilePartial writes only the first cols cells of each dst row of tile t.
func transposeTilePartial(dst, src *[32][]byte, es, t, cols int) {
	base := 32 * t * es
	for i := 0; i < 32; i++ {
		d := dst[i]
		for j := 0; j < cols; j++ {
			copy(d[base+j*es:base+(j+1)*es], src[j][base+i*es:base+(i+1)*es])
		}
	}
}

// tile8 transposes a 32x32 tile of bytes at byte offset base of every row: 16 blocks of 8x8,
// each transposed inside eight uint64 words (three swap stages). Rows are taken as *[32]byte
// once per tile so the inner loads and stores need no bounds checks.
func tile8(dst, src *[32][]byte, base int) {
	var dp [32]*[32]byte
	for i := range dp {
		dp[i] = (*[32]byte)(dst[i][base:])
	}
	le := binary.LittleEndian
	for bj := 0; bj < 32; bj += 8 { // src row block -> dst column block
		s0, s1, s2, s3 := (*[32]byte)(src[bj][base:]), (*[32]byte)(src[bj+1][base:]), (*[32]byte)(src[bj+2][base:]), (*[32]byte)(src[bj+3][base:])
		s4, s5, s6, s7 := (*[32]byte)(src[bj+4][base:]), (*[32]byte)(src[bj+5][base:]), (*[32]byte)(src[bj+6][base:]), (*[32]byte)(src[bj+7][base:])
		for bi := 0; bi <= 24; bi += 8 { // src column block -> dst row block
			w0, w1, w2, w3 := le.Uint64(s0[bi:]), le.Uint64(s1[bi:]), le.Uint64(s2[bi:]), le.Uint64(s3[bi:])
			w4, w5, w6, w7 := le.Uint64(s4[bi:]), le.Uint64(s5[bi:]), le.Uint64(s6[bi:]), le.Uint64(s7[bi:])
			const m4, m2, m1 = 0x00000000FFFFFFFF, 0x0000FFFF0000FFFF, 0x00FF00FF00FF00FF
			t := (w0>>32 ^ w4) & m4
			w4 ^= t
			w0 ^= t << 32
			t = (w1>>32 ^ w5) & m4
			w5 ^= t
			w1 ^= t << 32
			t = (w2>>32 ^ w6) & m4
			w6 ^= t
			w2 ^= t << 32
			t = (w3>>32 ^ w7) & m4
			w7 ^= t
			w3 ^= t << 32
			t = (w0>>16 ^ w2) & m2
			w2 ^= t
			w0 ^= t << 16
			t = (w1>>16 ^ w3) & m2
			w3 ^= t
			w1 ^= t << 16
			t = (w4>>16 ^ w6) & m2
			w6 ^= t
			w4 ^= t << 16
			t = (w5>>16 ^ w7) & m2
			w7 ^= t
			w5 ^= t << 16
			t = (w0>>8 ^ w1) & m1
			w1 ^= t
			w0 ^= t << 8
			t = (w2>>8 ^ w3) & m1
			w3 ^= t
			w2 ^= t << 8
			t = (w4>>8 ^ w5) & m1
			w5 ^= t
			w4 ^= t << 8
			t = (w6>>8 ^ w7) & m1
			w7 ^= t
			w6 ^= t << 8
			d := dp[bi : bi+8 : bi+8]
			le.PutUint64(d[0][bj:], w0)
			le.PutUint64(d[1][bj:], w1)
			le.PutUint64(d[2][bj:], w2)
			le.PutUint64(d[3][bj:], w3)
			le.PutUint64(d[4][bj:], w4)
			le.PutUint64(d[5][bj:], w5)
			le.PutUint64(d[6][bj:], w6)
			le.PutUint64(d[7][bj:], w7)
		}
	}
}

// tile16 transposes a 32x32 tile of 2-byte cells at byte offset base: 64 blocks of 4x4 uint16,
// each inside four uint64 words (two swap stages).
func tile16(dst, src *[32][]byte, base int) {
	var dp [32]*[64]byte
	for i := range dp {
		dp[i] = (*[64]byte)(dst[i][base:])
	}
	le := binary.LittleEndian
	for bj := 0; bj < 32; bj += 4 {
		s0, s1, s2, s3 := (*[64]byte)(src[bj][base:]), (*[64]byte)(src[bj+1][base:]), (*[64]byte)(src[bj+2][base:]), (*[64]byte)(src[bj+3][base:])
		q := 2 * bj
		for o := 0; o <= 56; o += 8 {
			w0, w1, w2, w3 := le.Uint64(s0[o:]), le.Uint64(s1[o:]), le.Uint64(s2[o:]), le.Uint64(s3[o:])
			const m2, m1 = 0x00000000FFFFFFFF, 0x0000FFFF0000FFFF
			t := (w0>>32 ^ w2) & m2
			w2 ^= t
			w0 ^= t << 32
			t = (w1>>32 ^ w3) & m2
			w3 ^= t
			w1 ^= t << 32
			t = (w0>>16 ^ w1) & m1
			w1 ^= t
			w0 ^= t << 16
			t = (w2>>16 ^ w3) & m1
			w3 ^= t
			w2 ^= t << 16
			bi := o / 2
			d := dp[bi : bi+4 : bi+4]
			if q <= 56 {
				le.PutUint64(d[0][q:], w0)
				le.PutUint64(d[1][q:], w1)
				le.PutUint64(d[2][q:], w2)
				le.PutUint64(d[3][q:], w3)
			}
		}
	}
}

// tile32 transposes a 32x32 tile of 4-byte cells at byte offset base: 256 blocks of 2x2 uint32
// inside pairs of uint64 words.
func tile32(dst, src *[32][]byte, base int) {
	var dp [32]*[128]byte
	for i := range dp {
		dp[i] = (*[128]byte)(dst[i][base:])
	}
	le := binary.LittleEndian
	for bj := 0; bj < 32; bj += 2 {
		s0, s1 := (*[128]byte)(src[bj][base:]), (*[128]byte)(src[bj+1][base:])
		q := 4 * bj
		if q > 120 {
			break
		}
		for o := 0; o <= 120; o += 8 {
			w0 := le.Uint64(s0[o:])
			w1 := le.Uint64(s1[o:])
			t := (w0>>32 ^ w1) & 0xFFFFFFFF
			w1 ^= t
			w0 ^= t << 32
			d := dp[o/4 : o/4+2 : o/4+2]
			le.PutUint64(d[0][q:], w0)
			le.PutUint64(d[1][q:], w1)
		}
	}
}
