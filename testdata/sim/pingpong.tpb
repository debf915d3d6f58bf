# expect: exit=0
# DVE and ACT take turns on one tile through two semaphores: DVE copies, ACT casts, DVE copies back.
.gen CAYMAN
.engine DVE
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
COPY wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=2 semaphore_value=1 src_mem_pattern=sbuf:0:0x200[32@1] in_dtype=BFLOAT16 out_dtype=BFLOAT16 num_active_channels=32 dst_mem_pattern=sbuf:0:0x300[32@1]
.engine ACT
CAST wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=1 semaphore_value=1 update_mode=SEM_INC_COMPLETE update_idx=2 src_mem_pattern=sbuf:0:0x100[32@1] in_dtype=FP32 out_dtype=BFLOAT16 num_active_channels=32 dst_mem_pattern=sbuf:0:0x200[32@1]
# sim: outcome=finished
# sim: load sbuf:0:0x0 f32 1 -2.5 3
# sim: load sbuf:31:0x0 f32 1.00390625 1.01171875   # 1+2^-8 and 1+3*2^-8: ties, to even
# sim: want sbuf:0:0x100 f32 1 -2.5 3 0
# sim: want sbuf:0:0x300 x16 3f80 c020 4040 0000
# sim: want sbuf:31:0x300 x16 3f80 3f82
# sim: sems 1=1 2=1
