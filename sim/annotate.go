package sim

import (
	"strings"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/ucode"
)

// TableAnnotator is the Config.Annotate of a DVE microcode table set (DESIGN.md §6): each DVE
// instruction's annotation is its opcode's control rows ("ucode_fast_row", "ucode_slow_row"
// when it has one), its datapath block class (AnnotationClassKey) and pipeline depth
// ("ucode_depth") when the set has a datapath table, and the set's notes ("ucode_notes"). An
// opcode the set lacks (slot zero, no opcode table) is annotated as missing rather than left
// out, so the trace shows the instruction would not run on that set.
func TableAnnotator(ts *ucode.TableSet) func(isa.Opcode) (Annotation, bool) {
	return func(op isa.Opcode) (Annotation, bool) {
		r, ok := ts.Lookup(uint8(op))
		if !ok {
			return Annotation{"ucode": "opcode missing from table set " + ts.Name}, true
		}
		a := Annotation{"ucode_fast_row": r.FastRow}
		if r.SlowRow != 0 {
			a["ucode_slow_row"] = r.SlowRow
		}
		if r.Block != nil {
			a[AnnotationClassKey] = r.Class().String()
			a["ucode_depth"] = r.Depth()
		}
		if len(r.Notes) > 0 {
			a["ucode_notes"] = strings.Join(r.Notes, "; ")
		}
		return a, true
	}
}
