package sim_test

import (
	"fmt"
	"os"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/explain"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// What `tpbsim check prog.s` prints: every violation of every word with its source line and the
// rule's provenance (explain.RuleProvenance), then the counts.
func ExampleCheckFile() {
	src := `STREAM_TRANSPOSE in=FP32 out=FP32 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]
STREAM_TRANSPOSE in=FP32 out=FP32 nac=48 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]
`
	f, err := asm.Load("prog.s", []byte(src), isa.CAYMAN, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := sim.CheckFile(f, sim.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep.WriteText(os.Stdout, explain.RuleProvenance)
	fmt.Println(rep.OK(), rep.Words[1].Violations[0].Rule)
	// Output:
	// word 1 (offset 0x40) prog.s:2 STREAM_TRANSPOSE: has_multiple_32_channels: num_active_channels = 48, legal: 32, 64, 96 or 128 [seed 000 §4.2, common.h:1767, HIGH/OBSERVED]
	// prog.s: 2 words, 1 valid, 1 invalid, 0 unsupported on CAYMAN
	// false has_multiple_32_channels
}
