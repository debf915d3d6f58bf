# expect: exit=1 is_valid_tensor_reduce_arith_engine
# TRANSPOSE_TENSOR_REDUCE_ARITH_OP op=MAX on POOL is refused before the run: FACTS §D.4's reduce engine predicate gives the DVE
# the general (float) ALU ops and POOL the integer reduce ops on 32/64-bit integers.
.gen CAYMAN
.engine POOL
TRANSPOSE_TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 op=MAX op_dim=X dst_mem_pattern=sbuf:0:0x1000[1@1]
# sim: outcome=invalid rule=is_valid_tensor_reduce_arith_engine stage=check
