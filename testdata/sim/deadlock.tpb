# expect: exit=1 deadlock
# Each engine waits for the other's update before doing its own: neither can ever issue.
.gen CAYMAN
.engine DVE
COPY wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=1 semaphore_value=1 update_mode=SEM_INC_COMPLETE update_idx=2 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
.engine ACT
COPY wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=2 semaphore_value=1 update_mode=SEM_INC_COMPLETE update_idx=1 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x200[32@1]
# sim: outcome=deadlock waiting=DVE,ACT
# sim: sems 1=0 2=0
