package demo_test

import (
	"fmt"
	"os"
	"path/filepath"

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

// What `tpbsim demo --export DIR` writes and prints: the program and its arrays, and the tpbsim
// run command that runs and checks them.
func ExampleExport() {
	dir, _ := os.MkdirTemp("", "demo")
	defer os.RemoveAll(dir)
	paths, err := demo.Export(isa.CAYMAN, dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	fmt.Print(demo.RunCommand("out"))
	// Output:
	// demo.tpb
	// x.npy
	// tags.npy
	// sentinel.npy
	// ones.npy
	// expect_transposed.npy
	// expect_reduced.npy
	//   tpbsim run out/demo.tpb --check-uninit \
	//     --load hbm:0x10000=out/x.npy \
	//     --load sbuf:0:0x1800=out/tags.npy --load sbuf:0:0xc00=out/sentinel.npy --load sbuf:0:0x2000=out/ones.npy \
	//     --expect sbuf:0:0x800=64x64:bf16:out/expect_transposed.npy --expect sbuf:0:0x1400=64x2:fp32:out/expect_reduced.npy \
	//     --dump sbuf:0:0x800=64x64:bf16:out/transposed.npy:float32 --trace out/trace.json
}
