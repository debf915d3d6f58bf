# expect: exit=0
# The arithmetic reduces on the arm of each engine (FACTS §D.4, rule is_valid_tensor_reduce_arith_engine):
# the DVE folds with the general (float) ALU ops, POOL with the integer reduce ops, on 32/64-bit
# integers in SBUF; the fused transpose-reduce likewise. Swapping an op between the queues is refused.
.gen CAYMAN
.engine DVE
TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 op=ADD op_dim=X dst_mem_pattern=sbuf:0:0x1000[1@1]
TRANSPOSE_TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=FP32 num_active_channels=32 op=MAX op_dim=X dst_mem_pattern=sbuf:0:0x1100[1@1]
.engine POOL
TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x200[32@1] in_dtype=INT32 out_dtype=INT32 num_active_channels=32 op=ADD_INT op_dim=X dst_mem_pattern=sbuf:0:0x1200[1@1]
TRANSPOSE_TENSOR_REDUCE_ARITH_OP src_mem_pattern=sbuf:0:0x200[32@1] in_dtype=INT32 out_dtype=INT32 num_active_channels=32 op=MAX_INT op_dim=X dst_mem_pattern=sbuf:0:0x1300[1@1]
# sim: outcome=finished
# sim: load sbuf:0:0x0 f32 1 2 3 4
# sim: load sbuf:1:0x0 f32 0.5 0.25
# sim: load sbuf:2:0x200 i32 5 -3 100
# sim: want sbuf:0:0x1000 f32 10        # ADD over each partition's 32 elements
# sim: want sbuf:1:0x1000 f32 0.75
# sim: want sbuf:0:0x1100 f32 1         # MAX after the transpose: over partitions, per element
# sim: want sbuf:1:0x1100 f32 2
# sim: want sbuf:3:0x1100 f32 4
# sim: want sbuf:4:0x1100 f32 0
# sim: want sbuf:2:0x1200 i32 102
# sim: want sbuf:0:0x1300 i32 5
# sim: want sbuf:1:0x1300 i32 0         # max(-3, 0, ...)
# sim: want sbuf:2:0x1300 i32 100
