package dve

import (
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// memset runs MEMSET (0x49, FACTS §F.4): every element of the dst walk of each of the
// num_active_channels channels becomes set_value, whose low bytes are the element's raw bits in
// the dtype (memset_set_value_fits_dtype keeps the rest zero). The fields FACTS leaves
// undescribed are not read (Provenance dve.memset).
func (d *DVE) memset(m *mem.Memory, in *isa.Memset, g isa.Generation, eff Effect) (Effect, error) {
	op := in.Header.Opcode
	es := in.Dtype.Size()
	if es == 0 || es > 4 || !in.Dtype.InGen(g) || in.Dtype.Bits()%8 != 0 || in.Dtype.IsCPTC() {
		return eff, refuse(in, g, isa.RuleIsValidDtype, "dtype", "%v has no 1-, 2- or 4-byte element encoding on %v", in.Dtype, g)
	}
	nac := int(in.NumActiveChannels)
	if nac < 1 || nac > g.Geometry().DVENumChannels {
		return eff, refuse(in, g, isa.RuleHasValidActiveChannelRange, "num_active_channels", "%d channels of %d", nac, g.Geometry().DVENumChannels)
	}
	dst, err := m.Pattern(in.DstMemPattern, es, nac, true)
	if err != nil {
		return eff, memFail(op, "dst_mem_pattern", err)
	}
	if n, lim := StreamBytes(nac, 0, uint64(dst.Bytes())), d.maxStreamBytes(); n > lim {
		return eff, fail(op, fault.ErrLimit, RuleMaxStreamBytes, "", "writes %d bytes (%d channels x %d bytes); the limit is %d bytes (DVE.MaxStreamBytes)", n, nac, dst.Bytes(), lim)
	}
	row := make([]byte, dst.Bytes())
	for i := 0; i < len(row); i += es {
		for b := 0; b < es; b++ {
			row[i+b] = byte(in.SetValue >> (8 * b))
		}
	}
	for c := 0; c < nac; c++ {
		m.Scatter(dst, c, row)
	}
	eff.Writes = []mem.Span{dst.Span()}
	eff.Elements = uint64(nac) * uint64(dst.Elements())
	eff.BytesWritten = eff.Elements * uint64(es)
	return eff, nil
}
