# expect: exit=1 has_multiple_32_channels
# StreamTranspose needs num_active_channels in {32, 64, 96, 128}.
.gen CAYMAN
.engine DVE
STREAM_TRANSPOSE src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=48 dst_mem_pattern=sbuf:0:0x100[32@1]
# sim: outcome=invalid rule=has_multiple_32_channels stage=check
