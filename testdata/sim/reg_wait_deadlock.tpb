# expect: exit=1 deadlock
# WAIT_FOR_SEM_EQ_REG against addr_reg[5] = 4: the DVE increments sem[1] only three times, so ACT waits forever (the deadlock report names the register and its value).
.gen CAYMAN
.addr_reg 5 4
.engine DVE
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:0:0x100[4@1]
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:0:0x200[4@1]
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:0:0x300[4@1]
.engine ACT
COPY wait_mode=WAIT_FOR_SEM_EQ_REG wait_idx=1 semaphore_value=5 src=sbuf:0:0x300[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:1:0x0[4@1]
# sim: outcome=deadlock waiting=ACT
# sim: load sbuf:0:0x0 f32 1 2 3 4
# sim: want sbuf:1:0x0 f32 0
# sim: sems 1=3
