package isa

// Conflict is a place where two sources (the seeds, FACTS, NKI.md, the ISA header's predicate
// names) disagree or where one reading of a source contradicts another part of the model, with
// what tpbsim does and the registry entry that holds the choice. `tpbsim explain conflicts`
// prints them all.
type Conflict struct {
	ID      string // short name
	Between string // the sources in conflict
	What    string // what disagrees
	Choice  string // what tpbsim does
	See     string // the registry entries (tpbsim explain ID)
}

// Conflicts lists every known conflict between sources, in one place.
func Conflicts() []Conflict {
	return []Conflict{
		{"gather_xpose_oob_skip", "FACTS §C.4 (has_valid_idx_bound_check_reg_no_flags) vs NKI.md (oob_mode.skip with indirect indexing)",
			"reading 'no flags' as 'bc_disable_oob_error_notif must be clear' makes NKI's oob_mode=skip unreachable for a gather-transpose, whose DMA model skips on that bit",
			"'no flags' is read as the variant without the ADDR8 marker's wide-offset flag; the notif bit is legal and skips the row",
			"has_valid_idx_bound_check_reg_no_flags, dma.gather_xpose.mapping, sim.bound_regs"},
		{"gather_xpose_dst_step_unit", "FACTS §C.4 / seed 003 §3.3 (dst_step_elem[1] % 32 == 0) vs the field's unit (elements of dtype_hi, as tpbsim executes it; FACTS' note that the implicit dim-0 dst step is sizeof(dtype_hi) reads as bytes)",
			"read in elements, the literal rule asks 64 bytes of 2-byte rows where the hardware reason (each transposed row starts on a 32-byte beat) asks 32; read in bytes, the field is a byte step and the literal rule is the beat",
			"the step field is executed in elements of dtype_hi; the ISA validator, check and the DGE's planner all require the step to span a multiple of 32 bytes (16 elements of a 2-byte dtype), so every tool accepts the same words; a device trace with a non-multiple-of-32 step would settle the unit",
			"gather_xpose_dst_step, dge.gather_xpose_dst_step, dge.xbar_eligibility"},
		{"gather_xpose_index_partitions", "FACTS §C.3/§C.4 (check_dma_indirect_indices: idx_num_active_channels == 128) vs the DGE planner (16..128 index partitions, multiples of 16)",
			"the planner can lower fewer index partitions than the ISA word may name",
			"instructions must say 128 (check and run refuse others); the planner's wider range serves only library callers of dge.PlanInst that skip validation",
			"check_dma_indirect_indices, dge_gather_xpose_shape"},
		{"dma_transpose_layout", "FACTS §C.5 (bytes 16..35 and 40..59 undescribed) vs what a DMA_TRANSPOSE must carry (src and dst addresses, a row step)",
			"the sources give no offsets for the fields the instruction needs to run",
			"src_start_addr@16, dst_start_addr@40, dst_row_step@48, mirroring DIRECT2D; named in every tool and marked INFERRED",
			"dge.direct2d_xpose_layout"},
		{"s4d4_tr_opcode_count", "seed 000 (eleven opcodes share the S4D4_TR struct) vs FACTS §D.2 (SUNDA has 13: also 0x8C/0x8D BF16 reduces)",
			"SUNDA's two BF16 reduces use the struct but are not among the seed's eleven",
			"0x8C/0x8D decode as S4D4_TR on SUNDA only, with FACTS §D.2's four constraints; CAYMAN+ has the eleven",
			"isa.sunda_bf16_reduce, bf16_reduce_in_dtype"},
		{"working_state_widths", "seed 003 §4.5 (dge_reshape_state: uint16 elem_size, uint16 num_elem[4], int32 steps) vs the ISA structs (32-bit steps, elem_size 0 = 64 KiB) and 2^40-element requests",
			"a request or instruction can name a level of more than 65535 iterations or a 65536-byte element, which the working state cannot hold",
			"views are wider than the working state; levels above 65535 are split (factored or peeled) before they become descriptors; elem_size up to 64 KiB follows the ISA's 0 = 64 KiB",
			"dge.loop_count_split, dge_loop_count_16bit, dge_view_valid"},
		{"maverick_psum", "FACTS §B.5 (PSUM_BUF_SZ = 0 on MAVERICK, as read) vs the PSUM geometry constants the same header keeps",
			"MAVERICK's header keeps PSUM partition constants but a zero size",
			"MAVERICK has no PSUM: psum: addresses are refused and on-chip addresses print as sbuf:",
			"isa.addr8_address_map"},
		{"state_log_prefix", "seed 003 §4.5 (the BEFORE/AFTER format, prefix elided as '...') vs a diff against a device log",
			"the exact prefix of the working-state lines is not quoted",
			"tpbsim prints 'S: tensor_reshape_indirect_transpose BEFORE:' (LOW/INFERRED)",
			"dge.state_log_prefix"},
		{"nki_dma_transpose_default_path", "NKI.md §3 (the dma_transpose stub's shape and 2-byte rules for dge_mode unknown or hwdge) vs the SDK's own test (fp32 [2048, 128] transposed on the default path)",
			"the rules as published refuse what the SDK's test runs",
			"the shape and dtype rules are checked for dge_mode=hwdge only; on the default path a transpose the crossbar cannot run takes the element-strided walk",
			"kernel.dma_transpose_default_path, nki.dma_transpose.src_rows"},
		{"nki_ve_transpose_tile", "NKI.md §2: the SDK's example transposes a [32, 2] tile on the Vector Engine vs KLR's comment (multiples of 32x32) and the seed's StreamTranspose (32 channels, a multiple of 32 elements)",
			"a partial tile is legal NKI but not one StreamTranspose word",
			"partial tiles up to [32, 32] are padded through zeroed 32x32 staging tiles; larger ones are refused",
			"kernel.ve_transpose_partial, nki.nc_transpose.vector_tile"},
		{"nki_float8_e4m3fn", "NKI.md §5 (float8_e4m3fn on TRN3: no Inf, max 448) vs the ISA's one FP8_EXP4 code (tpbsim's IEEE-like E4M3, max 240)",
			"two NKI formats share one ISA dtype code",
			"float8_e4m3fn is accepted and converted as FP8_EXP4's IEEE-like E4M3",
			"kernel.dtype_e4m3fn"},
	}
}
