package mem

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"unsafe"

	"github.com/tpbsim/tpbsim/isa"
)

// hbmOp is one access of TestResetReusedMatchesFresh, applied alike to two memories.
type hbmOp struct {
	kind  int // 0 WriteAt, 1 Slice (and a write through it), 2 ReadAt, 3 CheckRange read, 4 CheckRange write, 5 on-chip write, 6 on-chip read
	addr  uint64
	n     int
	value byte
}

// apply runs op on m and describes what it saw: the error, the bytes read, what Slice gave, the
// HBM count after it.
func (op hbmOp) apply(m *Memory) string {
	var out string
	switch op.kind {
	case 0:
		out = fmt.Sprint(m.WriteAt(op.addr, pattern(op.n, op.value)))
	case 1:
		b, ok := m.Slice(op.addr, op.n)
		out = fmt.Sprintf("%v %x", ok, b)
		if ok {
			copy(b, pattern(op.n, op.value))
		}
	case 2:
		b := make([]byte, op.n)
		err := m.ReadAt(op.addr, b)
		out = fmt.Sprintf("%v %x", err, b)
		raw := make([]byte, op.n)
		out += fmt.Sprintf(" raw %v %x", m.ReadRaw(op.addr, raw), raw)
	case 3, 4:
		out = fmt.Sprint(m.CheckRange(op.addr, uint64(op.n), op.kind == 4))
	case 5: // SBUF partition p: through Partition and MarkInit
		p, off := int(op.addr)%m.NumPartitions(SBUF), int(op.addr>>8)%(m.PartitionActive(SBUF)-op.n)
		copy(m.Partition(SBUF, p)[off:], pattern(op.n, op.value))
		m.MarkInit(SBUF, p, off, op.n)
	case 6:
		p, off := int(op.addr)%m.NumPartitions(SBUF), int(op.addr>>8)%(m.PartitionActive(SBUF)-op.n)
		b := make([]byte, op.n)
		err := m.Read(Loc{Region: SBUF, Partition: p, Offset: uint32(off)}, b)
		out = fmt.Sprintf("%v %x", err, b)
	}
	return fmt.Sprintf("%s; %d bytes allocated", out, m.HBMBytesAllocated())
}

// pattern is n nonzero bytes starting at v.
func pattern(n int, v byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)%251 + v | 1
	}
	return b
}

// randomOps draws the accesses of one cycle: HBM ranges of up to maxBytes within the first 40
// pages (so runs of 1 to 6 pages form, meet pages of earlier runs, and pass a cap of 24
// pages), and a few on-chip writes and reads.
func randomOps(rng *rand.Rand, count, maxBytes int) []hbmOp {
	ops := make([]hbmOp, count)
	for i := range ops {
		op := hbmOp{kind: rng.Intn(7), addr: uint64(rng.Intn(40 * HBMPageSize)), n: 1 + rng.Intn(maxBytes), value: byte(rng.Intn(256))}
		if op.kind >= 5 {
			op.addr, op.n = uint64(rng.Intn(1<<20)), 1+rng.Intn(600)
		}
		ops[i] = op
	}
	return ops
}

// TestResetReusedMatchesFresh: a memory reset and used again (its HBM pages built on buffers
// kept by Reset) behaves exactly as a new one, over several cycles of different footprints,
// with and without never-written tracking and with an HBM cap that some cycles reach: every
// access gives the same error, bytes and HBM count, the states are the same after each cycle
// (Diff), and after each Reset the reused memory is the state New makes. The reuse is real:
// later cycles build pages on buffers of earlier ones.
func TestResetReusedMatchesFresh(t *testing.T) {
	for _, track := range []bool{false, true} {
		t.Run(fmt.Sprintf("track=%v", track), func(t *testing.T) {
			o := Options{TrackUninit: track, HBMCapBytes: 24 * HBMPageSize}
			rng := rand.New(rand.NewSource(3))
			m := newMem(t, isa.CAYMAN, o)
			reused, capped := 0, 0
			for cycle, maxBytes := range []int{HBMPageSize / 2, 3 * HBMPageSize, 6*HBMPageSize + 17, 2 * HBMPageSize, 300, 5 * HBMPageSize, HBMPageSize} {
				kept := map[*byte]bool{}
				for _, r := range m.free {
					kept[unsafe.SliceData(r.mem)] = true
				}
				fresh := newMem(t, isa.CAYMAN, o)
				for i, op := range randomOps(rng, 150, maxBytes) {
					got, want := op.apply(m), op.apply(fresh)
					if got != want {
						d := 0
						for d < min(len(got), len(want)) && got[d] == want[d] {
							d++
						}
						t.Fatalf("cycle %d op %d %+v: the outcomes differ from character %d: reused memory ...%.120s, new memory ...%.120s", cycle, i, op, d, got[max(d-40, 0):], want[max(d-40, 0):])
					}
					if strings.Contains(got, RuleHBMCap) {
						capped++
					}
				}
				if d := m.Diff(fresh); d != "" {
					t.Fatalf("cycle %d: reused memory differs from a new one: %s", cycle, d)
				}
				for _, r := range m.runs {
					if kept[unsafe.SliceData(r.mem)] {
						reused++
					}
				}
				m.Reset()
				if d := m.Diff(newMem(t, isa.CAYMAN, o)); d != "" {
					t.Fatalf("cycle %d: after Reset: %s", cycle, d)
				}
			}
			if reused == 0 || capped == 0 {
				t.Fatalf("%d runs built on kept buffers, %d accesses refused by the cap: want some of each", reused, capped)
			}
		})
	}
}

// TestResetKeepsBoundedHBM: Reset keeps at most hbmKeepBytes of HBM buffers, however much a
// run allocated, and the most recent ones: a run of other sizes replaces what was kept.
func TestResetKeepsBoundedHBM(t *testing.T) {
	m := newMem(t, isa.CAYMAN, Options{HBMCapBytes: 1 << 30})
	keptBytes := func() (n int) {
		for _, r := range m.free {
			n += len(r.mem)
		}
		return n
	}
	const run = 16 * HBMPageSize // 1 MiB
	for cycle := range 3 {
		for a := uint64(0); a < 2*hbmKeepBytes; a += 2 * run { // runs with a gap: not merged
			if err := m.WriteAt(a, make([]byte, run)); err != nil {
				t.Fatal(err)
			}
		}
		m.Reset()
		if n := keptBytes(); n > hbmKeepBytes || n < hbmKeepBytes/2 {
			t.Fatalf("cycle %d: %d bytes kept, want at most %d (and most of it)", cycle, n, hbmKeepBytes)
		}
	}
	// Runs of one page: none of the 16-page buffers fits (at most twice the pages), so new
	// buffers are made, and the next Reset keeps them first.
	for a := uint64(0); a < 64*HBMPageSize; a += 2 * HBMPageSize {
		if err := m.WriteAt(a, []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	m.Reset()
	if n := keptBytes(); n > hbmKeepBytes || len(m.free[0].mem) != HBMPageSize || len(m.free[31].mem) != HBMPageSize {
		t.Fatalf("%d bytes kept; the first kept runs are of %d and %d bytes, want the 32 new runs of one page first", n, len(m.free[0].mem), len(m.free[31].mem))
	}
	// A reused buffer larger than its run: the bytes written past the run's pages before are
	// cleared too, so a later run over the whole buffer reads zero.
	m = newMem(t, isa.CAYMAN, Options{})
	if err := m.WriteAt(HBMPageSize+5, bytes.Repeat([]byte{7}, HBMPageSize)); err != nil { // a run of pages 1-2
		t.Fatal(err)
	}
	m.Reset()
	if err := m.WriteAt(0, []byte{9}); err != nil { // one page on the two-page buffer
		t.Fatal(err)
	}
	m.Reset()
	if _, ok := m.Slice(0, 2*HBMPageSize); !ok { // two pages on it again
		t.Fatal("Slice refused")
	}
	if len(m.runs) != 1 || len(m.runs[0].mem) != 2*HBMPageSize || len(m.free) != 0 {
		t.Fatalf("%d runs, %d kept, want one on the kept two-page buffer", len(m.runs), len(m.free))
	}
	b := make([]byte, 2*HBMPageSize)
	if err := m.ReadAt(0, b); err != nil || !bytes.Equal(b, make([]byte, len(b))) {
		t.Fatalf("a reused buffer reads %v, nonzero at %d", err, bytes.IndexFunc(b, func(r rune) bool { return r != 0 }))
	}
}

// BenchmarkResetHBM: one program's HBM traffic on a memory reused from program to program, as
// kernel's fuzz targets load it: a 32 KiB input, an 8 KiB one and a 64 KiB output slice, then
// Reset.
func BenchmarkResetHBM(b *testing.B) {
	m := newMem(b, isa.CAYMAN, Options{})
	in, idx := make([]byte, 32<<10), make([]byte, 8<<10)
	b.ReportAllocs()
	for b.Loop() {
		if m.WriteAt(0, in) != nil || m.WriteAt(1<<20, idx) != nil {
			b.Fatal("WriteAt")
		}
		if _, ok := m.Slice(2<<20, 64<<10); !ok {
			b.Fatal("Slice")
		}
		m.Reset()
	}
}
