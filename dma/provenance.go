package dma

import "github.com/tpbsim/tpbsim/isa"

// Provenance lists the behaviours of the DMA engines the seeds and FACTS do not pin down, with
// their confidence and the reason for the choice (DESIGN.md §3 rule/provenance registry).
func Provenance() []isa.Provenance {
	b := isa.Behaviour
	r := isa.Rule
	return []isa.Provenance{
		b("dma.descriptor_nest", "A descriptor is GENERATE RD + GENERATE WR + one DIMPUSH per loop level (up to 4, innermost first in the struct, pushed outer to inner); "+
			"element (i0..i3) moves from src.addr + sum(i_k*src.step[k])*src.elem_size to the same expression on dst. Loop counts are 32-bit (the DIMPUSH log prints %u).",
			"seed 003 §4.5-§4.6; FACTS §C.7", isa.HighInferred, "the [num,num][step,step] payload against the 4-dim dge_shape; the seed reads one DIMPUSH per dim"),
		b("dma.bound_check", "A BOUND_CHECK_REG with bc_enabled bounds every byte a side touches to [start, start + R[bc_reg]) where start is the instruction's start address "+
			"and R is the caller's 64 x 32-bit register file; the check runs for every descriptor of a job before any byte moves, then the memory's active areas are checked the same way. "+
			"bc_disable_oob_error_notif does not turn the failure off.", "FACTS §C.6, §C.7 (\"addr <= limit\"); seed 003 §7 (\"S: DGE: Failed bounds check. $S[%i]+=%i.\")", isa.MedInferred,
			"the register holds a byte bound (PSEUDO_DMA_EXT carries src/dst_bound_size_bytes); measuring from the start address makes a 32-bit register useful for 56-bit HBM addresses"),
		b("dma.atomic_job", "A job (one request or instruction) is checked whole before any engine runs: a failing bounds or index check changes no memory and delivers no semaphore update; "+
			"the error quotes the firmware's \"$S[%i]+=%i\" marked \"not applied\".",
			"DESIGN.md §1 atomic failure", isa.Invented, "the hardware would have moved earlier descriptors; the model prefers a clean failure"),
		b("dma.compute_op", "compute_op ADD/MULTIPLY/MAX/MIN is reduce-on-copy: dst = op(dst, src) computed in FP32 (both operands widened from their dtypes), rounded into the out dtype; MAX/MIN propagate NaN "+
			"and order -0 below +0; a NaN result is the default NaN 0x7FC00000 before the rounding (num.alu_nan).",
			"FACTS §C.2, §C.6 (B+=A, B*=A)", isa.MedInferred, "FACTS gives B op= A; FP32 is the cast hub of every other datapath"),
		b("dma.cast", "in_dtype != out_dtype converts each value through FP32 (num.ConvertSlice): nearest-even into floats, toward zero saturating into integers.",
			"FACTS §C.2 (CCE path), DESIGN.md §4", isa.MedInferred, "same cast hub as the DVE"),
		b("dma.indirect1d", "INDIRECT1D: gather (SRC_INDIRECTION) moves row i from src + idx[i]*src_step*src_elem_size to dst + i*dst_step*dst_elem_size for i < dst_num_elem; scatter moves row i "+
			"to dst + idx[i]*... for i < src_num_elem; SRC_DST uses both index vectors for min(src_num_elem, dst_num_elem) rows. Indices are uint32, contiguous from the index address (SBUF partition 0). "+
			"An index is legal when below the indirected side's num_elem and, with its bound register enabled, below the register; idx_bound_is_err makes an illegal index an error, else the row is skipped. "+
			"Rows apply in index order, so duplicate scatter indices with compute_op accumulate.", "FACTS §C.3", isa.MedInferred,
			"the struct gives one num_elem per side and one index vector per indirected side; the extents are the natural index bounds"),
		b("dma.gather_xpose.mapping", "DMA_GATHER_XPOSE with NKI's semantics flat = indices.T.flatten()[:n]; dst = src[flat,:].T: n = src_num_elem[1] (gather_dim Y, = dst_num_elem[0]); "+
			"the row length F = src_num_elem[0] (= dst_num_elem[1], elem_size = 2F bytes); indices.shape[0] = idx_num_active_channels, so flat[m] is the uint32 at "+
			"src_idx + (m % P)*partition_stride + (m / P)*4; source row r starts at src + r*src_step_elem[1]*2 and walks src_step_elem[0]; dst[f][j] is at dst + (f*dst_step_elem_1 + j)*2. "+
			"An index at or above the src_idx_bound_reg register is an error, or skipped (dst column untouched) when the register's bc_disable_oob_error_notif bit is set (NKI oob_mode skip).",
			"FACTS §C.4; NKI.md gather transpose", isa.MedInferred, "the NKI formula is the user contract; the struct-field mapping follows the validator's equalities"),
		b("dma.timing", "Modelled time in ns (Timing, from the generation's timing table): a descriptor costs dma.descriptor_ns + (bytes + runs x dma.row_overhead_bytes) / dma.bytes_per_ns, "+
			"a crossbar transpose bytes / (dma.bytes_per_ns x dma.xbar_hbm_factor or dma.xbar_sbuf_factor), a compute_op x dma.compute_factor; the DGE producer spends the job's GenNs per descriptor.",
			"shared/spec/TIMING.md (see the timing.* entries)", isa.MedInferred, "the public per-engine bandwidth, saturation curve and transpose ratios; descriptor overheads are INVENTED (timing.dma.descriptor_ns)"),
		b("dma.credits", "wait_for_credit: each engine has a descriptor ring of RingDepth slots (MEMCOPY_CARVEOUT_CFG high 16 bits); the producer blocks while the ring of the next descriptor's engine holds RingDepth "+
			"descriptors not yet completed, and a completion returns one credit.", "seed 003 §6.4; FACTS §C.7", isa.LowInferred, "the seed names wait_for_credit and the ring; the counter mechanics are LOW on the wiki"),
		b("dma.sem_increment", "On completion of a job each of its Reporters that carried no data adds 1 to the job's semaphore at the job's start (its 4-byte update), each engine that worked adds 1 when its last descriptor ends, "+
			"and the last engine to finish adds the rest, so the total is always sem_increment (the planner never uses more engines than sem_increment when it is non-zero; the machine's reporters are the first sem_increment engines the DGE could use).",
			"FACTS §C.2 (sem_increment \"bounds # DMAs used\"); TIMING.md (every engine of a transfer reports, 4 bytes without data)", isa.LowInferred,
			"a waiter can rely on the instruction's own sem_increment whatever the fan-out, and only on all of it"),
		b("dma.xbar_4byte", "The crossbar also transposes 4-byte elements in 16x64 tiles (DIRECT2D_XPOSE tile_src_cols 1..64 for 4-byte dtypes); 1-byte elements have no xbar path.",
			"FACTS §C.5", isa.MedInferred, "the DIRECT2D_XPOSE field limits"),

		// The rules the engines' errors name (RuleIDs).
		r(RuleBoundsCheck, "With its BOUND_CHECK_REG enabled, every byte a descriptor side touches lies in [start, start + R[bc_reg]) (see dma.bound_check); "+
			"a failure is the firmware's \"S: DGE: Failed bounds check. $S[%i]+=%i.\"",
			"FACTS §C.6, §C.7; seed 003 §7", isa.MedInferred, []string{"src_bound_reg", "dst_bound_reg"},
			"the register holds a byte bound measured from the start address (PSEUDO_DMA_EXT carries src/dst_bound_size_bytes)"),
		r(RuleRangeInMemory, "Every byte a descriptor touches exists in the memory the engines run against; used when that memory refuses a range without naming "+
			"a rule of its own (tpbsim's memory names one: hbm_addr_in_range, dma_addr_in_range, addr_in_active_area, ...).",
			"tpbsim; FACTS §C.7", isa.Invented, []string{"src_start_addr", "dst_start_addr"}, "a fallback for memories other than package mem"),
		r(RuleAddrNoWrap, "A descriptor's address walk (start + sum(i_k*step_k)*elem_size, or a gathered row's address) stays inside the 64-bit address space.",
			"tpbsim", isa.Invented, []string{"src_start_addr", "dst_start_addr", "step_elem"}, "a wrapping walk has no meaningful target; reported as a bounds failure"),
		r(RuleIndexInBound, "With idx_bound_is_err (INDIRECT1D) or without bc_disable_oob_error_notif (GATHER_XPOSE), every index is below its bound: the indirected side's "+
			"num_elem and, when enabled, the index bound register (see dma.indirect1d, dma.gather_xpose.mapping).",
			"FACTS §C.3, §C.4, §C.6", isa.MedInferred, []string{"flags.idx_bound_is_err", "src_idx_bound_reg", "dst_idx_bound_reg"},
			"FACTS gives the hard-error / soft-skip switch; the extents are the natural index bounds"),
		r(RuleDescriptorValid, "A descriptor is well formed: non-zero counts, elem_size 1..64 KiB, casts between sizes that divide, crossbar tiles within 16 x 128 (2-byte) or 16 x 64 (4-byte) "+
			"whose destination start and the byte steps of every tile row and tile (levels 1..3) are 32-byte aligned.",
			"seed 003 §3.3 (dst_start_addr % 32, dst_step_elem[1] % 32: xbar HW constraint), §4.5-§4.6; FACTS §C.2, §C.4, §C.5 (dst 32-B aligned), §C.7", isa.MedInferred, []string{"num_elem", "elem_size", "tile_src_rows", "tile_src_cols"},
			"the descriptor limits are the struct fields' widths and the xbar tile geometry"),
		r(RuleJobEngines, "A job's descriptor queues name only DMA engines the generation has.", "FACTS §C.7 (MEMCOPY_DMA_CFG DMA bitfield)", isa.HighInferred, nil,
			"a queue for a missing engine cannot run; the DGE planner never makes one"),
		r(RuleJobBytesCap, "One job moves at most Engines.MaxJobBytes bytes (when set): a model limit, not a hardware rule.", "tpbsim", isa.Invented, nil,
			"keeps a crafted program from running for hours on the host"),
	}
}
