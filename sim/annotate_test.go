package sim_test

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/ucode"
)

// TestTableAnnotator: an opcode the set runs is annotated with its rows, block class and depth;
// one it lacks is annotated as missing, naming the set.
func TestTableAnnotator(t *testing.T) {
	ts, err := ucode.BuildFixture("gen3/default")
	if err != nil {
		t.Fatal(err)
	}
	missing := -1
	for op := 0; op < 256 && missing < 0; op++ {
		if _, ok := ts.Lookup(uint8(op)); !ok {
			missing = op
		}
	}
	if missing < 0 {
		t.Fatal("the fixture set runs every opcode: no missing one to test")
	}
	st, ok := ts.Lookup(uint8(isa.OpSTREAM_TRANSPOSE))
	if !ok || st.Block == nil {
		t.Fatalf("the gen3 fixture lacks STREAM_TRANSPOSE's datapath block: %+v", st)
	}
	annotate := sim.TableAnnotator(ts)
	for _, tc := range []struct {
		name string
		op   isa.Opcode
		want map[string]any
	}{
		{"STREAM_TRANSPOSE", isa.OpSTREAM_TRANSPOSE, map[string]any{"ucode_fast_row": st.FastRow, sim.AnnotationClassKey: st.Class().String(), "ucode_depth": st.Depth()}},
		{"missing", isa.Opcode(missing), map[string]any{"ucode": "opcode missing from table set " + ts.Name}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := annotate(tc.op)
			if !ok {
				t.Fatal("not annotated")
			}
			for k, v := range tc.want {
				if a[k] != v {
					t.Errorf("%s = %v, want %v (annotation %v)", k, a[k], v, a)
				}
			}
			if tc.name == "missing" && len(a) != 1 {
				t.Errorf("a missing opcode has only the missing note: %v", a)
			}
		})
	}
	if c, _ := annotate(isa.OpSTREAM_TRANSPOSE); strings.TrimSpace(c[sim.AnnotationClassKey].(string)) == "" {
		t.Error("empty block class")
	}
}
