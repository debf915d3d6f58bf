package sim

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/timing"
)

// testCost is computeCost on the default CAYMAN table (the tests' machines are CAYMAN).
func testCost(eng isa.Engine, in isa.Inst, waited bool) (readPS, totalPS int64) {
	t := timing.Default(isa.CAYMAN)
	return computeCost(&t, eng, in, waited)
}
