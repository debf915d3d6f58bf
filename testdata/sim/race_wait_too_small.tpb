# expect: exit=1 waits sem[4] WAIT_FOR_SEM_GE_IMM 1, which does not need the DMA's completion semaphore sem[4]
# The DMA is fanned over two DMA engines (sem_increment=2: each adds 1 to sem[4] as it finishes).
# The DVE waits for sem[4] >= 1, one of the two: it reads the other engine's rows unordered.
.gen CAYMAN
.engine SP
DMAMEMCPY semaphore=4 sem_increment=2 src_start_addr=hbm:0x10000 src_step_elem=[1,64] src_num_elem=[64,64] src_elem_size=4 dst_start_addr=sbuf:0:0x0 dst_step_elem=[1,65536] dst_num_elem=[64,64] dst_elem_size=4 in_dtype=FP32 out_dtype=FP32
.engine DVE
COPY wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=4 semaphore_value=1 src_mem_pattern=sbuf:0:0x0[64@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=64 dst_mem_pattern=sbuf:0:0x1000[64@1]
# sim: outcome=race bytes=8192   # the 32 rows of the DMA engine the DVE does not wait for
