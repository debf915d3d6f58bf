package sim

import (
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
)

// DGERunJSON is a DGE run's JSON form, what `tpbsim dge run --json` prints: the plan's JSON
// form and what the engines did (the modelled end, the bytes, the credit waits, the semaphore
// updates, every descriptor's record) and, when the destination was compared, whether it
// matched the reference.
type DGERunJSON struct {
	Plan     dge.PlanJSON    `json:"plan"`
	EndNs    int64           `json:"end_ns"`
	Bytes    uint64          `json:"bytes"`
	Waits    int             `json:"credit_waits"`
	Sems     []dma.SemUpdate `json:"semaphore_updates"`
	Trace    []dma.Record    `json:"descriptors"`
	Verified *bool           `json:"verified,omitempty"`
}

// JSONForm is the run's JSON form with the plan p it executed.
func (r *DGEResult) JSONForm(p *dge.Plan) DGERunJSON {
	j := DGERunJSON{Plan: p.JSONForm(), EndNs: r.End, Bytes: r.Bytes, Waits: r.CreditWaits, Sems: r.Sems, Trace: r.Records}
	if r.Checked {
		j.Verified = &r.Verified
	}
	return j
}
