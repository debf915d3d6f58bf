# expect: exit=1 rule opcode_on_generation
# DMA_TRANSPOSE (0xBD) is not in the SUNDA ISA (Provenance dge.dma_transpose_generations): run refuses it before anything runs, as check does.
.gen SUNDA
.engine SP
DMA_TRANSPOSE in_dtype=BFLOAT16 out_dtype=BFLOAT16 tile_src_rows=16 tile_src_cols=128
# sim: outcome=invalid rule=opcode_on_generation stage=check
