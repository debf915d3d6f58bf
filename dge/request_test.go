package dge

import (
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// The zero Request names no completion semaphore (SemIncrement 0), not semaphore 0: no
// descriptor and not the job signal one. A semaphore with an increment signals on the last
// descriptor of each engine used; a negative semaphore is refused (no -1 spelling of none).
func TestRequestSemaphoreZeroIsNone(t *testing.T) {
	g := isa.CAYMAN
	for _, tc := range []struct {
		name     string
		sem, inc int
		jobSem   int
		signals  bool
	}{
		{"zero: none", 0, 0, -1, false},
		{"semaphore without increment: none", 7, 0, -1, false},
		{"semaphore 0 with an increment", 0, 2, 0, true},
		{"semaphore 5", 5, 1, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tensorReq(t, g, 0x1000, sbufAddr(g, 0, 0x40), []int{32, 16}, []int{1, 0}, isa.DTypeBFLOAT16)
			r.Semaphore, r.SemIncrement = tc.sem, tc.inc
			p := mustPlan(t, r)
			if p.Job.Sem != tc.jobSem {
				t.Errorf("job semaphore %d, want %d", p.Job.Sem, tc.jobSem)
			}
			signalled := false
			for _, q := range p.Job.Queues {
				for _, d := range q {
					if d.Sem >= 0 {
						signalled = true
						if d.Sem != tc.sem {
							t.Errorf("descriptor signals sem %d, want %d", d.Sem, tc.sem)
						}
					}
				}
			}
			if signalled != tc.signals {
				t.Errorf("a descriptor signals: %v, want %v", signalled, tc.signals)
			}
		})
	}
	r := tensorReq(t, g, 0x1000, sbufAddr(g, 0, 0x40), []int{32, 16}, []int{1, 0}, isa.DTypeBFLOAT16)
	r.Semaphore = -1
	if _, err := PlanRequest(r, Options{Quiet: true}); fault.Rule(err) != RuleSemaphore || fault.Path(err) != "semaphore" {
		t.Errorf("semaphore -1: rule %q path %q: %v", fault.Rule(err), fault.Path(err), err)
	}
}
