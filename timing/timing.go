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
// bytes per ns (= GB/s). The zero value is not a model: use For.
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

// generation is one generation's entry of the copy-and-patch table: the patch that turns the
// previous generation's table into its own, and whether its figures are its own or
// extrapolated (no public figure).
type generation struct {
	gen          isa.Generation
	patch        func(*Table)
	extrapolated bool
}

// history lists the generations oldest first; each table is the one before it, copied and
// patched (STYLE.md: the go-ethereum jump tables). SUNDA patches the zero Table.
var history = []generation{
	{isa.SUNDA, sunda, false},
	{isa.CAYMAN, cayman, false},
	{isa.MARIANA, mariana, false},
	{isa.MARIANA_PLUS, func(*Table) {}, true}, // MARIANA's figures unchanged
	{isa.MAVERICK, maverick, true},
}

// tables holds every generation's finished table, built once from history; For copies out.
var tables = build(history)

func build(h []generation) map[isa.Generation]Table {
	out := make(map[isa.Generation]Table, len(h))
	var t Table
	for _, e := range h {
		e.patch(&t)
		t.Gen = e.gen
		out[e.gen] = t
	}
	return out
}

// For returns generation g's table: the previous generation's, copied and patched. An invalid
// generation is an *isa.GenerationError (rule isa.generation), never another generation's table.
func For(g isa.Generation) (Table, error) {
	if err := g.Check(); err != nil {
		return Table{}, err
	}
	return tables[g], nil
}

// Default is For without the error, for callers that have validated g already: an invalid
// generation gives the zero Table (Gen g, every constant 0), which is no model, not another
// generation's.
func Default(g isa.Generation) Table {
	t, err := For(g)
	if err != nil {
		return Table{Gen: g}
	}
	return t
}

// sunda is Trn1 / Inf2 (NeuronCore-v2), the first table.
func sunda(t *Table) {
	*t = Table{
		DVEClockGHz: 1.12, ACTClockGHz: 1.4, POOLClockGHz: 1.4, PEClockGHz: 2.8,
		MinIICycles: 64, StaticCycles: 100, ReciprocalCyclesPerElem: 8, ACTReciprocalCycles: 1, ReduceBF16Factor: 0.5,
		AccessCycles: 60, PerfMode2Byte: 1, PerfModeOther: 1, PerfModeFP8: 0,
		StrideLimitBytes: 16, StrideFactor: 0.5,
		DMABytesPerNs: 17, DMARowOverheadBytes: 384, DMADescriptorNs: 0, DMADescriptorGenNs: 0,
		DMAXbarHBMFactor: 0.9, DMAXbarSBUFFactor: 0.5, DMAComputeFactor: 0.5, DMAPartitionsPerEng: 8,
		DGEIssueNs: 600, DGEPoolIssueNs: 600, DMASemToStartNs: 1300, EngineSemNs: 0, DMACompletionBytes: 4,
	}
}

// cayman patches SUNDA into Trn2 (NeuronCore-v3).
func cayman(t *Table) {
	t.DVEClockGHz, t.ACTClockGHz, t.POOLClockGHz, t.PEClockGHz = 0.96, 1.2, 1.2, 2.4
	t.PerfMode2Byte, t.PerfModeOther = 4, 2
	t.DMABytesPerNs = 23
}

// mariana patches CAYMAN into Trn3 (NeuronCore-v4).
func mariana(t *Table) {
	t.DVEClockGHz, t.ACTClockGHz, t.POOLClockGHz, t.PEClockGHz = 1.2, 1.2, 1.2, 2.4
	t.PerfModeFP8 = 1
	t.DMABytesPerNs = 33
	t.DMAComputeFactor = 1 // Trn3 SBUF read-add-write by DMA at full copy throughput
}

// maverick extrapolates MARIANA_PLUS into MAVERICK: 8 DMA engines (the geometry) carrying
// MARIANA's aggregate bandwidth, so each serves 16 partitions at twice the rate.
func maverick(t *Table) {
	t.DMABytesPerNs = 66
	t.DMAPartitionsPerEng = 16
}

// Extrapolated reports whether g's table has no public figures of its own (false for an
// invalid generation, which has no table).
func Extrapolated(g isa.Generation) bool {
	for _, e := range history {
		if e.gen == g {
			return e.extrapolated
		}
	}
	return false
}

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
