package dma_test

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// fuzzKinds are the element types a fuzzed descriptor draws: raw bytes, the float and integer
// families, sub-byte FP4 and an unknown code.
var fuzzKinds = []num.Kind{0, num.FP32, num.FP16, num.BFLOAT16, num.INT8, num.UINT16, num.INT32, num.FP8_EXP4, num.FP4_EXP2, 0x17}

// descFromBytes decodes a few fuzz bytes into a bounded descriptor aimed near the test regions
// (HBM, SBUF partition 0, PSUM partition 0, just below PSUM where SBUF's last partition ends, and
// just below the on-chip window): every level counts 0..8 (at most 4096 elements), every step is
// -128..127 elements, elements are 0..19 bytes, so one execution touches at most a few pages and
// moves at most 80 KiB. Bytes past the input read as 0.
//
//	0 gen, 1 kind, 2..5 num_elem, 6..9 src steps, 10..13 dst steps, 14 bit 0: a dst nest of its
//	own, 15..18 dst num_elem, 19/20 src/dst elem_size, 21/22 in/out kind, 23 compute_op,
//	24/25 src base/offset, 26/27 dst base/offset, 28/29 src/dst bound register, 30 register
//	value, 31..37 the INDIRECT1D or GATHER_XPOSE fields.
func descFromBytes(b []byte) (dma.Descriptor, isa.Generation, dma.BoundRegs) {
	get := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	g := isa.Generations[int(get(0))%len(isa.Generations)]
	geo := g.Geometry()
	d := dma.Descriptor{Kind: dma.Kind(get(1) % 6), Sem: -1}
	for k := 0; k < 4; k++ {
		d.Num[k] = uint32(get(2+k)) % 9
		d.Src.Step[k] = int64(int8(get(6 + k)))
		d.Dst.Step[k] = int64(int8(get(10 + k)))
		if get(14)&1 != 0 {
			d.DstNum[k] = uint32(get(15+k)) % 9
		}
	}
	d.Src.ElemSize = uint32(get(19)) % 20
	d.Dst.ElemSize = uint32(get(20)) % 20
	d.In, d.Out = fuzzKinds[int(get(21))%len(fuzzKinds)], fuzzKinds[int(get(22))%len(fuzzKinds)]
	d.ComputeOp = isa.DGEComputeOp(get(23) % 7)
	psum := isa.DMALocalBase + uint64(geo.PSUMOffset)
	bases := []uint64{0x10000, isa.DMALocalBase + 0x1000, psum + 64, psum - 64, 5, isa.DMALocalBase - 8}
	d.Src.Addr = bases[int(get(24))%len(bases)] + uint64(get(25))
	d.Dst.Addr = bases[int(get(26))%len(bases)] + uint64(get(27))
	d.Src.Bound = isa.BoundCheckReg(get(28))
	d.Dst.Bound = isa.BoundCheckReg(get(29))
	d.Src.BoundBase, d.Dst.BoundBase = d.Src.Addr, d.Dst.Addr
	var regs dma.BoundRegs
	for k := range regs {
		regs[k] = uint32(get(30)) * 97
	}
	switch d.Kind {
	case dma.KindGather:
		d.Indirect = &dma.Indirect{Mode: isa.IndirectMode(get(31) % 4), SrcIdx: isa.DMALocalBase + uint64(get(32))*4, DstIdx: isa.DMALocalBase + 0x800,
			Count: int(get(33)) % 70, SrcExtent: uint32(get(34)), DstExtent: uint32(get(35)), SrcIdxBound: isa.BoundCheckReg(get(36)), IdxBoundIsErr: get(37)&1 != 0}
	case dma.KindGatherXpose:
		d.GatherXpose = &dma.GatherXpose{Idx: isa.DMALocalBase + uint64(get(32))*4, IdxPartitions: int(get(33)) % 130, PartitionStride: uint64(geo.StateBufPartitionSize),
			First: int(get(34)) % 64, Count: int(get(35)) % 64, Cols: int(get(31)) % 140, IdxBound: isa.BoundCheckReg(get(36)), SkipOOB: get(37)&1 != 0}
	}
	return d, g, regs
}

// countingMem is the plain (ReadAt/WriteAt only) memory path, counting the writes that land.
type countingMem struct {
	dmatest.Plain
	writes int
}

func (c *countingMem) WriteAt(addr uint64, b []byte) error {
	err := c.Plain.WriteAt(addr, b)
	if err == nil && len(b) > 0 {
		c.writes++
	}
	return err
}

// checkJobErr: a failed job's error is one of fault's categories and names a rule.
func checkJobErr(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, fault.ErrBounds) && !errors.Is(err, fault.ErrInvalid) {
		t.Fatalf("error of no category: %v", err)
	}
	if fault.Rule(err) == "" {
		t.Fatalf("error names no rule: %v", err)
	}
}

// fuzzMems holds one reusable memory per generation for the fuzz iterations of this process;
// each iteration starts from Reset's zeros instead of allocating SBUF and PSUM again.
var fuzzMems = map[isa.Generation]*dmatest.Memory{}

func fuzzMem(g isa.Generation) *dmatest.Memory {
	m := fuzzMems[g]
	if m == nil {
		m = dmatest.NewReusable(g)
		fuzzMems[g] = m
	}
	m.Reset()
	return m
}

// FuzzExecutor: any descriptor either fails its checks or runs; nothing panics; a failure is
// categorised, names a rule, and (on the plain memory path, where writes can be counted) writes
// nothing.
func FuzzExecutor(f *testing.F) {
	f.Add([]byte{1, 1, 4, 4, 1, 1, 1, 4, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0, 0, 2, 2})                                                                     // a 4x4 copy
	f.Add([]byte{1, 2, 8, 8, 1, 1, 8, 1, 0, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 1, 0})                                                // a crossbar tile into SBUF
	f.Add([]byte{2, 3, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 3, 20, 50, 50})                     // a gather
	f.Add([]byte{1, 4, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9, 16, 3, 128, 0, 16})                    // a gather transpose
	f.Add([]byte{0, 1, 7, 3, 2, 2, 0x81, 3, 7, 9, 1, 0xf9, 21, 42, 1, 3, 7, 2, 1, 4, 2, 1, 2, 1})                                                    // a cast with its own dst nest
	f.Add([]byte{2, 1, 8, 8, 1, 1, 1, 8, 0, 0, 1, 8, 0, 0, 0, 0, 0, 0, 0, 16, 16, 6, 6, 0, 0, 0, 3, 0})                                              // SBUF's last partition into PSUM (0d33204)
	f.Add([]byte{3, 1, 8, 8, 8, 8, 0x7f, 0x80, 0x7f, 0x80, 0x7f, 0x80, 0x7f, 0x80, 0, 0, 0, 0, 0, 19, 19, 1, 2, 1, 1, 0xff, 2, 0xff, 0x85, 0x85, 1}) // wide steps, bounds
	f.Fuzz(executorCase)
}

// executorCase is FuzzExecutor's body.
func executorCase(t *testing.T, b []byte) {
	d, g, regs := descFromBytes(b)
	m := fuzzMem(g)
	e := dma.New(g)
	e.Regs = regs
	if _, err := e.Run(m, &dma.Job{Queues: [][]dma.Descriptor{{d}}, Sem: -1}); err != nil {
		checkJobErr(t, err)
	}
	cm := &countingMem{Plain: dmatest.Plain{M: m}}
	if _, err := e.Run(cm, &dma.Job{Queues: [][]dma.Descriptor{{d}}, Sem: -1}); err != nil {
		checkJobErr(t, err)
		if cm.writes > 0 {
			t.Fatalf("failed job wrote %d times: %v", cm.writes, err)
		}
	}
}

// TestFuzzExecutorCrashers runs the descriptors the fuzzer found, in the form they were found
// (the decoder of the time), so they stay pinned whatever the decoder becomes.
func TestFuzzExecutorCrashers(t *testing.T) {
	mariana := isa.MARIANA_PLUS.Geometry()
	for _, c := range []struct {
		name string
		gen  isa.Generation
		d    dma.Descriptor
	}{
		// 0d33204 (testdata/fuzz/FuzzExecutor/f758311e6a8ea640 under the old 40-per-level decoder):
		// a destination walking back from PSUM partition 0 into SBUF's last partition, which
		// abut on MARIANA_PLUS; dmatest copied the access across both as one slab and failed
		// it as "not mapped", an uncategorised error.
		{"SBUF into PSUM", isa.MARIANA_PLUS, dma.Descriptor{Kind: dma.KindCopy, Sem: -1, Num: [4]uint32{8, 9, 8, 8},
			Src: dma.Side{Addr: 53, ElemSize: 16, Step: [4]int64{12336, 12336, 12336, 12336}, BoundBase: 53},
			Dst: dma.Side{Addr: isa.DMALocalBase + uint64(mariana.PSUMOffset) + 113, ElemSize: 16, Step: [4]int64{12336, -1, 12336, 12336},
				BoundBase: isa.DMALocalBase + uint64(mariana.PSUMOffset) + 113},
			In: num.INT32, Out: num.INT32}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, m := range []dma.Memory{dmatest.New(c.gen), dmatest.Plain{M: dmatest.New(c.gen)}} {
				e := dma.New(c.gen)
				e.MaxJobBytes = 1 << 22
				if _, err := e.Run(m, &dma.Job{Queues: [][]dma.Descriptor{{c.d}}, Sem: -1}); err != nil {
					t.Errorf("%T: %v", m, err)
				}
			}
		})
	}
}
