package dge

import (
	"fmt"
	"math"
	"strings"
)

// LogFormat is one line of the firmware log the DGE model prints: its printf format as the
// firmware holds it (C verbs, as the seeds and FACTS quote it) and where it is quoted. Each
// format is declared once, here; every line of Plan.Log is one of them, or a tpbsim note.
type LogFormat struct {
	Name string // the firmware function (or tpbsim's, for Invented lines) that prints it
	// Firmware is the format with C verbs: %u, %i, %zu and %llx print as Go's %d and %x.
	Firmware string
	// Elided is the part of Firmware the source does not show (a prefix it elides, e.g. "...");
	// tpbsim's choice for it is a provenance entry.
	Elided string
	Source string // where the format is quoted
	// Invented marks a line without a recovered format (printed prefixed "tpbsim:").
	Invented bool
	goFmt    string
}

// Quoted is the part of Firmware the source quotes.
func (f *LogFormat) Quoted() string { return strings.TrimPrefix(f.Firmware, f.Elided) }

// line renders the format with Go's fmt.
func (f *LogFormat) line(args ...any) string { return fmt.Sprintf(f.goFmt, args...) }

func logFormat(name, firmware, elided, source string) *LogFormat {
	g := strings.NewReplacer("%llx", "%x", "%zu", "%d", "%u", "%d", "%i", "%d").Replace(firmware)
	return &LogFormat{Name: name, Firmware: firmware, Elided: elided, Source: source, goFmt: g}
}

// The firmware's log formats (seed 003 §4, §7; FACTS §C.7), in pipeline order.
var (
	logAnalyzedTensor = logFormat("analyze_tensor_reshape",
		"S: DGE Reshape: Analyzed tensor (nelem_target = %u, step_target = 0x%X (%dP), base = 0x%X (%dP)): Reshape Strategy = %d, Requested Reshape Kind = %d, Partition Range = %d, Num Partitions = %d",
		"", "seed 003 §4.1 (VA 0x8321e)")
	logAssessedPair = logFormat("dge_reshape (pair assessment)",
		"S: DGE Reshape: Assessed tensor pair params (Requested Reshape Kind = %d, Min Num Partitions = %u, #DMA Avail = %u): Reshape Kind = %d, #DMA = %u",
		"", "seed 003 §4.2 (VA 0x832df)")
	logAssessedSimplePair = logFormat("dge_reshape (simple pair assessment)",
		"S: DGE Reshape: Assessed simple tensor pair params (Num Partitions A = %u, Num Partitions B = %u, #DMA Avail = %u, HBM Only = %d): Reshape Kind = %d, #DMA = %u",
		"", "seed 003 §4.3 (VA 0x83372)")
	logStateBefore = logFormat("tensor_reshape_indirect_transpose",
		"S: tensor_reshape_indirect_transpose BEFORE: elem_size=%u num_elem=[%u,%u,%u,%u] step_elem=[%d,%d,%d,%d] is_src=%d",
		"S: tensor_reshape_indirect_transpose ", "seed 003 §4.5 (VA 0x837c2; the prefix elided, dge.state_log_prefix)")
	logStateAfter = logFormat("tensor_reshape_indirect_transpose",
		"S: tensor_reshape_indirect_transpose AFTER:  elem_size=%u num_elem=[%u,%u,%u,%u] step_elem=[%d,%d,%d,%d]",
		"S: tensor_reshape_indirect_transpose ", "seed 003 §4.5 (VA 0x83836; the prefix elided, dge.state_log_prefix)")
	logTransposeTile = logFormat("tensor_reshape_transpose",
		"S: tensor_reshape_transpose: tile_src_rows=%d tile_src_cols=%d dtype_size=%d", "", "seed 003 §4.4 (VA 0x836f3)")
	logTransposeTileSB2SB = logFormat("tensor_reshape_transpose_sb2sb",
		"S: tensor_reshape_transpose_sb2sb: tile_src_rows=%d tile_src_cols=%d dtype_size=%d",
		"S: tensor_reshape_transpose_sb2sb: tile_src_rows=%d tile_src_cols=%d dtype_size=%d",
		"seed 003 §6.1 names the function without a log line; tpbsim prints tensor_reshape_transpose's under its name (dge.log_formats)")
	logSprayInfo = logFormat("gen_spray_info",
		"gen_spray_info: reshape_kind=%d, do_indirection=%d, is_our_tensor=%d, hbm_to_hbm=%d, ndma=%zu", "", "seed 003 §4.7 (VA 0x83c63)")
	logSprayTensorReshape = logFormat("gen_spray_info",
		"gen_spray_info: applying tensor reshape for our tensor", "", "seed 003 §4.7 (VA 0x83d3e)")
	logSprayTensorResult = logFormat("gen_spray_info",
		"gen_spray_info: tensor result step_port=%d, step_half=%d", "gen_spray_info: ", "seed 003 §4.7 (after VA 0x83d3e; its prefix not shown)")
	logSpraySkip = logFormat("gen_spray_info",
		"gen_spray_info: skipping reshape (not our tensor and no indirection)", "", "seed 003 §4.7 (VA 0x83dba)")
	logGatherPatternStart = logFormat("make_gather_pattern",
		"make_gather_pattern START: reshape_kind=%d, step_port=%d, step_half=%d, eng_mask=0x%x", "", "seed 003 §4.7 (VA 0x83fe5)")
	logGatherPatternEnd = logFormat("make_gather_pattern",
		"make_gather_pattern END: pattern=0x%x, mask=0x%x", "", "seed 003 §4.7 (VA 0x84041)")
	logSelectBackend = logFormat("the backend selector", SelectBackendLine, "", "seed 003 §7 (MP NX DRAM VA 0x83197)")
	logGenerating    = logFormat("the DGE emitter", "Generating %i descriptors; ring_ndesc = %i", "", "FACTS §C.7")
	logPushRegwrite  = logFormat("the DGE emitter", "S: push REGWRITE to DMA[%d]", "", "FACTS §C.7")
	logPushGenerate  = logFormat("the DGE emitter", "S: push GENERATE to DMA[%d]: %s : addr=0x%llx, elem_size=%d, sem_num=%i", "", "FACTS §C.7")
	logPushDimpush   = logFormat("the DGE emitter", "S: push DIMPUSH to DMA[%d]: [%u,%u][%d,%d]", "", "FACTS §C.7")
	logWaitForCredit = &LogFormat{Name: "wait_for_credit", Invented: true,
		Firmware: "tpbsim: wait_for_credit: DMA[%d] ring full (%d descriptors in flight), waiting for credit",
		Source:   "seed 003 §6.4 names wait_for_credit without a format (dge.wait_for_credit_log)",
		goFmt:    "tpbsim: wait_for_credit: DMA[%d] ring full (%d descriptors in flight), waiting for credit"}
	logQ7Direct2D    = logFormat("the Q7 DGE", "P%i: DGE DIRECT2D", "P%i: ", "FACTS §C.7 (Q7 kinds)")
	logQ7Indirect    = logFormat("the Q7 DGE", "P%i: DGE INDIRECT", "P%i: ", "FACTS §C.7 (Q7 kinds)")
	logQ7GatherXpose = logFormat("the Q7 DGE", "P%i: DGE GATHER TRANSPOSE", "P%i: ", "FACTS §C.7 (Q7 kinds)")
)

// logQ7Core is the P%i of the Q7 kind lines: tpbsim models one POOL core (dge.log_formats).
const logQ7Core = 0

// SelectBackendLine is the selector's one recovered log line (seed 003 §7, MP NX DRAM VA 0x83197).
const SelectBackendLine = "S: DGE: Select backend Pool"

// LogFormats lists every line format the DGE model prints into Plan.Log, in pipeline order.
func LogFormats() []*LogFormat {
	return []*LogFormat{logQ7Direct2D, logQ7Indirect, logQ7GatherXpose, logAnalyzedTensor, logAssessedSimplePair, logAssessedPair,
		logStateBefore, logStateAfter, logTransposeTile, logTransposeTileSB2SB, logSelectBackend,
		logSprayInfo, logSprayTensorReshape, logSprayTensorResult, logSpraySkip, logGatherPatternStart, logGatherPatternEnd,
		logGenerating, logWaitForCredit, logPushRegwrite, logPushGenerate, logPushDimpush}
}

// hex32 is a signed value the firmware prints with %X from a 32-bit field: two's complement for
// a negative one; a value beyond 32 bits, which tpbsim's widened dge_shape admits and the
// firmware's fields cannot hold, prints in full rather than wrapped (Provenance dge.log_formats).
type hex32 int64

func (v hex32) Format(f fmt.State, verb rune) {
	if int64(v) >= math.MinInt32 && int64(v) <= math.MaxUint32 {
		fmt.Fprintf(f, "%X", uint32(v))
		return
	}
	fmt.Fprintf(f, "%X", int64(v))
}
