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

// validate runs the instruction layer's validator for generation g on the queue of engine e
// (every violation; engine-dependent rules such as is_valid_tensor_reduce_arith_engine check
// the arm of e).
func validate(in isa.Inst, g isa.Generation, e isa.Engine) []violation {
	vs := isa.ValidateOn(in, g, e)
	out := make([]violation, 0, len(vs))
	for _, v := range vs {
		out = append(out, violation{rule: v.Rule, fields: []Field{{Path: v.Field, Value: v.Value, Legal: v.Legal, At: v.Offset}}, text: v.String()})
	}
	return out
}
