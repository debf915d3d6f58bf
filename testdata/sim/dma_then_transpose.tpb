# expect: exit=0
# The SP queue's DMA brings a 32 x 32 fp32 tile from HBM into partitions 0..31; its DMA engines
# bump sem[5] by 2 in total; the DVE waits for that, then transposes the tile.
.gen CAYMAN
.engine SP
DMAMEMCPY semaphore=5 sem_increment=2 src_start_addr=hbm:0x40000 src_step_elem=[1,32] src_num_elem=[32,32] src_elem_size=4 dst_start_addr=sbuf:0:0x0 dst_step_elem=[1,65536] dst_num_elem=[32,32] dst_elem_size=4 in_dtype=FP32 out_dtype=FP32
.engine DVE
STREAM_TRANSPOSE wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=5 semaphore_value=2 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
# sim: outcome=finished
# sim: load hbm:0x40000 f32 1 2 3 4     # row 0 of the tile
# sim: load hbm:0x40080 f32 5 6 7 8     # row 1
# sim: load hbm:0x40f80 f32 9           # row 31, element 0
# sim: load hbm:0x40ffc f32 10          # row 31, element 31
# sim: want sbuf:0:0x100 f32 1 5 0      # partition p, element j = row j, element p
# sim: want sbuf:1:0x100 f32 2 6 0
# sim: want sbuf:3:0x100 f32 4 8 0
# sim: want sbuf:0:0x17c f32 9
# sim: want sbuf:31:0x100 f32 0
# sim: want sbuf:31:0x17c f32 10
# sim: want sbuf:0:0x0 f32 1 2 3 4      # the DMA's copy of row 0
# sim: sems 5=2
