package dma_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// descFromBytes decodes fuzz bytes into a descriptor aimed near the test regions.
func descFromBytes(b []byte) (dma.Descriptor, isa.Generation, dma.BoundRegs) {
	get := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	i16 := func(i int) int64 { return int64(int16(binary.LittleEndian.Uint16([]byte{get(i), get(i + 1)}))) }
	g := isa.Generations[int(get(0))%len(isa.Generations)]
	d := dma.Descriptor{Kind: dma.Kind(get(1) % 6), Sem: -1}
	for k := 0; k < 4; k++ {
		d.Num[k] = uint32(get(2+k)) % 40
		d.Src.Step[k] = i16(6 + 2*k)
		d.Dst.Step[k] = i16(14 + 2*k)
	}
	if get(22)&1 != 0 {
		for k := 0; k < 4; k++ {
			d.DstNum[k] = uint32(get(23+k)) % 40
		}
	}
	d.Src.ElemSize = uint32(get(27)) % 20
	d.Dst.ElemSize = uint32(get(28)) % 20
	kinds := []num.Kind{0, num.FP32, num.FP16, num.BFLOAT16, num.INT8, num.UINT16, num.INT32, num.FP8_EXP4, num.FP4_EXP2, 0x17}
	d.In, d.Out = kinds[int(get(29))%len(kinds)], kinds[int(get(30))%len(kinds)]
	d.ComputeOp = isa.DGEComputeOp(get(31) % 7)
	bases := []uint64{0x10000, isa.DMALocalBase + 0x1000, isa.DMALocalBase + 0x2000000 + 64, 5, isa.DMALocalBase - 8}
	d.Src.Addr = bases[int(get(32))%len(bases)] + uint64(get(33))
	d.Dst.Addr = bases[int(get(34))%len(bases)] + uint64(get(35))
	d.Src.Bound = isa.BoundCheckReg(get(36))
	d.Dst.Bound = isa.BoundCheckReg(get(37))
	d.Src.BoundBase, d.Dst.BoundBase = d.Src.Addr, d.Dst.Addr
	var regs dma.BoundRegs
	for k := range regs {
		regs[k] = uint32(get(38)) * 97
	}
	switch d.Kind {
	case dma.KindGather:
		d.Indirect = &dma.Indirect{Mode: isa.IndirectMode(get(39) % 4), SrcIdx: isa.DMALocalBase + uint64(get(40))*4, DstIdx: isa.DMALocalBase + 0x800,
			Count: int(get(41)) % 70, SrcExtent: uint32(get(42)), DstExtent: uint32(get(43)), SrcIdxBound: isa.BoundCheckReg(get(44)), IdxBoundIsErr: get(45)&1 != 0}
	case dma.KindGatherXpose:
		d.GatherXpose = &dma.GatherXpose{Idx: isa.DMALocalBase + uint64(get(40))*4, IdxPartitions: int(get(41)) % 130, PartitionStride: 256 << 10,
			First: int(get(42)) % 64, Count: int(get(43)) % 64, Cols: int(get(44)) % 140, IdxBound: isa.BoundCheckReg(get(45)), SkipOOB: get(46)&1 != 0}
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

// checkJobErr: a failed job's error is one of the package's categories and names a rule.
func checkJobErr(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, fault.ErrBounds) && !errors.Is(err, fault.ErrInvalid) {
		t.Fatalf("error of no category: %v", err)
	}
	var r interface{ RuleID() string }
	if !errors.As(err, &r) || r.RuleID() == "" {
		t.Fatalf("error names no rule: %v", err)
	}
}

// FuzzExecutor: any descriptor either fails its checks or runs; nothing panics; a failure is
// categorised, names a rule, and (on the plain memory path, where writes can be counted) writes
// nothing.
func FuzzExecutor(f *testing.F) {
	f.Add([]byte{1, 1, 4, 4, 1, 1, 1, 0, 4, 0, 0, 0, 0, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2})
	f.Add([]byte{2, 2, 16, 100, 2, 1, 100, 0, 1, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 1, 0})
	f.Add([]byte{3, 3, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 3, 20, 50, 50})
	f.Add([]byte{1, 4, 1, 1, 1, 1, 1, 0, 0x10, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 9, 0, 3, 16, 0, 16, 64})
	f.Add([]byte{0, 1, 7, 3, 2, 2, 0xff, 0xff, 3, 0, 7, 0, 9, 0, 1, 0, 7, 0, 21, 0, 42, 0, 1, 3, 7, 2, 1, 4, 2, 1, 2, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, g, regs := descFromBytes(b)
		m := dmatest.New(g)
		e := dma.New(g)
		e.Regs = regs
		e.MaxJobBytes = 1 << 22
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
	})
}
