# expect: exit=0
# StreamTranspose of 64 channels x 64 bf16 elements: a 2 x 2 grid of 32 x 32 tiles, each transposed
# where it is (FACTS §D: within each tile, element e of channel c -> element c of channel e). A
# loaded value is channel<<8 | element, so each wanted value names where it came from.
.gen CAYMAN
.engine DVE
STREAM_TRANSPOSE in=BFLOAT16 out=BFLOAT16 nac=64 src=sbuf:0:0x0[64@1] dst=sbuf:0:0x100[64@1]
# sim: outcome=finished
# sim: load sbuf:1:0x0 x16 0100 0101    # channel 1, elements 0 and 1
# sim: load sbuf:2:0x40 x16 0220        # channel 2, element 32: tile (0, 1)
# sim: load sbuf:33:0x0 x16 2100        # channel 33, element 0: tile (1, 0)
# sim: load sbuf:33:0x40 x16 2120       # channel 33, element 32: tile (1, 1)
# sim: load sbuf:63:0x7e x16 3f3f       # channel 63, element 63
# sim: want sbuf:0:0x100 x16 0000 0100
# sim: want sbuf:1:0x100 x16 0000 0101
# sim: want sbuf:0:0x144 x16 0220       # channel 0, element 34
# sim: want sbuf:32:0x100 x16 0000 2100
# sim: want sbuf:32:0x142 x16 2120      # channel 32, element 33
# sim: want sbuf:63:0x17e x16 3f3f
