package mem

import (
	"github.com/tpbsim/tpbsim/isa"
)

// DMA-side byte access by 64-bit device address, with tpbsim's INVENTED map (isa.Addr8,
// isa.DMALocalBase): [0, DMALocalBase) is HBM; DMALocalBase + a 29-bit on-chip address is SBUF or
// PSUM. Every access is checked whole before any byte moves.

// segment is one piece of a device-address access: HBM (page-split later) or one partition.
type segment struct {
	loc Loc
	buf []byte // slice of the caller's buffer
	dst []byte // on-chip bytes (nil for HBM)
}

// ReadAt copies len(p) bytes at device address addr into p. Never-written HBM reads as zero
// (or fails with ErrUninit when tracking). The access must lie wholly in HBM or wholly in
// active on-chip bytes; it may cross partitions only where one partition's active area meets
// the next (active size == stride).
func (m *Memory) ReadAt(addr uint64, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if addr < isa.DMALocalBase {
		return m.hbmRead(addr, p)
	}
	segs, err := m.localSegments(addr, p, false)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if err := m.CheckInit(s.loc.Region, s.loc.Partition, int(s.loc.Offset), len(s.buf)); err != nil {
			if e, ok := err.(*Error); ok {
				e.Addr += isa.DMALocalBase
			}
			return err
		}
	}
	for _, s := range segs {
		copy(s.buf, s.dst)
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
	segs, err := m.localSegments(addr, p, true)
	if err != nil {
		return err
	}
	for _, s := range segs {
		copy(s.dst, s.buf)
		m.MarkInit(s.loc.Region, s.loc.Partition, int(s.loc.Offset), len(s.buf))
	}
	return nil
}

func (m *Memory) localSegments(addr uint64, p []byte, write bool) ([]segment, error) {
	local := addr - isa.DMALocalBase
	if local > isa.TPBPartitionAddrMask || local+uint64(len(p))-1 > isa.TPBPartitionAddrMask {
		return nil, errf(ErrBounds, "dma_addr_in_range", addr, "%d bytes pass the on-chip window", len(p))
	}
	var segs []segment
	for done := 0; done < len(p); {
		a := uint32(local) + uint32(done)
		l, err := m.ResolveAddr(a)
		if err != nil {
			e := err.(*Error)
			e.Addr = isa.DMALocalBase + uint64(a)
			return nil, e
		}
		b := m.bank(l.Region)
		n := min(len(p)-done, int(b.active-l.Offset))
		if write && l.Region == PSUM && (l.Offset%4 != 0 || n%4 != 0) {
			return nil, errf(ErrPSUMWrite, "psum_write_4byte", isa.DMALocalBase+uint64(a),
				"PSUM write of %d bytes at partition offset 0x%x", n, l.Offset)
		}
		segs = append(segs, segment{loc: l, buf: p[done : done+n], dst: b.part(l.Partition)[l.Offset : int(l.Offset)+n]})
		done += n
	}
	return segs, nil
}

func (m *Memory) hbmCheck(addr uint64, n int) error {
	if addr+uint64(n) > isa.DMALocalBase || addr+uint64(n) < addr {
		return errf(ErrBounds, "hbm_addr_in_range", addr, "%d bytes pass the HBM window 0x%x", n, isa.DMALocalBase)
	}
	return nil
}

func (m *Memory) hbmRead(addr uint64, p []byte) error {
	if err := m.hbmCheck(addr, len(p)); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// Check first (uninit), then copy.
	if m.opts.TrackUninit {
		for a, done := addr, 0; done < len(p); {
			pn, off := a/HBMPageSize, int(a%HBMPageSize)
			n := min(len(p)-done, HBMPageSize-off)
			pg := m.hbm[pn]
			if pg == nil {
				return errf(ErrUninit, "read_initialised", a, "HBM byte was never written")
			}
			if i := firstClear(pg.init, off, off+n); i >= 0 {
				return errf(ErrUninit, "read_initialised", pn*HBMPageSize+uint64(i), "HBM byte was never written")
			}
			a, done = a+uint64(n), done+n
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
	if err := m.hbmCheck(addr, len(p)); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	first, last := addr/HBMPageSize, (addr+uint64(len(p))-1)/HBMPageSize
	var fresh uint64
	for pn := first; pn <= last; pn++ {
		if m.hbm[pn] == nil {
			fresh++
		}
	}
	if m.hbmBytes+fresh*HBMPageSize > m.opts.HBMCapBytes {
		return errf(ErrHBMCap, "hbm_cap", addr, "writing %d bytes needs %d new pages; %d of %d bytes already allocated",
			len(p), fresh, m.hbmBytes, m.opts.HBMCapBytes)
	}
	for a, done := addr, 0; done < len(p); {
		pn, off := a/HBMPageSize, int(a%HBMPageSize)
		n := min(len(p)-done, HBMPageSize-off)
		pg := m.hbm[pn]
		if pg == nil {
			pg = &hbmPage{}
			if m.opts.TrackUninit {
				pg.init = make([]uint64, HBMPageSize/64)
			}
			m.hbm[pn] = pg
			m.hbmBytes += HBMPageSize
		}
		copy(pg.data[off:off+n], p[done:done+n])
		if pg.init != nil {
			setBits(pg.init, off, off+n)
		}
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
