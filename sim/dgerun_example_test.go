package sim_test

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
)

// What `tpbsim dge run --src hbm:0 --shape 64,32 --perm 1,0 --dst hbm:0x100000 --dtype bf16
// --verify` does, as library calls: plan the transpose, fill the source, run it on the DMA
// engines and compare the destination with the direct reference.
func ExampleNewDGERun() {
	req, err := dge.TensorRequest(isa.CAYMAN, 0, 0x100000, []int{64, 32}, []int{1, 0}, isa.DTypeBFLOAT16)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.NewDGERun(sim.Config{}, req, sim.DGEOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := r.Fill(1); err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Execute(true)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := r.Plan()
	fmt.Printf("%v on %v: %d descriptors, %d bytes, verified %v\n", p.Kind, p.Gen, p.Descriptors, res.Bytes, res.Verified)
	// Output:
	// ELEMENT_STRIDED on CAYMAN: 8 descriptors, 4096 bytes, verified true
}

// A request past the work limits is refused before any memory is allocated, with the rule it
// breaks.
func ExampleNewDGERun_limit() {
	req, _ := dge.TensorRequest(isa.CAYMAN, 0, 0x100000, []int{64, 32}, []int{1, 0}, isa.DTypeBFLOAT16)
	_, err := sim.NewDGERun(sim.Config{MaxElements: 100}, req, sim.DGEOptions{Name: "the transpose"})
	fmt.Println(fault.Rule(err))
	fmt.Println(err)
	// Output:
	// sim.max_elements
	// the transpose: work limit exceeded: rule sim.max_elements: streams 2048 elements in its 8 DMA descriptor(s) (their elements: a contiguous run is one); tpbsim's limit is 100 (raise it with sim.Config.MaxElements)
}

// An expectation on memory after a run: the first differing element by its index and both
// values, as `tpbsim run --expect` reports it.
func ExampleMachine_Expect() {
	m, _ := sim.New(sim.Config{Gen: isa.CAYMAN})
	at := isa.Location{Space: isa.SpaceSBUF, Offset: 0x40}
	m.WriteTensor(at, []int{2, 2}, 2, []byte{1, 0, 2, 0, 3, 0, 4, 0})
	err := m.Expect(at, []int{2, 2}, num.UINT16, []byte{1, 0, 2, 0, 3, 0, 5, 0}, "want.npy")
	var ee *sim.ExpectError
	fmt.Println(errors.As(err, &ee), fault.Rule(err))
	fmt.Println(err)
	// Output:
	// true sim.expect_met
	// expectation not met: element [1, 1] (flat 3) is 4 in memory, 5 in want.npy; 1 of 4 elements differ
}
