package sim

import (
	"github.com/tpbsim/tpbsim/isa"
)

// violation is one broken rule of isa.Validate, in the machine's error vocabulary.
type violation struct {
	rule   string
	fields []Field
	text   string
}

// validate runs the instruction layer's validator for generation g.
//
// PENDING: isa.Validate is being written; until it lands this returns nil and the machine relies
// on its own checks (engine, events, work limit) and the executors' bounds checks.
func validate(in isa.Inst, g isa.Generation) []violation {
	_ = in
	_ = g
	return nil
}
