package kernel

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// nkiDTypes maps the NKI dtype names (NKI.md §5) onto ISA element types. float8_e4m3fn (TRN3's
// no-Inf E4M3) shares FP8_EXP4's code; tpbsim converts with the IEEE-like E4M3 of FP8_EXP4
// (Provenance kernel.dtype_e4m3fn). tfloat32 has no ISA storage type and is refused.
var nkiDTypes = map[string]isa.DType{
	"bool": isa.DTypeUINT8, "bool_": isa.DTypeUINT8,
	"uint8": isa.DTypeUINT8, "int8": isa.DTypeINT8, "uint16": isa.DTypeUINT16, "int16": isa.DTypeINT16,
	"uint32": isa.DTypeUINT32, "int32": isa.DTypeINT32,
	"float8_e4m3": isa.DTypeFP8_EXP4, "float8_e4m3fn": isa.DTypeFP8_EXP4, "float8_e5m2": isa.DTypeFP8_EXP5,
	"float8_e3m4": isa.DTypeFP8_EXP3, "float8_e8m0fnu": isa.DTypeSFP8_E8,
	"float16": isa.DTypeFP16, "bfloat16": isa.DTypeBFLOAT16, "float32": isa.DTypeFP32,
}

func dtypeNames() string {
	var out []string
	for k := range nkiDTypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// dtypeOf resolves tensor t's dtype on generation g.
func dtypeOf(t *Tensor, g isa.Generation) (isa.DType, error) {
	name := strings.TrimPrefix(strings.ToLower(t.DType), "nl.")
	d, ok := nkiDTypes[name]
	if !ok {
		if name == "tfloat32" {
			return 0, &Error{Kind: fault.ErrUnsupported, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.dtype",
				Msg: "tfloat32 is a Tensor Engine compute type with no ISA storage dtype; tpbsim does not model it", Legal: "store as float32"}
		}
		return 0, &Error{Kind: fault.ErrInvalid, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.dtype",
			Msg: fmt.Sprintf("dtype %q", t.DType), Legal: dtypeNames()}
	}
	if !d.InGen(g) || !isa.IsValidDType(d, g, false) {
		return 0, &Error{Kind: fault.ErrInvalid, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.dtype",
			Msg: fmt.Sprintf("dtype %s (%v) is not a storage type of %v", t.DType, d, g), Legal: "a dtype the generation has"}
	}
	return d, nil
}
