package asm_test

import (
	"fmt"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
)

func ExampleParseLine() {
	w, err := asm.ParseLine("STREAM_TRANSPOSE in=BFLOAT16 out=BFLOAT16 nac=48 src=sbuf:0:0x0[32@1] dst=sbuf:1:0x100[32@1]", isa.CAYMAN)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", w[32:40])
	inst, _ := isa.Decode(w[:])
	for _, v := range isa.Validate(inst, isa.CAYMAN) {
		fmt.Println(v)
	}
	line, _ := asm.Format(w, isa.CAYMAN) // an error only for an invalid generation
	fmt.Println(line)
	// Output:
	// 06 06 30 00 00 00 00 00
	// has_multiple_32_channels: num_active_channels = 48, legal: 32, 64, 96 or 128
	// STREAM_TRANSPOSE src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=BFLOAT16 out_dtype=BFLOAT16 num_active_channels=48 dst_mem_pattern=sbuf:1:0x100[32@1]
}

func ExampleToJSON() {
	w, _ := asm.ParseLine("DMA_GATHER_TRANSPOSE dtype.dtype_lo=BFLOAT16 dtype.dtype_hi=BFLOAT16 flags.gather_dim=Y elem_size=256", isa.CAYMAN)
	fmt.Println(string(asm.ToJSON(w, isa.CAYMAN)))
	// Output:
	// {"gen":"CAYMAN","opcode":"DMA_GATHER_TRANSPOSE","inst_word_len":16,"debug_cmd":0,"debug_hint":0,"events":{"wait_mode":"NONE","wait_idx":0,"update_mode":"NONE","update_idx":0,"semaphore_value":0},"semaphore":0,"dma_configs":{"priority_class":0,"reserved":0},"idx_num_active_channels":0,"src_idx_bound_reg":{"bc_reg":0,"bc_disable_oob_error_notif":0,"bc_enabled":0},"src_start_addr":"hbm:0x0","src_step_elem":[0,0],"src_num_elem":[0,0],"src_idx_start_addr":"sbuf:0:0x0","dst_start_addr":"hbm:0x0","reserved":[0,0,0],"dst_bound_reg":{"bc_reg":0,"bc_disable_oob_error_notif":0,"bc_enabled":0},"dst_step_elem_1":0,"dst_num_elem":[0,0],"elem_size":256,"dtype":{"dtype_lo":"BFLOAT16","dtype_hi":"BFLOAT16"},"flags":{"gather_dim":"Y","reserved":0}}
}
