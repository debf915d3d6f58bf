package dve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
)

// The numpy oracle: random instructions of every S4D4_TR opcode, with
// random shapes, strides (negative and zero included), channel counts, dtypes and SBUF / PSUM
// placements, run here and, in one batch, by testdata/dve/oracle.py, which implements the
// semantics of DESIGN.md §4 in numpy. Results must agree byte for byte: every op the oracle
// covers is exact (bit moves, integer ops, and FP32 folds done in the same sequential order
// with float32 rounding at each step, as the hardware's FP32 datapath does), except a NaN's
// bits. A quarter of the float-input cases get NaNs (both signs, quiet and signalling, with
// payloads), infinities and zeros among their inputs; where numpy's result is a NaN ours must be
// one too, and (oracleNaNs) the default NaN narrowed to the out dtype for an FP32 ALU result
// (Provenance num.alu_nan), and of numpy's sign for a cast, whose payload follows num.nan
// (numpy's own NaN bits differ: 1.24 keeps a signalling NaN signalling when it narrows one).

const oracleCases = 2400

type oracleWalk struct {
	Off   int      `json:"off"`
	Rows  int      `json:"rows"`
	Cols  int      `json:"cols"`
	Start int      `json:"start"`
	Step  [4]int   `json:"step"`
	Num   [4]int   `json:"num"`
	span  mem.Span // window in memory
	t     isa.Tensor4D
}

type oracleCase struct {
	Opcode  int        `json:"opcode"`
	InDtype int        `json:"in_dtype"`
	OutDtyp int        `json:"out_dtype"`
	Nac     int        `json:"nac"`
	Negated int        `json:"negated"`
	Op      int        `json:"op"`
	OpDim   int        `json:"op_dim"`
	Mask    []int      `json:"mask,omitempty"`
	Src     oracleWalk `json:"src"`
	Dst     oracleWalk `json:"dst"`
	gen     isa.Generation
	inst    *isa.S4D4TR
	mask    *isa.LoadMaskSelect
	desc    string
	special bool // float inputs include NaNs, infinities and zeros
}

var (
	rawDtypes   = []isa.DType{isa.DTypeUINT8, isa.DTypeINT8, isa.DTypeFP8_EXP4, isa.DTypeINT16, isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeUINT32, isa.DTypeFP32}
	arithDtypes = []isa.DType{isa.DTypeINT8, isa.DTypeUINT8, isa.DTypeINT16, isa.DTypeUINT16, isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeINT32, isa.DTypeUINT32, isa.DTypeFP32}
	bitDtypes   = []isa.DType{isa.DTypeUINT8, isa.DTypeINT8, isa.DTypeUINT16, isa.DTypeINT16, isa.DTypeUINT32, isa.DTypeINT32}
	// reduceOps are the ops of the arithmetic reduces and scans. The oracle runs the DVE: for the
	// reduces these must be exactly the ops the DVE arm of is_valid_tensor_reduce_arith_engine
	// takes (TestOracleReduceOpsAreTheDVEArm); the integer reduce ops are the POOL arm's.
	reduceOps = []isa.ALUOp{isa.ALUBypass, isa.ALUAdd, isa.ALUSubtract, isa.ALUMult, isa.ALUMax, isa.ALUMin, isa.ALULogicalAnd,
		isa.ALULogicalOr, isa.ALULogicalXor, isa.ALUIsEQ, isa.ALUIsGT, isa.ALUIsGE, isa.ALUIsLE, isa.ALUIsLT, isa.ALUIsNE,
		isa.ALUAbsoluteDiff, isa.ALUAbsoluteValue, isa.ALUAbsMax, isa.ALUAbsMin, isa.ALUReLU, isa.ALUSquare}
	bitOps = []isa.ALUOp{isa.ALUBypass, isa.ALUBitwiseNot, isa.ALUArithShiftLeft, isa.ALUArithShiftRight, isa.ALULogicalShiftLeft,
		isa.ALULogicalShiftRight, isa.ALUBitwiseAnd, isa.ALUBitwiseOr, isa.ALUBitwiseXor}
)

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.Intn(len(xs))] }

// splitDims splits n elements into four dims (dim 0 innermost) at random.
func splitDims(rng *rand.Rand, n int) [4]int {
	d := [4]int{1, 1, 1, 1}
	for k := 0; k < 3; k++ {
		var divs []int
		for x := 1; x <= n; x++ {
			if n%x == 0 {
				divs = append(divs, x)
			}
		}
		x := pick(rng, divs)
		d[k] = x
		n /= x
	}
	d[3] = n
	if rng.Intn(2) == 0 { // shuffle which dims are 1 a little
		d[0], d[1] = d[1], d[0]
	}
	return d
}

// randSteps returns arbitrary steps (overlap, zero and negative allowed) or, when injective, a
// mixed-radix layout with random signs and gaps.
func randSteps(rng *rand.Rand, n [4]int, injective bool) [4]int {
	var s [4]int
	if !injective {
		for d := range s {
			s[d] = rng.Intn(13) - 6
			if rng.Intn(3) == 0 {
				s[d] = 1
			}
		}
		return s
	}
	base := 1 + rng.Intn(2)
	order := rng.Perm(4)
	if rng.Intn(2) == 0 {
		order = []int{0, 1, 2, 3}
	}
	for _, d := range order {
		sign := 1
		if rng.Intn(4) == 0 {
			sign = -1
		}
		s[d] = sign * base
		base = base*n[d] + rng.Intn(3)
	}
	return s
}

// extent is the [lo, hi) element range of a walk relative to its start.
func extent(n, s [4]int) (lo, hi int) {
	hi = 1
	for d := 0; d < 4; d++ {
		e := (n[d] - 1) * s[d]
		if e < 0 {
			lo += e
		} else {
			hi += e
		}
	}
	return lo, hi
}

func genOracleCase(rng *rand.Rand) *oracleCase {
	ops := []isa.Opcode{isa.OpSTREAM_TRANSPOSE, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP,
		isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_REDUCE_BITVEC_OP, isa.OpTENSOR_CUMULATIVE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_BITVEC_OP,
		isa.OpCOPY, isa.OpCAST, isa.OpRECIPROCAL, isa.OpSTREAM_SHUFFLE, isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16}
	op := pick(rng, ops)
	c := &oracleCase{Opcode: int(op), gen: pick(rng, []isa.Generation{isa.CAYMAN, isa.MARIANA})}
	var in, out isa.DType
	alu := isa.ALUBypass
	opDim := isa.SubdimUNUSED
	negated := 0
	var E, D int
	var sn, dn [4]int
	transposeLike := op == isa.OpSTREAM_TRANSPOSE || op == isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP || op == isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP
	nac := 1 + rng.Intn(128)
	if transposeLike || op == isa.OpSTREAM_SHUFFLE {
		nac = 32 * (1 + rng.Intn(4))
	}
	if transposeLike {
		E = 32 * (1 + rng.Intn(4))
	} else {
		E = 1 + rng.Intn(96)
	}
	sn = splitDims(rng, E)
	switch op {
	case isa.OpSTREAM_TRANSPOSE:
		in = pick(rng, rawDtypes)
		out = in
		D = E - rng.Intn(3)*rng.Intn(E)/2
		if D < 1 {
			D = E
		}
		if rng.Intn(2) == 0 {
			opDim = isa.SubdimX
		}
	case isa.OpCOPY, isa.OpSTREAM_SHUFFLE:
		in = pick(rng, rawDtypes)
		out = in
		D = E
	case isa.OpCAST, isa.OpRECIPROCAL:
		in, out = pick(rng, arithDtypes), pick(rng, arithDtypes)
		D = E
	case isa.OpTENSOR_REDUCE_ARITH_OP, isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.OpTENSOR_CUMULATIVE_ARITH_OP,
		isa.OpTENSOR_REDUCE_ADD_BF16, isa.OpTENSOR_REDUCE_MAX_BF16:
		in, out = pick(rng, arithDtypes), pick(rng, arithDtypes)
		alu = pick(rng, reduceOps)
		if alu >= isa.ALUAbsMax && c.gen < isa.MARIANA {
			c.gen = isa.MARIANA
		}
		if op == isa.OpTENSOR_REDUCE_ARITH_OP || op == isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP {
			negated = rng.Intn(2)
		}
		if op == isa.OpTENSOR_REDUCE_ADD_BF16 || op == isa.OpTENSOR_REDUCE_MAX_BF16 {
			c.gen, in, negated = isa.SUNDA, isa.DTypeBFLOAT16, 0
			if out >= isa.DTypeINT8 && !out.InGen(isa.SUNDA) {
				out = isa.DTypeFP32
			}
		}
	default: // bitvec reduce / scan
		in = pick(rng, bitDtypes)
		out = in
		alu = pick(rng, bitOps)
	}
	if op != isa.OpSTREAM_TRANSPOSE && !(op == isa.OpCOPY || op == isa.OpCAST || op == isa.OpRECIPROCAL || op == isa.OpSTREAM_SHUFFLE) {
		opDim = isa.TensorSubdim(2 + rng.Intn(4))
		G := 1
		for d := 0; d < opDim.Dims(); d++ {
			G *= sn[d]
		}
		if op == isa.OpTENSOR_CUMULATIVE_ARITH_OP || op == isa.OpTENSOR_CUMULATIVE_BITVEC_OP {
			D = E
		} else {
			D = E / G
		}
	}
	dn = splitDims(rng, D)
	esIn, esOut := in.Size(), out.Size()
	ss := randSteps(rng, sn, rng.Intn(3) != 0)
	ds := randSteps(rng, dn, true)

	// Placement: src and dst in SBUF or PSUM (dst PSUM only for 4-byte outputs).
	g := c.gen
	place := func(n, s [4]int, es int, psumOK bool, after int) (isa.Tensor4D, int) {
		lo, hi := extent(n, s)
		psum := psumOK && rng.Intn(4) == 0
		part := rng.Intn(128 - nac + 1)
		off := after + rng.Intn(200)
		off = (off + es - 1) / es * es
		start := off - lo*es
		var a isa.Addr4
		if psum {
			a = psumAddr(part, start)
		} else {
			a = sbufAddr(g, part, start)
		}
		t := isa.Tensor4D{StartAddr: a}
		for d := 0; d < 4; d++ {
			t.StepElem[d], t.NumElem[d] = int16(s[d]), uint16(n[d])
		}
		return t, start + hi*es
	}
	src, end := place(sn, ss, esIn, true, 0)
	dst, _ := place(dn, ds, esOut, esOut == 4, end)
	inPSUM := src.StartAddr.ByteAddr() >= psumBase
	if rng.Intn(20) == 0 && esIn == esOut && E == D && !transposeLike && !(inPSUM && esOut != 4) && injective(sn, ss) {
		dst = src // in place
	}
	inst := s4(op, src, dst, in, out, nac)
	inst.Op, inst.OpDim, inst.Negated = alu, opDim, uint8(negated)
	c.inst = inst
	c.InDtype, c.OutDtyp, c.Nac, c.Negated, c.Op, c.OpDim = int(in), int(out), nac, negated, int(alu), int(opDim)
	if op == isa.OpSTREAM_SHUFFLE {
		lm := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: isa.InstWordLen}}
		for i := range lm.Immediate {
			switch rng.Intn(6) {
			case 0:
				lm.Immediate[i] = 0xFF
			case 1:
				lm.Immediate[i] = uint8(32 + rng.Intn(32))
			default:
				lm.Immediate[i] = uint8(rng.Intn(32))
			}
			c.Mask = append(c.Mask, int(lm.Immediate[i]))
		}
		c.mask = lm
	}
	c.desc = fmt.Sprintf("%v %v->%v nac %d op %v op_dim %v neg %d src %+v dst %+v on %v", op, in, out, nac, alu, opDim, negated, src, dst, g)
	return c
}

func injective(n, s [4]int) bool {
	seen := map[int]bool{}
	for l := 0; l < n[3]; l++ {
		for k := 0; k < n[2]; k++ {
			for j := 0; j < n[1]; j++ {
				for i := 0; i < n[0]; i++ {
					o := i*s[0] + j*s[1] + k*s[2] + l*s[3]
					if seen[o] {
						return false
					}
					seen[o] = true
				}
			}
		}
	}
	return true
}

// oracleSpecials are the FP32 words a special case's float inputs draw from (stored through
// num.StoreF32, so each dtype gets its own): NaNs of both signs, quiet and signalling, with and
// without payloads, infinities and signed zeros.
var oracleSpecials = []uint32{0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFC00001, 0x7F800001, 0xFFA00000, 0x7FBFFFFF,
	0x7F800000, 0xFF800000, 0x7F800000, 0xFF800000, 0, 0x80000000}

// fillOracle writes the case's source window with data fit for its op: finite values in
// [-4, 4] (small integers for integer dtypes) for arithmetic, with one float element in six
// from oracleSpecials when c.special; random bits otherwise.
func fillOracle(rng *rand.Rand, m *mem.Memory, c *oracleCase, s mem.Span, dt isa.DType, arith bool) {
	es := dt.Size()
	for p := s.FirstPartition; p < s.FirstPartition+s.NumPartitions; p++ {
		row := m.Partition(s.Region, p)[s.Lo:s.Hi]
		if !arith {
			o := rng.Intn(len(noise) - len(row))
			copy(row, noise[o:])
			continue
		}
		for i := 0; i+es <= len(row); i += es {
			if dt.IsInteger() {
				num.StoreInt(num.Kind(dt), row[i:], int64(rng.Intn(201)-100))
			} else if c.special && rng.Intn(6) == 0 {
				num.StoreF32(num.Kind(dt), row[i:], math.Float32frombits(pick(rng, oracleSpecials)))
			} else {
				num.StoreF32(num.Kind(dt), row[i:], float32(rng.Float64()*8-4))
			}
		}
	}
}

func TestNumpyOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("oracle skipped in -short mode")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("python3 with numpy not available:", err)
	}
	script, err := filepath.Abs("../testdata/dve/oracle.py")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(int64(20261130)))
	mems := map[isa.Generation]*mem.Memory{}
	dir := t.TempDir()
	var blob bytes.Buffer
	var cases []*oracleCase
	var after [][]byte
	counts := map[isa.Opcode]int{}
	shared := map[TransposeImpl]*DVE{TransposeFast: {}, TransposeButterfly: {Transpose: TransposeButterfly}}
	for len(cases) < oracleCases {
		c := genOracleCase(rng)
		m := mems[c.gen]
		if m == nil {
			m = newMem(t, c.gen, mem.Options{})
			mems[c.gen] = m
		}
		in := c.inst
		sp, err := m.Pattern(in.SrcMemPattern, in.InDtype.Size(), c.Nac, false)
		if err != nil {
			continue // placement out of the active area; draw again
		}
		dp, err := m.Pattern(in.DstMemPattern, in.OutDtype.Size(), c.Nac, false)
		if err != nil {
			continue
		}
		arith := isArithOpcode(in.Header.Opcode) || in.Header.Opcode == isa.OpCAST || in.Header.Opcode == isa.OpRECIPROCAL
		c.special = arith && in.InDtype.IsFloat() && rng.Intn(4) == 0
		ds := dp.Span()
		fillOracle(rng, m, c, ds, in.OutDtype, false)
		fillOracle(rng, m, c, sp.Span(), in.InDtype, arith)
		win := func(w *oracleWalk, s mem.Span, p *mem.Pattern) {
			w.span = s
			w.Off, w.Rows, w.Cols = blob.Len(), s.NumPartitions, int(s.Hi-s.Lo)
			w.Start = p.Offset() - int(s.Lo)
			for d := 0; d < 4; d++ {
				w.Step[d], w.Num[d] = int(p.StepElem[d]), p.NumElem[d]
			}
			for q := s.FirstPartition; q < s.FirstPartition+s.NumPartitions; q++ {
				blob.Write(m.Partition(s.Region, q)[s.Lo:s.Hi])
			}
		}
		win(&c.Src, sp.Span(), sp)
		win(&c.Dst, ds, dp)
		// One DVE per transpose kind for the whole run, as an engine is: every case after the
		// first runs on a DVE whose reused source buffer (gatherAll) holds the last case's bytes.
		d := shared[TransposeFast]
		if rng.Intn(2) == 0 {
			d = shared[TransposeButterfly]
		}
		if c.mask != nil {
			if _, err := d.Execute(m, c.mask, c.gen); err != nil {
				t.Fatalf("%s: LOAD_MASK_SELECT: %v", c.desc, err)
			}
		}
		if vs := reduceArmViolations(in, c.gen); vs != nil {
			t.Fatalf("case %d %s: not a DVE instruction: %v", len(cases), c.desc, vs)
		}
		if _, err := d.Execute(m, in, c.gen); err != nil {
			t.Fatalf("case %d %s: %v", len(cases), c.desc, err)
		}
		var got []byte
		for q := ds.FirstPartition; q < ds.FirstPartition+ds.NumPartitions; q++ {
			got = append(got, m.Partition(ds.Region, q)[ds.Lo:ds.Hi]...)
		}
		after = append(after, got)
		cases = append(cases, c)
		counts[in.Header.Opcode]++
	}
	js, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cases.json"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.bin"), blob.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", script, dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oracle.py: %v\n%s", err, out)
	}
	want, err := os.ReadFile(filepath.Join(dir, "out.bin"))
	if err != nil {
		t.Fatal(err)
	}
	pos, bad, nans, special := 0, 0, map[bool]int{}, 0
	for i, c := range cases {
		n := len(after[i])
		if pos+n > len(want) {
			t.Fatalf("oracle output too short at case %d", i)
		}
		w := append([]byte(nil), want[pos:pos+n]...)
		k, msg := oracleNaNs(c, w, after[i])
		nans[aluResult(c.inst)] += k
		if c.special {
			special++
		}
		if msg != "" {
			bad++
			if bad <= 5 {
				t.Errorf("case %d %s: %s", i, c.desc, msg)
			}
		} else if !bytes.Equal(w, after[i]) {
			bad++
			if bad <= 5 {
				j := 0
				for after[i][j] == w[j] {
					j++
				}
				t.Errorf("case %d %s: window byte %d (row %d col %d): got %02x want %02x", i, c.desc, j, j/c.Dst.Cols, j%c.Dst.Cols, after[i][j], w[j])
			}
		}
		pos += n
	}
	if pos != len(want) {
		t.Errorf("oracle output has %d bytes, expected %d", len(want), pos)
	}
	t.Logf("%d cases (%d with NaN, Inf and zero inputs), %d mismatches; NaN results: %d of FP32 ALU ops, %d of casts; per opcode: %v",
		len(cases), special, bad, nans[true], nans[false], counts)
	if nans[true] < 100 || nans[false] < 100 {
		t.Errorf("too few NaN results compared: %d of ALU ops, %d of casts", nans[true], nans[false])
	}
}

// aluResult reports an instruction whose float results are FP32 ALU results (Provenance
// num.alu_nan): a float-class reduce or scan, or a reciprocal.
func aluResult(in *isa.S4D4TR) bool {
	op := in.Header.Opcode
	if op == isa.OpRECIPROCAL || op == isa.OpTENSOR_REDUCE_ADD_BF16 || op == isa.OpTENSOR_REDUCE_MAX_BF16 {
		return true
	}
	return isArithOpcode(op) && arithClass(in.Op) == classFloat
}

// oracleNaNs checks c's destination elements that are NaN in numpy's window want against ours
// (got): ours must be a NaN too, the default NaN narrowed to the out dtype for an FP32 ALU
// result, else (a cast) of numpy's sign. Each element that passes is copied from got into want,
// so that the windows then compare byte for byte. It returns the NaNs compared and the first
// failure.
func oracleNaNs(c *oracleCase, want, got []byte) (int, string) {
	in := c.inst
	k, es := num.Kind(in.OutDtype), in.OutDtype.Size()
	if !k.IsFloat() || !aluResult(in) && in.Header.Opcode != isa.OpCAST { // bit moves: exact
		return 0, ""
	}
	canon := make([]byte, es)
	num.StoreF32(k, canon, math.Float32frombits(num.DefaultNaNF32))
	alu := aluResult(in)
	offs := walkOffsets(in.DstMemPattern, c.Dst.Start, es)
	n := 0
	for r := 0; r < c.Dst.Rows; r++ {
		for _, o := range offs {
			o += r * c.Dst.Cols
			w, g := want[o:o+es], got[o:o+es]
			wv, gv := num.LoadF32(k, w), num.LoadF32(k, g)
			if wv == wv {
				continue
			}
			n++
			switch {
			case gv == gv:
				return n, fmt.Sprintf("row %d col %d: got %x (%v), numpy a NaN (%x)", r, o%c.Dst.Cols, g, gv, w)
			case alu && !bytes.Equal(g, canon):
				return n, fmt.Sprintf("row %d col %d: got NaN %x, want the default NaN %x", r, o%c.Dst.Cols, g, canon)
			case !alu && math.Signbit(float64(gv)) != math.Signbit(float64(wv)):
				return n, fmt.Sprintf("row %d col %d: cast gave NaN %x, numpy %x: the signs differ", r, o%c.Dst.Cols, g, w)
			}
			copy(w, g)
		}
	}
	return n, ""
}

// reduceArmViolations is what the DVE arm of is_valid_tensor_reduce_arith_engine says of an
// oracle instruction (nil for every other opcode, and when it holds).
func reduceArmViolations(in *isa.S4D4TR, g isa.Generation) []isa.Violation {
	var out []isa.Violation
	for _, v := range isa.ValidateOn(in, g, isa.EngineDVE) {
		if v.Rule == "is_valid_tensor_reduce_arith_engine" {
			out = append(out, v)
		}
	}
	return out
}

// The oracle's arithmetic reduces are DVE instructions: their ops are exactly the DVE arm's (on
// MARIANA, where the generator moves the MARIANA-only ops), so none is an engine/op pair the ISA
// refuses and none the DVE takes is left out; and every generated reduce passes the DVE arm.
func TestOracleReduceOpsAreTheDVEArm(t *testing.T) {
	want := isa.TensorReduceArithOps(isa.EngineDVE, isa.MARIANA)
	got := map[isa.ALUOp]bool{}
	for _, o := range reduceOps {
		got[o] = true
	}
	if len(got) != len(want) {
		t.Errorf("reduceOps has %d ops, the DVE arm %d: %v", len(got), len(want), want)
	}
	for _, o := range want {
		if !got[o] {
			t.Errorf("reduceOps lacks %v, which the DVE arm takes", o)
		}
	}
	rng := rand.New(rand.NewSource(7))
	seen := map[isa.ALUOp]bool{}
	for n := 0; n < 20000; n++ {
		c := genOracleCase(rng)
		op := c.inst.Header.Opcode
		if op != isa.OpTENSOR_REDUCE_ARITH_OP && op != isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP {
			continue
		}
		seen[c.inst.Op] = true
		if vs := reduceArmViolations(c.inst, c.gen); vs != nil {
			t.Fatalf("%s: %v", c.desc, vs)
		}
	}
	for _, o := range want {
		if !seen[o] {
			t.Errorf("no arithmetic reduce with %v generated", o)
		}
	}
}
