package dve

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

const psumBase = 0x2000000

func sbufAddr(g isa.Generation, part int, off int) isa.Addr4 {
	return isa.Addr4(uint32(part)*g.Geometry().StateBufPartitionSize + uint32(off))
}

func psumAddr(part int, off int) isa.Addr4 {
	return isa.Addr4(psumBase + uint32(part)*32*1024 + uint32(off))
}

func pat(a isa.Addr4, step [4]int16, n [4]uint16) isa.Tensor4D {
	return isa.Tensor4D{StartAddr: a, StepElem: step, NumElem: n}
}

func lin(a isa.Addr4, n int) isa.Tensor4D {
	return pat(a, [4]int16{1, 1, 1, 1}, [4]uint16{uint16(n), 1, 1, 1})
}

func s4(op isa.Opcode, src, dst isa.Tensor4D, in, out isa.DType, nac int) *isa.S4D4TR {
	return &isa.S4D4TR{
		Header:        isa.Header{Opcode: op, InstWordLen: isa.InstWordLen},
		SrcMemPattern: src, DstMemPattern: dst,
		InDtype: in, OutDtype: out, NumActiveChannels: uint8(nac),
	}
}

func newMem(t testing.TB, g isa.Generation, o mem.Options) *mem.Memory {
	t.Helper()
	m, err := mem.New(g, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// window is the part of each partition the whole-memory helpers touch.
const window = 64 << 10

// noise is a block of random bytes the fill helpers copy from.
var noise = func() []byte {
	b := make([]byte, 1<<20)
	rand.New(rand.NewSource(99)).Read(b)
	return b
}()

// fillRandom fills the test windows of SBUF and PSUM of every memory with the same bytes.
func fillRandom(rng *rand.Rand, ms ...*mem.Memory) {
	for _, r := range []mem.Region{mem.SBUF, mem.PSUM} {
		for p := 0; p < ms[0].NumPartitions(r); p++ {
			w := min(window, ms[0].PartitionActive(r))
			o := rng.Intn(len(noise) - w)
			for _, m := range ms {
				copy(m.Partition(r, p)[:w], noise[o:o+w])
				m.MarkInit(r, p, 0, w)
			}
		}
	}
}

// instSpans returns the spans an S4D4_TR instruction touches, widened by a margin.
func instSpans(m *mem.Memory, in *isa.S4D4TR) []mem.Span {
	var out []mem.Span
	for i, t := range []isa.Tensor4D{in.SrcMemPattern, in.DstMemPattern} {
		es := in.InDtype.Size()
		if i == 1 {
			es = in.OutDtype.Size()
		}
		p, err := m.Pattern(t, max(es, 1), int(in.NumActiveChannels), false)
		if err != nil {
			continue
		}
		s := p.Span()
		s.Lo = uint32(max(0, int(s.Lo)-64))
		s.Hi = uint32(min(m.PartitionActive(s.Region), int(s.Hi)+64))
		out = append(out, s)
	}
	return out
}

// fillSpans fills the given spans of every memory with the same random bytes.
func fillSpans(rng *rand.Rand, spans []mem.Span, ms ...*mem.Memory) {
	for _, s := range spans {
		w := int(s.Hi - s.Lo)
		for p := s.FirstPartition; p < s.FirstPartition+s.NumPartitions; p++ {
			o := rng.Intn(len(noise) - w)
			for _, m := range ms {
				copy(m.Partition(s.Region, p)[s.Lo:s.Hi], noise[o:o+w])
				m.MarkInit(s.Region, p, int(s.Lo), w)
			}
		}
	}
}

// diffSpans reports the first difference between two memories inside the spans.
func diffSpans(spans []mem.Span, a, b *mem.Memory) string {
	for _, s := range spans {
		for p := s.FirstPartition; p < s.FirstPartition+s.NumPartitions; p++ {
			x, y := a.Partition(s.Region, p)[s.Lo:s.Hi], b.Partition(s.Region, p)[s.Lo:s.Hi]
			if !bytes.Equal(x, y) {
				for i := range x {
					if x[i] != y[i] {
						return fmt.Sprintf("%v partition %d offset %d: %02x vs %02x", s.Region, p, int(s.Lo)+i, x[i], y[i])
					}
				}
			}
		}
	}
	return ""
}

// diffMem reports the first difference between the test windows of two memories.
func diffMem(a, b *mem.Memory) string {
	var spans []mem.Span
	for _, r := range []mem.Region{mem.SBUF, mem.PSUM} {
		spans = append(spans, mem.Span{Region: r, NumPartitions: a.NumPartitions(r), Hi: uint32(min(window, a.PartitionActive(r)))})
	}
	return diffSpans(spans, a, b)
}

// walkOffsets lists a TENSOR4D walk's byte offsets element by element (dim 0 innermost).
func walkOffsets(t isa.Tensor4D, start int, es int) []int {
	var out []int
	for l := 0; l < int(t.NumElem[3]); l++ {
		for k := 0; k < int(t.NumElem[2]); k++ {
			for j := 0; j < int(t.NumElem[1]); j++ {
				for i := 0; i < int(t.NumElem[0]); i++ {
					e := i*int(t.StepElem[0]) + j*int(t.StepElem[1]) + k*int(t.StepElem[2]) + l*int(t.StepElem[3])
					out = append(out, start+e*es)
				}
			}
		}
	}
	return out
}

// naiveTranspose is the element-by-element reference of DESIGN.md §4 StreamTranspose.
func naiveTranspose(t testing.TB, m *mem.Memory, in *isa.S4D4TR) {
	t.Helper()
	es := in.InDtype.Size()
	sl, err := m.Resolve(in.SrcMemPattern.StartAddr)
	if err != nil {
		t.Fatal(err)
	}
	dl, err := m.Resolve(in.DstMemPattern.StartAddr)
	if err != nil {
		t.Fatal(err)
	}
	so := walkOffsets(in.SrcMemPattern, int(sl.Offset), es)
	do := walkOffsets(in.DstMemPattern, int(dl.Offset), es)
	nac := int(in.NumActiveChannels)
	E := len(so)
	S := make([][]byte, nac)
	for c := range S {
		part := m.Partition(sl.Region, sl.Partition+c)
		S[c] = make([]byte, E*es)
		for e, o := range so {
			copy(S[c][e*es:], part[o:o+es])
		}
	}
	for c := 0; c < nac; c++ {
		g, i := c/32, c%32
		part := m.Partition(dl.Region, dl.Partition+c)
		for e, o := range do {
			tt, j := e/32, e%32
			src := S[32*g+j][(32*tt+i)*es:]
			copy(part[o:o+es], src[:es])
		}
	}
}
