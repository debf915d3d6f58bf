package dve

import (
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// TensorReduce (0x42/0x52, SUNDA's 0x8C/0x8D) and TransposeTensorReduce (0x83/0x84): each op_dim
// group of the source stream folded to one result (Provenance dve.reduce_shape, dve.alu_fold).

// groupSize is the number of consecutive walk elements op_dim covers: the product of num_elem
// over its innermost dims (X: dim 0, XY: dims 0-1, ...). Provenance dve.reduce_shape.
func groupSize(o *operands, in *isa.S4D4TR, field string) (int, error) {
	k := in.OpDim.Dims()
	if o.op == isa.OpTENSOR_REDUCE_ADD_BF16 || o.op == isa.OpTENSOR_REDUCE_MAX_BF16 {
		k = max(k, 1)
	}
	if k == 0 {
		return 0, o.refuse(isa.RuleIsValidSubdim, "op_dim", "op_dim %v", in.OpDim)
	}
	g := 1
	for d := 0; d < k; d++ {
		g *= o.src.NumElem[d]
	}
	return g, nil
}

func (d *DVE) tensorReduce(m *mem.Memory, in *isa.S4D4TR, o *operands, pre []byte) error {
	arith := isArithOpcode(o.op)
	op, vk, err := opFor(o, in, arith)
	if err != nil {
		return err
	}
	G, err := groupSize(o, in, "op_dim")
	if err != nil {
		return err
	}
	E := o.src.Elements()
	R := 0
	if G > 0 {
		R = E / G
	}
	if o.dst.Elements() != R {
		return o.refuse(isa.RuleTensorReduceDstCount, "dst_mem_pattern.num_elem",
			"reducing %d elements in groups of %d (op_dim %v) gives %d results per channel; dst walks %d", E, G, in.OpDim, R, o.dst.Elements())
	}
	negate := arith && in.Negated != 0
	if !d.reference {
		return d.foldRows(m, o, pre, op, vk, G, negate, false)
	}
	sbuf := pre
	if sbuf == nil {
		if sbuf, err = d.gatherAll(m, o); err != nil {
			return err
		}
	}
	obuf := make([]byte, o.nac*R*o.esOut)
	for c := 0; c < o.nac; c++ {
		row := sbuf[c*E*o.esIn : (c+1)*E*o.esIn]
		orow := obuf[c*R*o.esOut : (c+1)*R*o.esOut]
		for r := 0; r < R; r++ {
			lo := r * G
			dstb := orow[r*o.esOut:]
			switch vk.class {
			case classFloat:
				acc := vk.loadF(row, lo)
				for i := 1; i < G; i++ {
					acc = evalFloat(op, acc, vk.loadF(row, lo+i))
				}
				if negate {
					acc = -acc
				}
				num.StoreF32(vk.out, dstb, num.CanonicalNaN(acc))
			case classInt:
				acc := vk.loadI(row, lo)
				for i := 1; i < G; i++ {
					acc = evalInt(op, acc, vk.loadI(row, lo+i))
				}
				if negate {
					acc = -acc
				}
				storeInt(vk, dstb, acc)
			default:
				acc := vk.loadB(row, lo)
				for i := 1; i < G; i++ {
					acc = evalBits(op, acc, vk.loadB(row, lo+i), vk.width)
				}
				acc = evalBits(isa.ALUBypass, acc, 0, vk.width)
				num.StoreBits(vk.out, dstb, acc)
			}
		}
	}
	scatterAll(m, o, obuf)
	return nil
}

func (d *DVE) transposeReduce(m *mem.Memory, in *isa.S4D4TR, o *operands) error {
	if o.nac%32 != 0 {
		return o.refuse(isa.RuleHasMultiple32Channels, "num_active_channels", "%d channels", o.nac)
	}
	E := o.src.Elements()
	if E%32 != 0 {
		return o.refuse(isa.RuleHasTransposeSrcElementCountT4D, "src_mem_pattern.num_elem", "src walks %d elements", E)
	}
	es := o.esIn
	// Check the reduce's operands and cell width before transposing (cheap; opFor, the check
	// CheckOp makes before the run), then transpose into a buffer.
	if _, _, err := opFor(o, in, isArithOpcode(o.op)); err != nil {
		return err
	}
	row := E * es
	tbuf := scratch(&d.ops.transposed, o.nac*row)
	if d.Transpose == TransposeButterfly {
		sbuf, err := d.gatherAll(m, o)
		if err != nil {
			return err
		}
		butterflyTranspose(tbuf, sbuf, o.nac, E, es)
	} else {
		rows, _, err := d.srcRows(m, o, nil)
		if err != nil {
			return err
		}
		groups := o.nac / 32
		if cap(d.ops.tiles) < 2*groups {
			d.ops.tiles = make([][32][]byte, 2*groups)
		}
		src, dst := d.ops.tiles[:groups], d.ops.tiles[groups:2*groups]
		for c := 0; c < o.nac; c++ {
			src[c/32][c%32] = rows[c]
			dst[c/32][c%32] = tbuf[c*row : (c+1)*row]
		}
		transposeParallel(d.procs(len(tbuf)), dst, src, es, E/32, E)
		clear(src)
		clear(dst)
		clear(rows)
	}
	return d.tensorReduce(m, in, o, tbuf)
}
