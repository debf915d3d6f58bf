package sim

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
)

// dmaBackend plans and executes the DMA instructions of the SP, ACT and POOL queues on the DMA
// engines (issue 4 item 5).
type dmaBackend interface {
	// ready reports whether op can be executed at all.
	ready(op isa.Opcode) error
}

// errDMAPending is returned until the dge/dma packages are wired in.
var errDMAPending = errors.New("DMA instructions are not yet executable: the DGE/DMA engines are not wired into the machine yet")

type noDMA struct{}

func (noDMA) ready(op isa.Opcode) error { return fmt.Errorf("%v: %w", op, errDMAPending) }

func newDMABackend(m *Machine) dmaBackend { return noDMA{} }

// pendingDesc is one DMA descriptor waiting for its engine.
type pendingDesc struct {
	engine int
}

// dmaIssue is what issuing one DMA instruction produced.
type dmaIssue struct {
	n               int
	eff             Effect
	readPS, totalPS int64
}

func (r *run) issueDMA(e *engine, in Instr) (*dmaIssue, error) {
	return nil, r.instErr(e, in, ErrUnsupported, "dma_executable", "", errDMAPending)
}

func (r *run) execDesc(ev *event) error {
	return fmt.Errorf("sim: DMA descriptor event without a DMA backend")
}
