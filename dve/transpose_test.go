package dve

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// TestStreamTransposeTile pins the mapping O[32g+i][32t+j] = S[32g+j][32t+i] on one tile.
func TestStreamTransposeTile(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	for c := 0; c < 32; c++ {
		p := m.Partition(mem.SBUF, c)
		for e := 0; e < 64; e++ {
			p[e] = byte(c*8 + e) // distinct within a tile... enough for the check below
		}
	}
	var d DVE
	in := s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 64), lin(sbufAddr(g, 0, 1024), 64), isa.DTypeUINT8, isa.DTypeUINT8, 32)
	eff, err := d.Execute(m, in, g)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 32; i++ {
		for e := 0; e < 64; e++ {
			tt, j := e/32, e%32
			want := byte(j*8 + 32*tt + i)
			if got := m.Partition(mem.SBUF, i)[1024+e]; got != want {
				t.Fatalf("O[%d][%d] = %d, want %d", i, e, got, want)
			}
		}
	}
	if eff.BytesRead != 32*64 || eff.BytesWritten != 32*64 || len(eff.Writes) != 1 || eff.Writes[0].Lo != 1024 {
		t.Errorf("effect %+v", eff)
	}
}

type transposeCase struct {
	name     string
	src, dst isa.Tensor4D
}

// transposeLayouts returns src/dst pattern pairs for E elements of es bytes over the test window.
func transposeLayouts(g isa.Generation, rng *rand.Rand, E, es int, psumOK bool) []transposeCase {
	T := E / 32
	var cs []transposeCase
	cs = append(cs, transposeCase{"contiguous", lin(sbufAddr(g, 0, 0), E), lin(sbufAddr(g, 0, 16384), E)})
	cs = append(cs, transposeCase{"shorter-dst", lin(sbufAddr(g, 0, 64), E), lin(sbufAddr(g, 0, 20000-20000%es), E-1-rng.Intn(32))})
	cs = append(cs, transposeCase{"strided-src", pat(sbufAddr(g, 0, 8), [4]int16{2, int16(2 * 32), 1, 1}, [4]uint16{32, uint16(T), 1, 1}),
		lin(sbufAddr(g, 0, 24000), E)})
	cs = append(cs, transposeCase{"strided-dst-4d", lin(sbufAddr(g, 0, 0), E),
		pat(sbufAddr(g, 0, 30000), [4]int16{3, 100, -1, 1}, [4]uint16{uint16(E / 4 / 2), 2, 2, 2})})
	cs = append(cs, transposeCase{"negative", pat(sbufAddr(g, 0, (E-1)*es+4000), [4]int16{-1, 1, 1, 1}, [4]uint16{uint16(E), 1, 1, 1}),
		pat(sbufAddr(g, 0, 40000+es*(E-1)), [4]int16{-1, 1, 1, 1}, [4]uint16{uint16(E), 1, 1, 1})})
	cs = append(cs, transposeCase{"in-place", lin(sbufAddr(g, 0, 512), E), lin(sbufAddr(g, 0, 512), E)})
	cs = append(cs, transposeCase{"overlap-shifted", lin(sbufAddr(g, 0, 512), E), lin(sbufAddr(g, 0, 512+16*es), E)})
	cs = append(cs, transposeCase{"broadcast-src", pat(sbufAddr(g, 0, 100*es), [4]int16{1, 0, 1, 1}, [4]uint16{32, uint16(T), 1, 1}),
		lin(sbufAddr(g, 0, 50000), E)})
	cs = append(cs, transposeCase{"partitions-offset", lin(sbufAddr(g, 0, 0), E), lin(sbufAddr(g, 0, 10000), E)})
	if psumOK && es == 4 && E*es <= 16384 {
		cs = append(cs, transposeCase{"psum-dst", lin(sbufAddr(g, 0, 0), E), lin(psumAddr(0, 0), E)})
	}
	if psumOK && E*es <= 16384 {
		cs = append(cs, transposeCase{"psum-src", lin(psumAddr(0, 0), E), lin(sbufAddr(g, 0, 8192), E)})
	}
	return cs
}

// TestStreamTransposeImplementationsAgree is the exhaustive agreement check: over dtype
// widths, channel counts {32,64,96,128}, tile counts and layouts on random data, the fast path,
// the butterfly model and the naive reference leave identical memory.
func TestStreamTransposeImplementationsAgree(t *testing.T) {
	g := isa.CAYMAN
	rng := rand.New(rand.NewSource(7))
	fast, bfly, ref := newMem(t, g, mem.Options{}), newMem(t, g, mem.Options{}), newMem(t, g, mem.Options{})
	dtypes := map[int]isa.DType{1: isa.DTypeUINT8, 2: isa.DTypeBFLOAT16, 4: isa.DTypeFP32}
	cases := 0
	for _, es := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%dB", es), func(t *testing.T) {
			for _, nac := range []int{32, 64, 96, 128} {
				for _, T := range []int{1, 2, 3, 5, 8} {
					E := 32 * T
					for _, lc := range transposeLayouts(g, rng, E, es, true) {
						for _, part := range []int{0, 128 - nac} {
							name := fmt.Sprintf("es%d/nac%d/T%d/%s/p%d", es, nac, T, lc.name, part)
							src, dst := lc.src, lc.dst
							src.StartAddr += isa.Addr4(uint32(part) * g.Geometry().StateBufPartitionSize)
							if dst.StartAddr.ByteAddr() >= psumBase {
								dst.StartAddr += isa.Addr4(uint32(part) * 32 * 1024)
							} else {
								dst.StartAddr += isa.Addr4(uint32(part) * g.Geometry().StateBufPartitionSize)
							}
							if src.StartAddr.ByteAddr() >= psumBase {
								src.StartAddr = src.StartAddr - isa.Addr4(uint32(part)*g.Geometry().StateBufPartitionSize) + isa.Addr4(uint32(part)*32*1024)
							}
							in := s4(isa.OpSTREAM_TRANSPOSE, src, dst, dtypes[es], dtypes[es], nac)
							spans := instSpans(fast, in)
							fillSpans(rng, spans, fast, bfly, ref)
							df := DVE{Transpose: TransposeFast}
							db := DVE{Transpose: TransposeButterfly}
							if _, err := df.Execute(fast, in, g); err != nil {
								t.Fatalf("%s: fast: %v", name, err)
							}
							if _, err := db.Execute(bfly, in, g); err != nil {
								t.Fatalf("%s: butterfly: %v", name, err)
							}
							naiveTranspose(t, ref, in)
							if d := diffSpans(spans, fast, ref); d != "" {
								t.Fatalf("%s: fast vs naive: %s", name, d)
							}
							if d := diffSpans(spans, bfly, ref); d != "" {
								t.Fatalf("%s: butterfly vs naive: %s", name, d)
							}
							cases++
						}
					}
				}
			}
		})
	}
	t.Logf("%d transpose cases agree", cases)
}

// TestStreamTransposeParallel runs instructions large enough for the goroutine path.
func TestStreamTransposeParallel(t *testing.T) {
	g := isa.CAYMAN
	rng := rand.New(rand.NewSource(3))
	for _, es := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("%dB", es), func(t *testing.T) {
			E := (5 << 20) / (128 * es) // 5 MiB per side: above parallelThreshold
			a, b := newMem(t, g, mem.Options{}), newMem(t, g, mem.Options{})
			fillBig := func() {
				buf := make([]byte, 2*E*es+64)
				for p := 0; p < 128; p++ {
					rng.Read(buf)
					copy(a.Partition(mem.SBUF, p), buf)
					copy(b.Partition(mem.SBUF, p), buf)
				}
			}
			fillBig()
			dt := map[int]isa.DType{1: isa.DTypeINT8, 2: isa.DTypeFP16, 4: isa.DTypeINT32}[es]
			in := s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), E), lin(sbufAddr(g, 0, E*es), E-5), dt, dt, 128)
			d1 := DVE{MaxProcs: 1}
			d4 := DVE{MaxProcs: 4}
			if _, err := d1.Execute(a, in, g); err != nil {
				t.Fatal(err)
			}
			if _, err := d4.Execute(b, in, g); err != nil {
				t.Fatal(err)
			}
			for p := 0; p < 128; p++ {
				if !bytes.Equal(a.Partition(mem.SBUF, p)[:2*E*es+64], b.Partition(mem.SBUF, p)[:2*E*es+64]) {
					t.Fatalf("es %d: partition %d differs between 1 and 4 procs", es, p)
				}
			}
		})
	}
}

func TestStreamTransposeErrorsAreAtomic(t *testing.T) {
	g := isa.CAYMAN
	m := newMem(t, g, mem.Options{})
	rng := rand.New(rand.NewSource(1))
	fillRandom(rng, m)
	snap := newMem(t, g, mem.Options{})
	fillRandom(rand.New(rand.NewSource(1)), snap)
	active := g.Geometry().StateBufPartitionActive
	var d DVE
	cases := []struct {
		in   *isa.S4D4TR
		rule string
		is   error
	}{
		{s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 64), lin(sbufAddr(g, 0, int(active)-32), 64), isa.DTypeUINT8, isa.DTypeUINT8, 32),
			"pattern_in_active_area", fault.ErrBounds},
		{s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 64), lin(sbufAddr(g, 100, 0), 64), isa.DTypeUINT8, isa.DTypeUINT8, 32),
			"start_addr_active_channels", fault.ErrBounds},
		{s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 64), lin(sbufAddr(g, 0, 4096), 64), isa.DTypeUINT8, isa.DTypeUINT8, 48),
			"has_multiple_32_channels", fault.ErrInvalid},
		{s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 48), lin(sbufAddr(g, 0, 4096), 48), isa.DTypeUINT8, isa.DTypeUINT8, 32),
			"has_transpose_src_element_count_t4d", fault.ErrInvalid},
		{s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 32), lin(sbufAddr(g, 0, 4096), 64), isa.DTypeUINT8, isa.DTypeUINT8, 32),
			"s4d4_tr_transpose_src_dst_count", fault.ErrInvalid},
		{s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 64), lin(psumAddr(0, 0), 64), isa.DTypeBFLOAT16, isa.DTypeBFLOAT16, 32),
			"psum_write_4byte_dtype", mem.ErrPSUMWrite},
		{s4(isa.OpSTREAM_TRANSPOSE, lin(sbufAddr(g, 0, 0), 64), lin(isa.Addr4(0x80000001), 64), isa.DTypeUINT8, isa.DTypeUINT8, 32),
			"addr4_immediate", fault.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			_, err := d.Execute(m, c.in, g)
			var e *Error
			if !errors.As(err, &e) || e.Rule != c.rule || !errors.Is(err, c.is) {
				t.Errorf("want rule %s (%v), got %v", c.rule, c.is, err)
			}
			if diff := diffMem(m, snap); diff != "" {
				t.Fatalf("rule %s: memory changed: %s", c.rule, diff)
			}
		})
	}
}

// TestParallelThresholdReached guards TestStreamTransposeParallel: its instructions must be
// large enough to take the goroutine path.
func TestParallelThresholdReached(t *testing.T) {
	d := DVE{MaxProcs: 4}
	if got := d.procs(5 << 20); got != 4 {
		t.Fatalf("procs(5 MiB) = %d, want 4: TestStreamTransposeParallel no longer runs in parallel", got)
	}
	if got := d.procs(1 << 20); got != 1 {
		t.Fatalf("procs(1 MiB) = %d, want 1", got)
	}
}
