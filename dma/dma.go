// Package dma models the NeuronCore DMA engines (16 per NeuronCore, 8 on MAVERICK; FACTS §B.5)
// executing the descriptors the DGE reshape engine (package dge) produces: strided loop-nest
// copies with casts and reduce-on-copy compute ops, crossbar (xbar) transposes, INDIRECT1D
// gather/scatter and DmaGatherTranspose (seed 003 §3, FACTS §C).
//
// A Descriptor is one GENERATE RD + GENERATE WR + DIMPUSH nest (seed 003 §4.6): a loop nest of up
// to four levels, innermost first, walked on the source and on the destination. Before any byte
// of a job moves, every descriptor is bounds-checked against its BOUND_CHECK_REG limit and against
// the memory's active areas (FACTS §C.7; seed 003 §7 "S: DGE: Failed bounds check"); a job that fails changes
// no memory. Engines run concurrently (goroutines when the job is large). Timing is a modelled
// cost in nanoseconds (Timing), reported per descriptor as a trace Record, and the completion
// semaphore updates are returned as data (SemUpdate), never applied to a global.
//
// The package uses only the standard library and the isa and num packages; memory is the small
// Memory interface so the machine's memory model (package mem) plugs in without an import.
package dma

import (
	"fmt"
	"strconv"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// Memory is the device memory as the DMA engines see it: byte access by 64-bit device address
// with tpbsim's address map (isa.Addr8: below isa.DMALocalBase is HBM, DMALocalBase + a 29-bit
// on-chip address is SBUF/PSUM). An access outside the active areas must fail and change nothing.
// Implementations must allow concurrent calls on disjoint byte ranges.
type Memory interface {
	ReadAt(addr uint64, p []byte) error
	WriteAt(addr uint64, p []byte) error
}

// Slicer is an optional fast path: Slice returns a slice aliasing the backing bytes of
// [addr, addr+n) when that range lies in one contiguous backing allocation, and false otherwise
// (the executor then falls back to ReadAt/WriteAt). The executor calls it only on ranges whose
// every touched byte it has already checked, so Slice need not check active areas itself; a
// range may include bytes the walk skips (e.g. the inactive tail of an SBUF partition).
type Slicer interface {
	Slice(addr uint64, n int) ([]byte, bool)
}

// RangeChecker is an optional fast path for the pre-flight check: CheckRange reports an error
// when any byte of [addr, addr+n) is outside the active memory, or (write) may not be written
// (e.g. mem's PSUM 4-byte write rule). Without it the executor probes with ReadAt into a scratch
// buffer, and write-only rules are then enforced only when the bytes are written.
type RangeChecker interface {
	CheckRange(addr uint64, n uint64, write bool) error
}

// Kind is the descriptor family, in the DGE opcode's terms (FACTS §C.1 NEURON_ISA_TPB_DGE_OPCODE).
type Kind uint8

const (
	KindInvalid     Kind = iota
	KindCopy             // DMA_DIRECT2D: strided loop-nest copy (+ cast, + compute_op)
	KindXbar             // DMA_TRANSPOSE: copy whose two inner levels form crossbar tiles (<= 16 rows x 128 cols)
	KindGather           // DMA_INDIRECT1D: gather / scatter by uint32 indices
	KindGatherXpose      // DMA_GATHER_TRANSPOSE: gather rows by index, transpose through the xbar
)

func (k Kind) String() string {
	switch k {
	case KindCopy:
		return "DIRECT2D"
	case KindXbar:
		return "TRANSPOSE"
	case KindGather:
		return "INDIRECT"
	case KindGatherXpose:
		return "GATHER_TRANSPOSE"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MaxLevels is the depth of a descriptor's loop nest: the DGE working state has four dims
// (num_elem[4], step_elem[4]; seed 003 §4.5), one DIMPUSH each (§4.6).
const MaxLevels = 4

// MaxElemSize is the largest GENERATE elem_size: a u16 field where 0 means 64 KiB (FACTS §C.2).
const MaxElemSize = 64 << 10

// XbarRows and XbarCols are the crossbar tile for 2-byte dtypes (seed 003 §3.3: "Xbar transpose
// tiles are 16x128 for 2B dtypes"); 4-byte dtypes use 16x64 (FACTS §C.5 tile_src_cols 1..64).
const (
	XbarRows = 16
	XbarCols = 128
)

// XbarDstAlign is the crossbar's destination alignment in bytes: dst_start_addr % 32 == 0 and
// dst_step_elem[1] % 32 == 0, an "xbar HW constraint" (seed 003 §3.3; FACTS §C.4, §C.5).
const XbarDstAlign = 32

// XbarRowAligned is the crossbar's row-step rule: a destination step of step elements of
// elemSize bytes keeps every row (and tile) the crossbar writes on a 32-byte beat. The rule
// counts bytes: the seed gives it beside the 32-byte dst_start_addr alignment as one "xbar HW
// constraint", and FACTS §C.4 counts GATHER_XPOSE's implicit dim-0 step as sizeof(dtype_hi)
// (Provenance dge.gather_xpose_dst_step).
func XbarRowAligned(step int64, elemSize uint32) bool {
	return step*int64(elemSize)%XbarDstAlign == 0
}

// XbarColsFor is the crossbar tile width for an element of size bytes (128 for 2 B, 64 for 4 B;
// 0 when the xbar does not take that size).
func XbarColsFor(size int) int {
	switch size {
	case 2:
		return XbarCols
	case 4:
		return XbarCols / 2
	}
	return 0
}

// Side is one end (source or destination) of a descriptor: the GENERATE address and elem_size
// and the DIMPUSH steps, in elements of ElemSize (the firmware's step_elem unit, signed).
type Side struct {
	Addr     uint64 // device address (isa.Addr8 map)
	ElemSize uint32 // bytes per element, 1..MaxElemSize
	Step     [MaxLevels]int64
	// Bound is the BOUND_CHECK_REG of this side; BoundBase is the address the bound is measured
	// from (the instruction's start address). See Provenance "dma.bound_check".
	Bound     isa.BoundCheckReg
	BoundBase uint64
}

// Indirect carries the INDIRECT1D fields (FACTS §C.3). Row i of the transfer moves one element
// (ElemSize bytes) between Src.Addr + s*Src.Step[0]*Src.ElemSize and
// Dst.Addr + d*Dst.Step[0]*Dst.ElemSize, where s (d) is the i-th source (destination) index for
// an indirected side and i otherwise. See Provenance "dma.indirect1d".
type Indirect struct {
	Mode           isa.IndirectMode
	SrcIdx, DstIdx uint64 // device addresses of the uint32 index vectors (SBUF partition 0)
	Count          int    // rows moved
	// First is the position in the instruction's index vector of this descriptor's first row
	// (SrcIdx is that index's address): the DGE fans one instruction's rows out over the
	// engines, and an index error names the position in the vector the program wrote.
	First         int
	SrcExtent     uint32 // src_num_elem: the index bound of an indirected source
	DstExtent     uint32 // dst_num_elem
	SrcIdxBound   isa.BoundCheckReg
	DstIdxBound   isa.BoundCheckReg
	IdxBoundIsErr bool // flags.idx_bound_is_err: an out-of-bound index is an error, else the row is skipped
}

// GatherXpose carries the DMA_GATHER_XPOSE fields (FACTS §C.4) for the rows [First, First+Count)
// of the flat index list this descriptor handles (whole 16-row xbar tiles). With NKI's
// `flat = indices.T.flatten()[:n]; dst = src[flat,:].T` (NKI.md), it writes
// dst[f][j] = src[flat[j]][f] for f < Cols and First <= j < First+Count, where flat[m] is the
// uint32 at Idx + (m % IdxPartitions)*PartitionStride + (m / IdxPartitions)*4. Src.Step[0] is the
// column step and Src.Step[1] the row step of the source; Dst.Step[1] is dst_step_elem_1 (the
// dst row step; the column step is the implicit 1). See Provenance "dma.gather_xpose.mapping".
type GatherXpose struct {
	Idx             uint64
	IdxPartitions   int
	PartitionStride uint64
	First, Count    int
	Cols            int
	IdxBound        isa.BoundCheckReg
	SkipOOB         bool // IdxBound.DisableOOBErrorNotif: skip (leave dst untouched) instead of failing
}

// Descriptor is one DMA descriptor: [REGWRITE] GENERATE RD, GENERATE WR, DIMPUSH per level.
// For KindCopy and KindXbar, element (i0..i3) with i_k < Num[k] moves from
// Src.Addr + sum(i_k*Src.Step[k])*Src.ElemSize to Dst.Addr + sum(i_k*Dst.Step[k])*Dst.ElemSize;
// when DstNum is non-zero the destination walks its own nest (DstNum) over the same element
// stream (a reshape whose two nests have no common refinement), both nests innermost first.
type Descriptor struct {
	Kind   Kind
	Queue  int
	Num    [MaxLevels]uint32 // unused levels are 1
	DstNum [MaxLevels]uint32 // zero: the destination walks Num
	Src    Side
	Dst    Side
	// In and Out are the element types; 0 (num.INVALID) means raw bytes. When both are set and
	// differ, each element is ElemSize/size values converted through FP32 (num.ConvertSlice).
	In, Out   num.Kind
	ComputeOp isa.DGEComputeOp
	// Sem is the semaphore the WR GENERATE names (sem_num), -1 for none.
	Sem         int
	Indirect    *Indirect
	GatherXpose *GatherXpose
}

// Levels is the number of DIMPUSH levels: the nest depth without trailing unit levels (>= 1).
func (d *Descriptor) Levels() int {
	n := 1
	for k := 1; k < MaxLevels; k++ {
		if d.Num[k] > 1 || (d.DstNum[k] > 1) {
			n = k + 1
		}
	}
	return n
}

// Elements is the number of elements (rows for INDIRECT / gather-transpose) the descriptor moves.
func (d *Descriptor) Elements() uint64 {
	switch d.Kind {
	case KindGather:
		if d.Indirect != nil {
			return uint64(d.Indirect.Count)
		}
		return 0
	case KindGatherXpose:
		if d.GatherXpose != nil {
			return uint64(d.GatherXpose.Count) * uint64(d.GatherXpose.Cols)
		}
		return 0
	}
	n := uint64(1)
	for _, v := range d.Num {
		n *= uint64(v)
	}
	return n
}

// Bytes is the number of destination bytes the descriptor writes.
func (d *Descriptor) Bytes() uint64 {
	return d.Elements() * uint64(d.Dst.ElemSize)
}

// dstNum is the destination nest.
func (d *Descriptor) dstNum() [MaxLevels]uint32 {
	if d.DstNum == ([MaxLevels]uint32{}) {
		return d.Num
	}
	return d.DstNum
}

// BoundRegs is the register file the BOUND_CHECK_REG fields name (bc_reg: 6 bits, 64 registers of
// 32 bits; bc_reg+1 holds the high word in wide-offset mode, FACTS §C.6). The caller sets it.
type BoundRegs [64]uint32

// Validate checks the descriptor's own shape (not memory): counts, element sizes, cast sizes,
// xbar tile limits. It is called by the executor before a job runs. A failure is a
// *DescriptorError naming the field.
func (d *Descriptor) Validate() error {
	if err := d.validate(); err != nil {
		return err
	}
	return nil
}

func (d *Descriptor) validate() *DescriptorError {
	switch d.Kind {
	case KindCopy, KindXbar, KindGather, KindGatherXpose:
	default:
		return descErr("kind", "unknown kind %v", d.Kind)
	}
	if d.Src.ElemSize == 0 || d.Src.ElemSize > MaxElemSize || d.Dst.ElemSize == 0 || d.Dst.ElemSize > MaxElemSize {
		return descErr(elemSizeField(d), "elem_size src %d dst %d outside 1..%d", d.Src.ElemSize, d.Dst.ElemSize, MaxElemSize)
	}
	if d.ComputeOp > isa.DGEComputeMIN {
		return descErr("compute_op", "compute_op %v", d.ComputeOp)
	}
	if (d.In != 0) != (d.Out != 0) {
		return descErr("out_dtype", "in and out dtypes must both be set or both be raw")
	}
	if d.In != 0 {
		for _, k := range []num.Kind{d.In, d.Out} {
			if !k.Numeric() || k.SizeBits() < 8 || k.SizeBits()%8 != 0 {
				return descErr(kindField(k == d.In), "dtype %v has no whole-byte element encoding", k)
			}
		}
		is, os := uint32(d.In.Size()), uint32(d.Out.Size())
		if d.Src.ElemSize%is != 0 || d.Dst.ElemSize%os != 0 || d.Src.ElemSize/is != d.Dst.ElemSize/os {
			return descErr("dst: elem_size", "elem_size src %d (%v) and dst %d (%v) do not hold the same number of values", d.Src.ElemSize, d.In, d.Dst.ElemSize, d.Out)
		}
	} else if d.Src.ElemSize != d.Dst.ElemSize && d.Kind != KindCopy {
		return descErr("dst: elem_size", "src elem_size %d != dst elem_size %d without a cast", d.Src.ElemSize, d.Dst.ElemSize)
	}
	if d.ComputeOp != isa.DGEComputeNONE && d.In == 0 {
		return descErr("in_dtype", "compute_op %v needs an element dtype", d.ComputeOp)
	}
	switch d.Kind {
	case KindCopy, KindXbar:
		for k, v := range d.Num {
			if v == 0 {
				return descErr("num_elem["+strconv.Itoa(k)+"]", "num_elem[%d] = 0", k)
			}
		}
		if d.DstNum != ([MaxLevels]uint32{}) {
			for k, v := range d.DstNum {
				if v == 0 {
					return descErr("dst: num_elem["+strconv.Itoa(k)+"]", "dst num_elem[%d] = 0", k)
				}
			}
			if d.Elements() != prod(d.DstNum) {
				return descErr("dst: num_elem", "src nest moves %d elements, dst nest %d", d.Elements(), prod(d.DstNum))
			}
			if d.Kind == KindXbar {
				return descErr("dst: num_elem", "an xbar descriptor walks one nest")
			}
		} else if d.In == 0 && d.Src.ElemSize != d.Dst.ElemSize {
			return descErr("dst: elem_size", "src elem_size %d != dst elem_size %d without a cast", d.Src.ElemSize, d.Dst.ElemSize)
		}
		if d.Kind == KindXbar {
			cols := XbarColsFor(int(d.Src.ElemSize))
			if cols == 0 || d.Src.ElemSize != d.Dst.ElemSize {
				return descErr("src: elem_size", "xbar takes 2- or 4-byte elements, not %d", d.Src.ElemSize)
			}
			if d.Num[0] > XbarRows || d.Num[1] > uint32(cols) {
				return descErr("num_elem", "xbar tile %dx%d larger than %dx%d", d.Num[0], d.Num[1], XbarRows, cols)
			}
			if d.Dst.Addr%XbarDstAlign != 0 {
				return descErr("dst: addr", "xbar dst 0x%x is not %d-byte aligned", d.Dst.Addr, XbarDstAlign)
			}
			for k := 1; k < MaxLevels; k++ {
				if d.Num[k] > 1 && !XbarRowAligned(d.Dst.Step[k], d.Dst.ElemSize) {
					return descErr("dst: step_elem["+strconv.Itoa(k)+"]", "xbar dst step_elem[%d] = %d elements (%d bytes): the rows and tiles the crossbar writes must start %d-byte aligned", k, d.Dst.Step[k], d.Dst.Step[k]*int64(d.Dst.ElemSize), XbarDstAlign)
				}
			}
		}
	case KindGather:
		if d.Indirect == nil || d.Indirect.Count < 0 {
			return descErr("indirect", "INDIRECT descriptor without its index fields")
		}
		if d.Indirect.Mode > isa.SrcDstIndirection {
			return descErr("indirect: mode", "indirect_mode %v", d.Indirect.Mode)
		}
	case KindGatherXpose:
		g := d.GatherXpose
		if g == nil {
			return descErr("gather_xpose", "GATHER_TRANSPOSE descriptor without its fields")
		}
		if d.Src.ElemSize != 2 || d.Dst.ElemSize != 2 {
			return descErr("elem_size", "gather transpose takes 2-byte dtypes")
		}
		if g.Cols < 1 || g.Cols > XbarCols || g.Count < 0 || g.First < 0 || g.IdxPartitions < 1 {
			return descErr("gather_xpose", "gather transpose cols %d count %d first %d idx partitions %d", g.Cols, g.Count, g.First, g.IdxPartitions)
		}
	}
	return nil
}

func prod(n [MaxLevels]uint32) uint64 {
	p := uint64(1)
	for _, v := range n {
		p *= uint64(v)
	}
	return p
}

// elemSizeField names the side whose elem_size is out of range.
func elemSizeField(d *Descriptor) string {
	if d.Src.ElemSize == 0 || d.Src.ElemSize > MaxElemSize {
		return "src: elem_size"
	}
	return "dst: elem_size"
}

func kindField(in bool) string {
	if in {
		return "in_dtype"
	}
	return "out_dtype"
}
