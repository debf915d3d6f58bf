# expect: exit=1 sim.addr_reg_set
# The COPY's source is reg:7, which no .addr_reg (nor --addr-reg) sets: the instruction fails when it issues, and writes nothing.
.gen CAYMAN
.addr_reg 3 sbuf:0:0x0
.engine DVE
COPY src=reg:7[4@1] in=FP32 out=FP32 nac=1 dst=reg:3[4@1]
# sim: outcome=invalid rule=sim.addr_reg_set stage=run
# sim: want sbuf:0:0x0 f32 0
