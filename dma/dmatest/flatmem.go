// Package dmatest provides a small, self-contained device memory for tests, fuzzing and
// benchmarks of the dma and dge packages: HBM as sparse pages plus explicitly mapped contiguous
// arenas, SBUF and PSUM as one contiguous slab each with the generation's active areas
// (FACTS §B.5) enforced. It implements dma.Memory, dma.Slicer and dma.RangeChecker.
//
// It is a test double, not the machine's memory model (package mem).
package dmatest

import (
	"fmt"
	"sort"
	"sync"

	"github.com/tpbsim/tpbsim/isa"
)

const pageSize = 1 << 20

// Memory is a flat test memory. The zero value is not usable; call New.
type Memory struct {
	geo isa.Geometry
	bad error // an invalid generation: every access fails with it
	// track: record the ranges Slice hands out (NewReusable), so Reset can zero them.
	track    bool
	dmu      sync.Mutex
	dirty    []span
	allDirty bool // more ranges than maxDirty: Reset zeroes everything
	mu       sync.Mutex
	pages    map[uint64][]byte // HBM pages by page number
	arenas   []arena           // HBM arenas sorted by base
	sbuf     []byte
	psum     []byte
}

type span struct {
	addr uint64
	n    int
}

// maxDirty bounds the ranges a reusable memory records between two Resets.
const maxDirty = 1 << 14

type arena struct {
	base uint64
	b    []byte
}

// New returns an empty memory for generation g. SBUF and PSUM are allocated on first touch. The
// memory of an invalid generation refuses every access (its geometry would be a guess).
func New(g isa.Generation) *Memory {
	m := &Memory{geo: g.Geometry(), pages: map[uint64][]byte{}}
	if !g.Valid() {
		m.bad = fmt.Errorf("dmatest: generation %v has no memory geometry", g)
	}
	return m
}

// Map reserves a contiguous HBM arena [addr, addr+n) so Slice can return it whole (benchmarks).
// The arena must not overlap pages already touched.
func (m *Memory) Map(addr uint64, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.arenas = append(m.arenas, arena{addr, make([]byte, n)})
	sort.Slice(m.arenas, func(i, j int) bool { return m.arenas[i].base < m.arenas[j].base })
}

func (m *Memory) localSlab(a uint32, create bool) ([]byte, uint32, bool) {
	if a < m.geo.StateBufOffset+m.geo.StateBufSize {
		if m.sbuf == nil && create {
			m.mu.Lock()
			if m.sbuf == nil {
				m.sbuf = make([]byte, m.geo.StateBufSize)
			}
			m.mu.Unlock()
		}
		return m.sbuf, m.geo.StateBufOffset, true
	}
	if m.geo.PSUMSize > 0 && a >= m.geo.PSUMOffset && a < m.geo.PSUMOffset+m.geo.PSUMSize {
		if m.psum == nil && create {
			m.mu.Lock()
			if m.psum == nil {
				m.psum = make([]byte, m.geo.PSUMSize)
			}
			m.mu.Unlock()
		}
		return m.psum, m.geo.PSUMOffset, true
	}
	return nil, 0, false
}

// CheckRange implements dma.RangeChecker: HBM below isa.DMALocalBase is always present; on-chip
// bytes must lie in an active partition area.
func (m *Memory) CheckRange(addr uint64, n uint64, write bool) error {
	if m.bad != nil {
		return m.bad
	}
	if n == 0 {
		return nil
	}
	end := addr + n
	if end < addr {
		return fmt.Errorf("range 0x%x+%d wraps", addr, n)
	}
	if addr < isa.DMALocalBase {
		if end > isa.DMALocalBase {
			return fmt.Errorf("HBM range [0x%x, 0x%x) passes the on-chip window", addr, end)
		}
		return nil
	}
	lo := addr - isa.DMALocalBase
	hi := lo + n
	if hi > isa.TPBPartitionAddrMask+1 {
		return fmt.Errorf("on-chip range [0x%x, 0x%x) passes the 29-bit window", lo, hi)
	}
	for lo < hi {
		a := uint32(lo)
		var base, stride, active, size uint32
		switch {
		case a < m.geo.StateBufOffset+m.geo.StateBufSize:
			base, stride, active, size = m.geo.StateBufOffset, m.geo.StateBufPartitionSize, m.geo.StateBufPartitionActive, m.geo.StateBufSize
		case m.geo.PSUMSize > 0 && a >= m.geo.PSUMOffset && a < m.geo.PSUMOffset+m.geo.PSUMSize:
			base, stride, active, size = m.geo.PSUMOffset, m.geo.PSUMPartitionSize, m.geo.PSUMPartitionActive, m.geo.PSUMSize
		default:
			return fmt.Errorf("on-chip address 0x%x is neither SBUF nor PSUM", a)
		}
		_ = size
		off := (a - base) % stride
		if off >= active {
			return fmt.Errorf("on-chip address 0x%x is past the partition's active %d bytes (partition %d offset 0x%x)", a, active, (a-base)/stride, off)
		}
		run := uint64(active - off)
		if uint64(a)+run > hi {
			run = hi - uint64(a)
		}
		lo += run
	}
	return nil
}

// NewReusable is New for a memory used again and again (a fuzz target's iterations): it records
// the ranges it writes or hands out (Slice), and Reset zeroes them, so each use starts from zeros without
// allocating SBUF, PSUM or HBM pages again.
func NewReusable(g isa.Generation) *Memory {
	m := New(g)
	m.track = true
	return m
}

// Reset zeroes every byte a reusable memory wrote or handed out since the last Reset (all of it,
// when there were more ranges than it records). A memory made by New keeps its bytes.
func (m *Memory) Reset() {
	m.dmu.Lock()
	defer m.dmu.Unlock()
	if !m.track {
		return
	}
	if m.allDirty {
		m.mu.Lock()
		clear(m.sbuf)
		clear(m.psum)
		for _, ar := range m.arenas {
			clear(ar.b)
		}
		clear(m.pages)
		m.mu.Unlock()
	} else {
		for _, d := range m.dirty {
			b, _ := m.slice(d.addr, d.n)
			clear(b)
		}
	}
	m.dirty, m.allDirty = m.dirty[:0], false
}

// Slice implements dma.Slicer: on-chip ranges within one slab, HBM ranges within one arena or one
// page. A reusable memory counts every range it hands out as written.
func (m *Memory) Slice(addr uint64, n int) ([]byte, bool) {
	b, ok := m.slice(addr, n)
	if ok {
		m.touched(addr, n)
	}
	return b, ok
}

// touched records [addr, addr+n) for Reset (reusable memories only).
func (m *Memory) touched(addr uint64, n int) {
	if !m.track || n <= 0 {
		return
	}
	m.dmu.Lock()
	if len(m.dirty) < maxDirty {
		m.dirty = append(m.dirty, span{addr, n})
	} else {
		m.allDirty = true
	}
	m.dmu.Unlock()
}

// Unsliced is a memory without the Slicer fast path: the executor moves bytes with ReadAt and
// WriteAt (and still checks ranges with CheckRange), so a reusable memory records exactly the
// bytes written and Reset zeroes only those.
type Unsliced struct{ M *Memory }

func (u Unsliced) ReadAt(addr uint64, b []byte) error  { return u.M.ReadAt(addr, b) }
func (u Unsliced) WriteAt(addr uint64, b []byte) error { return u.M.WriteAt(addr, b) }
func (u Unsliced) CheckRange(addr uint64, n uint64, write bool) error {
	return u.M.CheckRange(addr, n, write)
}

func (m *Memory) slice(addr uint64, n int) ([]byte, bool) {
	if n < 0 || m.bad != nil {
		return nil, false
	}
	end := addr + uint64(n)
	if addr < isa.DMALocalBase {
		if end > isa.DMALocalBase || end < addr {
			return nil, false
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, ar := range m.arenas {
			if addr >= ar.base && end <= ar.base+uint64(len(ar.b)) {
				return ar.b[addr-ar.base : end-ar.base], true
			}
		}
		pn := addr / pageSize
		if (end-1)/pageSize != pn && n > 0 {
			return nil, false
		}
		p := m.page(pn)
		off := addr % pageSize
		return p[off : off+uint64(n)], true
	}
	lo := addr - isa.DMALocalBase
	if lo > isa.TPBPartitionAddrMask {
		return nil, false
	}
	slab, base, ok := m.localSlab(uint32(lo), true)
	if !ok || slab == nil {
		return nil, false
	}
	o := uint64(uint32(lo) - base)
	if o+uint64(n) > uint64(len(slab)) {
		return nil, false
	}
	return slab[o : o+uint64(n)], true
}

// page returns HBM page pn, allocating it (caller holds mu).
func (m *Memory) page(pn uint64) []byte {
	p := m.pages[pn]
	if p == nil {
		p = make([]byte, pageSize)
		m.pages[pn] = p
	}
	return p
}

func (m *Memory) access(addr uint64, p []byte, write bool) error {
	if err := m.CheckRange(addr, uint64(len(p)), write); err != nil {
		return err
	}
	for done := 0; done < len(p); {
		a := addr + uint64(done)
		n := len(p) - done
		var s []byte
		if a < isa.DMALocalBase {
			if b, ok := m.slice(a, n); ok {
				s = b
			} else {
				rest := int(pageSize - a%pageSize)
				if rest < n {
					n = rest
				}
				s, _ = m.slice(a, n)
			}
		} else {
			// One slab at a time: a range CheckRange accepted may run from the last SBUF
			// partition into PSUM where the two regions abut (active = stride).
			if slab, base, ok := m.localSlab(uint32(a-isa.DMALocalBase), true); ok {
				if rest := int(uint64(base) + uint64(len(slab)) - (a - isa.DMALocalBase)); rest > 0 && rest < n {
					n = rest
				}
			}
			s, _ = m.slice(a, n)
		}
		if s == nil {
			return fmt.Errorf("address 0x%x not mapped", a)
		}
		if write {
			copy(s, p[done:done+n])
			m.touched(a, n)
		} else {
			copy(p[done:done+n], s)
		}
		done += n
	}
	return nil
}

// ReadAt implements dma.Memory.
func (m *Memory) ReadAt(addr uint64, p []byte) error { return m.access(addr, p, false) }

// WriteAt implements dma.Memory.
func (m *Memory) WriteAt(addr uint64, p []byte) error { return m.access(addr, p, true) }

// Plain hides the fast-path interfaces, so tests can drive the ReadAt/WriteAt paths.
type Plain struct{ M *Memory }

func (p Plain) ReadAt(addr uint64, b []byte) error  { return p.M.ReadAt(addr, b) }
func (p Plain) WriteAt(addr uint64, b []byte) error { return p.M.WriteAt(addr, b) }
