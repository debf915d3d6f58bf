# expect: exit=1 rule dge_src_dst_disjoint
# A 64x64 bf16 copy from hbm:0 to hbm:0x10: the ranges overlap, and the DMA engines give no ordering between overlapping reads and writes. Refused before anything runs.
.gen CAYMAN
.engine SP
DMAMEMCPY semaphore=1 sem_increment=1 src_start_addr=hbm:0x0 src_step_elem=[1,64] src_num_elem=[64,64] src_elem_size=2 dst_start_addr=hbm:0x10 dst_step_elem=[1,64] dst_num_elem=[64,64] dst_elem_size=2 in_dtype=BFLOAT16 out_dtype=BFLOAT16
# sim: outcome=invalid rule=dge_src_dst_disjoint stage=check
