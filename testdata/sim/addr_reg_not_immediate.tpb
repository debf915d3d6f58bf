# expect: exit=1 sim.addr_reg_value
# Register 2 holds a register-mode ADDR4 itself (0x80000001, reg:1): an address register resolves to an immediate address, one level only.
.gen CAYMAN
.addr_reg 1 sbuf:0:0x0
.addr_reg 2 0x80000001
.engine DVE
COPY src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=reg:2[4@1]
# sim: outcome=invalid rule=sim.addr_reg_value stage=run
