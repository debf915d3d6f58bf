package dve

import (
	"encoding/binary"
	"runtime"
	"sync"

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
	if d.Transpose == TransposeButterfly {
		sbuf, err := gatherAll(m, o)
		if err != nil {
			return err
		}
		obuf := make([]byte, o.nac*E*es)
		butterflyTranspose(obuf, sbuf, o.nac, E, es)
		for c := 0; c < o.nac; c++ {
			m.ScatterN(o.dst, c, obuf[c*E*es:(c+1)*E*es], D)
		}
		return nil
	}

	groups := o.nac / 32
	srcRows := make([][32][]byte, groups)
	dstRows := make([][32][]byte, groups)
	directSrc := o.src.Contiguous() && !track && !o.src.Span().Overlaps(o.dst.Span())
	directDst := o.dst.Contiguous() && !track
	procs := d.procs(o.nac * E * es)

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

// parallelThreshold is the instruction size (bytes) above which a transpose uses goroutines.
const parallelThreshold = 256 << 10

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

// transposeParallel splits (group, tile range) work items over procs goroutines.
func transposeParallel(procs int, dst, src [][32][]byte, es, tiles, D int) {
	groups := len(src)
	if procs <= 1 {
		for g := 0; g < groups; g++ {
			transposeTiles(&dst[g], &src[g], es, 0, tiles, D)
		}
		return
	}
	// Chunks of tiles per group, enough of them to balance procs workers.
	chunks := max(1, (procs*4+groups-1)/groups)
	chunks = min(chunks, tiles)
	per := (tiles + chunks - 1) / chunks
	parallel(procs, groups*chunks, func(i int) {
		g, k := i/chunks, i%chunks
		lo, hi := k*per, min(tiles, (k+1)*per)
		if lo < hi {
			transposeTiles(&dst[g], &src[g], es, lo, hi, D)
		}
	})
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

// swap exchanges the k-cell blocks of a pair of rows held in uint64 words: the cells of a at
// the high half of each 2k group trade places with the cells of b at the low half. mask
// selects the low half of each group; sh is k cells in bits.
func swap(a, b *uint64, mask uint64, sh uint) {
	t := (*a>>sh ^ *b) & mask
	*b ^= t
	*a ^= t << sh
}

// tile8 transposes a 32x32 tile of bytes at byte offset base of every row: 16 blocks of 8x8,
// each transposed inside eight uint64 words (three swap stages).
func tile8(dst, src *[32][]byte, base int) {
	for bj := 0; bj < 32; bj += 8 { // src row block -> dst column block
		for bi := 0; bi < 32; bi += 8 { // src column block -> dst row block
			o := base + bi
			w0 := binary.LittleEndian.Uint64(src[bj+0][o:])
			w1 := binary.LittleEndian.Uint64(src[bj+1][o:])
			w2 := binary.LittleEndian.Uint64(src[bj+2][o:])
			w3 := binary.LittleEndian.Uint64(src[bj+3][o:])
			w4 := binary.LittleEndian.Uint64(src[bj+4][o:])
			w5 := binary.LittleEndian.Uint64(src[bj+5][o:])
			w6 := binary.LittleEndian.Uint64(src[bj+6][o:])
			w7 := binary.LittleEndian.Uint64(src[bj+7][o:])
			const m4, m2, m1 = 0x00000000FFFFFFFF, 0x0000FFFF0000FFFF, 0x00FF00FF00FF00FF
			swap(&w0, &w4, m4, 32)
			swap(&w1, &w5, m4, 32)
			swap(&w2, &w6, m4, 32)
			swap(&w3, &w7, m4, 32)
			swap(&w0, &w2, m2, 16)
			swap(&w1, &w3, m2, 16)
			swap(&w4, &w6, m2, 16)
			swap(&w5, &w7, m2, 16)
			swap(&w0, &w1, m1, 8)
			swap(&w2, &w3, m1, 8)
			swap(&w4, &w5, m1, 8)
			swap(&w6, &w7, m1, 8)
			q := base + bj
			binary.LittleEndian.PutUint64(dst[bi+0][q:], w0)
			binary.LittleEndian.PutUint64(dst[bi+1][q:], w1)
			binary.LittleEndian.PutUint64(dst[bi+2][q:], w2)
			binary.LittleEndian.PutUint64(dst[bi+3][q:], w3)
			binary.LittleEndian.PutUint64(dst[bi+4][q:], w4)
			binary.LittleEndian.PutUint64(dst[bi+5][q:], w5)
			binary.LittleEndian.PutUint64(dst[bi+6][q:], w6)
			binary.LittleEndian.PutUint64(dst[bi+7][q:], w7)
		}
	}
}

// tile16 transposes a 32x32 tile of 2-byte cells at byte offset base: 64 blocks of 4x4 uint16,
// each inside four uint64 words (two swap stages).
func tile16(dst, src *[32][]byte, base int) {
	for bj := 0; bj < 32; bj += 4 {
		for bi := 0; bi < 32; bi += 4 {
			o := base + 2*bi
			w0 := binary.LittleEndian.Uint64(src[bj+0][o:])
			w1 := binary.LittleEndian.Uint64(src[bj+1][o:])
			w2 := binary.LittleEndian.Uint64(src[bj+2][o:])
			w3 := binary.LittleEndian.Uint64(src[bj+3][o:])
			const m2, m1 = 0x00000000FFFFFFFF, 0x0000FFFF0000FFFF
			swap(&w0, &w2, m2, 32)
			swap(&w1, &w3, m2, 32)
			swap(&w0, &w1, m1, 16)
			swap(&w2, &w3, m1, 16)
			q := base + 2*bj
			binary.LittleEndian.PutUint64(dst[bi+0][q:], w0)
			binary.LittleEndian.PutUint64(dst[bi+1][q:], w1)
			binary.LittleEndian.PutUint64(dst[bi+2][q:], w2)
			binary.LittleEndian.PutUint64(dst[bi+3][q:], w3)
		}
	}
}

// tile32 transposes a 32x32 tile of 4-byte cells at byte offset base: 256 blocks of 2x2 uint32
// inside pairs of uint64 words.
func tile32(dst, src *[32][]byte, base int) {
	for bj := 0; bj < 32; bj += 2 {
		s0, s1 := src[bj], src[bj+1]
		q := base + 4*bj
		for bi := 0; bi < 32; bi += 2 {
			o := base + 4*bi
			w0 := binary.LittleEndian.Uint64(s0[o:])
			w1 := binary.LittleEndian.Uint64(s1[o:])
			t := (w0>>32 ^ w1) & 0xFFFFFFFF
			w1 ^= t
			w0 ^= t << 32
			binary.LittleEndian.PutUint64(dst[bi][q:], w0)
			binary.LittleEndian.PutUint64(dst[bi+1][q:], w1)
		}
	}
}
