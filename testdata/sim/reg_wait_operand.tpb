# expect: exit=1 sim.event_reg_operand
# A _REG wait names its register in semaphore_value (tpbsim's encoding: 0..63, the other bits zero); 64 names none, so run refuses the word before anything runs and check reports it unsupported.
.gen CAYMAN
.engine DVE
COPY wait_mode=WAIT_FOR_SEM_GE_REG wait_idx=1 semaphore_value=64 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:0:0x100[4@1]
# sim: outcome=unsupported rule=sim.event_reg_operand stage=check
