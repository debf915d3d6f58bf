# tpbsim assembly example: a DMA brings a bf16 tile into SBUF, the DVE transposes it and
# shuffles channels; semaphore 3 orders the DVE after the DMA. Assemble and check with
#   tpbsim asm testdata/asm/example.s -o /tmp/example.bin && tpbsim check /tmp/example.bin
.gen CAYMAN

.engine SP
# 32 partitions x 64 bf16 (128 bytes each) from HBM into SBUF partitions 0..31 at offset 0
DMAMEMCPY src_start_addr=hbm:0x10000 src_step_elem=[1,64] src_num_elem=[64,32] src_elem_size=2 \
          dst_start_addr=sbuf:0:0x0 dst_step_elem=[1,131072] dst_num_elem=[64,32] dst_elem_size=2 \
          in_dtype=BFLOAT16 out_dtype=BFLOAT16 update_mode=SEM_INC_COMPLETE update_idx=3

.engine DVE
# 32 channels x 64 elements -> two 32x32 tiles, written at offset 0x1000
STREAM_TRANSPOSE wait_mode=WAIT_FOR_SEM_GE_IMM wait_idx=3 semaphore_value=1 \
    in=BFLOAT16 out=BFLOAT16 nac=32 src=sbuf:0:0x0[64@1] dst=sbuf:0:0x1000[64@1]
# reverse the channel order within the 32-channel group
LOAD_MASK_SELECT immediate=[31,30,29,28,27,26,25,24,23,22,21,20,19,18,17,16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1,0]
STREAM_SHUFFLE in=BFLOAT16 out=BFLOAT16 nac=32 src=sbuf:0:0x1000[64@1] dst=sbuf:0:0x2000[64@1]
# a strided copy that walks backwards through the row (negative step)
COPY in=BFLOAT16 out=BFLOAT16 nac=32 src=sbuf:0:0x207e[64@-1] dst=sbuf:0:0x3000[32@1,2@32]
