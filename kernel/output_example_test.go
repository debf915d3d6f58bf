package kernel_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/kernel"
	"github.com/tpbsim/tpbsim/sim"
)

// What `tpbsim kernel run K.json --out-dir DIR` writes: output<k>.npy per output and
// result.json, all whole or none of them.
func ExampleLowered_OutputFiles() {
	k, err := kernel.Parse([]byte(`{"format":"tpbsim.kernel","version":1,"name":"tr",
 "tensors":[{"name":"a","shape":[32,2],"dtype":"float32","buffer":"hbm","kind":"input"},
            {"name":"out","shape":[2,32],"dtype":"float32","buffer":"shared_hbm"},
            {"name":"t","shape":[32,2],"dtype":"float32","buffer":"sbuf"},
            {"name":"u","shape":[2,32],"dtype":"float32","buffer":"sbuf"}],
 "calls":[{"op":"dma_copy","call":"nl.load","loc":"x.py:5","dst":{"tensor":2,"offset":0,"pattern":[[2,32],[1,2]]},"src":{"tensor":0,"offset":0,"pattern":[[2,32],[1,2]]}},
          {"op":"nc_transpose","call":"nisa.nc_transpose","loc":"x.py:6","dst":{"tensor":3,"offset":0,"pattern":[[32,2],[1,32]]},"data":{"tensor":2,"offset":0,"pattern":[[2,32],[1,2]]}},
          {"op":"dma_copy","call":"nl.store","loc":"x.py:7","dst":{"tensor":1,"offset":0,"pattern":[[32,2],[1,32]]},"src":{"tensor":3,"offset":0,"pattern":[[32,2],[1,32]]}}],
 "outputs":[1]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	lw, err := kernel.Lower(k, kernel.Options{Gen: isa.CAYMAN})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := lw.Run(sim.Config{}, map[int][]byte{0: make([]byte, 32*2*4)})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "kernel")
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "out")
	files, metas, err := lw.OutputFiles(res, false, out)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := kernel.WriteOutputs(out, files, io.Discard); err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(filepath.Base(f.Path))
	}
	fmt.Printf("%+v\n", metas[0])
	// Output:
	// output0.npy
	// result.json
	// {Tensor:1 Name:out File:output0.npy DType:float32 Shape:[2 32] Encoding:native}
}

// The target of a kernel form: a generation given wins over the form's "gen", which wins over
// CAYMAN.
func ExampleKernel_TargetOptions() {
	k := &kernel.Kernel{Gen: "MARIANA"}
	for _, gen := range []string{"", "MAVERICK", "V9"} {
		o, err := k.TargetOptions(gen, "")
		fmt.Println(o.Gen, err)
	}
	o, _ := (&kernel.Kernel{}).TargetOptions("", "")
	fmt.Println(o.Gen)
	// Output:
	// MARIANA <nil>
	// MAVERICK <nil>
	// INVALID unknown generation "V9" (want SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK)
	// CAYMAN
}
