package kernel

import (
	"fmt"

	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// dtypeOf resolves tensor t's dtype on generation g.
func dtypeOf(t *Tensor, g isa.Generation) (isa.DType, error) {
	name := strings.TrimPrefix(strings.ToLower(t.DType), "nl.")
	// num's one name table: float8_e4m3fn shares FP8_EXP4's code and is converted as its
	// IEEE-like E4M3 (Provenance kernel.dtype_e4m3fn); tfloat32 has no ISA storage type.
	k, refuse, ok := num.LookupNKI(name)
	if refuse != "" {
		return 0, &Error{Kind: fault.ErrUnsupported, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.dtype", Msg: refuse, Legal: "store as float32"}
	}
	if !ok {
		return 0, &Error{Kind: fault.ErrInvalid, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.dtype",
			Msg: fmt.Sprintf("dtype %q", t.DType), Legal: num.NKINames()}
	}
	d := isa.DType(k)
	if !d.InGen(g) || !isa.IsValidDType(d, g, false) {
		return 0, &Error{Kind: fault.ErrInvalid, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.dtype",
			Msg: fmt.Sprintf("dtype %s (%v) is not a storage type of %v", t.DType, d, g), Legal: "a dtype the generation has"}
	}
	return d, nil
}
