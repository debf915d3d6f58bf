package mem

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// The DMA engines' memory and its optional fast paths, met exactly (dma does not import mem).
var (
	_ dma.Memory       = (*Memory)(nil)
	_ dma.Slicer       = (*Memory)(nil)
	_ dma.RangeChecker = (*Memory)(nil)
)

// randRange picks a device-address range near the edges that matter: HBM pages and the HBM
// window's end, SBUF and PSUM partition boundaries, the on-chip window's end.
func randRange(rng *rand.Rand, geo isa.Geometry) (uint64, int) {
	lens := []int{1, 2, 3, 4, 8, 13, 64, HBMPageSize - 4, HBMPageSize, HBMPageSize + 8, 3 * HBMPageSize}
	n := lens[rng.Intn(len(lens))]
	if rng.Intn(4) == 0 {
		n = 1 + rng.Intn(2*HBMPageSize)
	}
	jit := func() int64 { return int64(rng.Intn(17)) - 8 }
	switch rng.Intn(6) {
	case 0, 1: // low HBM, a handful of pages
		a := int64(rng.Intn(12))*HBMPageSize + jit()
		if rng.Intn(2) == 0 {
			a = int64(rng.Intn(12 * HBMPageSize))
		}
		return uint64(max(a, 0)), n
	case 2: // the end of the HBM window
		return uint64(int64(isa.DMALocalBase) - int64(n) + jit()), n
	case 3: // SBUF partition boundaries
		p := rng.Intn(geo.StateBufNumPartitions + 1)
		off := int64(geo.StateBufPartitionActive) + jit() - int64(rng.Intn(2)*n)
		if rng.Intn(3) == 0 {
			off = int64(rng.Intn(int(geo.StateBufPartitionActive)))
		}
		return isa.DMALocalBase + uint64(max(int64(p)*int64(geo.StateBufPartitionSize)+off, 0)), min(n, 4096)
	case 4: // PSUM (or the hole where it is missing)
		p := rng.Intn(max(geo.PSUMNumPartitions, 1) + 1)
		off := int64(rng.Intn(int(max(geo.PSUMPartitionActive, 64)))) &^ int64(rng.Intn(2)*3)
		if rng.Intn(3) == 0 {
			off = int64(geo.PSUMPartitionActive) + jit()
		}
		nn := min(n, 256)
		if rng.Intn(2) == 0 {
			nn = (nn + 3) &^ 3
		}
		return isa.DMALocalBase + uint64(max(int64(geo.PSUMOffset)+int64(p)*int64(geo.PSUMPartitionSize)+off, 0)), nn
	default: // the end of the on-chip window
		return isa.DMALocalBase + isa.TPBPartitionAddrMask + 1 - uint64(n) + uint64(rng.Intn(9)), n
	}
}

func sentinel(err error) error {
	for _, s := range []error{fault.ErrBounds, ErrPSUMWrite, fault.ErrUninit, ErrHBMCap} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// TestCheckRangeAgreesWithAccess: for random ranges, CheckRange(write) is nil iff WriteAt
// succeeds on an identical memory (same sentinel otherwise), CheckRange(read) iff ReadAt does,
// and CheckRange changes nothing.
func TestCheckRangeAgreesWithAccess(t *testing.T) {
	for _, g := range isa.Generations {
		for _, track := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v track=%v", g, track), func(t *testing.T) {
				o := Options{HBMCapBytes: 9 * HBMPageSize, TrackUninit: track}
				m, c := newMem(t, g, o), newMem(t, g, o) // m is checked, c is written; kept identical
				rng := rand.New(rand.NewSource(int64(g) + 7))
				geo := g.Geometry()
				buf := make([]byte, 4*HBMPageSize)
				rng.Read(buf)
				var okW, okR, failW, failR int
				for i := 0; i < 3000; i++ {
					a, n := randRange(rng, geo)
					before := m.HBMBytesAllocated()
					errR := m.CheckRange(a, uint64(n), false)
					errW := m.CheckRange(a, uint64(n), true)
					if m.HBMBytesAllocated() != before {
						t.Fatalf("%v: CheckRange allocated HBM", g)
					}
					got := make([]byte, n)
					if err := c.ReadAt(a, got); sentinel(err) != sentinel(errR) {
						t.Fatalf("%v track=%v read 0x%x+%d: CheckRange %v, ReadAt %v", g, track, a, n, errR, err)
					} else if err != nil && err.Error() != errR.Error() {
						t.Fatalf("%v read 0x%x+%d: CheckRange %q, ReadAt %q", g, a, n, errR, err)
					}
					if errR == nil {
						okR++
					} else {
						failR++
					}
					cb := c.HBMBytesAllocated()
					err := c.WriteAt(a, buf[:n])
					if sentinel(err) != sentinel(errW) {
						t.Fatalf("%v track=%v write 0x%x+%d: CheckRange %v, WriteAt %v", g, track, a, n, errW, err)
					}
					if err != nil {
						if err.Error() != errW.Error() {
							t.Fatalf("%v write 0x%x+%d: CheckRange %q, WriteAt %q", g, a, n, errW, err)
						}
						if c.HBMBytesAllocated() != cb {
							t.Fatalf("failed WriteAt allocated")
						}
						failW++
						continue
					}
					okW++
					if err := m.WriteAt(a, buf[:n]); err != nil {
						t.Fatalf("twin write: %v", err)
					}
				}
				if okW == 0 || failW == 0 || okR == 0 || failR == 0 {
					t.Errorf("%v track=%v: weak coverage: writes %d ok %d refused, reads %d ok %d refused", g, track, okW, failW, okR, failR)
				}
			})
		}
	}
}

// TestCheckRangeWriteIgnoresUninit: with tracking, a write to never-written bytes passes the
// check; a read of them does not.
func TestCheckRangeWriteIgnoresUninit(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{TrackUninit: true})
	for _, a := range []uint64{0x1000, isa.DMALocalBase + 64, isa.DMALocalBase + 0x2000000} {
		t.Run(fmt.Sprintf("%#x", a), func(t *testing.T) {
			if err := m.CheckRange(a, 64, true); err != nil {
				t.Errorf("write 0x%x: %v", a, err)
			}
			if err := m.CheckRange(a, 64, false); !errors.Is(err, fault.ErrUninit) {
				t.Errorf("read 0x%x: %v, want fault.ErrUninit", a, err)
			}
		})
	}
	// A huge HBM write range is answered without walking it: the cap refuses it.
	if err := m.CheckRange(0, 1<<46, true); !errors.Is(err, ErrHBMCap) {
		t.Errorf("huge write: %v", err)
	}
	if err := m.CheckRange(isa.DMALocalBase-8, 16, true); !errors.Is(err, fault.ErrBounds) {
		t.Errorf("past the window: %v", err)
	}
}

// TestSliceMatchesReadAt: a slice returned for a random range holds the bytes ReadAt reads, and
// writes through it are seen by ReadAt.
func TestSliceMatchesReadAt(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			m := newMem(t, g, Options{HBMCapBytes: 64 * HBMPageSize})
			rng := rand.New(rand.NewSource(int64(g)))
			geo := g.Geometry()
			buf := make([]byte, 4*HBMPageSize)
			for i := 0; i < 300; i++ { // random content
				a, n := randRange(rng, geo)
				rng.Read(buf[:n])
				m.WriteAt(a, buf[:n])
			}
			hits := 0
			for i := 0; i < 3000; i++ {
				a, n := randRange(rng, geo)
				if rng.Intn(2) == 0 && a < isa.DMALocalBase {
					// whole runs: reuse an allocated page's start
					a &^= HBMPageSize - 1
				}
				allocated := m.HBMBytesAllocated()
				s, ok := m.Slice(a, n)
				if !ok {
					if m.HBMBytesAllocated() != allocated {
						t.Fatalf("%v: failed Slice allocated", g)
					}
					continue
				}
				hits++
				if len(s) != n || cap(s) != n {
					t.Fatalf("slice len %d cap %d, want %d", len(s), cap(s), n)
				}
				if err := m.CheckRange(a, uint64(n), false); err != nil {
					t.Fatalf("%v: Slice 0x%x+%d ok but CheckRange: %v", g, a, n, err)
				}
				got := make([]byte, n)
				if err := m.ReadAt(a, got); err != nil || !bytes.Equal(got, s) {
					t.Fatalf("%v: Slice 0x%x+%d differs from ReadAt (%v)", g, a, n, err)
				}
				rng.Read(s)
				if err := m.ReadAt(a, got); err != nil || !bytes.Equal(got, s) {
					t.Fatalf("%v: write through Slice 0x%x+%d not seen (%v)", g, a, n, err)
				}
			}
			if hits < 100 {
				t.Errorf("%v: only %d slices", g, hits)
			}
		})
	}
}

func TestSliceHBMRuns(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{HBMCapBytes: 8 * HBMPageSize})
	// One write of three fresh pages is one run: a slice may cross its pages.
	data := bytes.Repeat([]byte{1, 2, 3}, HBMPageSize)
	if err := m.WriteAt(0, data); err != nil {
		t.Fatal(err)
	}
	if s, ok := m.Slice(10, 2*HBMPageSize+5); !ok || !bytes.Equal(s, data[10:10+2*HBMPageSize+5]) {
		t.Fatalf("slice across a run: ok=%v", ok)
	}
	// Pages written one by one are separate runs.
	m.WriteAt(4*HBMPageSize, []byte{1})
	m.WriteAt(5*HBMPageSize, []byte{1})
	if _, ok := m.Slice(5*HBMPageSize-1, 2); ok {
		t.Error("slice across two runs")
	}
	if _, ok := m.Slice(3*HBMPageSize-1, 2); ok {
		t.Error("slice across allocated and fresh pages")
	}
	// A fresh range is allocated whole, under the cap (5 of 8 pages used).
	if _, ok := m.Slice(100*HBMPageSize, 3*HBMPageSize+1); ok || m.HBMBytesAllocated() != 5*HBMPageSize {
		t.Errorf("slice over the cap: ok=%v allocated %d", ok, m.HBMBytesAllocated())
	}
	s, ok := m.Slice(100*HBMPageSize+1, 3*HBMPageSize-1)
	if !ok || m.HBMBytesAllocated() != 8*HBMPageSize {
		t.Fatalf("fresh slice: ok=%v allocated %d", ok, m.HBMBytesAllocated())
	}
	if !bytes.Equal(s, make([]byte, len(s))) {
		t.Error("fresh slice not zero")
	}
	s[0] = 7
	var b [1]byte
	if m.ReadAt(100*HBMPageSize+1, b[:]); b[0] != 7 {
		t.Error("write through fresh slice lost")
	}
	if _, ok := m.Slice(isa.DMALocalBase-4, 8); ok {
		t.Error("slice past the HBM window")
	}
}

func TestSliceTrackUninit(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{TrackUninit: true})
	geo := m.Geometry()
	sb := isa.DMALocalBase + uint64(3*geo.StateBufPartitionSize) + 16
	for _, a := range []uint64{0x20000, sb} {
		t.Run(fmt.Sprintf("%#x", a), func(t *testing.T) {
			if _, ok := m.Slice(a, 32); ok {
				t.Errorf("0x%x: slice of never-written bytes", a)
			}
			if err := m.WriteAt(a, make([]byte, 32)); err != nil {
				t.Fatal(err)
			}
			if _, ok := m.Slice(a, 33); ok {
				t.Errorf("0x%x: slice with one never-written byte", a)
			}
			if _, ok := m.Slice(a+4, 28); !ok {
				t.Errorf("0x%x: no slice of written bytes", a)
			}
		})
	}
	if m.HBMBytesAllocated() != HBMPageSize {
		t.Errorf("allocated %d", m.HBMBytesAllocated())
	}
	// On chip, a slice stays in one partition's active area.
	if _, ok := m.Slice(isa.DMALocalBase+uint64(geo.StateBufPartitionActive)-4, 8); ok {
		t.Error("slice past the active area")
	}
}

func TestReadRaw(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{TrackUninit: true})
	if err := m.WriteAt(0x10002, []byte{5, 6}); err != nil {
		t.Fatal(err)
	}
	sb := isa.DMALocalBase + 8
	if err := m.WriteAt(sb, []byte{9}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		a    uint64
		want []byte
	}{{0x10000, []byte{0, 0, 5, 6, 0}}, {0x5000000, []byte{0, 0}}, {sb - 1, []byte{0, 9, 0}}} {
		t.Run(fmt.Sprintf("%#x", c.a), func(t *testing.T) {
			got := make([]byte, len(c.want))
			if err := m.ReadAt(c.a, got); !errors.Is(err, fault.ErrUninit) {
				t.Errorf("ReadAt 0x%x: %v", c.a, err)
			}
			if err := m.ReadRaw(c.a, got); err != nil || !bytes.Equal(got, c.want) {
				t.Errorf("ReadRaw 0x%x = %v, %v; want %v", c.a, got, err, c.want)
			}
		})
	}
	if err := m.ReadRaw(isa.DMALocalBase-1, make([]byte, 2)); !errors.Is(err, fault.ErrBounds) {
		t.Errorf("ReadRaw past the window: %v", err)
	}
	if m.HBMBytesAllocated() != HBMPageSize {
		t.Error("ReadRaw allocated")
	}
}
