# expect: exit=1 SEM_INC_READ on sem[1] fires after its reads, before its writes
# DVE's update fires once its reads are done (SEM_INC_READ), before it writes: ACT, released by it,
# reads what DVE is still writing. SEM_INC_COMPLETE would order the write.
.gen CAYMAN
.engine DVE
COPY update_mode=SEM_INC_READ update_idx=1 src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
.engine ACT
CAST wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=1 semaphore_value=1 src_mem_pattern=sbuf:0:0x100[32@1] in_dtype=FP32 out_dtype=BFLOAT16 num_active_channels=32 dst_mem_pattern=sbuf:0:0x400[32@1]
# sim: outcome=race kind=write-read range=sbuf:0..31:0x100..0x17f bytes=4096
