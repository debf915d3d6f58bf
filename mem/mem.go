// Package mem models the memories a NeuronCore instruction can touch (DESIGN.md §1, FACTS §B.5):
// SBUF and PSUM, 128 partitions each with a per-generation stride and active size, and a sparse
// 64-bit HBM whose pages are allocated on first touch under a cap. It resolves ADDR4 start
// addresses to (region, partition, offset), walks TENSOR4D access patterns over
// num_active_channels partitions (checking the whole footprint before anything is written), and
// gives the DMA engines byte access by 64-bit device address (isa.DMALocalBase map): ReadAt and
// WriteAt, CheckRange (their checks without moving data, dma.RangeChecker) and Slice (backing
// bytes of one partition or one run of HBM pages allocated together, dma.Slicer).
//
// Optional uninitialised-read tracking (Options.TrackUninit) keeps one bit per byte: a read of
// bytes never written is reported with its address, the way users of the official simulator rely
// on sentinel fills (shared/spec/NKI.md).
//
// Reset returns a memory to the state New left it in, clearing only the SBUF and PSUM chunks a
// write may have reached: every write path records its partition bytes (a bit per chunk, set
// once per call), and writers through Partition report theirs (MarkInit, MarkWritten).
//
// Concurrency: SBUF and PSUM are allocated whole when the Memory is built, so accesses to
// disjoint bytes may run concurrently; the HBM page table is guarded by a mutex.
package mem

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Region is one of the address spaces of the model.
type Region uint8

const (
	RegionNone Region = iota
	SBUF              // state buffer, at STATE_BUF_OFFSET (0)
	PSUM              // partial-sum buffer, at PSUM_BUF_OFFSET (0x2000000)
	HBM               // device DRAM, DMA addresses [0, isa.DMALocalBase)
)

func (r Region) String() string {
	switch r {
	case SBUF:
		return "sbuf"
	case PSUM:
		return "psum"
	case HBM:
		return "hbm"
	}
	return fmt.Sprintf("Region(%d)", uint8(r))
}

// Options configures a Memory. The zero value is usable.
type Options struct {
	// HBMCapBytes caps the HBM bytes allocated (in whole pages). 0 means DefaultHBMCapBytes.
	// A crafted program can address all of a 47-bit HBM; the cap keeps the host alive.
	HBMCapBytes uint64
	// TrackUninit keeps one bit per byte of SBUF, PSUM and allocated HBM pages; reads of bytes
	// never written fail with fault.ErrUninit and the first such address.
	TrackUninit bool
	// HugePages asks the host for 2 MiB pages behind SBUF and PSUM (Linux transparent huge
	// pages in "madvise" mode; a no-op elsewhere). Large transposes and DMA walks touch 32-128
	// partition rows at once, 224 KiB or more apart, and with 4 KiB pages each step of each row
	// is a TLB miss (BENCHMARKS.md has the figures). Off by default: a program that touches a
	// few bytes here and there then holds whole 2 MiB pages (up to all of SBUF resident
	// instead of a few 4 KiB pages), and on a host with fragmented memory a huge page fault may
	// wait for the kernel to compact memory. `tpbsim run` turns it on (one memory per process).
	HugePages bool
}

// DefaultHBMCapBytes is the HBM allocation cap when Options.HBMCapBytes is 0 (INVENTED, see
// Provenance mem.hbm_cap).
const DefaultHBMCapBytes = 4 << 30

// HBMPageSize is the HBM allocation granule.
const HBMPageSize = 64 << 10

// ErrPSUMWrite and ErrHBMCap are the two refusals of the memory that are rules of their own
// beside their category: a PSUM write not made of whole 4-byte elements breaks a rule of the
// hardware (it matches fault.ErrInvalid), and an HBM write past Options.HBMCapBytes needs more
// than the model's cap holds (fault.ErrCapacity). Match either with errors.Is.
var (
	ErrPSUMWrite error = &ruleKind{msg: "PSUM write must be 4-byte elements", rule: RulePSUMWrite4Byte, kind: fault.ErrInvalid}
	ErrHBMCap    error = &ruleKind{msg: "HBM allocation cap exceeded", rule: RuleHBMCap, kind: fault.ErrCapacity}
)

// ruleKind is a named refusal that unwraps to its category.
type ruleKind struct {
	msg, rule string
	kind      error
}

func (e *ruleKind) Error() string  { return e.msg }
func (e *ruleKind) Unwrap() error  { return e.kind }
func (e *ruleKind) RuleID() string { return e.rule }

// Error is the detailed error of every failing access: the rule broken, the field that carried
// the access (set by the caller, e.g. "dst_mem_pattern"), the first offending address, and the
// category in Err (a fault sentinel, or ErrPSUMWrite / ErrHBMCap, which unwrap to theirs).
type Error struct {
	Rule   string // e.g. "pattern_in_active_area", "psum_write_4byte_dtype", "hbm_cap"
	Field  string // e.g. "src_mem_pattern"; empty for raw byte access
	Addr   uint64 // first offending address: on-chip byte address, or DMA address for ReadAt/WriteAt
	Detail string
	Err    error
}

func (e *Error) Error() string {
	s := "mem: " + e.Rule
	if e.Field != "" {
		s += ": " + e.Field
	}
	s += fmt.Sprintf(": %s at 0x%x", e.Err, e.Addr)
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

func errf(sentinel error, rule string, addr uint64, format string, args ...any) *Error {
	return &Error{Rule: rule, Addr: addr, Detail: fmt.Sprintf(format, args...), Err: sentinel}
}

// lazyError is an *Error of a hot refusal whose Detail is formatted on demand: ResolveAddr's
// and CheckInit's, which the DMA engines' pre-flight check meets again and again while it
// narrows a refused range to its first refused byte, keeping only the first error, and which
// callers such as Slice only test. It is the *Error it stands for in every way a caller sees:
// Error, Unwrap, RuleID, ErrPath and OutOfBounds are that *Error's, and errors.As(err, &e) with
// e an *Error gives it. It holds no state beyond its values (each call builds the *Error
// anew), so two refusals of the same access are deeply equal however often either was
// printed; a caller that sets a field of the *Error it got keeps that *Error (dve's errors do).
type lazyError struct {
	kind  lazyKind
	addr  uint64 // Error.Addr (localPieces and localInit move it to a device address first)
	loc   Loc    // the location refused (lazyActive) or never written (lazyUninit)
	limit uint32 // lazyActive: the active size
	gen   isa.Generation
}

type lazyKind uint8

const (
	lazyActive lazyKind = iota // ResolveAddr: an offset past the partition's active size
	lazyRegion                 // ResolveAddr: in neither SBUF nor PSUM
	lazyUninit                 // CheckInit: a byte never written
)

var lazyRules = [...]struct {
	rule string
	err  error
}{lazyActive: {RuleAddrInActiveArea, fault.ErrBounds}, lazyRegion: {RuleAddrInSBUFOrPSUM, fault.ErrBounds}, lazyUninit: {RuleReadInitialised, fault.ErrUninit}}

// full is the *Error e stands for.
func (e *lazyError) full() *Error {
	var d string
	switch l := e.loc; e.kind {
	case lazyActive:
		d = fmt.Sprintf("%s partition %d offset 0x%x is past the active size 0x%x", l.Region, l.Partition, l.Offset, e.limit)
	case lazyRegion:
		d = fmt.Sprintf("address is in neither SBUF nor PSUM on %v", e.gen)
	case lazyUninit:
		d = fmt.Sprintf("%v was never written", l)
	}
	r := lazyRules[e.kind]
	return &Error{Rule: r.rule, Addr: e.addr, Detail: d, Err: r.err}
}

func (e *lazyError) Error() string     { return e.full().Error() }
func (e *lazyError) Unwrap() error     { return lazyRules[e.kind].err }
func (e *lazyError) RuleID() string    { return lazyRules[e.kind].rule }
func (e *lazyError) ErrPath() string   { return "" }
func (e *lazyError) OutOfBounds() bool { return lazyRules[e.kind].err == fault.ErrBounds }

// As gives errors.As the *Error e stands for.
func (e *lazyError) As(target any) bool {
	if t, ok := target.(**Error); ok {
		*t = e.full()
		return true
	}
	return false
}

// atDevice moves the address of err, an error of ResolveAddr or CheckInit, by base (to a
// device address: localPieces, localInit).
func atDevice(err error, base uint64) error {
	switch e := err.(type) {
	case *lazyError:
		e.addr += base
	case *Error:
		e.Addr += base
	}
	return err
}

// Loc is a resolved on-chip location.
type Loc struct {
	Region    Region
	Partition int
	Offset    uint32 // byte offset inside the partition
}

func (l Loc) String() string { return fmt.Sprintf("%s:%d:0x%x", l.Region, l.Partition, l.Offset) }

// bank is one partitioned region (SBUF or PSUM).
type bank struct {
	region Region
	base   uint32 // region base address
	size   uint32 // region size (STATE_BUF_SZ / PSUM_BUF_SZ)
	stride uint32 // partition stride
	active uint32 // usable bytes per partition
	n      int    // partitions
	host   int    // host bytes per partition in data: active + hostSkew
	data   []byte // n * host bytes, partition-major
	init   []uint64
	// dirty holds words dirtyWords a partition: bit i of partition p's words is set when bytes
	// [i<<dirtyShift, (i+1)<<dirtyShift) of p may have been written since New or the last
	// Reset, the chunks Reset clears; bit p of touched is set when any of p's bits is. Both are
	// set with atomic OR (writers of disjoint bytes of one partition may run concurrently),
	// once per write call, never per element. Bit w of partition p's sumWords words of sum is
	// set when its dirty word w may be nonzero, so that finding the dirty chunks of a partition
	// reads the words that have some, not all of them (12 a partition of SBUF).
	dirty      []uint64
	dirtyWords int
	sum        []uint64
	sumWords   int
	touched    []uint64
}

// dirtyShift sizes the dirty chunks: 256 bytes, so a write of a few hundred bytes into each of
// 128 partitions costs Reset tens of KiB to clear, not a 4 KiB chunk of each.
const dirtyShift = 8

// markDirty records bytes [off, off+n) of partition p as possibly written (0 <= off,
// off+n <= active, checked by the caller). A plain load first keeps a repeated mark of the
// same chunks free of a locked instruction.
func (b *bank) markDirty(p, off, n int) {
	if n <= 0 {
		return
	}
	lo, hi := uint(off)>>dirtyShift, uint(off+n-1)>>dirtyShift
	ws := b.dirty[p*b.dirtyWords : (p+1)*b.dirtyWords]
	for w := lo >> 6; w <= hi>>6; w++ {
		a, z := max(lo, w<<6)&63, min(hi, w<<6+63)&63
		mask := (^uint64(0) >> (63 - (z - a))) << a
		if d := &ws[w]; atomic.LoadUint64(d)&mask != mask {
			atomic.OrUint64(d, mask)
			if s, bit := &b.sum[p*b.sumWords+int(w>>6)], uint64(1)<<(w&63); atomic.LoadUint64(s)&bit == 0 {
				atomic.OrUint64(s, bit)
			}
		}
	}
	if t, bit := &b.touched[p>>6], uint64(1)<<(p&63); atomic.LoadUint64(t)&bit == 0 {
		atomic.OrUint64(t, bit)
	}
}

// chunks calls fn with each maximal run [lo, hi) of consecutive dirty chunks of partition p,
// in bytes clipped to the active area.
func (b *bank) chunks(p int, fn func(lo, hi int)) {
	runLo, runHi := -1, -1
	ws := b.dirty[p*b.dirtyWords : (p+1)*b.dirtyWords]
	for sw, sv := range b.sum[p*b.sumWords : (p+1)*b.sumWords] {
		for sv != 0 {
			w := sw<<6 + bits.TrailingZeros64(sv)
			sv &= sv - 1
			d, base := ws[w], w<<6
			for d != 0 {
				lo := bits.TrailingZeros64(d)
				hi := lo + bits.TrailingZeros64(^(d >> uint(lo)))
				d &^= (uint64(1)<<uint(hi-lo) - 1) << uint(lo)
				if base+lo == runHi {
					runHi = base + hi
					continue
				}
				if runLo >= 0 {
					fn(runLo<<dirtyShift, min(runHi<<dirtyShift, int(b.active)))
				}
				runLo, runHi = base+lo, base+hi
			}
		}
	}
	if runLo >= 0 {
		fn(runLo<<dirtyShift, min(runHi<<dirtyShift, int(b.active)))
	}
}

// eachTouched calls fn with every partition that has a dirty chunk, in order.
func (b *bank) eachTouched(fn func(p int)) {
	for w, t := range b.touched {
		for t != 0 {
			i := bits.TrailingZeros64(t)
			t &^= 1 << uint(i)
			fn(w<<6 + i)
		}
	}
}

// reset zeroes the dirty chunks of every partition and their never-written bits.
func (b *bank) reset() {
	b.eachTouched(func(p int) {
		b.chunks(p, func(lo, hi int) {
			clear(b.data[p*b.host+lo : p*b.host+hi])
			if b.init != nil {
				base := p * int(b.active)
				clearBits(b.init, base+lo, base+hi)
			}
		})
		clear(b.dirty[p*b.dirtyWords : (p+1)*b.dirtyWords])
		clear(b.sum[p*b.sumWords : (p+1)*b.sumWords])
	})
	clear(b.touched)
}

// hostSkew pads each partition's host storage by five cache lines so that the same offset in
// consecutive partitions falls in different cache sets: the stride between partitions is
// otherwise a multiple of 4 KiB (224 KiB, 256 KiB, ...), and a transpose touching 32
// partitions at once would thrash one set of every cache level.
const hostSkew = 5 * 64

func (b *bank) part(p int) []byte {
	a := int(b.active)
	return b.data[p*b.host : p*b.host+a : p*b.host+a]
}

// Memory is the memory of one NeuronCore of one generation. Build it with New.
type Memory struct {
	gen  isa.Generation
	geo  isa.Geometry
	opts Options
	sbuf bank
	psum bank

	mu       sync.Mutex
	hbm      map[uint64]*hbmPage
	hbmBytes uint64
	runs     []*hbmRun // the runs allocated since New or the last Reset
	// free holds the runs of earlier Resets for reuse (see Reset), at most hbmKeepBytes of
	// buffers; spare is the other half of its double buffer.
	free, spare []*hbmRun
}

// hbmPage is one allocated HBM page. Pages allocated by one access form a run: their data are
// consecutive pieces of one buffer, so Slice can hand out a range that crosses pages of a run.
type hbmPage struct {
	data []byte   // HBMPageSize bytes of run.buf
	init []uint64 // nil unless TrackUninit
	run  *hbmRun
}

// hbmRun is a set of consecutive HBM pages allocated together, backed by one buffer. A run
// outlives the Reset that frees its pages: Reset keeps it (buffer, bits and page records) for a
// later run of half as many pages to as many, which clears first the bytes [lo, hi) reached.
type hbmRun struct {
	first uint64    // page number of buf[0]
	buf   []byte    // the run's pages, a prefix of mem
	mem   []byte    // the buffer behind buf; a reused run's may hold more pages than buf
	init  []uint64  // mem's never-written bits (TrackUninit), else nil
	pages []hbmPage // the page records, len(mem) / HBMPageSize of them
	// lo, hi bound the bytes of mem that a write or a slice handed out may have reached since
	// the run was allocated: every byte of mem outside [lo, hi) is zero and never written.
	lo, hi int
}

// touch records bytes [lo, hi) of the run as possibly written (caller holds mu).
func (r *hbmRun) touch(lo, hi int) {
	if r.lo == r.hi {
		r.lo, r.hi = lo, hi
		return
	}
	r.lo, r.hi = min(r.lo, lo), max(r.hi, hi)
}

// hbmKeepBytes bounds the HBM buffers Reset keeps for reuse (64 MiB, 1,024 pages): a run of
// many programs on one memory allocates its inputs' and outputs' pages again and again, while a
// program that once used gigabytes leaves no more than this held after its Reset.
const hbmKeepBytes = 64 << 20

// hbmMapKeep is the largest page table Reset clears for reuse rather than dropping: clearing a
// map costs its capacity, which a program of many pages leaves large.
const hbmMapKeep = 4096

// New builds the memory of generation g. SBUF and PSUM are allocated whole (active bytes only);
// HBM pages are allocated on first write.
func New(g isa.Generation, opts Options) (*Memory, error) {
	if err := g.Check(); err != nil { // an *isa.GenerationError (fault.ErrInvalid), never a default
		return nil, fmt.Errorf("mem: %w", err)
	}
	if opts.HBMCapBytes == 0 {
		opts.HBMCapBytes = DefaultHBMCapBytes
	}
	geo := g.Geometry()
	m := &Memory{gen: g, geo: geo, opts: opts, hbm: map[uint64]*hbmPage{}}
	m.sbuf = bank{region: SBUF, base: geo.StateBufOffset, size: geo.StateBufSize, stride: geo.StateBufPartitionSize,
		active: geo.StateBufPartitionActive, n: geo.StateBufNumPartitions}
	m.psum = bank{region: PSUM, base: geo.PSUMOffset, size: geo.PSUMSize, stride: geo.PSUMPartitionSize,
		active: geo.PSUMPartitionActive, n: geo.PSUMNumPartitions}
	if m.psum.size == 0 { // MAVERICK: PSUM_BUF_SZ = 0, no PSUM at all
		m.psum.n, m.psum.active = 0, 0
	}
	for _, b := range []*bank{&m.sbuf, &m.psum} {
		total := b.n * int(b.active)
		b.host = int(b.active) + hostSkew
		b.data = hostAlloc(b.n*b.host, opts.HugePages)
		if opts.TrackUninit {
			b.init = make([]uint64, (total+63)/64)
		}
		b.dirtyWords = ((int(b.active)+1<<dirtyShift-1)>>dirtyShift + 63) / 64
		b.dirty = make([]uint64, b.n*b.dirtyWords)
		b.sumWords = (b.dirtyWords + 63) / 64
		b.sum = make([]uint64, b.n*b.sumWords)
		b.touched = make([]uint64, (b.n+63)/64)
	}
	return m, nil
}

// Reset returns the memory to the state New left it in: SBUF and PSUM zero and never written,
// no HBM page allocated (the HBM count back to 0). It clears only the chunks of partitions that
// a write may have reached since New or the last Reset (see Partition for writes it cannot
// see), so a run that touched little costs little to undo. The buffers of the HBM pages it
// frees are kept (up to 64 MiB, the most recent first) and reused by later allocations, which
// clear the bytes written since: a reused page reads as a new one, zero and never written, and
// counts against Options.HBMCapBytes as a new one. A slice Slice handed out must not be used
// after a Reset (its bytes may belong to another page by then). Not safe concurrently with any
// other use of the memory.
func (m *Memory) Reset() {
	m.sbuf.reset()
	m.psum.reset()
	m.mu.Lock()
	if len(m.hbm) <= hbmMapKeep {
		clear(m.hbm)
	} else {
		m.hbm = map[uint64]*hbmPage{}
	}
	m.hbmBytes = 0
	m.recycle()
	m.mu.Unlock()
}

// recycle moves the runs allocated since the last Reset to the free list, ahead of the ones
// it held, keeping hbmKeepBytes of buffers at most (caller holds mu).
func (m *Memory) recycle() {
	next, kept := m.spare[:0], 0
	for _, list := range [2][]*hbmRun{m.runs, m.free} {
		for _, r := range list {
			if kept+len(r.mem) <= hbmKeepBytes {
				kept += len(r.mem)
				next = append(next, r)
			}
		}
	}
	clear(m.runs)
	clear(m.free) // the runs dropped go to the collector
	m.runs, m.spare, m.free = m.runs[:0], m.free[:0], next
}

// Written calls fn for each run of SBUF and PSUM bytes that may have been written since New or
// the last Reset, region by region, partition by partition, in address order: whole chunks,
// a superset of the bytes that the memory's write paths, MarkInit and MarkWritten reached.
// Every byte outside these runs is zero and never written. b is the memory itself, to read only
// (say, to check that a failing access left it zero).
func (m *Memory) Written(fn func(r Region, p, off int, b []byte)) {
	for _, b := range []*bank{&m.sbuf, &m.psum} {
		b.eachTouched(func(p int) {
			b.chunks(p, func(lo, hi int) { fn(b.region, p, lo, b.part(p)[lo:hi]) })
		})
	}
}

// MarkWritten records the bytes of s (clipped to the region's partitions and active area) as
// possibly written, for Reset, without marking them initialised: the call that goes with a
// write through Partition when MarkInit does not (without TrackUninit, or for bytes the
// tracking must not count as written).
func (m *Memory) MarkWritten(s Span) {
	b := m.bank(s.Region)
	if b == nil || s.Empty() {
		return
	}
	lo, hi := int(s.Lo), min(int(s.Hi), int(b.active))
	for p := max(s.FirstPartition, 0); p < min(s.FirstPartition+s.NumPartitions, b.n); p++ {
		b.markDirty(p, lo, hi-lo)
	}
}

// Diff describes the first difference between the states of m and o, or returns "" when they
// hold the same state: generation and options, SBUF and PSUM bytes and never-written bits,
// the allocated HBM pages (bytes, never-written bits, the runs they were allocated in) and the
// HBM count. For tests of Reset; it reads every byte.
func (m *Memory) Diff(o *Memory) string {
	if m.gen != o.gen || m.opts != o.opts {
		return fmt.Sprintf("configuration %v %+v, other %v %+v", m.gen, m.opts, o.gen, o.opts)
	}
	for _, r := range []Region{SBUF, PSUM} {
		a, b := m.bank(r), o.bank(r)
		for p := 0; p < a.n; p++ {
			if x, y := a.part(p), b.part(p); !bytes.Equal(x, y) {
				i := 0
				for x[i] == y[i] {
					i++
				}
				return fmt.Sprintf("%v partition %d offset 0x%x: 0x%02x, other 0x%02x", r, p, i, x[i], y[i])
			}
		}
		for i := range a.init {
			if a.init[i] != b.init[i] {
				return fmt.Sprintf("%v never-written bits differ at byte %d (partition %d)", r, i*64, i*64/int(a.active))
			}
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	if m.hbmBytes != o.hbmBytes || len(m.hbm) != len(o.hbm) {
		return fmt.Sprintf("HBM: %d bytes in %d pages allocated, other %d in %d", m.hbmBytes, len(m.hbm), o.hbmBytes, len(o.hbm))
	}
	for pn, pg := range m.hbm {
		q := o.hbm[pn]
		switch {
		case q == nil:
			return fmt.Sprintf("HBM page %d allocated, not in other", pn)
		case pg.run.first != q.run.first || len(pg.run.buf) != len(q.run.buf):
			return fmt.Sprintf("HBM page %d in the run of %d bytes from page %d, other %d from %d", pn, len(pg.run.buf), pg.run.first, len(q.run.buf), q.run.first)
		case !bytes.Equal(pg.data, q.data):
			return fmt.Sprintf("HBM page %d bytes differ", pn)
		case !slices.Equal(pg.init, q.init):
			return fmt.Sprintf("HBM page %d never-written bits differ", pn)
		}
	}
	return ""
}

// Gen is the memory's generation.
func (m *Memory) Gen() isa.Generation { return m.gen }

// Geometry is the generation's geometry (FACTS §B.5).
func (m *Memory) Geometry() isa.Geometry { return m.geo }

// Options returns the options in force (HBMCapBytes filled in).
func (m *Memory) Options() Options { return m.opts }

func (m *Memory) bank(r Region) *bank {
	switch r {
	case SBUF:
		return &m.sbuf
	case PSUM:
		return &m.psum
	}
	return nil
}

// NumPartitions is the number of partitions of an on-chip region (0 for PSUM on MAVERICK).
func (m *Memory) NumPartitions(r Region) int {
	if b := m.bank(r); b != nil {
		return b.n
	}
	return 0
}

// PartitionActive is the usable bytes per partition of r (STATE_BUF_PARTITION_ACTIVE_SIZE,
// PSUM_BUF_PARTITION_ACTIVE_SIZE).
func (m *Memory) PartitionActive(r Region) int {
	if b := m.bank(r); b != nil {
		return int(b.active)
	}
	return 0
}

// Partition returns the active bytes of partition p of r for direct access by hot paths, or nil
// when r or p is invalid. Writes through it bypass uninitialised tracking and Reset's record of
// written bytes: call MarkInit for them (bytes now initialised), or MarkWritten (only recorded
// for Reset). A write reported by neither survives a Reset.
func (m *Memory) Partition(r Region, p int) []byte {
	b := m.bank(r)
	if b == nil || p < 0 || p >= b.n {
		return nil
	}
	return b.part(p)
}

// OnChipAddr is the ADDR4-style byte address of a location: base + partition*stride + offset.
func (m *Memory) OnChipAddr(l Loc) uint32 {
	b := m.bank(l.Region)
	if b == nil {
		return 0
	}
	return b.base + uint32(l.Partition)*b.stride + l.Offset
}

// ResolveAddr resolves a 29-bit on-chip byte address to (region, partition, offset) through the
// geometry: SBUF if a < STATE_BUF_SZ, PSUM if PSUM_BUF_OFFSET <= a < PSUM_BUF_OFFSET+PSUM_BUF_SZ
// (FACTS §B.3-§B.5). The offset must lie in the partition's active area.
func (m *Memory) ResolveAddr(a uint32) (Loc, error) {
	for _, b := range []*bank{&m.sbuf, &m.psum} {
		if b.size == 0 || a < b.base || a-b.base >= b.size {
			continue
		}
		rel := a - b.base
		p, off := int(rel/b.stride), rel%b.stride
		if p >= b.n {
			break
		}
		if off >= b.active {
			return Loc{}, &lazyError{kind: lazyActive, addr: uint64(a), loc: Loc{Region: b.region, Partition: p, Offset: off}, limit: b.active}
		}
		return Loc{Region: b.region, Partition: p, Offset: off}, nil
	}
	return Loc{}, &lazyError{kind: lazyRegion, addr: uint64(a), gen: m.gen}
}

// Resolve resolves an immediate ADDR4. Register, shape-register and indirect forms are resolved
// at run time by hardware registers tpbsim does not model: they fail with fault.ErrUnsupported.
func (m *Memory) Resolve(a isa.Addr4) (Loc, error) {
	if a.IsAddrReg() || a.ShapeFromRegister() || a.IsIndirect() {
		return Loc{}, errf(fault.ErrUnsupported, RuleAddr4Immediate, uint64(a),
			"ADDR4 marker 0x%02x (register / shape-register / indirect) is not modelled", a.Marker())
	}
	return m.ResolveAddr(a.ByteAddr())
}

// Read copies len(p) bytes at l into p; the span must stay in the partition's active area.
func (m *Memory) Read(l Loc, p []byte) error {
	b, err := m.span(l, len(p))
	if err != nil {
		return err
	}
	if err := m.CheckInit(l.Region, l.Partition, int(l.Offset), len(p)); err != nil {
		return err
	}
	copy(p, b)
	return nil
}

// Write copies p to l (marking the bytes initialised); the span must stay in the active area.
// PSUM writes must be whole 4-byte words.
func (m *Memory) Write(l Loc, p []byte) error {
	b, err := m.span(l, len(p))
	if err != nil {
		return err
	}
	if l.Region == PSUM && (l.Offset%4 != 0 || len(p)%4 != 0) {
		return errf(ErrPSUMWrite, RulePSUMWrite4Byte, uint64(m.OnChipAddr(l)), "PSUM write of %d bytes at offset 0x%x", len(p), l.Offset)
	}
	copy(b, p)
	m.MarkInit(l.Region, l.Partition, int(l.Offset), len(p))
	return nil
}

func (m *Memory) span(l Loc, n int) ([]byte, error) {
	b := m.bank(l.Region)
	if b == nil || l.Partition < 0 || l.Partition >= b.n {
		return nil, errf(fault.ErrBounds, RulePartitionInRange, 0, "%v has no partition %d", l.Region, l.Partition)
	}
	if n < 0 || uint64(l.Offset)+uint64(n) > uint64(b.active) {
		return nil, errf(fault.ErrBounds, RuleAddrInActiveArea, uint64(m.OnChipAddr(l)),
			"%d bytes at offset 0x%x pass the active size 0x%x", n, l.Offset, b.active)
	}
	return b.part(l.Partition)[l.Offset : int(l.Offset)+n], nil
}

// MarkInit records bytes [off, off+n) of partition p of r (clipped to the active area) as
// written: initialised (when tracking) and to be cleared by Reset.
func (m *Memory) MarkInit(r Region, p, off, n int) {
	b := m.bank(r)
	if b == nil || n <= 0 || p < 0 || p >= b.n {
		return
	}
	// Clip to the active area, as MarkWritten does: bits past it belong to the next partition.
	lo, hi := max(off, 0), min(off+n, int(b.active))
	if hi <= lo {
		return
	}
	b.markDirty(p, lo, hi-lo)
	if b.init == nil {
		return
	}
	b.setInit(p, lo, hi-lo)
}

// setInit sets the never-written bits of bytes [off, off+n) of partition p (tracking on).
func (b *bank) setInit(p, off, n int) {
	base := p * int(b.active)
	setBits(b.init, base+off, base+off+n)
}

// CheckInit reports fault.ErrUninit with the first never-written address among bytes [off, off+n) of
// partition p of r. Always nil unless tracking.
func (m *Memory) CheckInit(r Region, p, off, n int) error {
	b := m.bank(r)
	if b == nil || b.init == nil || n <= 0 {
		return nil
	}
	base := p * int(b.active)
	if i := firstClear(b.init, base+off, base+off+n); i >= 0 {
		l := Loc{Region: r, Partition: p, Offset: uint32(i - base)}
		return &lazyError{kind: lazyUninit, addr: uint64(m.OnChipAddr(l)), loc: l}
	}
	return nil
}

// setBits sets bits [lo, hi). Writers of disjoint bytes may run concurrently (the DMA engines'
// workers) and 64 bytes share a word of bits, so words are updated atomically: a plain
// read-modify-write would lose another writer's bits (a false fault.ErrUninit later).
func setBits(bm []uint64, lo, hi int) {
	for lo < hi {
		w, end := lo>>6, (lo|63)+1
		mask := ^uint64(0) << uint(lo&63)
		if hi < end {
			mask &= ^uint64(0) >> uint(end-hi)
		}
		switch {
		case mask == ^uint64(0): // the caller owns all 64 bytes of this word
			atomic.StoreUint64(&bm[w], mask)
		case atomic.LoadUint64(&bm[w])&mask != mask:
			atomic.OrUint64(&bm[w], mask)
		}
		lo = end
	}
}

// clearBits clears bits [lo, hi).
func clearBits(bm []uint64, lo, hi int) {
	for lo < hi && lo&63 != 0 {
		bm[lo>>6] &^= 1 << uint(lo&63)
		lo++
	}
	if lo+64 <= hi {
		clear(bm[lo>>6 : hi>>6])
		lo = hi &^ 63
	}
	for ; lo < hi; lo++ {
		bm[lo>>6] &^= 1 << uint(lo&63)
	}
}

// firstClear returns the first clear bit in [lo, hi), or -1. Words are loaded atomically (see
// setBits: a reader may share a word with a writer of other bytes).
func firstClear(bm []uint64, lo, hi int) int {
	for lo < hi {
		w, end := lo>>6, (lo|63)+1
		mask := ^uint64(0) << uint(lo&63)
		if hi < end {
			mask &= ^uint64(0) >> uint(end-hi)
		}
		if c := ^atomic.LoadUint64(&bm[w]) & mask; c != 0 {
			return w<<6 + bits.TrailingZeros64(c)
		}
		lo = end
	}
	return -1
}
