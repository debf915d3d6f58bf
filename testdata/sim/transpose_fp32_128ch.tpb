# expect: exit=0
# StreamTranspose of 128 channels x 32 fp32 elements: four tiles down the channel axis, each
# transposed within its own 32 channels (channel 96 + c, element e -> channel 96 + e, element c).
.gen CAYMAN
.engine DVE
STREAM_TRANSPOSE in=FP32 out=FP32 nac=128 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]
# sim: outcome=finished
# sim: load sbuf:0:0x4 f32 4            # channel 0, element 1
# sim: load sbuf:97:0x0 f32 1.5         # channel 97, element 0
# sim: load sbuf:96:0x7c f32 3          # channel 96, element 31
# sim: load sbuf:127:0x7c f32 2         # channel 127, element 31
# sim: want sbuf:1:0x100 f32 4
# sim: want sbuf:96:0x100 f32 0 1.5
# sim: want sbuf:127:0x100 f32 3
# sim: want sbuf:127:0x17c f32 2
# sim: want sbuf:31:0x100 f32 0         # tiles do not mix: channel 31 holds nothing of channel 96
