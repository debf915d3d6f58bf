# expect: exit=1 gpsimd_cannot_access_psum
# An address register resolves to PSUM for a POOL (GpSimd) instruction: the check before the run cannot see it (the register's value is resolved when the instruction issues), the resolved word fails the same rule as an immediate PSUM address.
.gen CAYMAN
.addr_reg 0 psum:0:0x0
.engine POOL
COPY src=sbuf:0:0x0[32@1] in=FP32 out=FP32 nac=32 dst=reg:0[32@1]
# sim: outcome=invalid rule=gpsimd_cannot_access_psum stage=run
