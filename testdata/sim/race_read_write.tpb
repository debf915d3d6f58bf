# expect: exit=1 race (write-read) on sbuf:0..31:0x100..0x17f
# DVE writes a tile that ACT reads without waiting for it: ACT may read the old bytes or the new.
# The fix the report names: DVE updates a free semaphore on completion, ACT waits for it.
.gen CAYMAN
.engine DVE
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
.engine ACT
CAST src_mem_pattern=sbuf:0:0x100[32@1] in_dtype=FP32 out_dtype=BFLOAT16 num_active_channels=32 dst_mem_pattern=sbuf:0:0x400[32@1]
# sim: outcome=race kind=write-read range=sbuf:0..31:0x100..0x17f bytes=4096
