# expect: exit=1 race (write-read) on sbuf:0..63:0x0..0xff
# The SP queue's DMA fills 64 rows of SBUF; the DVE, after a copy of its own, reads them. The
# DMA's descriptors run on the DMA engines after the SP queue has moved on, and the DVE does not
# wait for the DMA's completion semaphore sem[4]: nothing orders its read after their writes.
.gen CAYMAN
.engine SP
DMAMEMCPY semaphore=4 sem_increment=4 src_start_addr=hbm:0x10000 src_step_elem=[1,64] src_num_elem=[64,64] src_elem_size=4 dst_start_addr=sbuf:0:0x0 dst_step_elem=[1,65536] dst_num_elem=[64,64] dst_elem_size=4 in_dtype=FP32 out_dtype=FP32
.engine DVE
COPY src_mem_pattern=sbuf:0:0x2000[512@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=64 dst_mem_pattern=sbuf:0:0x3000[512@1]
COPY src_mem_pattern=sbuf:0:0x0[64@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=64 dst_mem_pattern=sbuf:0:0x1000[64@1]
# sim: outcome=race kind=write-read range=sbuf:0..63:0x0..0xff bytes=16384
