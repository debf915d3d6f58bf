package sim

import (
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/isa"
)

// dveUnit runs the S4D4_TR family and LOAD_MASK_SELECT with the dve executor. Each queue has its
// own dve.DVE, so the shuffle mask register belongs to the engine that loaded it.
type dveUnit struct {
	d dve.DVE
}

// reset returns the executor to a new one's state (Machine.unit reuses it from run to run),
// keeping its host buffers.
func (u *dveUnit) reset() { u.d.Reset() }

func (u *dveUnit) exec(m *Machine, in isa.Inst) (Effect, error) {
	eff, err := u.d.Execute(m.mem, in, m.gen)
	// The fast StreamTranspose writes its destination through mem.Memory.Partition, which the
	// memory does not see: record every destination for Reset (harmless for the others, and for
	// a failing instruction, which wrote nothing).
	for _, s := range eff.Writes {
		m.mem.MarkWritten(s)
	}
	if err != nil {
		return Effect{}, err
	}
	out := Effect{BytesRead: int64(eff.BytesRead), BytesWritten: int64(eff.BytesWritten), reads: eff.Reads, writes: eff.Writes}
	if eff.Transpose != "" {
		out.Notes = map[string]any{"transpose_impl": eff.Transpose}
	}
	return out, nil
}

// newComputeUnit returns the executor of the compute instructions of one queue.
func newComputeUnit(eng isa.Engine, butterfly bool, maxStreamBytes uint64) unit {
	u := &dveUnit{d: dve.DVE{MaxStreamBytes: maxStreamBytes}}
	if butterfly {
		u.d.Transpose = dve.TransposeButterfly
	}
	return u
}
