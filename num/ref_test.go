package num

import (
	"math"
	"sort"
)

// A slow reference written independently of float.go: values are computed by repeated exact
// doubling/halving in float64, and narrowing is a nearest-value search over the enumerated
// codes with an explicit tie-to-even-code rule. It shares only the format parameters.

type refFormat struct {
	name          string
	kind          Kind
	ebits, mbits  int
	bias          int
	signed        bool
	hasInf        bool       // IEEE-like: top exponent is Inf/NaN
	scale         bool       // unsigned, no subnormals, 0xFF NaN
	pos           []refEntry // finite non-negative values, ascending
	cands         []refEntry // pos, plus Inf as the next value when hasInf
	byCode        map[uint32]float64
	inf           float64 // first value beyond the largest finite, when hasInf
	infCode, nanQ uint32
}

type refEntry struct {
	v    float64
	code uint32
}

func pow2(e int) float64 {
	v := 1.0
	for ; e > 0; e-- {
		v *= 2
	}
	for ; e < 0; e++ {
		v /= 2
	}
	return v
}

func newRef(name string, k Kind, ebits, mbits, bias int, signed, hasInf, scale bool) *refFormat {
	r := &refFormat{name: name, kind: k, ebits: ebits, mbits: mbits, bias: bias, signed: signed, hasInf: hasInf, scale: scale}
	emax := 1<<ebits - 1
	for e := 0; e <= emax; e++ {
		for m := 0; m < 1<<mbits; m++ {
			code := uint32(e<<mbits | m)
			if hasInf && e == emax {
				continue
			}
			if scale && e == emax && m == 1<<mbits-1 {
				continue
			}
			var v float64
			if e == 0 && !scale {
				v = float64(m) / float64(int(1)<<mbits) * pow2(1-bias)
			} else {
				v = (1 + float64(m)/float64(int(1)<<mbits)) * pow2(e-bias)
			}
			r.pos = append(r.pos, refEntry{v, code})
		}
	}
	sort.Slice(r.pos, func(i, j int) bool { return r.pos[i].v < r.pos[j].v })
	r.byCode = map[uint32]float64{}
	for _, p := range r.pos {
		r.byCode[p.code] = p.v
	}
	r.cands = r.pos
	if hasInf {
		r.infCode = uint32(emax << mbits)
		r.inf = pow2(emax - bias) // one ulp past the largest finite value
		r.cands = append(append([]refEntry(nil), r.pos...), refEntry{r.inf, r.infCode})
	}
	return r
}

func (r *refFormat) signBit() uint32 {
	if !r.signed {
		return 0
	}
	return 1 << (r.ebits + r.mbits)
}

// value returns the value of code c and whether it is NaN.
func (r *refFormat) value(c uint32) (float64, bool) {
	neg := r.signed && c&r.signBit() != 0
	mag := c &^ r.signBit()
	if r.hasInf && mag>>r.mbits == uint32(1<<r.ebits-1) {
		if mag&(1<<r.mbits-1) != 0 {
			return math.NaN(), true
		}
		if neg {
			return math.Inf(-1), false
		}
		return math.Inf(1), false
	}
	if r.scale && mag == uint32(1<<(r.ebits+r.mbits)-1) {
		return math.NaN(), true
	}
	v := r.byCode[mag]
	if neg {
		v = -v
	}
	return v, false
}

// encode narrows v (a float32 value, not NaN) to a code by nearest search, ties to the even code.
func (r *refFormat) encode(v float64) uint32 {
	if r.scale {
		switch {
		case v < 0:
			return 0xff
		case v == 0:
			return 0
		}
	}
	var sign uint32
	if math.Signbit(v) {
		sign = r.signBit()
		v = -v
	}
	cands := r.cands
	if r.hasInf && math.IsInf(v, 1) {
		return sign | r.infCode
	}
	i := sort.Search(len(cands), func(i int) bool { return cands[i].v >= v })
	if i == len(cands) {
		return sign | cands[len(cands)-1].code // saturate (finite formats)
	}
	if cands[i].v == v || i == 0 {
		return sign | cands[i].code
	}
	lo, hi := cands[i-1], cands[i]
	dl, dh := v-lo.v, hi.v-v
	switch {
	case dl < dh:
		return sign | lo.code
	case dh < dl:
		return sign | hi.code
	case lo.code&1 == 0:
		return sign | lo.code
	}
	return sign | hi.code
}

var (
	refBF16 = newRef("bf16", BFLOAT16, 8, 7, 127, true, true, false)
	refFP16 = newRef("fp16", FP16, 5, 10, 15, true, true, false)
	refE3M4 = newRef("e3m4", FP8_EXP3, 3, 4, 3, true, true, false)
	refE4M3 = newRef("e4m3", FP8_EXP4, 4, 3, 7, true, true, false)
	refE5M2 = newRef("e5m2", FP8_EXP5, 5, 2, 15, true, true, false)
	refE2M5 = newRef("e2m5", FP8_EXP2, 2, 5, 1, true, false, false)
	refE2M1 = newRef("e2m1", FP4_EXP2, 2, 1, 1, true, false, false)
	refE8M0 = newRef("e8m0", SFP8_E8, 8, 0, 127, false, false, true)
	refE7M1 = newRef("e7m1", SFP8_E7, 7, 1, 63, false, false, true)
	refE6M2 = newRef("e6m2", SFP8_E6, 6, 2, 31, false, false, true)
	refE5M3 = newRef("e5m3", SFP8_E5, 5, 3, 15, false, false, true)

	refAll   = []*refFormat{refBF16, refFP16, refE3M4, refE4M3, refE5M2, refE2M5, refE2M1, refE8M0, refE7M1, refE6M2, refE5M3}
	refSmall = refAll[2:]
)

func (r *refFormat) codes() int {
	n := 1 << (r.ebits + r.mbits)
	if r.signed {
		n *= 2
	}
	return n
}

// fastDecode and fastEncode dispatch to the package's production codecs for r's kind.
func (r *refFormat) fastDecode(c uint32) uint32 {
	switch r.kind {
	case BFLOAT16:
		return BF16ToF32(uint16(c))
	case FP16:
		return FP16ToF32(uint16(c))
	}
	return FP8ToF32(r.kind, uint8(c))
}

func (r *refFormat) fastEncode(x uint32) uint32 {
	switch r.kind {
	case BFLOAT16:
		return uint32(F32ToBF16(x))
	case FP16:
		return uint32(F32ToFP16(x))
	}
	return uint32(F32ToFP8(r.kind, x))
}
