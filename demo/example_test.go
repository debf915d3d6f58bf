package demo_test

import (
	"fmt"

	"github.com/tpbsim/tpbsim/demo"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// What `tpbsim demo` runs and checks, as library calls: the program on four engine queues,
// every result compared with the reference.
func ExampleDemo_Run() {
	d, err := demo.New(isa.CAYMAN)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := d.Run(sim.Config{CheckUninit: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Checks {
		fmt.Printf("%-48s %s\n", c.Name, c.Status())
	}
	// Output:
	// DMAMEMCPY HBM -> SBUF fp32                       ok
	// CAST fp32 -> bf16 (3328 of 4096 values rounded)  ok
	// STREAM_TRANSPOSE bf16                            ok
	// LOAD_MASK_SELECT + STREAM_SHUFFLE bf16           ok
	// CAST bf16 -> fp32                                ok
	// TRANSPOSE_TENSOR_REDUCE add -> fp32              ok
	// STREAM_TRANSPOSE uint16 tags                     ok
	// STREAM_SHUFFLE uint16 tags                       ok
}
