package dve

import (
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
		return o.refuse(isa.RuleHasMultiple32Channels, "num_active_channels", "%d channels", o.nac)
	}
	if o.src.Elements()%32 != 0 {
		return o.refuse(isa.RuleHasTransposeSrcElementCountT4D, "src_mem_pattern.num_elem", "src walks %d elements", o.src.Elements())
	}
	if o.esIn != o.esOut || (o.esIn != 1 && o.esIn != 2 && o.esIn != 4) {
		return o.refuse(isa.RuleS4D4TRSameSrcDstType, "out_dtype", "transpose cells of in %v, out %v", in.InDtype, in.OutDtype)
	}
	return nil
}

func (d *DVE) streamTranspose(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := checkTranspose(o, in); err != nil {
		return err
	}
	E, D := o.src.Elements(), o.dst.Elements()
	if D > E {
		return o.refuse(isa.RuleS4D4TRTransposeSrcDstCount, "dst_mem_pattern.num_elem", "dst walks %d elements, src %d", D, E)
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
	rows := rowsPool.Get().(*rowSets)
	defer rows.put()
	srcRows, dstRows := rows.src[:groups], rows.dst[:groups]
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

// rowSets holds the row slices of one StreamTranspose (at most 128 channels: four groups),
// pooled: allocated per instruction they were half the time of a [128 x 32] transpose.
type rowSets struct{ src, dst [4][32][]byte }

var rowsPool = sync.Pool{New: func() any { return new(rowSets) }}

// put clears the slices (so that the pool keeps no buffer alive) and returns r to the pool.
func (r *rowSets) put() {
	*r = rowSets{}
	rowsPool.Put(r)
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
		sbuf, err := d.gatherAll(m, o)
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

// Work split of a parallel transpose. A call is cut into about
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
	nt := groups*32*D*es >= ntMin
	if procs <= 1 {
		for g := 0; g < groups; g++ {
			kernel(&dst[g], &src[g], es, 0, tiles, D, nt)
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
			kernel(&dst[g], &src[g], es, lo, hi, D, nt)
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
