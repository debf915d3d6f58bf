# expect: exit=0
# ADDR4 register mode: the DVE's COPY reads from reg:3 and ACT's CAST writes to reg:4, two address registers the program sets (.addr_reg): the data moves from sbuf:2:0x100 to sbuf:5:0x40 (as bf16).
.gen CAYMAN
.addr_reg 3 sbuf:2:0x100
.addr_reg 4 0x140040     # sbuf:5:0x40 on CAYMAN (5 x 256 KiB + 0x40)
.engine DVE
COPY update_mode=SEM_INC_COMPLETE update_idx=1 src=reg:3[4@1] in=FP32 out=FP32 nac=2 dst=sbuf:0:0x0[4@1]
.engine ACT
CAST wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=1 semaphore_value=1 src=sbuf:0:0x0[4@1] in=FP32 out=BFLOAT16 nac=2 dst=reg:4[4@1]
# sim: outcome=finished
# sim: load sbuf:2:0x100 f32 1 -2 3.5 4
# sim: load sbuf:3:0x100 f32 5 6 7 8
# sim: want sbuf:0:0x0 f32 1 -2 3.5 4
# sim: want sbuf:5:0x40 x16 3f80 c000 4060 4080 0000
# sim: want sbuf:6:0x40 x16 40a0 40c0 40e0 4100
# sim: sems 1=1
