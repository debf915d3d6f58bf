# expect: exit=1 tensor4d_valid
# Register 6 holds sbuf:0:0x38000, past CAYMAN's 224 KiB active partition: the resolved word breaks the placement gate an immediate address would (tensor_start_addr_valid).
.gen CAYMAN
.addr_reg 6 0x38000
.engine DVE
COPY src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=reg:6[4@1]
# sim: outcome=invalid rule=tensor4d_valid stage=run
