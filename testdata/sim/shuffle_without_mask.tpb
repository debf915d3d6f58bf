# expect: exit=1 stream_shuffle_mask_loaded
# StreamShuffle uses the lane map of the last LOAD_MASK_SELECT on its DVE; there is none.
.gen CAYMAN
.engine DVE
STREAM_SHUFFLE src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]
# sim: outcome=invalid rule=stream_shuffle_mask_loaded stage=run
