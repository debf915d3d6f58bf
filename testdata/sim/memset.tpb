# expect: exit=0
# MEMSET (0x49) fills the dst walk of each active channel with set_value's raw bits (dve.memset):
# 4 partitions x 8 bf16 elements of 1.0 (0x3f80); the COPY then reads them back.
.gen CAYMAN
.engine DVE
MEMSET dtype=BFLOAT16 num_active_channels=4 set_value=0x3f80 dst_element_count=8 dst_mem_pattern=sbuf:0:0x100[8@1]
COPY in=BFLOAT16 out=BFLOAT16 nac=4 src=sbuf:0:0x100[8@1] dst=sbuf:0:0x200[8@1]
# sim: outcome=finished
# sim: want sbuf:0:0x100 x16 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 0000
# sim: want sbuf:3:0x200 x16 3f80 3f80 3f80 3f80 3f80 3f80 3f80 3f80 0000
# sim: want sbuf:4:0x100 x16 0000       # partition 4 is past the 4 active channels
