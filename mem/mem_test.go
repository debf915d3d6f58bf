package mem

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

func newMem(t testing.TB, g isa.Generation, o Options) *Memory {
	t.Helper()
	m, err := New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestResolveGeometry(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			m := newMem(t, g, Options{})
			geo := g.Geometry()
			cases := []struct {
				addr uint32
				want Loc
				ok   bool
			}{
				{0, Loc{SBUF, 0, 0}, true},
				{geo.StateBufPartitionSize*5 + 100, Loc{SBUF, 5, 100}, true},
				{geo.StateBufPartitionSize*127 + geo.StateBufPartitionActive - 1, Loc{SBUF, 127, geo.StateBufPartitionActive - 1}, true},
				{geo.StateBufPartitionActive, Loc{}, geo.StateBufPartitionActive < geo.StateBufPartitionSize && false},
			}
			if geo.StateBufPartitionActive == geo.StateBufPartitionSize {
				cases[3] = struct {
					addr uint32
					want Loc
					ok   bool
				}{geo.StateBufPartitionActive, Loc{SBUF, 1, 0}, true}
			}
			if geo.PSUMSize > 0 {
				cases = append(cases,
					struct {
						addr uint32
						want Loc
						ok   bool
					}{0x2000000 + 3*32*1024 + 8, Loc{PSUM, 3, 8}, true},
					struct {
						addr uint32
						want Loc
						ok   bool
					}{0x2000000 + 16*1024, Loc{}, false},
					struct {
						addr uint32
						want Loc
						ok   bool
					}{0x2400000, Loc{}, false})
			}
			for _, c := range cases {
				l, err := m.ResolveAddr(c.addr)
				if c.ok != (err == nil) || (c.ok && l != c.want) {
					t.Errorf("ResolveAddr(0x%x) = %v, %v; want %v ok=%v", c.addr, l, err, c.want, c.ok)
				}
				if err != nil && !errors.Is(err, fault.ErrBounds) {
					t.Errorf("error %v is not fault.ErrBounds", err)
				}
				if err == nil && m.OnChipAddr(l) != c.addr {
					t.Errorf("OnChipAddr(%v) = 0x%x, want 0x%x", l, m.OnChipAddr(l), c.addr)
				}
			}
		})
	}
	m := newMem(t, isa.MAVERICK, Options{})
	if m.NumPartitions(PSUM) != 0 {
		t.Errorf("MAVERICK PSUM partitions = %d, want 0", m.NumPartitions(PSUM))
	}
	if l, err := m.ResolveAddr(0x2000000); err != nil || l != (Loc{SBUF, 32, 0}) {
		t.Errorf("MAVERICK 0x2000000 = %v, %v; want SBUF partition 32", l, err)
	}
	if _, err := m.Resolve(isa.Addr4(0x80000003)); !errors.Is(err, fault.ErrUnsupported) {
		t.Errorf("register ADDR4: %v", err)
	}
}

func TestDMAAccess(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{HBMCapBytes: 4 * HBMPageSize})
	// HBM at 1 TiB, across a page boundary.
	addr := uint64(1<<40) + HBMPageSize - 3
	in := []byte{1, 2, 3, 4, 5, 6, 7}
	if err := m.WriteAt(addr, in); err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 9)
	if err := m.ReadAt(addr-1, out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, []byte{0, 1, 2, 3, 4, 5, 6, 7, 0}) {
		t.Errorf("read back %v", out)
	}
	if got := m.HBMBytesAllocated(); got != 2*HBMPageSize {
		t.Errorf("allocated %d", got)
	}
	// Cap: three more pages don't fit; nothing is written.
	err := m.WriteAt(0, make([]byte, 3*HBMPageSize))
	if !errors.Is(err, ErrHBMCap) {
		t.Fatalf("cap: %v", err)
	}
	if got := m.HBMBytesAllocated(); got != 2*HBMPageSize {
		t.Errorf("allocated after failed write %d", got)
	}
	if err := m.WriteAt(isa.DMALocalBase-2, make([]byte, 4)); !errors.Is(err, fault.ErrBounds) {
		t.Errorf("past HBM window: %v", err)
	}
	// SBUF partition 2 offset 16.
	geo := m.Geometry()
	sb := isa.DMALocalBase + uint64(2*geo.StateBufPartitionSize+16)
	if err := m.WriteAt(sb, []byte{9, 8, 7}); err != nil {
		t.Fatal(err)
	}
	if got := m.Partition(SBUF, 2)[16:19]; !bytes.Equal(got, []byte{9, 8, 7}) {
		t.Errorf("SBUF bytes %v", got)
	}
	// Crossing past the active area fails whole.
	end := isa.DMALocalBase + uint64(geo.StateBufPartitionActive-2)
	if err := m.WriteAt(end, []byte{1, 2, 3, 4}); !errors.Is(err, fault.ErrBounds) {
		t.Errorf("past active: %v", err)
	}
	if m.Partition(SBUF, 0)[geo.StateBufPartitionActive-2] != 0 {
		t.Error("failed write changed memory")
	}
	// PSUM 4-byte rule.
	ps := isa.DMALocalBase + 0x2000000
	if err := m.WriteAt(ps+2, []byte{1, 2, 3, 4}); !errors.Is(err, ErrPSUMWrite) {
		t.Errorf("unaligned PSUM: %v", err)
	}
	if err := m.WriteAt(ps+4, []byte{1, 2, 3, 4}); err != nil {
		t.Errorf("aligned PSUM: %v", err)
	}
	if err := m.ReadAt(ps+5, make([]byte, 2)); err != nil {
		t.Errorf("PSUM byte read: %v", err)
	}
	// MARIANA: active == stride, so an access may run into the next partition.
	mm := newMem(t, isa.MARIANA, Options{})
	if err := mm.WriteAt(isa.DMALocalBase+256*1024-2, []byte{1, 2, 3, 4}); err != nil {
		t.Errorf("MARIANA cross-partition: %v", err)
	}
	if mm.Partition(SBUF, 1)[1] != 4 {
		t.Error("MARIANA cross-partition bytes")
	}
}

func TestUninit(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{TrackUninit: true})
	if err := m.WriteAt(isa.DMALocalBase+100, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if err := m.ReadAt(isa.DMALocalBase+100, make([]byte, 10)); err != nil {
		t.Errorf("initialised read: %v", err)
	}
	err := m.ReadAt(isa.DMALocalBase+104, make([]byte, 10))
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, fault.ErrUninit) || e.Addr != isa.DMALocalBase+110 {
		t.Errorf("uninit read: %v", err)
	}
	if err := m.ReadAt(1<<30, make([]byte, 1)); !errors.Is(err, fault.ErrUninit) {
		t.Errorf("uninit HBM read: %v", err)
	}
	m.WriteAt(1<<30, []byte{1, 2})
	if err := m.ReadAt(1<<30+1, make([]byte, 2)); !errors.Is(err, fault.ErrUninit) {
		t.Errorf("partly uninit HBM read: %v", err)
	}
	// Pattern gather on tracked memory.
	p, err := m.Pattern(isa.Tensor4D{StartAddr: 100, StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{10, 1, 1, 1}}, 1, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Gather(p, 0, make([]byte, 10)); err != nil {
		t.Errorf("gather: %v", err)
	}
	p, _ = m.Pattern(isa.Tensor4D{StartAddr: 100, StepElem: [4]int16{2, 1, 1, 1}, NumElem: [4]uint16{6, 1, 1, 1}}, 1, 1, false)
	if err := m.Gather(p, 0, make([]byte, 6)); !errors.Is(err, fault.ErrUninit) {
		t.Errorf("strided gather past written bytes: %v", err)
	}
	// bitmap helpers on word boundaries
	bm := make([]uint64, 4)
	setBits(bm, 3, 200)
	if firstClear(bm, 3, 200) != -1 || firstClear(bm, 0, 10) != 0 || firstClear(bm, 150, 201) != 200 {
		t.Error("bitmap helpers")
	}
}

// TestBitmapMatchesNaive checks setBits, clearBits and firstClear against a bool per bit on
// random ranges, word boundaries included.
func TestBitmapMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const nbits = 5 * 64
	bm := make([]uint64, nbits/64)
	var ref [nbits]bool
	for i := 0; i < 5000; i++ {
		lo := rng.Intn(nbits + 1)
		hi := lo + rng.Intn(nbits+1-lo)
		switch rng.Intn(3) {
		case 0:
			setBits(bm, lo, hi)
			for b := lo; b < hi; b++ {
				ref[b] = true
			}
		case 1:
			clearBits(bm, lo, hi)
			for b := lo; b < hi; b++ {
				ref[b] = false
			}
		}
		want := -1
		for b := lo; b < hi; b++ {
			if !ref[b] {
				want = b
				break
			}
		}
		if got := firstClear(bm, lo, hi); got != want {
			t.Fatalf("step %d: firstClear(%d, %d) = %d, want %d", i, lo, hi, got, want)
		}
	}
}

// TestUninitConcurrentWriters: DMA workers write disjoint bytes of one partition at once, and
// 64 bytes share one word of never-written bits; no writer may lose another's bits (a false
// fault.ErrUninit). Run with -race, it also catches an unsynchronised bit update.
func TestUninitConcurrentWriters(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{TrackUninit: true})
	for iter := 0; iter < 50; iter++ {
		m.Reset()
		var wg sync.WaitGroup
		for k := 0; k < 16; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// 12-byte pieces: some share a word of bits, some cross a word boundary
				if err := m.WriteAt(isa.DMALocalBase+uint64(k*12), make([]byte, 12)); err != nil {
					t.Error(err)
				}
				if err := m.ReadAt(isa.DMALocalBase+uint64(k*12), make([]byte, 12)); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if err := m.ReadAt(isa.DMALocalBase, make([]byte, 16*12)); err != nil {
			t.Fatalf("iteration %d: %v", iter, err)
		}
	}
}

// TestMarkInitClipsToActiveArea: MarkInit past either end of the active area marks nothing of
// the neighbouring partitions (their never-written bits are contiguous with this one's).
func TestMarkInitClipsToActiveArea(t *testing.T) {
	for _, g := range isa.Generations {
		m := newMem(t, g, Options{TrackUninit: true})
		for _, r := range []Region{SBUF, PSUM} {
			if m.NumPartitions(r) == 0 {
				continue
			}
			act := m.PartitionActive(r)
			m.MarkInit(r, 0, act-8, 16)
			m.MarkInit(r, 2, -8, 16)
			if err := m.CheckInit(r, 0, act-8, 8); err != nil {
				t.Errorf("%v %v: partition 0's last bytes: %v", g, r, err)
			}
			if err := m.CheckInit(r, 2, 0, 8); err != nil {
				t.Errorf("%v %v: partition 2's first bytes: %v", g, r, err)
			}
			if err := m.CheckInit(r, 1, 0, 8); !errors.Is(err, fault.ErrUninit) {
				t.Errorf("%v %v: partition 1's first bytes marked by a write to partition 0: %v", g, r, err)
			}
			if err := m.CheckInit(r, 1, act-8, 8); !errors.Is(err, fault.ErrUninit) {
				t.Errorf("%v %v: partition 1's last bytes marked by a write to partition 2: %v", g, r, err)
			}
		}
	}
}

// naiveOffsets lists the byte offsets of a TENSOR4D walk element by element.
func naiveOffsets(t isa.Tensor4D, start int64, es int) []int64 {
	var out []int64
	for l := 0; l < int(t.NumElem[3]); l++ {
		for k := 0; k < int(t.NumElem[2]); k++ {
			for j := 0; j < int(t.NumElem[1]); j++ {
				for i := 0; i < int(t.NumElem[0]); i++ {
					e := int64(i)*int64(t.StepElem[0]) + int64(j)*int64(t.StepElem[1]) + int64(k)*int64(t.StepElem[2]) + int64(l)*int64(t.StepElem[3])
					out = append(out, start+e*int64(es))
				}
			}
		}
	}
	return out
}

func TestPatternWalkMatchesNaive(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{})
	rng := rand.New(rand.NewSource(1))
	for i := range m.sbuf.data {
		m.sbuf.data[i] = byte(rng.Intn(256))
	}
	active := int64(m.PartitionActive(SBUF))
	ok := 0
	for iter := 0; iter < 3000; iter++ {
		es := []int{1, 2, 4, 8}[rng.Intn(4)]
		var t4 isa.Tensor4D
		for d := 0; d < 4; d++ {
			t4.NumElem[d] = uint16(1 + rng.Intn(5))
			t4.StepElem[d] = int16(rng.Intn(41) - 20)
			if rng.Intn(3) == 0 {
				t4.StepElem[d] = int16(t4.NumElem[0]) * int16(d) // contiguous-ish
			}
		}
		if rng.Intn(4) == 0 {
			t4.StepElem[0] = 1
		}
		part := rng.Intn(128)
		ch := 1 + rng.Intn(128-part)
		off := int64(rng.Intn(2000))
		if rng.Intn(10) == 0 {
			off = active - int64(rng.Intn(300))
		}
		off -= off % int64(es)
		t4.StartAddr = isa.Addr4(uint32(part)*m.Geometry().StateBufPartitionSize + uint32(off))
		offs := naiveOffsets(t4, off, es)
		inBounds := true
		for _, o := range offs {
			if o < 0 || o+int64(es) > active {
				inBounds = false
			}
		}
		p, err := m.Pattern(t4, es, ch, true)
		if inBounds != (err == nil) {
			t.Fatalf("%+v es %d off %d: inBounds %v err %v", t4, es, off, inBounds, err)
		}
		if err != nil {
			if !errors.Is(err, fault.ErrBounds) {
				t.Fatalf("error %v not fault.ErrBounds", err)
			}
			continue
		}
		ok++
		c := rng.Intn(ch)
		buf := make([]byte, p.Bytes())
		if err := m.Gather(p, c, buf); err != nil {
			t.Fatal(err)
		}
		pd := m.Partition(SBUF, part+c)
		for i, o := range offs {
			if !bytes.Equal(buf[i*es:(i+1)*es], pd[o:o+int64(es)]) {
				t.Fatalf("%+v: element %d differs", t4, i)
			}
		}
		// Scatter: last write wins in walk order, like the naive walk.
		want := append([]byte(nil), pd...)
		src := make([]byte, len(buf))
		rng.Read(src)
		for i, o := range offs {
			copy(want[o:o+int64(es)], src[i*es:(i+1)*es])
		}
		m.Scatter(p, c, src)
		if !bytes.Equal(pd, want) {
			t.Fatalf("%+v: scatter differs", t4)
		}
		sp := p.Span()
		for _, o := range offs {
			if o < int64(sp.Lo) || o+int64(es) > int64(sp.Hi) {
				t.Fatalf("span %v misses offset %d", sp, o)
			}
		}
	}
	if ok < 500 {
		t.Errorf("only %d in-bounds cases", ok)
	}
}

func TestPatternErrors(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{})
	unit := [4]int16{1, 1, 1, 1}
	_, err := m.Pattern(isa.Tensor4D{StartAddr: isa.Addr4(100 * 256 * 1024), StepElem: unit, NumElem: [4]uint16{4, 1, 1, 1}}, 4, 29, false)
	var e *Error
	if !errors.As(err, &e) || e.Rule != "start_addr_active_channels" {
		t.Errorf("channels past 128: %v", err)
	}
	_, err = m.Pattern(isa.Tensor4D{StartAddr: 0x2000000, StepElem: unit, NumElem: [4]uint16{4, 1, 1, 1}}, 2, 1, true)
	if !errors.Is(err, ErrPSUMWrite) {
		t.Errorf("2-byte PSUM write: %v", err)
	}
	if _, err = m.Pattern(isa.Tensor4D{StartAddr: 0x2000000, StepElem: unit, NumElem: [4]uint16{4, 1, 1, 1}}, 2, 1, false); err != nil {
		t.Errorf("2-byte PSUM read: %v", err)
	}
	_, err = m.Pattern(isa.Tensor4D{StartAddr: 8, StepElem: [4]int16{-1, 1, 1, 1}, NumElem: [4]uint16{4, 1, 1, 1}}, 4, 1, false)
	if !errors.As(err, &e) || e.Rule != "pattern_in_active_area" {
		t.Errorf("negative walk before 0: %v", err)
	}
	// All-zero steps keep 65535^4 elements inside one byte: the count must be refused, not
	// wrapped (it overflowed Elements() and made the DVE executor panic in makeslice).
	huge := isa.Tensor4D{NumElem: [4]uint16{65535, 65535, 65535, 65535}}
	_, err = m.Pattern(huge, 2, 32, false)
	if !errors.As(err, &e) || e.Rule != RulePatternSizeModelled {
		t.Errorf("65535^4 elements: %v", err)
	}
	// 65535^3 x 2 bytes x 32 channels fits an int64 but not a Go slice.
	_, err = m.Pattern(isa.Tensor4D{NumElem: [4]uint16{65535, 65535, 65535, 1}}, 2, 32, false)
	if !errors.As(err, &e) || e.Rule != RulePatternSizeModelled {
		t.Errorf("65535^3 elements: %v", err)
	}
	if p, err := m.Pattern(isa.Tensor4D{NumElem: [4]uint16{65535, 65535, 1, 1}}, 2, 32, false); err != nil || p.Elements() != 65535*65535 {
		t.Errorf("65535^2 elements on 32 channels: %v", err)
	}
	if len(Provenance()) == 0 {
		t.Error("no provenance")
	}
}

func BenchmarkGatherContiguous(b *testing.B) {
	m := newMem(b, isa.CAYMAN, Options{})
	p, _ := m.Pattern(isa.Tensor4D{StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{16384, 1, 1, 1}}, 4, 128, false)
	buf := make([]byte, p.Bytes())
	b.SetBytes(int64(len(buf)))
	for i := 0; i < b.N; i++ {
		m.Gather(p, i&127, buf)
	}
}

// The cap error says how large a page is: the cap counts whole 64 KiB pages.
func TestHBMCapErrorNamesPageSize(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{HBMCapBytes: HBMPageSize})
	err := m.WriteAt(HBMPageSize-8, make([]byte, 16))
	if !errors.Is(err, ErrHBMCap) || !strings.Contains(err.Error(), "needs 2 new HBM pages of 65536 bytes") {
		t.Fatalf("err = %v", err)
	}
	if err := m.CheckRange(0, 2*HBMPageSize, true); err == nil || !strings.Contains(err.Error(), "of 65536 bytes") {
		t.Fatalf("CheckRange: %v", err)
	}
}

// TestHBMCapExact: the cap counts whole pages (a cap of three pages less a byte allows two),
// a write that exactly fills it succeeds, a failing write allocates nothing and changes nothing,
// not even on an allocated page it overlaps, and reads of never-allocated pages give zeros
// without allocating.
func TestHBMCapExact(t *testing.T) {
	const P = HBMPageSize
	m := newMem(t, isa.CAYMAN, Options{HBMCapBytes: 3*P - 1})
	if err := m.WriteAt(5*P-1, []byte{7}); err != nil { // page 4
		t.Fatal(err)
	}
	// Pages 4 (allocated), 5 and 6: two new pages, one more than the cap allows.
	if err := m.WriteAt(5*P-1, bytes.Repeat([]byte{1}, P+2)); !errors.Is(err, ErrHBMCap) {
		t.Fatalf("past the cap: %v", err)
	}
	out := make([]byte, 2)
	if err := m.ReadAt(5*P-1, out); err != nil || out[0] != 7 || out[1] != 0 {
		t.Errorf("failing write changed memory: %v %v", out, err)
	}
	if got := m.HBMBytesAllocated(); got != P || m.HBMPageAllocated(5) {
		t.Errorf("failing write allocated: %d bytes, page 5 %v", got, m.HBMPageAllocated(5))
	}
	if err := m.WriteAt(5*P-1, []byte{1, 1}); err != nil { // pages 4 and 5
		t.Fatalf("filling the cap exactly: %v", err)
	}
	if got := m.HBMBytesAllocated(); got != 2*P {
		t.Errorf("allocated %d, want 2 pages", got)
	}
	if err := m.WriteAt(4*P, make([]byte, 2*P)); err != nil {
		t.Errorf("rewriting allocated pages at the cap: %v", err)
	}
	if err := m.WriteAt(6*P, make([]byte, 1)); !errors.Is(err, ErrHBMCap) {
		t.Errorf("one page past the cap: %v", err)
	}
	big := bytes.Repeat([]byte{9}, 3*P)
	if err := m.ReadAt(1<<40, big); err != nil || !bytes.Equal(big, make([]byte, 3*P)) {
		t.Errorf("never-allocated read: %v", err)
	}
	if got := m.HBMBytesAllocated(); got != 2*P {
		t.Errorf("a read allocated: %d", got)
	}
}

// TestDMASBUFIntoPSUM pins mem.dma_address_map: where SBUF's active area fills its stride
// (MARIANA), the last SBUF partition's end meets PSUM partition 0 at 0x2000000 and one access
// may span both, PSUM's 4-byte rule applying to its PSUM part; with a gap (CAYMAN) it fails.
func TestDMASBUFIntoPSUM(t *testing.T) {
	mm := newMem(t, isa.MARIANA, Options{})
	at := isa.DMALocalBase + 0x2000000 - 4
	if err := mm.WriteAt(at, []byte{1, 2, 3, 4, 5, 6, 7, 8}); err != nil {
		t.Fatalf("MARIANA SBUF into PSUM: %v", err)
	}
	if s, p := mm.Partition(SBUF, 127), mm.Partition(PSUM, 0); s[len(s)-1] != 4 || p[0] != 5 || p[3] != 8 {
		t.Error("MARIANA SBUF into PSUM bytes")
	}
	if err := mm.WriteAt(at, []byte{1, 2, 3, 4, 5, 6}); !errors.Is(err, ErrPSUMWrite) {
		t.Errorf("2 bytes into PSUM: %v", err)
	}
	mc := newMem(t, isa.CAYMAN, Options{})
	if err := mc.ReadAt(isa.DMALocalBase+0x2000000-4, make([]byte, 8)); !errors.Is(err, fault.ErrBounds) {
		t.Errorf("CAYMAN SBUF gap into PSUM: %v", err)
	}
}

// TestMaverickSBUFWindow pins mem.maverick_sbuf_window: MAVERICK's 128 MiB SBUF uses address
// bits 24..26 (byte 3 = 0x01 is partition 16, not the MXTENSOR_V2 marker), and there is no PSUM.
func TestMaverickSBUFWindow(t *testing.T) {
	m := newMem(t, isa.MAVERICK, Options{})
	cases := []struct {
		a    isa.Addr4
		want Loc
	}{
		{0x01000000, Loc{SBUF, 16, 0}},
		{0x02000000, Loc{SBUF, 32, 0}}, // PSUM_BUF_OFFSET on the other generations
		{0x07f7ffff, Loc{SBUF, 127, 512<<10 - 1}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%#x", uint32(c.a)), func(t *testing.T) {
			if got, err := m.Resolve(c.a); err != nil || got != c.want {
				t.Errorf("Resolve(%#x) = %v, %v; want %v", uint32(c.a), got, err, c.want)
			}
		})
	}
	for _, a := range []isa.Addr4{0x07f80000, 0x08000000} { // partition 127's gap; past STATE_BUF_SZ
		t.Run(fmt.Sprintf("%#x", uint32(a)), func(t *testing.T) {
			if _, err := m.Resolve(a); !errors.Is(err, fault.ErrBounds) {
				t.Errorf("Resolve(%#x): %v", uint32(a), err)
			}
		})
	}
	if m.NumPartitions(PSUM) != 0 {
		t.Error("MAVERICK has PSUM partitions")
	}
}
