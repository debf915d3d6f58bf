# expect: exit=0
# StreamTranspose of one-byte cells: 32 channels x 32 UINT8 elements, one tile.
.gen CAYMAN
.engine DVE
STREAM_TRANSPOSE in=UINT8 out=UINT8 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]
# sim: outcome=finished
# sim: load sbuf:0:0x0 x8 01 02 03
# sim: load sbuf:5:0x0 x8 50 51
# sim: want sbuf:0:0x100 x8 01 00 00 00 00 50
# sim: want sbuf:1:0x100 x8 02 00 00 00 00 51
# sim: want sbuf:2:0x100 x8 03 00
