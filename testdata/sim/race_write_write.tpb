# expect: exit=1 race (write-write) on sbuf:0..31:0x100..0x17f
# DVE and POOL copy into the same 128 bytes of 32 partitions with no semaphore between them:
# which copy survives depends on tpbsim's invented timing. A write-write race.
.gen CAYMAN
.engine DVE
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
.engine POOL
COPY src_mem_pattern=sbuf:0:0x800[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
# sim: outcome=race kind=write-write range=sbuf:0..31:0x100..0x17f bytes=4096
