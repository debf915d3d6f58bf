package sim

import (
	"encoding/json"
	"errors"

	"github.com/tpbsim/tpbsim/fault"
)

// Engine statuses of EngineState.Status.
const (
	// StatusFinished: every instruction of the queue was issued (an empty queue too).
	StatusFinished = "finished"
	// StatusWaiting: the next instruction waits on a semaphore (at a deadlock: forever).
	StatusWaiting = "waiting"
	// StatusFailed: the next instruction is the one that failed and stopped the run; it changed
	// no memory and no semaphore.
	StatusFailed = "failed"
	// StatusStopped: the run stopped (another engine's instruction failed) before this engine
	// issued its next instruction.
	StatusStopped = "stopped"
)

// StateEngine is one engine of the post-mortem state.
type StateEngine struct {
	Engine       string     `json:"engine"`
	Status       string     `json:"status"`
	PC           int        `json:"pc"`    // byte offset of the next instruction in the queue (index x 64)
	Index        int        `json:"index"` // next instruction's index (= instructions when finished)
	Instructions int        `json:"instructions"`
	Opcode       string     `json:"opcode,omitempty"` // of the next instruction
	Line         int        `json:"line,omitempty"`
	Wait         *StateWait `json:"wait,omitempty"` // the next instruction's wait, if it has one
}

// StateWait is the wait of an engine's next instruction and the semaphore's value at the end.
type StateWait struct {
	Semaphore int    `json:"semaphore"`
	Mode      string `json:"mode"`
	Value     uint32 `json:"value"`              // what it compares against
	Register  *int   `json:"register,omitempty"` // a _REG wait's address register, whose value Value is
	Current   uint32 `json:"current"`
}

// State is the machine state at the end of a run, success or failure (`tpbsim run --state`).
type State struct {
	EndNS      float64       `json:"end_ns"`
	Outcome    string        `json:"outcome"` // "finished", "races", "failed", "deadlock"
	Error      string        `json:"error,omitempty"`
	Semaphores []uint32      `json:"semaphores"` // all 256
	Engines    []StateEngine `json:"engines"`    // DVE, POOL, ACT, SP
	Races      int           `json:"races"`
}

// StateOf assembles the post-mortem state of a run from its Result and its error (nil: it
// finished).
func (r *Result) StateOf(runErr error) State {
	s := State{EndNS: float64(r.EndPS) / 1000, Outcome: "finished", Semaphores: r.Semaphores[:], Races: len(r.Races), Engines: []StateEngine{}}
	switch {
	case runErr == nil:
	case errors.Is(runErr, fault.ErrRace):
		s.Outcome = "races"
	case errors.Is(runErr, fault.ErrDeadlock):
		s.Outcome = "deadlock"
	default:
		s.Outcome = "failed"
	}
	if runErr != nil {
		s.Error = runErr.Error()
	}
	for _, e := range r.State {
		x := StateEngine{Engine: e.Engine, Status: e.Status, PC: e.PC, Index: e.Index, Instructions: e.Total}
		if !e.Done {
			x.Opcode, x.Line = e.Opcode.String(), e.Line
			if e.WaitMode != 0 {
				x.Wait = &StateWait{Semaphore: int(e.WaitIdx), Mode: e.WaitMode.String(), Value: e.WaitValue, Current: e.SemValue}
				if isSemRegWait(e.WaitMode) {
					reg := e.WaitReg
					x.Wait.Register = &reg
				}
			}
		}
		s.Engines = append(s.Engines, x)
	}
	return s
}

// StateJSON is StateOf as indented JSON.
func (r *Result) StateJSON(runErr error) ([]byte, error) {
	b, err := json.MarshalIndent(r.StateOf(runErr), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
