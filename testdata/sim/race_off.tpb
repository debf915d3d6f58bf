# expect: exit=0
# flags: --races=off
# The same race under --races=off: not checked, nothing printed.
.gen CAYMAN
.engine DVE
COPY src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
.engine POOL
COPY src_mem_pattern=sbuf:0:0x800[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
# sim: outcome=finished races=0
