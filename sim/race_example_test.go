package sim_test

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// A library run gets race detection by default (Config.Races is RacesError): the DVE and POOL
// write the same bytes with nothing between them, so the finished run returns a *sim.RaceError
// (errors.Is(err, fault.ErrRace)) and lists the pair in Result.Races.
func ExampleRaceError() {
	g := isa.CAYMAN
	copyTo := func(src, dst uint32) *isa.S4D4TR {
		t := func(off uint32) isa.Tensor4D {
			return isa.Tensor4D{StartAddr: isa.Addr4(off), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{32, 1, 1, 1}}
		}
		return &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpCOPY, InstWordLen: 16}, SrcMemPattern: t(src), DstMemPattern: t(dst),
			InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: 32}
	}
	p := &sim.Program{File: "k.tpb", Queues: []sim.Queue{
		{Engine: isa.EngineDVE, Insts: []sim.Instr{{Inst: copyTo(0, 0x100), Line: 3}}},
		{Engine: isa.EnginePOOL, Insts: []sim.Instr{{Inst: copyTo(0x800, 0x100), Line: 5}}},
	}}
	m, _ := sim.New(sim.Config{Gen: g})
	res, err := m.Run(p)
	var re *sim.RaceError
	fmt.Println(errors.Is(err, fault.ErrRace), errors.As(err, &re), len(res.Races))
	r := res.Races[0]
	fmt.Println(r.Kind(), r.Ranges[0], r.First.Engine, r.Second.Engine)
	// Output:
	// true true 1
	// write-write sbuf:0..31:0x100..0x17f DVE POOL
}
