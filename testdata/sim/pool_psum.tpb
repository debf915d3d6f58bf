# expect: exit=1 gpsimd_cannot_access_psum
# GpSimd (the POOL queue) cannot access PSUM.
.gen CAYMAN
.engine POOL
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=psum:0:0x0[32@1]
# sim: outcome=invalid rule=gpsimd_cannot_access_psum stage=check
