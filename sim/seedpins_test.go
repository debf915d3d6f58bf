package sim

import (
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// T34: StreamTranspose is decoded by the DVE only ("its S: Stream-Transpose arm exists in no
// other engine", seed 000 §2): the machine's engine check runs 0x6b on the DVE queue and on no
// other.
func TestSeedT34StreamTransposeOnlyOnDVE(t *testing.T) {
	for _, e := range []isa.Engine{isa.EngineDVE, isa.EnginePOOL, isa.EngineACT, isa.EngineTPB_SP} {
		t.Run(e.String(), func(t *testing.T) {
			if got := engineAllows(e, isa.OpSTREAM_TRANSPOSE); got != (e == isa.EngineDVE) {
				t.Errorf("%v executes STREAM_TRANSPOSE: %v", e, got)
			}
		})
	}
}
