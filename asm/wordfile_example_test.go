package asm_test

import (
	"fmt"
	"os"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
)

// What `tpbsim asm` and `tpbsim disasm` do with a source of two queues: its words as a bare
// .bin (with the warning that the .bin loses the ACT queue of the CAST), and its disassembly,
// which keeps the queues.
func ExampleFile_WriteDisasm() {
	src := ".engine ACT\nCAST in=FP32 out=BFLOAT16 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]\n"
	f, err := asm.Load("p.s", []byte(src), isa.CAYMAN, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(f.Bytes()), "bytes")
	fmt.Println(f.BinQueueWarning("p.s"))
	if err := f.WriteDisasm(os.Stdout, false); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 64 bytes
	// p.s:2: engine: CAST is on the ACT queue, but a bare .bin has no engine queues: 'tpbsim run' of the .bin puts it on DVE (its opcode's engine); to run it as written, run the source (.s/.tpb) or its JSON form, which keeps each instruction's engine: tpbsim disasm --json p.s > OUT.json
	// .engine ACT
	// CAST src_mem_pattern=sbuf:0:0x0[32@1] in_dtype=FP32 out_dtype=BFLOAT16 num_active_channels=32 dst_mem_pattern=sbuf:0:0x100[32@1]  # word 0 @0x0
}
