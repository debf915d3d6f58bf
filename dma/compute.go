package dma

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// Compute is the one definition of DGE_COMPUTE_OP (FACTS §C.6; Provenance dma.compute_op): the
// value a reduce-on-copy stores at a destination element, from the destination's value y and
// the source's value x, both already widened to FP32; the caller narrows it into the out dtype.
// NONE is the plain copy B = A (x, a NaN's payload kept: num.nan); ADD, MULTIPLY, MAX and MIN
// compute B op= A in FP32, MAX and MIN propagating NaN and ordering -0 below +0, and a NaN
// result is the default NaN (num.alu_nan). An op outside the enum, which Descriptor.Validate
// refuses, stores 0.
func Compute(op isa.DGEComputeOp, y, x float32) float32 {
	var v float32
	switch op {
	case isa.DGEComputeNONE:
		return x
	case isa.DGEComputeADD:
		v = y + x
	case isa.DGEComputeMULTIPLY:
		v = y * x
	case isa.DGEComputeMAX:
		v = max(y, x)
	case isa.DGEComputeMIN:
		v = min(y, x)
	}
	return num.CanonicalNaN(v)
}
