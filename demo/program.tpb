# tpbsim demo: four engine queues synchronised by semaphores, 64 channels x 64 elements.
# `tpbsim demo --print-program` prints this with {{STRIDE}} (the SBUF partition stride in fp32
# elements of the generation) filled in, ready for `tpbsim run`.
#
# memory (per partition, 64 partitions):  X fp32 @0x0, B bf16 @0x400, T @0x800, S @0xc00,
# F fp32 @0x1000, R fp32 @0x1400, tags uint16 @0x1800, tags^T @0x1c00, shuffled tags @0x2000

.engine SP
# X (64 x 64 fp32, row-major in HBM) -> SBUF, row c into partition c, fanned out over up to
# 4 DMA engines; the engines add 4 to sem[4] in total as they complete
DMAMEMCPY semaphore=4 sem_increment=4 src_start_addr=hbm:0x10000 src_step_elem=[1,64] src_num_elem=[64,64] src_elem_size=4 dst_start_addr=sbuf:0:0x0 dst_step_elem=[1,{{STRIDE}}] dst_num_elem=[64,64] dst_elem_size=4 in_dtype=FP32 out_dtype=FP32

.engine POOL
# waits for the DMA (sem[4] >= 4); X (fp32) -> B (bf16), round to nearest even; then sem[1] += 1
CAST wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=4 semaphore_value=4 update_mode=SEM_INC_COMPLETE update_idx=1 src_mem_pattern=sbuf:0:0x0[64@1] in_dtype=FP32 out_dtype=BFLOAT16 num_active_channels=64 dst_mem_pattern=sbuf:0:0x400[64@1]

.engine DVE
# the StreamShuffle lane map: output channel i of each 32-group takes input channel (5i+3) mod 32; lane 7 = 255 (untouched)
LOAD_MASK_SELECT immediate=[3,8,13,18,23,28,1,255,11,16,21,26,31,4,9,14,19,24,29,2,7,12,17,22,27,0,5,10,15,20,25,30]
# waits sem[1] >= 1; B -> T = B transposed in 32x32 tiles
STREAM_TRANSPOSE wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=1 semaphore_value=1 src_mem_pattern=sbuf:0:0x400[64@1] in_dtype=BFLOAT16 out_dtype=BFLOAT16 num_active_channels=64 dst_mem_pattern=sbuf:0:0x800[64@1]
# T -> S: channel i of each group takes channel mask[i]; then sem[2] += 1
STREAM_SHUFFLE update_mode=SEM_INC_COMPLETE update_idx=2 src_mem_pattern=sbuf:0:0x800[64@1] in_dtype=BFLOAT16 out_dtype=BFLOAT16 num_active_channels=64 dst_mem_pattern=sbuf:0:0xc00[64@1]
# tags -> tags^T (uint16 channel<<8|element: the tile picture)
STREAM_TRANSPOSE src_mem_pattern=sbuf:0:0x1800[64@1] in_dtype=UINT16 out_dtype=UINT16 num_active_channels=64 dst_mem_pattern=sbuf:0:0x1c00[64@1]
# tags^T -> shuffled tags
STREAM_SHUFFLE src_mem_pattern=sbuf:0:0x1c00[64@1] in_dtype=UINT16 out_dtype=UINT16 num_active_channels=64 dst_mem_pattern=sbuf:0:0x2000[64@1]
# S -> R: transpose, then add each run of 32 elements (op_dim X) in fp32
TRANSPOSE_TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0xc00[32@1,2@32] in_dtype=BFLOAT16 out_dtype=FP32 num_active_channels=64 op=ADD op_dim=X dst_mem_pattern=sbuf:0:0x1400[2@1]

.engine ACT
# waits sem[2] >= 1; S (bf16) -> F (fp32); then sem[3] += 1
CAST wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=2 semaphore_value=1 update_mode=SEM_INC_COMPLETE update_idx=3 src_mem_pattern=sbuf:0:0xc00[64@1] in_dtype=BFLOAT16 out_dtype=FP32 num_active_channels=64 dst_mem_pattern=sbuf:0:0x1000[64@1]
