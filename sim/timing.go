package sim

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/timing"
)

// The machine's times come from a timing.Table (Config.Timing, else timing.Default of the
// generation; Provenance timing.model): this file turns an instruction into the cycles its
// engine spends on it. Nothing here changes what an instruction computes.

// computeCycles is the Vector Engine cost formula of an S4D4_TR-family instruction (or MEMSET
// / LOAD_MASK_SELECT) on queue eng, in cycles of that queue's clock: max(MIN_II, k N) with N
// the elements per partition, the perf mode and the SBUF stride rule applied, and the static
// overhead for a tiny or dependent instruction.
func computeCycles(t *timing.Table, eng isa.Engine, in isa.Inst, waited bool) float64 {
	n := float64(streamElems(in))
	op := opcodeOf(in)
	var c float64
	floor := true
	switch op {
	case isa.OpRECIPROCAL:
		k := t.ReciprocalCyclesPerElem
		if eng == isa.EngineACT {
			k = t.ACTReciprocalCycles
		}
		c = k * n
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP,
		isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP, isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16:
		c, floor = n, false
		if x, ok := in.(*isa.S4D4TR); ok && x.InDtype == isa.DTypeBFLOAT16 && x.OutDtype == isa.DTypeBFLOAT16 &&
			(x.Op == isa.ALUAdd || x.Op == isa.ALUMax || op == isa.OpTENSOR_REDUCE_ADD_BF16 || op == isa.OpTENSOR_REDUCE_MAX_BF16) {
			c *= t.ReduceBF16Factor
		}
	case isa.OpLOAD_MASK_SELECT:
		c = 0
	default:
		c = n
	}
	if x, ok := in.(*isa.S4D4TR); ok {
		strided := innerStrideBytes(x.SrcMemPattern, x.InDtype) > t.StrideLimitBytes ||
			innerStrideBytes(x.DstMemPattern, x.OutDtype) > t.StrideLimitBytes
		if strided && t.StrideFactor > 0 {
			c /= t.StrideFactor
		}
		if f := perfMode(t, x); !strided && f > 1 {
			c /= f
		}
	}
	tiny := c < t.MinIICycles
	if floor {
		c = max(c, t.MinIICycles)
	}
	if waited || tiny {
		c += t.StaticCycles
	}
	return c
}

// innerStrideBytes is the byte stride of a pattern's innermost dim that walks more than one
// element (0 for a contiguous or single-element walk).
func innerStrideBytes(p isa.Tensor4D, d isa.DType) float64 {
	for k := 0; k < 4; k++ {
		if p.NumElem[k] > 1 {
			s := int64(p.StepElem[k]) * int64(max(d.Size(), 1))
			if s < 0 {
				s = -s
			}
			return float64(s)
		}
	}
	return 0
}

// perfMode is the NC-v3+ speed-up of a COPY or CAST (tensor_copy) with SBUF operands and
// contiguous innermost dims: PerfMode2Byte for bf16/fp16 (and fp8 with PerfModeFP8) in and
// out, PerfModeOther for other dtypes.
func perfMode(t *timing.Table, x *isa.S4D4TR) float64 {
	op := x.Hdr().Opcode
	if op != isa.OpCOPY && op != isa.OpCAST {
		return 1
	}
	if !inSBUF(t.Gen, x.SrcMemPattern.StartAddr) || !inSBUF(t.Gen, x.DstMemPattern.StartAddr) ||
		innerStrideBytes(x.SrcMemPattern, x.InDtype) > float64(max(x.InDtype.Size(), 1)) ||
		innerStrideBytes(x.DstMemPattern, x.OutDtype) > float64(max(x.OutDtype.Size(), 1)) {
		return 1
	}
	if twoByteClass(t, x.InDtype) && twoByteClass(t, x.OutDtype) {
		return t.PerfMode2Byte
	}
	return t.PerfModeOther
}

func twoByteClass(t *timing.Table, d isa.DType) bool {
	switch d {
	case isa.DTypeBFLOAT16, isa.DTypeFP16:
		return true
	case isa.DTypeFP8_EXP3, isa.DTypeFP8_EXP4, isa.DTypeFP8_EXP5, isa.DTypeFP8_EXP2:
		return t.PerfModeFP8 != 0
	}
	return false
}

// psumOffset is each generation's PSUM start (0: no PSUM), computed once: the cost formula
// asks for every COPY and CAST.
var psumOffset = func() map[isa.Generation]uint32 {
	m := map[isa.Generation]uint32{}
	for _, g := range isa.Generations {
		if geo := g.Geometry(); geo.PSUMSize > 0 {
			m[g] = geo.PSUMOffset
		}
	}
	return m
}()

// inSBUF reports whether an immediate ADDR4 start address lies in SBUF (not PSUM, not a register).
func inSBUF(g isa.Generation, a isa.Addr4) bool {
	if a.IsAddrReg() {
		return false
	}
	off, ok := psumOffset[g]
	return !ok || a.ByteAddr() < off
}

// computeCost returns, relative to its issue, how long an instruction holds its queue (its
// reads are done then) and when it completes, in picoseconds.
func computeCost(t *timing.Table, eng isa.Engine, in isa.Inst, waited bool) (readPS, totalPS int64) {
	c := computeCycles(t, eng, in, waited)
	readPS = t.CyclesPS(eng, c)
	return readPS, readPS + t.CyclesPS(eng, t.AccessCycles)
}

// dmaIssuePS is what a DMA instruction costs its issuing queue.
func dmaIssuePS(t *timing.Table, eng isa.Engine) int64 {
	if eng == isa.EnginePOOL {
		return timing.NsPS(t.DGEPoolIssueNs)
	}
	return timing.NsPS(t.DGEIssueNs)
}
