package sim

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/isa"
)

// streamElems is the number of elements per channel an S4D4_TR instruction streams: the larger
// of its source and destination element counts (one element per lane per cycle).
func streamElems(in isa.Inst) uint64 {
	switch x := in.(type) {
	case *isa.S4D4TR:
		return max(x.SrcMemPattern.ElementCount(), x.DstMemPattern.ElementCount())
	case *isa.Memset:
		return x.DstMemPattern.ElementCount()
	}
	return 0
}

// work is what one instruction asks of the host, for the limits checked before a run
// (Provenance sim.max_elements, sim.max_stream_bytes).
type work struct {
	elems uint64 // elements per channel (DVE family), or moved by all descriptors (DMA)
	bytes uint64 // bytes read plus written, over all channels or descriptors
	// what the counts are made of, for the message (formatted only for a broken limit)
	descriptors int    // a DMA's descriptors (-1: not a DMA)
	nac         uint8  // a DVE-family instruction's channels (0: not one)
	srcB, dstB  uint64 // its source and destination bytes per channel
}

// per says what elems counts.
func (w work) per() string {
	switch {
	case w.descriptors >= 0:
		return fmt.Sprintf(" in its %d DMA descriptor(s) (their elements: a contiguous run is one)", w.descriptors)
	case w.nac > 0:
		return " per channel"
	}
	return ""
}

// how says how bytes is made up.
func (w work) how() string {
	switch {
	case w.descriptors >= 0:
		return "source plus destination bytes of its descriptors"
	case w.nac > 0:
		return fmt.Sprintf("%d channels x (%d source + %d destination bytes), which the DVE executor holds in host memory", w.nac, w.srcB, w.dstB)
	}
	return ""
}

// workOf is the work of an S4D4_TR instruction, or of a DMA instruction lowered to plan (the
// DGE's descriptors are the work the DMA engines do: contiguous runs merged into large
// elements, step-0 walks not).
func workOf(in isa.Inst, plan *dge.Plan) work {
	if plan != nil {
		w := work{descriptors: 0}
		n := 0
		for _, q := range plan.Job.Queues {
			for i := range q {
				d := &q[i]
				e := d.Elements()
				w.elems = satAdd(w.elems, e)
				w.bytes = satAdd(w.bytes, satMul(e, uint64(d.Src.ElemSize)+uint64(d.Dst.ElemSize)))
				n++
			}
		}
		w.descriptors = n
		return w
	}
	switch x := in.(type) {
	case *isa.S4D4TR:
		src, dst := x.SrcMemPattern.ElementCount(), x.DstMemPattern.ElementCount()
		sb, db := satMul(src, uint64(x.InDtype.Size())), satMul(dst, uint64(x.OutDtype.Size()))
		return work{elems: max(src, dst), bytes: dve.StreamBytes(int(x.NumActiveChannels), sb, db), descriptors: -1,
			nac: x.NumActiveChannels, srcB: sb, dstB: db}
	}
	return work{elems: streamElems(in), descriptors: -1}
}

func satAdd(a, b uint64) uint64 {
	if s, c := bits.Add64(a, b, 0); c == 0 {
		return s
	}
	return math.MaxUint64
}

func satMul(a, b uint64) uint64 {
	if hi, lo := bits.Mul64(a, b); hi == 0 {
		return lo
	}
	return math.MaxUint64
}
