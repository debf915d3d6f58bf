# expect: exit=0
# WAIT_FOR_SEM_GE_REG: the ACT copy waits until sem[1] >= addr_reg[4] = 3 (semaphore_value names the register). Three DVE copies increment sem[1] on completion; the third releases it. SEM_WR_REG_COMPLETE then writes addr_reg[9] = 42 into sem[2].
.gen CAYMAN
.addr_reg 4 3
.addr_reg 9 42
.engine DVE
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:0:0x100[4@1]
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:0:0x200[4@1]
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:0:0x300[4@1]
.engine ACT
COPY wait_mode=WAIT_FOR_SEM_GE_REG wait_idx=1 semaphore_value=4 src=sbuf:0:0x300[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:1:0x0[4@1]
COPY update_mode=SEM_WR_REG_COMPLETE update_idx=2 semaphore_value=9 src=sbuf:0:0x0[4@1] in=FP32 out=FP32 nac=1 dst=sbuf:2:0x0[4@1]
# sim: outcome=finished
# sim: load sbuf:0:0x0 f32 1 2 3 4
# sim: want sbuf:1:0x0 f32 1 2 3 4
# sim: sems 1=3 2=42
