# expect: exit=1 is_valid_tensor_reduce_arith_engine
# TENSOR_REDUCE_ARITH_OP op=ADD_INT on DVE is refused before the run: FACTS §D.4's reduce engine predicate gives the DVE
# the general (float) ALU ops and POOL the integer reduce ops on 32/64-bit integers.
.gen CAYMAN
.engine DVE
TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=INT32 out_dtype=INT32 num_active_channels=32 op=ADD_INT op_dim=X dst_mem_pattern=sbuf:0:0x1000[1@1]
# sim: outcome=invalid rule=is_valid_tensor_reduce_arith_engine stage=check
