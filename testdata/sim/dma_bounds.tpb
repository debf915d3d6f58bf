# expect: exit=1 Failed bounds check
# 4 rows of 64 fp32 into SBUF partitions 0..3 from offset 0x37f80: each row passes CAYMAN's 224 KiB active area at 0x38000. Nothing is written.
.gen CAYMAN
.engine SP
DMAMEMCPY semaphore=1 sem_increment=1 src_start_addr=hbm:0x0 src_step_elem=[1,64] src_num_elem=[64,4] src_elem_size=4 dst_start_addr=sbuf:0:0x37f80 dst_step_elem=[1,65536] dst_num_elem=[64,4] dst_elem_size=4 in_dtype=FP32 out_dtype=FP32
# sim: outcome=bounds rule=addr_in_active_area stage=run
# sim: load hbm:0x0 f32 1 2
# sim: want sbuf:0:0x37f80 f32 0 0   # the row that fits is not written either
# sim: sems 1=0
