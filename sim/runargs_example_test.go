package sim_test

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// `tpbsim run --hbm-cap 1M --bound-reg 5=0x100 --addr-reg 3=sbuf:2:0x100` as library calls.
func ExampleProgram_ApplyRegArgs() {
	capBytes, err := sim.ParseHBMCap("1M")
	fmt.Println(capBytes, err)
	_, err = sim.ParseHBMCap("1K")
	fmt.Println(err)

	p := &sim.Program{AddrRegs: map[int]uint32{4: 0x40}}
	fmt.Println(p.ApplyRegArgs(isa.CAYMAN, []string{"5=0x100"}, []string{"3=sbuf:2:0x100"}))
	fmt.Printf("bound %#x, addr %#x\n", p.BoundRegs[5], p.AddrRegs[3])
	fmt.Println(p.ApplyRegArgs(isa.CAYMAN, nil, []string{"4=0x80"}))
	// Output:
	// 1048576 <nil>
	// 1024 bytes is less than one HBM page (65536 bytes): HBM is allocated in whole pages, so nothing could be written
	// <nil>
	// bound 0x100, addr 0x80100
	// --addr-reg 4=0x80: the program sets addr_reg 4 to sbuf:0:0x40 (drop one of them)
}
