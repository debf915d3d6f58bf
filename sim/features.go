package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// genFeatures is what the machine does differently per generation, beyond the geometry
// (isa.Geometry) and the instruction layer's own gates (isa.Validate). Each generation's row is
// the previous one's, copied and patched where the sources say it changed.
type genFeatures struct {
	// waitUnordered: the UNORDERED wait mode (0xFE) is in the ISA, and executes as no wait
	// (FACTS §B.2: MAVERICK only).
	waitUnordered bool
}

var featureTable = func() map[isa.Generation]genFeatures {
	t := map[isa.Generation]genFeatures{}
	f := genFeatures{}
	t[isa.SUNDA] = f
	t[isa.CAYMAN] = f
	t[isa.MARIANA] = f
	t[isa.MARIANA_PLUS] = f
	f.waitUnordered = true
	t[isa.MAVERICK] = f
	return t
}()

// featuresOf is generation g's row; an invalid generation is an error (fault.ErrInvalid), never
// a default.
func featuresOf(g isa.Generation) (genFeatures, error) {
	f, ok := featureTable[g]
	if !ok || !g.Valid() {
		return genFeatures{}, fmt.Errorf("sim: generation %v: %w (want one of %v)", g, fault.ErrInvalid, isa.Generations)
	}
	return f, nil
}
