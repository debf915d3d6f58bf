package mem

import (
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// DMA-side byte access by 64-bit device address, with tpbsim's INVENTED map (isa.Addr8,
// isa.DMALocalBase): [0, DMALocalBase) is HBM; DMALocalBase + a 29-bit on-chip address is SBUF or
// PSUM. Every access is checked whole before any byte moves.
//
// The DMA engines (package dma) use four entry points: ReadAt and WriteAt move bytes;
// CheckRange answers the engines' pre-flight check (dma.RangeChecker) with exactly the checks
// ReadAt / WriteAt would make; Slice hands out backing bytes for the engines' fast path
// (dma.Slicer). ReadRaw is ReadAt without the never-written check, for dumps.

// piece is one partition's share of an on-chip device-address range.
type piece struct {
	loc Loc
	off int // offset of the piece in the range
	n   int
}

// localPieces resolves the on-chip range [addr, addr+n) (addr >= isa.DMALocalBase) into
// per-partition pieces, checking the 29-bit window, the active areas and, for a write, PSUM's
// 4-byte rule. The range may cross partitions only where one partition's active area meets the
// next (active size == stride). The pieces are appended to ps (callers pass a small array on
// their stack: one piece is the common case, and a heap slice per access was 2% of a kernel
// fuzz execution).
func (m *Memory) localPieces(ps []piece, addr, n uint64, write bool) ([]piece, error) {
	local := addr - isa.DMALocalBase
	if local > isa.TPBPartitionAddrMask || n-1 > isa.TPBPartitionAddrMask || local+n-1 > isa.TPBPartitionAddrMask {
		return nil, errf(fault.ErrBounds, RuleDMAAddrInRange, addr, "%d bytes pass the on-chip window", n)
	}
	for done := 0; done < int(n); {
		a := uint32(local) + uint32(done)
		l, err := m.ResolveAddr(a)
		if err != nil {
			return nil, atDevice(err, isa.DMALocalBase)
		}
		b := m.bank(l.Region)
		c := min(int(n)-done, int(b.active-l.Offset))
		if write && l.Region == PSUM && (l.Offset%4 != 0 || c%4 != 0) {
			return nil, errf(ErrPSUMWrite, RulePSUMWrite4Byte, isa.DMALocalBase+uint64(a),
				"PSUM write of %d bytes at partition offset 0x%x", c, l.Offset)
		}
		ps = append(ps, piece{loc: l, off: done, n: c})
		done += c
	}
	return ps, nil
}

// localInit reports fault.ErrUninit (with a device address) for the first never-written byte of the
// pieces. Always nil unless tracking.
func (m *Memory) localInit(ps []piece) error {
	for _, s := range ps {
		if err := m.CheckInit(s.loc.Region, s.loc.Partition, int(s.loc.Offset), s.n); err != nil {
			return atDevice(err, isa.DMALocalBase)
		}
	}
	return nil
}

// ReadAt copies len(p) bytes at device address addr into p. Never-written HBM reads as zero
// (or fails with fault.ErrUninit when tracking). The access must lie wholly in HBM or wholly in
// active on-chip bytes; it may cross partitions only where one partition's active area meets
// the next (active size == stride).
func (m *Memory) ReadAt(addr uint64, p []byte) error {
	return m.read(addr, p, m.opts.TrackUninit)
}

// ReadRaw is ReadAt without the never-written check: the same bounds checks, but bytes never
// written read as zero even when Options.TrackUninit is on (dumps of results next to bytes a
// program never wrote). Without tracking it is ReadAt.
func (m *Memory) ReadRaw(addr uint64, p []byte) error {
	return m.read(addr, p, false)
}

func (m *Memory) read(addr uint64, p []byte, checkInit bool) error {
	if len(p) == 0 {
		return nil
	}
	if addr < isa.DMALocalBase {
		return m.hbmRead(addr, p, checkInit)
	}
	var buf [4]piece
	ps, err := m.localPieces(buf[:0], addr, uint64(len(p)), false)
	if err != nil {
		return err
	}
	if checkInit {
		if err := m.localInit(ps); err != nil {
			return err
		}
	}
	for _, s := range ps {
		copy(p[s.off:s.off+s.n], m.bank(s.loc.Region).part(s.loc.Partition)[s.loc.Offset:])
	}
	return nil
}

// WriteAt copies p to device address addr. HBM pages are allocated on first write, under the cap
// (ErrHBMCap, nothing written). PSUM writes must be whole, 4-byte aligned words (ErrPSUMWrite).
func (m *Memory) WriteAt(addr uint64, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if addr < isa.DMALocalBase {
		return m.hbmWrite(addr, p)
	}
	var buf [4]piece
	ps, err := m.localPieces(buf[:0], addr, uint64(len(p)), true)
	if err != nil {
		return err
	}
	for _, s := range ps {
		copy(m.bank(s.loc.Region).part(s.loc.Partition)[s.loc.Offset:], p[s.off:s.off+s.n])
		m.MarkInit(s.loc.Region, s.loc.Partition, int(s.loc.Offset), s.n)
	}
	return nil
}

// CheckRange makes exactly the checks ReadAt (write false) or WriteAt (write true) would make
// on the n bytes at device address addr, and moves nothing: the HBM window or the on-chip
// window, active areas, PSUM's 4-byte write rule, and for a write to HBM the allocation cap for
// the pages the write would allocate (ErrHBMCap); for a read with Options.TrackUninit, fault.ErrUninit
// at the first never-written byte. A write is never refused because its destination was never
// written. It returns nil iff the corresponding ReadAt / WriteAt of n bytes would succeed on the
// memory as it is now, with the same sentinel and address otherwise. It implements
// dma.RangeChecker. The cap check covers this range alone: a caller checking several ranges
// that will all be written must add up their new pages itself (HBMPageAllocated).
func (m *Memory) CheckRange(addr, n uint64, write bool) error {
	if n == 0 {
		return nil
	}
	if addr < isa.DMALocalBase {
		if err := m.hbmCheck(addr, n); err != nil {
			return err
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if write {
			return m.hbmCapCheck(addr, n)
		}
		if m.opts.TrackUninit {
			return m.hbmInitCheck(addr, n)
		}
		return nil
	}
	var buf [4]piece
	ps, err := m.localPieces(buf[:0], addr, n, write)
	if err != nil || write {
		return err
	}
	return m.localInit(ps)
}

// Slice returns the backing bytes of device addresses [addr, addr+n) when they lie in one
// contiguous allocation, and false otherwise (nothing changes then). It implements dma.Slicer.
//
//   - On chip: the range must lie inside the active area of one SBUF or PSUM partition.
//   - HBM: the range must lie in the HBM window and either every page it touches is allocated
//     and belongs to one run (pages allocated together by one WriteAt or one Slice), or none is
//     allocated: then they are allocated now as one zero-filled run, but only if that fits
//     under Options.HBMCapBytes (counted as a write would be; over the cap gives false and
//     allocates nothing). A range mixing allocated and unallocated pages, or pages of several
//     runs, gives false.
//   - With Options.TrackUninit, only a range whose every byte is already initialised is
//     returned (never-written HBM is not allocated): writes through the slice then need no
//     marking and reads through it cannot see never-written bytes, so the tracking stays exact.
//
// Slice checks nothing else: PSUM's 4-byte write rule and the cap of a whole job are the
// caller's (check with CheckRange first, as the DMA engines do). Writes through the slice are
// plain stores; concurrent use follows the Memory's rules (disjoint bytes only). An on-chip
// range handed out is recorded as written for Reset (the caller may write it). n == 0 gives
// an empty slice and true for any address.
func (m *Memory) Slice(addr uint64, n int) ([]byte, bool) {
	if n <= 0 {
		return nil, n == 0
	}
	if addr < isa.DMALocalBase {
		return m.hbmSlice(addr, n)
	}
	local := addr - isa.DMALocalBase
	if local > isa.TPBPartitionAddrMask {
		return nil, false
	}
	l, err := m.ResolveAddr(uint32(local))
	if err != nil {
		return nil, false
	}
	b := m.bank(l.Region)
	if uint64(l.Offset)+uint64(n) > uint64(b.active) {
		return nil, false
	}
	if b.init != nil {
		base := l.Partition*int(b.active) + int(l.Offset)
		if firstClear(b.init, base, base+n) >= 0 {
			return nil, false
		}
	}
	b.markDirty(l.Partition, int(l.Offset), n) // the caller may write through the slice
	return b.part(l.Partition)[l.Offset : int(l.Offset)+n : int(l.Offset)+n], true
}

func (m *Memory) hbmSlice(addr uint64, n int) ([]byte, bool) {
	if m.hbmCheck(addr, uint64(n)) != nil {
		return nil, false
	}
	first, last := addr/HBMPageSize, (addr+uint64(n)-1)/HBMPageSize
	m.mu.Lock()
	defer m.mu.Unlock()
	pg := m.hbm[first]
	if pg == nil {
		if m.opts.TrackUninit {
			return nil, false
		}
		for pn := first + 1; pn <= last; pn++ {
			if m.hbm[pn] != nil {
				return nil, false
			}
		}
		if m.hbmCapCheck(addr, uint64(n)) != nil {
			return nil, false
		}
		m.allocRun(first, last)
		pg = m.hbm[first]
	} else {
		for pn := first + 1; pn <= last; pn++ {
			if q := m.hbm[pn]; q == nil || q.run != pg.run {
				return nil, false
			}
		}
		if m.opts.TrackUninit && m.hbmInitCheck(addr, uint64(n)) != nil {
			return nil, false
		}
	}
	o := addr - pg.run.first*HBMPageSize
	pg.run.touch(int(o), int(o)+n) // the caller may write through the slice
	return pg.run.buf[o : o+uint64(n) : o+uint64(n)], true
}

func (m *Memory) hbmCheck(addr, n uint64) error {
	if addr+n > isa.DMALocalBase || addr+n < addr {
		return errf(fault.ErrBounds, RuleHBMAddrInRange, addr, "%d bytes pass the HBM window 0x%x", n, isa.DMALocalBase)
	}
	return nil
}

// hbmFresh counts the unallocated pages of [first, last] (caller holds mu), walking the range or
// the page table, whichever is smaller.
func (m *Memory) hbmFresh(first, last uint64) uint64 {
	span := last - first + 1
	if span <= uint64(len(m.hbm)) {
		var fresh uint64
		for pn := first; pn <= last; pn++ {
			if m.hbm[pn] == nil {
				fresh++
			}
		}
		return fresh
	}
	fresh := span
	for pn := range m.hbm {
		if pn >= first && pn <= last {
			fresh--
		}
	}
	return fresh
}

// CapState describes the HBM cap for an error message: the pages already allocated and the
// whole pages the cap allows (a cap that is not a multiple of the page size rounds down).
func CapState(allocated, capBytes uint64) string {
	pages := capBytes / HBMPageSize
	return fmt.Sprintf("%d of the cap's %d pages already allocated (a cap of %d bytes allows %d whole pages, %d bytes)",
		allocated/HBMPageSize, pages, capBytes, pages, pages*HBMPageSize)
}

// hbmCapCheck is WriteAt's cap check for n bytes at addr (caller holds mu; bounds checked).
func (m *Memory) hbmCapCheck(addr, n uint64) error {
	first, last := addr/HBMPageSize, (addr+n-1)/HBMPageSize
	fresh := m.hbmFresh(first, last)
	if fresh > (m.opts.HBMCapBytes-min(m.hbmBytes, m.opts.HBMCapBytes))/HBMPageSize {
		return errf(ErrHBMCap, RuleHBMCap, addr, "writing %d bytes needs %d new HBM pages of %d bytes; %s",
			n, fresh, HBMPageSize, CapState(m.hbmBytes, m.opts.HBMCapBytes))
	}
	return nil
}

// hbmInitCheck is ReadAt's never-written check for n bytes at addr (caller holds mu, tracking on).
func (m *Memory) hbmInitCheck(addr, n uint64) error {
	for a, done := addr, uint64(0); done < n; {
		pn, off := a/HBMPageSize, int(a%HBMPageSize)
		c := min(n-done, uint64(HBMPageSize-off))
		pg := m.hbm[pn]
		if pg == nil {
			return errf(fault.ErrUninit, RuleReadInitialised, a, "HBM byte was never written")
		}
		if i := firstClear(pg.init, off, off+int(c)); i >= 0 {
			return errf(fault.ErrUninit, RuleReadInitialised, pn*HBMPageSize+uint64(i), "HBM byte was never written")
		}
		a, done = a+c, done+c
	}
	return nil
}

// allocRun allocates the unallocated pages of [first, last], each maximal stretch of
// consecutive unallocated pages as one run (caller holds mu and has checked the cap).
func (m *Memory) allocRun(first, last uint64) {
	for pn := first; pn <= last; pn++ {
		if m.hbm[pn] != nil {
			continue
		}
		end := pn
		for end < last && m.hbm[end+1] == nil {
			end++
		}
		k := int(end - pn + 1)
		r := m.newRun(k)
		r.first = pn
		for i := range k {
			m.hbm[pn+uint64(i)] = &r.pages[i]
		}
		m.runs = append(m.runs, r)
		m.hbmBytes += uint64(k) * HBMPageSize
		pn = end
	}
}

// newRun returns a run of k zero, never-written pages: the smallest free run holding k to 2k
// pages, cleared, or a new one (caller holds mu).
func (m *Memory) newRun(k int) *hbmRun {
	n, best := k*HBMPageSize, -1
	for i, r := range m.free {
		if len(r.mem) >= n && len(r.mem) <= 2*n && (best < 0 || len(r.mem) < len(m.free[best].mem)) {
			best = i
		}
	}
	var r *hbmRun
	if best >= 0 {
		r = m.free[best]
		last := len(m.free) - 1
		m.free[best], m.free[last] = m.free[last], nil
		m.free = m.free[:last]
		clear(r.mem[r.lo:r.hi])
		if r.init != nil {
			clear(r.init[r.lo/64 : (r.hi+63)/64])
		}
		r.lo, r.hi = 0, 0
	} else {
		r = &hbmRun{mem: make([]byte, n), pages: make([]hbmPage, k)}
		if m.opts.TrackUninit {
			r.init = make([]uint64, n/64)
		}
	}
	r.buf = r.mem[:n:n]
	for i := range k {
		pg := &r.pages[i]
		pg.data, pg.run = r.buf[i*HBMPageSize:(i+1)*HBMPageSize:(i+1)*HBMPageSize], r
		if r.init != nil {
			pg.init = r.init[i*HBMPageSize/64 : (i+1)*HBMPageSize/64 : (i+1)*HBMPageSize/64]
		}
	}
	return r
}

func (m *Memory) hbmRead(addr uint64, p []byte, checkInit bool) error {
	if err := m.hbmCheck(addr, uint64(len(p))); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// Check first (uninit), then copy.
	if checkInit && m.opts.TrackUninit {
		if err := m.hbmInitCheck(addr, uint64(len(p))); err != nil {
			return err
		}
	}
	for a, done := addr, 0; done < len(p); {
		pn, off := a/HBMPageSize, int(a%HBMPageSize)
		n := min(len(p)-done, HBMPageSize-off)
		if pg := m.hbm[pn]; pg != nil {
			copy(p[done:done+n], pg.data[off:off+n])
		} else {
			clear(p[done : done+n])
		}
		a, done = a+uint64(n), done+n
	}
	return nil
}

func (m *Memory) hbmWrite(addr uint64, p []byte) error {
	if err := m.hbmCheck(addr, uint64(len(p))); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.hbmCapCheck(addr, uint64(len(p))); err != nil {
		return err
	}
	m.allocRun(addr/HBMPageSize, (addr+uint64(len(p))-1)/HBMPageSize)
	for a, done := addr, 0; done < len(p); {
		pn, off := a/HBMPageSize, int(a%HBMPageSize)
		n := min(len(p)-done, HBMPageSize-off)
		pg := m.hbm[pn]
		copy(pg.data[off:off+n], p[done:done+n])
		if pg.init != nil {
			setBits(pg.init, off, off+n)
		}
		o := int(pn-pg.run.first)*HBMPageSize + off
		pg.run.touch(o, o+n)
		a, done = a+uint64(n), done+n
	}
	return nil
}

// HBMBytesAllocated is the number of HBM bytes allocated so far (whole pages).
func (m *Memory) HBMBytesAllocated() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hbmBytes
}

// HBMPageAllocated reports whether HBM page pn (device addresses [pn*HBMPageSize,
// (pn+1)*HBMPageSize)) is allocated.
func (m *Memory) HBMPageAllocated(pn uint64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hbm[pn] != nil
}
