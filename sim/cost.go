package sim

import (
	"github.com/tpbsim/tpbsim/isa"
)

// The cost model is INVENTED (Provenance sim.cost_model): tpbsim is a functional model and its
// times exist to order concurrent engines plausibly and to draw a readable timeline, not to
// predict performance. Figures come from shared/spec/NKI.md where it gives any.
const (
	// ClockHz is the engine clock of DVE, POOL and ACT (1.4 GHz).
	ClockHz = 1_400_000_000
	// IssueCycles is the fixed cost of decoding and issuing one instruction.
	IssueCycles = 16
	// DrainCycles is the pipeline drain after the last element is read (reads done -> complete).
	DrainCycles = 48
	// ReciprocalCyclesPerElem: VectorE reciprocal costs 8 cycles per element (NKI.md).
	ReciprocalCyclesPerElem = 8
	// DMAIssuePS is what a DMA instruction costs its issuing queue: ~600 ns per HWDGE-issued
	// DMA instruction (NKI.md). The descriptors' own times are the dma package's Timing.
	DMAIssuePS = 600_000
)

// cyclesPS converts engine cycles to picoseconds at ClockHz.
func cyclesPS(c int64) int64 { return (c*1_000_000_000_000 + ClockHz/2) / ClockHz }

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

// computeCost returns when an instruction's reads are done and when it completes, relative to
// its issue, in picoseconds.
func computeCost(in isa.Inst) (readPS, totalPS int64) {
	e := int64(streamElems(in))
	per := int64(1)
	if opcodeOf(in) == isa.OpRECIPROCAL {
		per = ReciprocalCyclesPerElem
	}
	read := int64(IssueCycles) + e*per
	return cyclesPS(read), cyclesPS(read + DrainCycles)
}
