package sim_test

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// The check pipeline `tpbsim check` and Run share: every instruction's verdict, with the rules
// it breaks, before anything executes.
func ExampleCheckProgram() {
	pattern := func(addr isa.Addr4) isa.Tensor4D {
		return isa.Tensor4D{StartAddr: addr, StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{32, 1, 1, 1}}
	}
	transpose := func(channels uint8) isa.Inst {
		return &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpSTREAM_TRANSPOSE, InstWordLen: 16},
			SrcMemPattern: pattern(0), DstMemPattern: pattern(0x100), InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32,
			NumActiveChannels: channels}
	}
	p := &sim.Program{Queues: []sim.Queue{{Engine: isa.EngineDVE, Insts: []sim.Instr{
		{Inst: transpose(32), Offset: -1, Line: 1},
		{Inst: transpose(48), Index: 1, Offset: -1, Line: 2},
	}}}}
	rep, err := sim.CheckProgram(p, sim.Config{Gen: isa.CAYMAN})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, in := range rep.Insts {
		fmt.Printf("line %d: %v %v\n", in.Line, in.Opcode, in.Rules())
	}
	fmt.Println(rep.OK())
	fmt.Println(rep.Err())
	// Output:
	// line 1: STREAM_TRANSPOSE []
	// line 2: STREAM_TRANSPOSE [has_multiple_32_channels]
	// false
	// 1 instruction(s) fail the checks made before the run; nothing was executed
	//   DVE instruction 1 (line 2): STREAM_TRANSPOSE: invalid instruction: rule has_multiple_32_channels: num_active_channels = 48, legal: 32, 64, 96 or 128
}
