package kernel

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// Output is one tensor the kernel hands back: its raw element bytes, row-major.
type Output struct {
	Tensor int
	Name   string
	DType  isa.DType
	Shape  []int
	Data   []byte
}

// Result is a finished kernel run: the outputs in the kernel's order and the machine's result
// (statistics, trace).
type Result struct {
	Outputs []Output
	Sim     *sim.Result
}

// Run executes the lowered kernel on a new machine configured by cfg (cfg.Gen is the
// lowering's). inputs[t] is the raw row-major element bytes of input tensor t, in its dtype;
// every input must be given. A run that stops on an error returns the machine's result so far
// (trace, statistics) with it.
func (lw *Lowered) Run(cfg sim.Config, inputs map[int][]byte) (*Result, error) {
	cfg.Gen = lw.Gen
	m, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	return lw.RunOn(m, inputs)
}

// RunOn is Run on machine m, which must be of the lowering's generation: m is Reset first, so
// the run is the run on a new machine of m's configuration, without paying for a new machine's
// memory (a caller running many small kernels keeps one machine).
func (lw *Lowered) RunOn(m *sim.Machine, inputs map[int][]byte) (*Result, error) {
	if err := lw.checkOutputBytes(m); err != nil {
		return nil, err
	}
	if err := lw.load(m, inputs); err != nil {
		return nil, err
	}
	res, err := lw.run(m)
	out := &Result{Sim: res}
	if err != nil {
		return out, err
	}
	for _, o := range lw.Kernel.Outputs {
		t := &lw.Kernel.Tensors[o]
		pl := lw.Placements[o]
		buf := make([]byte, pl.RowBytes)
		if err := m.Memory().ReadRaw(pl.Addr, buf); err != nil {
			return out, err
		}
		out.Outputs = append(out.Outputs, Output{Tensor: o, Name: t.Name, DType: pl.DType, Shape: append([]int(nil), t.Shape...), Data: buf})
	}
	return out, nil
}

// checkOutputBytes refuses, before anything runs, outputs whose bytes together pass m's HBM cap:
// RunOn reads every output back whole into host memory, so an output the run need not fill (a
// [2^31, 16] tensor stored into one tile) would otherwise be a read-back of tens of GiB.
func (lw *Lowered) checkOutputBytes(m *sim.Machine) error {
	limit := m.Memory().Options().HBMCapBytes
	var total uint64
	for _, o := range lw.Kernel.Outputs {
		total += lw.Placements[o].RowBytes
		if total > limit {
			t := &lw.Kernel.Tensors[o]
			return &Error{Kind: fault.ErrCapacity, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.output_bytes",
				Msg:   fmt.Sprintf("the outputs up to %v %s read back %d bytes", t.Shape, t.DType, total),
				Legal: fmt.Sprintf("at most %d bytes of outputs (the machine's HBM cap)", limit)}
		}
	}
	return nil
}

// Exec is RunOn without reading the outputs back: they stay in m's memory, output t's bytes at
// lw.Placements[t] (HBM, row-major), for a caller that reads a part of them or none (the fuzz
// targets check that a run ends, not what it computes: reading 40 KB of outputs they drop was 6%
// of an exec). The error is RunOn's.
func (lw *Lowered) Exec(m *sim.Machine, inputs map[int][]byte) (*sim.Result, error) {
	if err := lw.load(m, inputs); err != nil {
		return nil, err
	}
	return lw.run(m)
}

// load resets m and writes the inputs and the zeroed ranges.
func (lw *Lowered) load(m *sim.Machine, inputs map[int][]byte) error {
	if m.Gen() != lw.Gen {
		return &Error{Kind: fault.ErrInvalid, Malformed: true, Arg: "machine", Rule: "kernel.run_generation",
			Msg: fmt.Sprintf("a %v machine for a kernel lowered for %v", m.Gen(), lw.Gen), Legal: "a machine of the lowering's generation"}
	}
	m.Reset()
	for i := range lw.Kernel.Tensors {
		t := &lw.Kernel.Tensors[i]
		if t.Kind != "input" {
			continue
		}
		pl := lw.Placements[i]
		data, ok := inputs[i]
		if !ok {
			return &Error{Kind: fault.ErrInvalid, Malformed: true, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.input_given", Msg: "no data for the input"}
		}
		if uint64(len(data)) != pl.RowBytes {
			return &Error{Kind: fault.ErrInvalid, Malformed: true, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.input_size",
				Msg: fmt.Sprintf("%d bytes of data for %v %s", len(data), t.Shape, t.DType), Legal: fmt.Sprintf("%d bytes", pl.RowBytes)}
		}
		if err := m.Memory().WriteAt(pl.Addr, data); err != nil {
			return err
		}
	}
	for _, z := range lw.Zero {
		for a, n := z[0], z[1]; n > 0; {
			c := min(n, uint64(len(zeros)))
			if err := m.Memory().WriteAt(a, zeros[:c]); err != nil {
				return err
			}
			a, n = a+c, n-c
		}
	}
	return nil
}

// run runs the program on m, loaded.
func (lw *Lowered) run(m *sim.Machine) (*sim.Result, error) {
	res, err := m.Run(lw.Program())
	var pe *sim.ProgramError
	if lw.deferred && errors.As(err, &pe) {
		// the check Lower left to the run refused the program: Lower's error for it
		return res, lw.checkRefusal(pe)
	}
	return res, err
}

// zeros is what Exec writes into lw.Zero's ranges (only read).
var zeros [256]byte
