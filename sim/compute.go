package sim

import (
	"errors"

	"github.com/tpbsim/tpbsim/isa"
)

// errDVEPending is returned until the dve package is wired in.
var errDVEPending = errors.New("the DVE executor (package dve) is not wired into the machine yet")

type pendingUnit struct{}

func (pendingUnit) exec(m *Machine, in isa.Inst) (Effect, error) {
	return Effect{}, errors.Join(ErrUnsupported, errDVEPending)
}

// newComputeUnit returns the executor of the compute instructions of one queue.
func newComputeUnit(eng isa.Engine) unit { return pendingUnit{} }
