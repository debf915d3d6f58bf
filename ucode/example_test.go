package ucode_test

import (
	"fmt"

	"github.com/tpbsim/tpbsim/ucode"
)

// Decoding the seed 004 §8 words: block 41's M2 lane, and op88's terminal lane.
func ExampleLaneWord_Format() {
	fmt.Println(ucode.BNStats2M2Gen2.Format(ucode.Gen2))
	fmt.Println(ucode.BNStats2M2Gen3.Format(ucode.Gen3))
	fmt.Println(ucode.Op65Lane0Gen4.Format(ucode.Gen4))
	fmt.Println(ucode.LaneWord(0x01002000).Terminal(ucode.Gen2))
	// Output:
	// OPA=0x00 OPB=0 MUX=0x1ac VALID MODE=3 STAGE=7
	// OPA=0x00 OPB=0 MUX=0x168 EXT3=0x005 VALID MODE=3 STAGE=7
	// OPA=0x38 OPB=4 MUX=0x002 EXT3=0x000 EXT4=0x000 VALID MODE=0 STAGE=0 HIGH=0x0a00000000000000
	// true
}

// Following one opcode through a synthetic gen4 set.
func ExampleTableSet_Lookup() {
	s, err := ucode.BuildFixture("gen4/default")
	if err != nil {
		panic(err)
	}
	r, _ := s.Lookup(107)
	fmt.Printf("%s: entry %#x fast row %d slow row %d, block %s k=%d\n", r.Name, r.Entry.Raw, r.FastRow, r.SlowRow, r.Class(), r.Depth())
	fmt.Println("control:", r.Fast.Hex())
	fmt.Println("missing:", s.MissingOpcodes([]uint8{65, 140, 107}))
	// Output:
	// StreamTranspose: entry 0x46f fast row 111 slow row 4, block PASSTHRU k=0
	// control: 00 00 e8 00 a0 82 08 00 00 00 00 00 00 00 00 00
	// missing: [140]
}
