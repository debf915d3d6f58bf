# expect: exit=1 waits sem[3] WAIT_FOR_SEM_EQ_IMM 1; sem[3] = 2
# An equality wait can miss its value: the DVE bumps sem[3] twice while POOL is still busy with
# a long copy, so POOL's second instruction finds sem[3] = 2, never 1 again: a deadlock.
.gen CAYMAN
.engine DVE
COPY update_mode=SEM_INC_COMPLETE update_idx=3 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
COPY update_mode=SEM_INC_COMPLETE update_idx=3 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x200[32@1]
.engine POOL
COPY src_mem_pattern=sbuf:0:0x0[4096@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x8000[4096@1]
COPY wait_mode=WAIT_FOR_SEM_EQ_IMM wait_idx=3 semaphore_value=1 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x300[32@1]
# sim: outcome=deadlock waiting=POOL
# sim: sems 3=2
