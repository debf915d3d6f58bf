package dve

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// TensorCumulative (0x4E/0x5E): the inclusive scan of each op_dim group (Provenance
// dve.cumulative).

func (d *DVE) tensorCumulative(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if err := requireSameCount(o); err != nil {
		return err
	}
	arith := isArithOpcode(o.op)
	op, vk, err := opFor(o, in, arith)
	if err != nil {
		return err
	}
	G, err := groupSize(o, in, "op_dim")
	if err != nil {
		return err
	}
	if !d.reference {
		return d.foldRows(m, o, nil, op, vk, G, false, true)
	}
	sbuf, err := d.gatherAll(m, o)
	if err != nil {
		return err
	}
	E := o.src.Elements()
	obuf := make([]byte, o.nac*E*o.esOut)
	for c := 0; c < o.nac; c++ {
		row := sbuf[c*E*o.esIn : (c+1)*E*o.esIn]
		orow := obuf[c*E*o.esOut : (c+1)*E*o.esOut]
		for lo := 0; lo < E; lo += G {
			switch vk.class {
			case classFloat:
				var acc float32
				for i := 0; i < G; i++ {
					x := vk.loadF(row, lo+i)
					if i == 0 {
						acc = x
					} else {
						acc = evalFloat(op, acc, x)
					}
					num.StoreF32(vk.out, orow[(lo+i)*o.esOut:], num.CanonicalNaN(acc))
				}
			case classInt:
				var acc int64
				for i := 0; i < G; i++ {
					x := vk.loadI(row, lo+i)
					if i == 0 {
						acc = x
					} else {
						acc = evalInt(op, acc, x)
					}
					storeInt(vk, orow[(lo+i)*o.esOut:], acc)
				}
			default:
				var acc uint64
				for i := 0; i < G; i++ {
					x := vk.loadB(row, lo+i)
					if i == 0 {
						acc = evalBits(isa.ALUBypass, x, 0, vk.width)
					} else {
						acc = evalBits(op, acc, x, vk.width)
					}
					num.StoreBits(vk.out, orow[(lo+i)*o.esOut:], acc)
				}
			}
		}
	}
	scatterAll(m, o, obuf)
	return nil
}
