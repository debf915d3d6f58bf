package dge

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

func runInst(t *testing.T, g isa.Generation, m dma.Memory, in isa.Inst, regs *dma.BoundRegs) (*Plan, error) {
	t.Helper()
	p, err := PlanInst(g, in, Config{}, Options{})
	if err != nil {
		return nil, err
	}
	e := dma.New(g)
	if regs != nil {
		e.Regs = *regs
	}
	_, err = e.Run(m, &p.Job)
	return p, err
}

func TestDirect2D(t *testing.T) {
	g := isa.MARIANA
	m := dmatest.New(g)
	src, dst := uint64(0x1000), uint64(0x9000)
	for i := 0; i < 4096; i++ {
		m.WriteAt(src+uint64(i), []byte{byte(i * 7)})
	}
	t.Run("a copy between element sizes", func(t *testing.T) {
		// 5 rows of 8 x 4-byte elements, row step 16 elements -> dst as 40 x 4-byte contiguous... as 20 x 8-byte
		in := &isa.DMADirect2D{Header: isa.Header{Opcode: 0xb8, InstWordLen: 16}, Semaphore: 3, SemIncrement: 1,
			SrcStartAddr: isa.Addr8(src), SrcStepElem: [2]int32{1, 16}, SrcNumElem: [2]uint16{8, 5}, SrcElemSize: 4,
			DstStartAddr: isa.Addr8(dst), DstStepElem: [2]int32{1, 10}, DstNumElem: [2]uint16{4, 5}, DstElemSize: 8,
			InDtype: isa.DTypeUINT32, OutDtype: isa.DTypeUINT32}
		p, err := runInst(t, g, m, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.Log[0] != "P0: DGE DIRECT2D" {
			t.Fatalf("first line %q", p.Log[0])
		}
		for r := 0; r < 5; r++ {
			want := make([]byte, 32)
			got := make([]byte, 32)
			m.ReadAt(src+uint64(r*64), want)
			m.ReadAt(dst+uint64(r*80), got)
			if string(got) != string(want) {
				t.Fatalf("row %d: got %x want %x", r, got, want)
			}
		}
	})
	t.Run("a cast with ADD", func(t *testing.T) {
		// a cast and a compute op: dst fp32 += src int16
		in2 := &isa.DMADirect2D{SrcStartAddr: isa.Addr8(src), SrcStepElem: [2]int32{1, 4}, SrcNumElem: [2]uint16{4, 2}, SrcElemSize: 2,
			DstStartAddr: isa.Addr8(0x20000), DstStepElem: [2]int32{1, 4}, DstNumElem: [2]uint16{4, 2}, DstElemSize: 4,
			InDtype: isa.DTypeINT16, OutDtype: isa.DTypeFP32, ComputeOp: isa.DGEComputeADD}
		for i := 0; i < 8; i++ {
			binary.LittleEndian.PutUint16(make([]byte, 2), 0)
			b := make([]byte, 2)
			binary.LittleEndian.PutUint16(b, uint16(int16(i-4)))
			m.WriteAt(src+uint64(2*i), b)
			f := make([]byte, 4)
			binary.LittleEndian.PutUint32(f, math.Float32bits(0.5))
			m.WriteAt(0x20000+uint64(4*i), f)
		}
		if _, err := runInst(t, g, m, in2, nil); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 8; i++ {
			b := make([]byte, 4)
			m.ReadAt(0x20000+uint64(4*i), b)
			if v := math.Float32frombits(binary.LittleEndian.Uint32(b)); v != float32(i-4)+0.5 {
				t.Fatalf("elem %d = %v", i, v)
			}
		}
	})
}

func putU32s(m dma.Memory, a uint64, vs []uint32) {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	m.WriteAt(a, b)
}

func TestIndirect1D(t *testing.T) {
	g := isa.CAYMAN
	m := dmatest.New(g)
	table := uint64(0x100000)
	for r := 0; r < 100; r++ {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, uint64(r)*0x0101010101)
		m.WriteAt(table+uint64(8*r), b)
	}
	idx := []uint32{5, 99, 0, 42, 7, 7, 150, 3}
	idxAddr := uint32(0x100) // SBUF partition 0
	putU32s(m, isa.DMALocalBase+uint64(idxAddr), idx)
	dst := uint64(0x200000)
	mk := func(isErr bool) *isa.DMAIndirect1D {
		return &isa.DMAIndirect1D{Semaphore: 1, SemIncrement: 4, IdxNumActiveChannels: 128,
			Flags:        isa.MakeDMAIndirectFlags(isa.SrcIndirection, isErr, false, isa.IndirectDimX, isa.IndirectDimX),
			SrcStartAddr: isa.Addr8(table), SrcStepElem: 1, SrcNumElem: 100, SrcElemSize: 8,
			DstStartAddr: isa.Addr8(dst), DstStepElem: 1, DstNumElem: uint16(len(idx)), DstElemSize: 8,
			SrcIdxStartAddr: isa.Addr4(idxAddr), InDtype: isa.DTypeUINT32, OutDtype: isa.DTypeUINT32}
	}
	t.Run("an index past the extent is an error", func(t *testing.T) {
		// index 150 >= src_num_elem 100: an error with idx_bound_is_err, nothing written; the
		// error names the index's position in the instruction's vector (6), not in the share
		// of the engine whose descriptor read it
		_, err := runInst(t, g, m, mk(true), nil)
		var ie *dma.IndexError
		if !errors.As(err, &ie) || ie.Pos != 6 || ie.Index != 150 || ie.Bound != 100 {
			t.Fatalf("want an index error at src_idx[6] = 150, legal < 100, got %v", err)
		}
		chk := make([]byte, 8*len(idx))
		m.ReadAt(dst, chk)
		for _, c := range chk {
			if c != 0 {
				t.Fatal("a failed gather wrote memory")
			}
		}
	})
	t.Run("a gather skipping the index past the extent", func(t *testing.T) {
		p, err := runInst(t, g, m, mk(false), nil)
		if err != nil {
			t.Fatal(err)
		}
		if p.NumDMA < 2 {
			t.Fatalf("gather should spread over engines, used %d", p.NumDMA)
		}
		for i, v := range idx {
			b := make([]byte, 8)
			m.ReadAt(dst+uint64(8*i), b)
			want := uint64(v) * 0x0101010101
			if v >= 100 {
				want = 0 // skipped
			}
			if got := binary.LittleEndian.Uint64(b); got != want {
				t.Fatalf("row %d (idx %d) = %x want %x", i, v, got, want)
			}
		}
	})
	t.Run("a bound register narrower than the extent", func(t *testing.T) {
		// index bound register narrower than the extent
		regs := &dma.BoundRegs{}
		regs[9] = 10
		in := mk(true)
		in.SrcIdxBoundReg = isa.BoundCheckReg(0x80 | 9)
		if _, err := runInst(t, g, m, in, regs); !errors.As(err, new(*dma.IndexError)) {
			t.Fatalf("index 99 >= bound register 10: want ErrIndex, got %v", err)
		}
	})
	t.Run("a scatter-add with duplicate indices", func(t *testing.T) {
		// scatter-add with duplicates, fp32
		sidx := []uint32{1, 3, 1, 0}
		putU32s(m, isa.DMALocalBase+0x400, sidx)
		vals := uint64(0x300000)
		for i := 0; i < 4; i++ {
			b := make([]byte, 4)
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(i+1)))
			m.WriteAt(vals+uint64(4*i), b)
		}
		acc := uint64(0x310000)
		sc := &isa.DMAIndirect1D{Semaphore: 2, SemIncrement: 1,
			Flags:        isa.MakeDMAIndirectFlags(isa.DstIndirection, true, true, isa.IndirectDimX, isa.IndirectDimX),
			SrcStartAddr: isa.Addr8(vals), SrcStepElem: 1, SrcNumElem: 4, SrcElemSize: 4,
			DstStartAddr: isa.Addr8(acc), DstStepElem: 1, DstNumElem: 4, DstElemSize: 4,
			DstIdxStartAddr: isa.Addr4(0x400), InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, ComputeOp: isa.DGEComputeADD}
		if _, err := runInst(t, g, m, sc, nil); err != nil {
			t.Fatal(err)
		}
		want := []float32{4, 1 + 3, 0, 2}
		for i, w := range want {
			b := make([]byte, 4)
			m.ReadAt(acc+uint64(4*i), b)
			if v := math.Float32frombits(binary.LittleEndian.Uint32(b)); v != w {
				t.Fatalf("acc[%d] = %v want %v", i, v, w)
			}
		}
	})
}

// nkiGatherTranspose is NKI's formula: flat = indices.T.flatten()[:n]; dst = src[flat,:].T.
func nkiGatherTranspose(src [][]uint16, indices [][]uint32, n int) [][]uint16 {
	P, K := len(indices), len(indices[0])
	var flat []uint32
	for k := 0; k < K; k++ { // indices.T.flatten(): column-major over indices
		for p := 0; p < P; p++ {
			flat = append(flat, indices[p][k])
		}
	}
	flat = flat[:n]
	F := len(src[0])
	dst := make([][]uint16, F)
	for f := range dst {
		dst[f] = make([]uint16, n)
		for j := 0; j < n; j++ {
			dst[f][j] = src[flat[j]][f]
		}
	}
	return dst
}

func TestGatherXposeNKI(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for iter := 0; iter < 40; iter++ {
		t.Run(fmt.Sprint(iter), func(t *testing.T) {
			g := []isa.Generation{isa.CAYMAN, isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK}[iter%4]
			m := dmatest.New(g)
			geo := g.Geometry()
			N := 16 + rng.Intn(300)
			F := 1 + rng.Intn(128)
			P := 16 * (1 + rng.Intn(8))
			n := 16 * (1 + rng.Intn(12))
			K := (n + P - 1) / P
			rowStep := F + rng.Intn(8)
			src := make([][]uint16, N)
			srcAddr := uint64(0x1000)
			for r := range src {
				src[r] = make([]uint16, F)
				for f := range src[r] {
					src[r][f] = uint16(rng.Intn(65536))
					b := []byte{byte(src[r][f]), byte(src[r][f] >> 8)}
					m.WriteAt(srcAddr+uint64(2*(r*rowStep+f)), b)
				}
			}
			idxOff := uint32(0x200)
			indices := make([][]uint32, P)
			for p := range indices {
				indices[p] = make([]uint32, K)
				for k := range indices[p] {
					indices[p][k] = uint32(rng.Intn(N))
				}
				putU32s(m, isa.DMALocalBase+uint64(uint32(p)*geo.StateBufPartitionSize+idxOff), indices[p])
			}
			dstOff := uint32(0x10000)
			dstStep := int32(geo.StateBufPartitionSize / 2)
			in := &isa.DMAGatherXpose{Semaphore: 4, IdxNumActiveChannels: uint8(P),
				SrcStartAddr: isa.Addr8(srcAddr), SrcStepElem: [2]int32{1, int32(rowStep)}, SrcNumElem: [2]uint16{uint16(F), uint16(n)},
				SrcIdxStartAddr: isa.Addr4(idxOff), DstStartAddr: isa.LocalAddr8(dstOff), DstStepElem1: dstStep,
				DstNumElem: [2]uint16{uint16(n), uint16(F)}, ElemSize: uint16(2 * F),
				Dtype: isa.MakeDTypePair(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}
			p, err := runInst(t, g, m, in, nil)
			if err != nil {
				t.Fatalf("N=%d F=%d P=%d n=%d: %v", N, F, P, n, err)
			}
			if p.Kind != KindGatherTranspose || p.Log[0] != "P0: DGE GATHER TRANSPOSE" {
				t.Fatalf("kind %v log %q", p.Kind, p.Log[0])
			}
			want := nkiGatherTranspose(src, indices, n)
			for f := 0; f < F; f++ {
				b := make([]byte, 2*n)
				m.ReadAt(isa.DMALocalBase+uint64(dstOff)+uint64(f)*uint64(geo.StateBufPartitionSize), b)
				for j := 0; j < n; j++ {
					if got := uint16(b[2*j]) | uint16(b[2*j+1])<<8; got != want[f][j] {
						t.Fatalf("%v N=%d F=%d P=%d n=%d: dst[%d][%d] = %x want %x", g, N, F, P, n, f, j, got, want[f][j])
					}
				}
			}
		})
	}
	// SUNDA has no gather transpose
	in := &isa.DMAGatherXpose{IdxNumActiveChannels: 128, SrcNumElem: [2]uint16{8, 16}, DstNumElem: [2]uint16{16, 8}, ElemSize: 16,
		Dtype: isa.MakeDTypePair(isa.DTypeFP16, isa.DTypeFP16), Flags: 1}
	if _, err := PlanInst(isa.SUNDA, in, Config{}, Options{}); !errors.Is(err, fault.ErrUnsupported) {
		t.Fatalf("SUNDA gather transpose: %v", err)
	}
}

func TestDirect2DXpose(t *testing.T) {
	g := isa.CAYMAN
	m := dmatest.New(g)
	in := &isa.DMADirect2DXpose{InDtype: isa.DTypeFP16, OutDtype: isa.DTypeFP16, TileSrcRowStep: 200, TileSrcRows: 16, TileSrcCols: 100, Semaphore: 1}
	binary.LittleEndian.PutUint64(in.Raw[xposeSrcOff:], 0x4000)
	binary.LittleEndian.PutUint64(in.Raw[xposeDstOff:], uint64(isa.LocalAddr8(0x100)))
	for r := 0; r < 16; r++ {
		for c := 0; c < 100; c++ {
			m.WriteAt(0x4000+uint64(2*(r*200+c)), []byte{byte(r), byte(c)})
		}
	}
	p, err := runInst(t, g, m, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindXbarTranspose {
		t.Fatalf("kind %v", p.Kind)
	}
	stride := uint64(g.Geometry().StateBufPartitionSize)
	for c := 0; c < 100; c++ {
		b := make([]byte, 32)
		m.ReadAt(isa.DMALocalBase+0x100+uint64(c)*stride, b)
		for r := 0; r < 16; r++ {
			if b[2*r] != byte(r) || b[2*r+1] != byte(c) {
				t.Fatalf("dst[%d][%d] = %x %x", c, r, b[2*r], b[2*r+1])
			}
		}
	}
}

// TestDirect2DXposePlacement: a DMA_TRANSPOSE the crossbar cannot run (misaligned or non-SBUF
// destination, PSUM source) is refused, not lowered to element-strided copies.
func TestDirect2DXposePlacement(t *testing.T) {
	g := isa.CAYMAN
	for _, c := range []struct {
		src, dst uint64
		ok       bool
	}{
		{0x4000, uint64(isa.LocalAddr8(0x100)), true},
		{0x4000, uint64(isa.LocalAddr8(0x102)), false},
		{0x4000, uint64(isa.LocalAddr8(0x110)), false},
		{0x4000, 0x100000, false},
		{uint64(isa.LocalAddr8(g.Geometry().PSUMOffset)), uint64(isa.LocalAddr8(0x100)), false},
	} {
		t.Run(fmt.Sprintf("src 0x%x dst 0x%x", c.src, c.dst), func(t *testing.T) {
			in := &isa.DMADirect2DXpose{InDtype: isa.DTypeFP16, OutDtype: isa.DTypeFP16, TileSrcRowStep: 200, TileSrcRows: 16, TileSrcCols: 100, Semaphore: 1}
			binary.LittleEndian.PutUint64(in.Raw[xposeSrcOff:], c.src)
			binary.LittleEndian.PutUint64(in.Raw[xposeDstOff:], c.dst)
			p, err := PlanInst(g, in, Config{}, Options{})
			if c.ok && (err != nil || p.Kind != KindXbarTranspose) {
				t.Errorf("src 0x%x dst 0x%x: %v", c.src, c.dst, err)
			}
			if !c.ok && (!errors.Is(err, fault.ErrInvalid) || ruleOf(err) != RuleXposePlacement) {
				t.Errorf("src 0x%x dst 0x%x: want rule %s, got %v", c.src, c.dst, RuleXposePlacement, err)
			}
		})
	}
}
