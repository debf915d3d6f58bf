package dge

import "github.com/tpbsim/tpbsim/isa"

// Features is what the DGE model does on one generation. Each generation's table is the previous
// one copied and patched (SUNDA -> CAYMAN -> MARIANA -> MARIANA_PLUS -> MAVERICK); every field
// names its source. The planner, the emitter and the instruction lowering read these fields and
// never test a generation by name.
type Features struct {
	Gen isa.Generation
	// ReshapeLogs: the firmware prints the "DGE Reshape:" analyze/assess lines, the
	// BEFORE/AFTER state, the tile line and the spray lines. SUNDA carries only the
	// analyze_tensor_reshape name (seed 003 §6.1: "DGE Reshape:" logs 0/3/3/3).
	ReshapeLogs bool
	// Backend is the backend selector's choice for every request: NO-BACKEND on SUNDA, which has
	// no DGE setup, backend or emitter (seed 003 §6.1, FACTS §C.7), Pool from CAYMAN (seed 003
	// §7; Provenance dge.backend_select).
	Backend Backend
	// Xbar: the crossbar transpose descriptor exists (tensor_reshape_transpose 0/1/1/2, seed 003
	// §6.1; SUNDA ships no gather_xpose.h, §3.4). Without it a transpose is element-strided.
	Xbar bool
	// GatherXpose: DMA_GATHER_XPOSE (0xF1) lowers: "only available in Neuron+ (V3+)" (seed 003
	// §3.3, has_valid_dma_gather_transpose_nc).
	GatherXpose bool
	// DMATranspose: DMA_TRANSPOSE (0xBD) lowers (FACTS §C.1; absent on SUNDA with the crossbar,
	// Provenance dge.dma_transpose_generations).
	DMATranspose bool
	// Regwrite: each descriptor starts with push REGWRITE (FACTS §C.7 presence 0/1/1/0: CAYMAN
	// and MARIANA; retired on MARIANA_PLUS, seed 003 §6.5, and absent on MAVERICK, FACTS §F.3).
	Regwrite bool
	// SB2SB: an SBUF source makes a crossbar transpose tensor_reshape_transpose_sb2sb (seed 003
	// §6.1: 0 -> 1 on MARIANA_PLUS; FACTS §C.7: the one fast-path string MAVERICK keeps).
	SB2SB bool
	// FastPath: dge_reshape_memcopy_transpose_fast fuses the memcopy and the transpose, inlines
	// the spray and generates descriptors cheaper (seed 003 §6.1-§6.4: MARIANA_PLUS only; FACTS
	// §C.7: gone on MAVERICK; Provenance dge.fast_path).
	FastPath bool
	// Credits: the producer waits for credit against MEMCOPY_CARVEOUT_CFG's ring depth
	// (wait_for_credit: MARIANA_PLUS only, seed 003 §6.1, §6.4; Provenance dma.credits).
	Credits bool
}

// featureHistory lists the generations oldest first, each with the patch that turns the
// previous generation's features into its own; SUNDA patches the zero Features.
var featureHistory = []struct {
	gen   isa.Generation
	patch func(*Features)
}{
	{isa.SUNDA, func(f *Features) { f.Backend = BackendNone }},
	{isa.CAYMAN, func(f *Features) {
		f.ReshapeLogs, f.Backend, f.Xbar, f.GatherXpose, f.DMATranspose, f.Regwrite = true, BackendPool, true, true, true, true
	}},
	{isa.MARIANA, func(*Features) {}}, // the CAYMAN firmware's reshape engine, unchanged (seed 003 §6.1)
	{isa.MARIANA_PLUS, func(f *Features) { f.Regwrite, f.SB2SB, f.FastPath, f.Credits = false, true, true, true }},
	{isa.MAVERICK, func(f *Features) { f.FastPath, f.Credits = false, false }},
}

// featureTables holds every generation's finished Features, built once from featureHistory.
var featureTables = func() map[isa.Generation]Features {
	out := map[isa.Generation]Features{}
	var f Features
	for _, h := range featureHistory {
		h.patch(&f)
		f.Gen = h.gen
		out[h.gen] = f
	}
	return out
}()

// FeaturesOf returns generation g's features; an invalid generation is an *isa.GenerationError
// (rule isa.generation, fault.ErrInvalid), never another generation's table.
func FeaturesOf(g isa.Generation) (Features, error) {
	if err := g.Check(); err != nil {
		return Features{}, err
	}
	return featureTables[g], nil
}
