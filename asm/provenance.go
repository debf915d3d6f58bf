package asm

import "github.com/tpbsim/tpbsim/isa"

// Provenance lists the rule of this package's errors for `tpbsim explain`.
func Provenance() []isa.Provenance {
	return []isa.Provenance{
		isa.Rule(RuleForm, "An instruction's text line or JSON object follows the assembly form: a known opcode, known field names each set once, values that fit their field (numbers, enum names, addresses, TENSOR4D patterns, hex bytes), and the directives .gen, .engine, .bound_reg, .addr_reg and .word.",
			"DESIGN.md §7", isa.Invented, []string{"(the source line or object)"},
			"The assembly form is tpbsim's own (the sources give the binary words only); its errors name the field and what it takes, under one id, and an error of another layer behind one (an address, a generation) keeps that layer's rule."),
	}
}
