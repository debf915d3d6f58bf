package sim_test

import (
	"fmt"
	"os"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// The report `tpbsim dge run --src hbm:0x1000 --shape 256,64 --perm 1,0 --dst sbuf:0:0 --dtype
// bf16 --dmas 4 --gen MARIANA --verify` prints after the run: a crossbar transpose into SBUF.
func ExampleDGERun_WriteReport() {
	req, err := dge.TensorRequest(isa.MARIANA, 0x1000, isa.DMALocalBase, []int{256, 64}, []int{1, 0}, isa.DTypeBFLOAT16)
	if err == nil {
		req.DMACfg = 0xF
		var r *sim.DGERun
		if r, err = sim.NewDGERun(sim.Config{}, req, sim.DGEOptions{}); err == nil {
			var res *sim.DGEResult
			r.Fill(1)
			if res, err = r.Execute(true); err == nil {
				err = r.WriteReport(os.Stdout, res, []string{"a note of the caller's"})
			}
		}
	}
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// MARIANA: XBAR_TRANSPOSE, 4 descriptors on 4 of 4 DMA engines (lower bound 4), 32768 bytes, modelled time 276 ns
	// note: a note of the caller's
	// verify: destination matches the direct reference
}
