# expect: exit=1 dge_partition_in_range: dst: dst starts in SBUF partition 100, and its element 1792 (byte offset 7340032 from the start) would be row 128
# 64 rows of 64 fp32 into SBUF from partition 100: rows 128..163 do not exist (row 128's address is PSUM's). Nothing is written.
.gen CAYMAN
.engine SP
DMAMEMCPY semaphore=1 sem_increment=1 src_start_addr=hbm:0x0 src_step_elem=[1,64] src_num_elem=[64,64] src_elem_size=4 dst_start_addr=sbuf:100:0x0 dst_step_elem=[1,65536] dst_num_elem=[64,64] dst_elem_size=4 in_dtype=FP32 out_dtype=FP32
# sim: outcome=invalid rule=dge_partition_in_range stage=check
