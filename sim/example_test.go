package sim_test

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// Two engines that each wait for the other: the machine stops and says who waits on what.
func ExampleMachine_Run_deadlock() {
	m, _ := sim.New(sim.Config{Gen: isa.CAYMAN})
	copyWaiting := func(wait, update uint8) isa.Inst {
		t := isa.Tensor4D{StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{32, 1, 1, 1}}
		d := t
		d.StartAddr = 0x100
		return &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpCOPY, InstWordLen: 16},
			Events: isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: wait, SemaphoreValue: 1,
				UpdateMode: isa.SemIncComplete, UpdateIdx: update},
			SrcMemPattern: t, DstMemPattern: d, InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: 32}
	}
	p := &sim.Program{Queues: []sim.Queue{
		{Engine: isa.EngineDVE, Insts: []sim.Instr{{Inst: copyWaiting(1, 2), Offset: -1, Line: 3}}},
		{Engine: isa.EngineACT, Insts: []sim.Instr{{Inst: copyWaiting(2, 1), Offset: -1, Line: 5}}},
	}}
	_, err := m.Run(p)
	fmt.Println(err)
	// Output:
	// deadlock at t = 0 ps: every unfinished engine waits on a semaphore that nothing pending will change
	//   DVE   pc 0x0, instruction 0 of 1 (COPY, line 3): waits sem[1] WAIT_FOR_SEM_GE_IMM 1; sem[1] = 0
	//   ACT   pc 0x0, instruction 0 of 1 (COPY, line 5): waits sem[2] WAIT_FOR_SEM_GE_IMM 1; sem[2] = 0
}
