package dge

import "github.com/tpbsim/tpbsim/isa"

// Rule ids of the DGE's errors (*Error.Rule). Each is registered in Provenance, except
// RuleOpcodeOnGeneration and the ISA rules below, the ISA's own (isa.Registry), which the DGE
// re-checks. A descriptor
// the dma package refuses keeps the dma rule (dma.RuleIDs).
const (
	RuleViewValid          = "dge_view_valid"
	RuleRowInPartition     = "dge_row_in_partition"
	RulePartitionInRange   = "dge_partition_in_range"
	RuleElementCounts      = "dge_element_counts_match"
	RulePermValid          = "dge_perm_valid"
	RuleDtypes             = "dge_dtypes_valid"
	RuleComputeOp          = "dge_compute_op_valid"
	RuleSemaphore          = "dge_semaphore_valid"
	RuleDMACfg             = "dge_dma_cfg_enables_engine"
	RuleSrcDstDisjoint     = "dge_src_dst_disjoint"
	RuleAddrImmediate      = "dge_addr_immediate"
	RuleDMAInstruction     = "dge_dma_instruction"
	RuleIndirectMode       = "dge_indirect_mode_valid"
	RuleGatherXposeShape   = "dge_gather_xpose_shape"
	RuleXposeDtype         = "dge_xpose_dtype"
	RuleXposeTile          = "dge_xpose_tile"
	RuleXposePlacement     = "dge_xpose_placement"
	RulePlanNests          = "dge_plan_nests"
	RuleLoopCount16        = "dge_loop_count_16bit"
	RuleOpcodeOnGeneration = isa.RuleOpcodeOnGeneration

	// The ISA's rules (isa.Registry) the DGE also applies: CCE alignment to requests, the
	// crossbar's placement to DMA_GATHER_XPOSE words planned by library callers that skip
	// validation (tpbsim's check and run validate first). For a word, PlanInst reports the
	// validator's own violation of the rule (isaRefusal).
	RuleCCEAligned            = isa.RuleIsValidDMACCE
	RuleGatherXposeDstInSBUF  = isa.RuleGatherXposeDstInSBUF
	RuleGatherXposeDstAligned = isa.RuleGatherXposeDstAligned
	RuleGatherXposeDstStep    = isa.RuleGatherXposeDstStep
)

// RuleIDs lists every rule id a DGE *Error (or *SpecError: RuleRequestForm) can carry.
func RuleIDs() []string {
	return []string{RuleViewValid, RuleRowInPartition, RulePartitionInRange, RuleElementCounts, RulePermValid, RuleDtypes, RuleComputeOp, RuleSemaphore,
		RuleDMACfg, RuleSrcDstDisjoint, RuleAddrImmediate, RuleDMAInstruction, RuleIndirectMode, RuleGatherXposeShape,
		RuleXposeDtype, RuleXposeTile, RuleXposePlacement, RulePlanNests, RuleLoopCount16, RuleOpcodeOnGeneration,
		RuleCCEAligned, RuleGatherXposeDstInSBUF, RuleGatherXposeDstAligned, RuleGatherXposeDstStep, RuleIndexRequest, RuleRequestForm}
}
