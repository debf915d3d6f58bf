# expect: exit=0
# Race-free controls of the race fixtures, each ordered the way the model requires:
# - POOL's write after DVE's write of 0x100: POOL waits for DVE's SEM_INC_COMPLETE on sem[1];
# - the DMA's 64 rows, fanned over two engines: DVE waits sem[4] >= 2, both engines' increments;
# - SEM_INC_READ used for what it orders: ACT overwrites DVE's source 0x800 once DVE has read it
#   (sem[2]), while DVE may still be writing its destination;
# - accesses that share no byte need no order: ACT's 0x2000 row beside DVE's 0x2080 row, and
#   interleaved walks (DVE's even elements at 0x3000, POOL's odd ones) that never meet.
.gen CAYMAN
.engine SP
DMAMEMCPY semaphore=4 sem_increment=2 src_start_addr=hbm:0x10000 src_step_elem=[1,64] src_num_elem=[64,64] src_elem_size=4 dst_start_addr=sbuf:0:0x4000 dst_step_elem=[1,65536] dst_num_elem=[64,64] dst_elem_size=4 in_dtype=FP32 out_dtype=FP32
.engine DVE
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
COPY wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=4 semaphore_value=2 src_mem_pattern=sbuf:0:0x4000[64@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=64 dst_mem_pattern=sbuf:0:0x5000[64@1]
COPY update_mode=SEM_INC_READ update_idx=2 src_mem_pattern=sbuf:0:0x800[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0xc00[32@1]
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x2080[32@1]
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x3000[32@2]
.engine POOL
COPY wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=1 semaphore_value=1 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x3004[32@2]
.engine ACT
CAST wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=2 semaphore_value=1 src_mem_pattern=sbuf:0:0x1000[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x800[32@1]
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x2000[32@1]
# sim: outcome=finished races=0
# sim: load hbm:0x10000 f32 1 2
# sim: load hbm:0x10100 f32 3
# sim: load hbm:0x13f00 f32 4
# sim: load sbuf:0:0x0 f32 7 8
# sim: load sbuf:0:0x800 f32 5
# sim: load sbuf:0:0x1000 f32 6
# sim: want sbuf:0:0x5000 f32 1 2       # HBM row r reaches partition r, then the DVE's copy
# sim: want sbuf:1:0x5000 f32 3
# sim: want sbuf:63:0x5000 f32 4
# sim: want sbuf:0:0x100 f32 7 8
# sim: want sbuf:0:0xc00 f32 5          # DVE read 0x800 before ACT overwrote it
# sim: want sbuf:0:0x800 f32 6
# sim: want sbuf:0:0x2000 f32 7 8
# sim: want sbuf:0:0x2080 f32 7 8
# sim: want sbuf:0:0x3000 f32 7 7 8 8   # DVE's even elements, POOL's odd ones
# sim: sems 1=1 2=1 4=2
