package dge

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
)

// Strategy is the Reshape Strategy of analyze_tensor_reshape (seed 003 §4.1). The firmware's
// integer values are not recoverable; these are tpbsim's (Provenance "dge.strategy_enum").
type Strategy int

const (
	StrategyIdentity  Strategy = 0 // the tensor walks the same nest as its partner
	StrategyDimMerge  Strategy = 1 // it merges dims its partner keeps apart
	StrategyDimSplit  Strategy = 2 // it splits dims its partner merges
	StrategyTranspose Strategy = 3 // an axis swap: its strides are permuted
)

func (s Strategy) String() string {
	switch s {
	case StrategyIdentity:
		return "IDENTITY"
	case StrategyDimMerge:
		return "DIM_MERGE"
	case StrategyDimSplit:
		return "DIM_SPLIT"
	case StrategyTranspose:
		return "TRANSPOSE"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// Kind is the Reshape Kind: the descriptor family a request lowers to. The firmware's integer
// values are not recoverable; these are tpbsim's (Provenance "dge.kind_enum").
type Kind int

const (
	KindDirect          Kind = 0 // DMA_DIRECT2D loop-nest copies
	KindIndirect        Kind = 1 // DMA_INDIRECT1D gather/scatter
	KindXbarTranspose   Kind = 2 // crossbar transpose in 16x128 tiles (DmaTranspose / gather-transpose xbar)
	KindGatherTranspose Kind = 3 // DMA_GATHER_TRANSPOSE (indices + xbar)
	KindSB2SBTranspose  Kind = 4 // tensor_reshape_transpose_sb2sb: SBUF->SBUF xbar transpose (MARIANA_PLUS, MAVERICK)
	KindElementStrided  Kind = 5 // a transpose without the xbar: element-by-element DIRECT2D descriptors
)

func (k Kind) String() string {
	switch k {
	case KindDirect:
		return "DIRECT2D"
	case KindIndirect:
		return "INDIRECT"
	case KindXbarTranspose:
		return "XBAR_TRANSPOSE"
	case KindGatherTranspose:
		return "GATHER_TRANSPOSE"
	case KindSB2SBTranspose:
		return "TRANSPOSE_SB2SB"
	case KindElementStrided:
		return "ELEMENT_STRIDED"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Analysis is what analyze_tensor_reshape computes for one tensor: the fields of its log line.
type Analysis struct {
	IsSrc          bool     `json:"is_src"`
	NelemTarget    uint64   `json:"nelem_target"`
	StepTarget     int64    `json:"step_target"`   // bytes: the stride of the outermost coalesced dim
	StepTargetP    int      `json:"step_target_p"` // StepTarget in SBUF/PSUM partitions (0 in HBM)
	Base           uint64   `json:"base"`
	BaseP          int      `json:"base_p"` // partition of the base (0 in HBM)
	Strategy       Strategy `json:"reshape_strategy"`
	RequestedKind  Kind     `json:"requested_reshape_kind"`
	PartitionRange int      `json:"partition_range"` // last partition - first partition + 1 (0 in HBM)
	NumPartitions  int      `json:"num_partitions"`  // distinct partitions touched (0 in HBM)
	OnChip         bool     `json:"on_chip"`
	SBUF           bool     `json:"sbuf"`
	Dims           int      `json:"dims"` // dims after coalescing
}

// region describes where a device address lies on generation g.
type region struct {
	onChip bool
	sbuf   bool
	base   uint32 // region base (on-chip)
	stride uint32 // partition stride
	local  uint32 // 29-bit on-chip address
}

func regionOf(a uint64, g isa.Generation) region {
	if a < isa.DMALocalBase || a-isa.DMALocalBase > isa.TPBPartitionAddrMask {
		return region{}
	}
	geo := g.Geometry()
	l := uint32(a - isa.DMALocalBase)
	switch {
	case l >= geo.StateBufOffset && l < geo.StateBufOffset+geo.StateBufSize:
		return region{onChip: true, sbuf: true, base: geo.StateBufOffset, stride: geo.StateBufPartitionSize, local: l}
	case geo.PSUMSize > 0 && l >= geo.PSUMOffset && l < geo.PSUMOffset+geo.PSUMSize:
		return region{onChip: true, base: geo.PSUMOffset, stride: geo.PSUMPartitionSize, local: l}
	}
	return region{onChip: true, base: geo.StateBufOffset, stride: geo.StateBufPartitionSize, local: l}
}

// dim is one (count, step) pair of a view, step in elements.
type dim struct {
	n    uint64
	step int64
}

// coalesceView drops unit dims and merges dims where step[k+1] == step[k]*num[k].
func coalesceView(v View) []dim {
	var ds []dim
	for k := 0; k < 4; k++ {
		if v.NumElem[k] == 1 {
			continue
		}
		d := dim{uint64(v.NumElem[k]), v.StepElem[k]}
		if len(ds) > 0 {
			p := &ds[len(ds)-1]
			if d.step == p.step*int64(p.n) {
				p.n *= d.n
				continue
			}
		}
		ds = append(ds, d)
	}
	return ds
}

// analyze computes one tensor's analyze_tensor_reshape fields.
func analyze(v View, isSrc bool, g isa.Generation, strategy Strategy, requested Kind) Analysis {
	a := Analysis{IsSrc: isSrc, NelemTarget: v.Elements(), Base: v.Base, Strategy: strategy, RequestedKind: requested}
	ds := coalesceView(v)
	a.Dims = len(ds)
	if len(ds) > 0 {
		a.StepTarget = ds[len(ds)-1].step * int64(v.ElemSize)
	} else {
		a.StepTarget = int64(v.ElemSize)
	}
	rg := regionOf(v.Base, g)
	if !rg.onChip {
		return a
	}
	a.OnChip, a.SBUF = true, rg.sbuf
	a.Base = uint64(rg.local)
	a.BaseP = int((rg.local - rg.base) / rg.stride)
	a.StepTargetP = int(a.StepTarget / int64(rg.stride))
	// Partitions touched: enumerate line starts and ends when there are few lines.
	es := int64(v.ElemSize)
	part := func(off int64) int {
		x := int64(rg.local) + off - int64(rg.base)
		if x < 0 {
			return -1
		}
		return int(x / int64(rg.stride))
	}
	var inner dim
	outer := ds
	if len(ds) > 0 {
		inner, outer = ds[0], ds[1:]
	} else {
		inner = dim{1, 1}
	}
	lines := uint64(1)
	for _, d := range outer {
		lines *= d.n
	}
	// The partitions touched, counted in a bitset: partitions 0..255 in seen, others (outside
	// the region's) in far.
	var seen [4]uint64
	var far map[int]bool
	touched := 0
	lo, hi := 1<<30, -1<<30
	mark := func(p int) {
		lo, hi = min(lo, p), max(hi, p)
		if uint(p) < 256 {
			if w, b := p>>6, uint64(1)<<(p&63); seen[w]&b == 0 {
				seen[w] |= b
				touched++
			}
			return
		}
		if far == nil {
			far = map[int]bool{}
		}
		if !far[p] {
			far[p] = true
			touched++
		}
	}
	if lines <= 1<<16 {
		idx := make([]uint64, len(outer))
		for l := uint64(0); l < lines; l++ {
			off := int64(0)
			for k, d := range outer {
				off += int64(idx[k]) * d.step * es
			}
			end := off + int64(inner.n-1)*inner.step*es
			p0, p1 := part(min(off, end)), part(max(off, end)+es-1)
			for p := p0; p <= p1 && p-p0 < 256; p++ {
				mark(p)
			}
			for k := range idx {
				idx[k]++
				if idx[k] < outer[k].n {
					break
				}
				idx[k] = 0
			}
		}
		a.NumPartitions = touched
	} else {
		lo0, hi0 := int64(0), es
		for _, d := range ds {
			x := int64(d.n-1) * d.step * es
			if x < 0 {
				lo0 += x
			} else {
				hi0 += x
			}
		}
		lo, hi = part(lo0), part(hi0-1)
		a.NumPartitions = hi - lo + 1
	}
	a.PartitionRange = hi - lo + 1
	return a
}

// logLine renders the analyze_tensor_reshape line.
func (a Analysis) logLine() string {
	return logAnalyzedTensor.line(a.NelemTarget, hex32(a.StepTarget), a.StepTargetP, a.Base, a.BaseP, int(a.Strategy), int(a.RequestedKind), a.PartitionRange, a.NumPartitions)
}

// stateLine renders the tensor_reshape_indirect_transpose BEFORE/AFTER working-state lines.
func stateLine(before bool, v View, isSrc bool) string {
	if before {
		return logStateBefore.line(v.ElemSize, v.NumElem[0], v.NumElem[1], v.NumElem[2], v.NumElem[3],
			v.StepElem[0], v.StepElem[1], v.StepElem[2], v.StepElem[3], b2i(isSrc))
	}
	return logStateAfter.line(v.ElemSize, v.NumElem[0], v.NumElem[1], v.NumElem[2], v.NumElem[3],
		v.StepElem[0], v.StepElem[1], v.StepElem[2], v.StepElem[3])
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
