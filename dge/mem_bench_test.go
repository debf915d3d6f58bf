package dge

import (
	"math/rand"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// plainMem hides mem's fast paths (Slice, CheckRange): the engines then probe and move bytes
// with ReadAt / WriteAt only, as they did before mem had them.
type plainMem struct{ m *mem.Memory }

func (p plainMem) ReadAt(a uint64, b []byte) error  { return p.m.ReadAt(a, b) }
func (p plainMem) WriteAt(a uint64, b []byte) error { return p.m.WriteAt(a, b) }

// BenchmarkRealMemory runs DGE plans on the machine's memory model (package mem) rather than
// the dmatest double: "mem" with its Slice / CheckRange fast paths, "plain" through ReadAt /
// WriteAt only. The source is loaded with one WriteAt, the destination is fresh before the
// warm-up run.
func BenchmarkRealMemory(b *testing.B) {
	cases := []struct {
		name     string
		g        isa.Generation
		src, dst uint64
		shape    []int
		perm     []int
		d        isa.DType
	}{
		{"transpose4096x4096_hbm", isa.CAYMAN, 0, 0x10000000, []int{4096, 4096}, []int{1, 0}, isa.DTypeBFLOAT16},
		{"transpose2d_to_sbuf", isa.MARIANA, 0x10000000, 0, []int{131072, 128}, []int{1, 0}, isa.DTypeBFLOAT16},
		{"contiguous64MiB", isa.CAYMAN, 0x10000000, 0x80000000, []int{64 << 20}, nil, isa.DTypeUINT8},
	}
	for _, c := range cases {
		for _, plain := range []bool{false, true} {
			name := c.name + "/mem"
			if plain {
				name = c.name + "/plain"
			}
			b.Run(name, func(b *testing.B) {
				dst := c.dst
				if dst == 0 {
					dst = sbufAddr(c.g, 0, 0)
				}
				m, err := mem.New(c.g, mem.Options{})
				if err != nil {
					b.Fatal(err)
				}
				n := c.d.Size()
				for _, x := range c.shape {
					n *= x
				}
				buf := make([]byte, n)
				rand.New(rand.NewSource(1)).Read(buf)
				if err := m.WriteAt(c.src, buf); err != nil {
					b.Fatal(err)
				}
				req, err := TensorRequest(c.g, c.src, dst, c.shape, c.perm, c.d)
				if err != nil {
					b.Fatal(err)
				}
				p, err := PlanRequest(req, Options{Quiet: true})
				if err != nil {
					b.Fatal(err)
				}
				var dm dma.Memory = m
				if plain {
					dm = plainMem{m}
				}
				eng := dma.New(c.g)
				if _, err := eng.Run(dm, &p.Job); err != nil { // warm up: allocates the destination
					b.Fatal(err)
				}
				b.SetBytes(int64(n))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := eng.Run(dm, &p.Job); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(p.Descriptors), "descriptors")
			})
		}
	}
}
