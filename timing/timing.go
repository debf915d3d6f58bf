// Package timing is tpbsim's first-order timing model of a NeuronCore: one table of constants
// per generation, built from the public figures collected in shared/spec/TIMING.md (engine
// clocks, Vector Engine cost formulas and widths, DMA bandwidth per engine and its saturation
// with bytes per partition, the fixed DMA and semaphore costs, the DMA transpose efficiency).
//
// Each generation's table is the previous one copied and patched (SUNDA = Trn1 / NC-v2, CAYMAN
// = Trn2 / NC-v3, MARIANA = Trn3 / NC-v4; MARIANA_PLUS and MAVERICK are extrapolated from
// MARIANA and marked so). Every constant is a Key with its source and confidence; Provenance
// turns them into registry entries (`tpbsim explain timing`). A table is calibrated by a JSON
// file of key -> value (Table.Apply, `--timing FILE.json`), the form Table.MarshalJSON and
// Defaults print.
//
// The model never changes what a program computes: the machine executes every instruction's
// memory effect whole at its issue, and the table only says when that issue happens.
package timing

import (
	"github.com/tpbsim/tpbsim/isa"
)

// Table is the timing model of one generation. Times are in ns, clocks in GHz, bandwidths in
// bytes per ns (= GB/s). The zero value is not a model: use Default.
type Table struct {
	Gen isa.Generation

	// Engine clocks (TIMING.md "Engine clocks").
	DVEClockGHz  float64 // Vector Engine (the DVE queue)
	ACTClockGHz  float64 // Scalar Engine (the ACT queue)
	POOLClockGHz float64 // GpSimd (the POOL queue)
	PEClockGHz   float64 // Tensor Engine (the PE queue)

	// Vector Engine instruction cost (TIMING.md "Vector Engine throughput and instruction
	// cost"), in engine cycles of the queue's clock; N = elements per partition.
	MinIICycles             float64 // MIN_II: the floor of every formula
	StaticCycles            float64 // added to a tiny (formula below MIN_II) or dependent (it waited) instruction
	ReciprocalCyclesPerElem float64 // DVE reciprocal max(MIN_II, 8N)
	ACTReciprocalCycles     float64 // Scalar Engine reciprocal max(MIN_II, N)
	ReduceBF16Factor        float64 // tensor_reduce add/max with bf16 in and out: N/2
	AccessCycles            float64 // one SBUF access request: the write-back after the reads
	PerfMode2Byte           float64 // NC-v3+ perf mode: tensor_copy bf16/fp16 in and out, SBUF, contiguous: 4x
	PerfModeOther           float64 // the same copies of other dtypes (256-wide datapath): 2x
	PerfModeFP8             float64 // 1: fp8 counts as a 2-byte-class type for the perf mode (NC-v4)
	StrideLimitBytes        float64 // an innermost SBUF stride above this ...
	StrideFactor            float64 // ... multiplies the rate by this (halves it)

	// DMA (TIMING.md "DMA").
	DMABytesPerNs       float64 // one engine's peak copy bandwidth
	DMARowOverheadBytes float64 // per contiguous run (a partition row): the fixed cost as bytes at peak
	DMADescriptorNs     float64 // fixed cost of one descriptor on its engine
	DMADescriptorGenNs  float64 // the hardware DGE's cost per generated descriptor, after the instruction's issue
	DMAXbarHBMFactor    float64 // DMA transpose from HBM: fraction of the copy throughput
	DMAXbarSBUFFactor   float64 // DMA transpose from SBUF
	DMAComputeFactor    float64 // read-modify-write (compute_op) DMA
	DMAPartitionsPerEng float64 // SBUF partitions one engine serves (128 / engines)
	DGEIssueNs          float64 // what a hardware-DGE DMA instruction costs its SP/ACT queue
	DGEPoolIssueNs      float64 // what a software-DGE DMA instruction costs the POOL queue
	DMASemToStartNs     float64 // a DMA's completion semaphore update -> the waiting engine's start
	EngineSemNs         float64 // a compute instruction's semaphore update -> the waiting engine
	DMACompletionBytes  float64 // the completion update an engine with no data writes (4 B)
}

// Default returns generation g's table: the previous generation's, copied and patched.
func Default(g isa.Generation) Table {
	t := sunda()
	if g == isa.SUNDA {
		return t
	}
	t = caymanFrom(t)
	if g == isa.CAYMAN {
		return t
	}
	t = marianaFrom(t)
	if g == isa.MARIANA {
		return t
	}
	t.Gen = isa.MARIANA_PLUS // extrapolated: MARIANA's figures unchanged
	if g == isa.MARIANA_PLUS {
		return t
	}
	t = maverickFrom(t)
	t.Gen = g
	return t
}

// sunda is Trn1 / Inf2 (NeuronCore-v2).
func sunda() Table {
	return Table{
		Gen:         isa.SUNDA,
		DVEClockGHz: 1.12, ACTClockGHz: 1.4, POOLClockGHz: 1.4, PEClockGHz: 2.8,
		MinIICycles: 64, StaticCycles: 100, ReciprocalCyclesPerElem: 8, ACTReciprocalCycles: 1, ReduceBF16Factor: 0.5,
		AccessCycles: 60, PerfMode2Byte: 1, PerfModeOther: 1, PerfModeFP8: 0,
		StrideLimitBytes: 16, StrideFactor: 0.5,
		DMABytesPerNs: 17, DMARowOverheadBytes: 384, DMADescriptorNs: 0, DMADescriptorGenNs: 0,
		DMAXbarHBMFactor: 0.9, DMAXbarSBUFFactor: 0.5, DMAComputeFactor: 0.5, DMAPartitionsPerEng: 8,
		DGEIssueNs: 600, DGEPoolIssueNs: 600, DMASemToStartNs: 1300, EngineSemNs: 0, DMACompletionBytes: 4,
	}
}

// caymanFrom patches SUNDA into Trn2 (NeuronCore-v3).
func caymanFrom(t Table) Table {
	t.Gen = isa.CAYMAN
	t.DVEClockGHz, t.ACTClockGHz, t.POOLClockGHz, t.PEClockGHz = 0.96, 1.2, 1.2, 2.4
	t.PerfMode2Byte, t.PerfModeOther = 4, 2
	t.DMABytesPerNs = 23
	return t
}

// marianaFrom patches CAYMAN into Trn3 (NeuronCore-v4).
func marianaFrom(t Table) Table {
	t.Gen = isa.MARIANA
	t.DVEClockGHz, t.ACTClockGHz, t.POOLClockGHz, t.PEClockGHz = 1.2, 1.2, 1.2, 2.4
	t.PerfModeFP8 = 1
	t.DMABytesPerNs = 33
	t.DMAComputeFactor = 1 // Trn3 SBUF read-add-write by DMA at full copy throughput
	return t
}

// maverickFrom extrapolates MARIANA_PLUS into MAVERICK: 8 DMA engines (the geometry) carrying
// MARIANA's aggregate bandwidth, so each serves 16 partitions at twice the rate.
func maverickFrom(t Table) Table {
	t.Gen = isa.MAVERICK
	t.DMABytesPerNs = 66
	t.DMAPartitionsPerEng = 16
	return t
}

// Extrapolated reports whether g's table has no public figures of its own.
func Extrapolated(g isa.Generation) bool { return g == isa.MARIANA_PLUS || g == isa.MAVERICK }

// ClockGHz is the clock of engine queue e (SP issues only DMAs and runs at the Scalar
// Engine's clock, an INVENTED choice: its cost is DGEIssueNs).
func (t *Table) ClockGHz(e isa.Engine) float64 {
	switch e {
	case isa.EngineDVE:
		return t.DVEClockGHz
	case isa.EnginePOOL:
		return t.POOLClockGHz
	case isa.EnginePE:
		return t.PEClockGHz
	}
	return t.ACTClockGHz
}

// CyclesPS converts cycles of engine e's clock to picoseconds.
func (t *Table) CyclesPS(e isa.Engine, cycles float64) int64 {
	f := t.ClockGHz(e)
	if f <= 0 {
		f = 1
	}
	return int64(cycles*1000/f + 0.5)
}

// NsPS converts ns to picoseconds.
func NsPS(ns float64) int64 { return int64(ns*1000 + 0.5) }

// PeakDMABytesPerNs is the aggregate peak of n DMA engines.
func (t *Table) PeakDMABytesPerNs(n int) float64 { return t.DMABytesPerNs * float64(n) }
