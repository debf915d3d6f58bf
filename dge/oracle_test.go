package dge

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dma/dmatest"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// oracleCase is one case for testdata/dge/oracle.py: the inputs and what the model produced.
type oracleCase struct {
	ID        int      `json:"id"`
	Kind      string   `json:"kind"` // "tensor", "gather_xpose", "gather"
	Gen       string   `json:"gen"`
	Shape     []int    `json:"shape,omitempty"`
	DstShape  []int    `json:"dst_shape,omitempty"`
	Perm      []int    `json:"perm,omitempty"`
	In        string   `json:"in,omitempty"`
	Out       string   `json:"out,omitempty"`
	Op        int      `json:"op"`
	Space     string   `json:"space"`
	Plan      string   `json:"plan"`
	Src       []byte   `json:"src"`
	DstBefore []byte   `json:"dst_before,omitempty"`
	Result    []byte   `json:"result"`
	Indices   []uint32 `json:"indices,omitempty"`
	IdxShape  []int    `json:"idx_shape,omitempty"`
	N         int      `json:"n,omitempty"`
}

var npName = map[isa.DType]string{
	isa.DTypeUINT8: "u1", isa.DTypeINT8: "i1", isa.DTypeUINT16: "u2", isa.DTypeINT16: "i2", isa.DTypeBFLOAT16: "bf16",
	isa.DTypeFP16: "f2", isa.DTypeINT32: "i4", isa.DTypeUINT32: "u4", isa.DTypeFP32: "f4",
}

func haveNumpy() bool {
	return exec.Command("/usr/bin/python3", "-c", "import numpy").Run() == nil
}

// TestNumpyOracle runs >= 1000 random requests through the planner and the engines and has
// numpy (one python invocation) recompute every result from the inputs: transposes and reshapes
// up to 4-D, 1/2/4-byte dtypes, HBM/SBUF sources and destinations, every generation, casts,
// compute ops, gather-transpose against NKI's formula and INDIRECT1D gathers.
func TestNumpyOracle(t *testing.T) {
	if !haveNumpy() {
		t.Skip("python3 with numpy not available")
	}
	rng := rand.New(rand.NewSource(2024))
	var cases []oracleCase
	count := map[string]int{}
	t.Run("random requests", func(t *testing.T) {
		for len(cases) < 1000 {
			c := randCase(rng, "any")
			if c.req.Src.Elements() > 4096 {
				continue
			}
			m := dmatest.New(c.req.Gen)
			fillView(t, rng, m, c.req.Src, c.in)
			fillView(t, rng, m, c.req.Dst, c.out)
			src := readView(t, m, c.req.Src)
			before := readView(t, m, c.req.Dst)
			p, _, err := runPlanned(m, c.req, Options{Quiet: true})
			if err != nil {
				t.Fatalf("%v: %v", c, err)
			}
			oc := oracleCase{ID: len(cases), Kind: "tensor", Gen: c.req.Gen.String(), Shape: c.shape, Perm: c.perm, In: npName[c.in], Out: npName[c.out],
				Op: int(c.req.ComputeOp), Space: c.srcSpace + "->" + c.dstSpace, Plan: p.Kind.String(), Src: src, Result: readView(t, m, c.req.Dst)}
			if c.req.ComputeOp != 0 {
				oc.DstBefore = before
			}
			cases = append(cases, oc)
			count[oc.Space]++
			count[p.Kind.String()]++
			count[c.req.Gen.String()]++
		}
	})
	// 2-byte transposes into SBUF (the crossbar) and SBUF-to-SBUF (MARIANA_PLUS / MAVERICK): the
	// random draw above yields few, so these are drawn directly.
	xgens := []isa.Generation{isa.CAYMAN, isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK}
	xdts := []isa.DType{isa.DTypeBFLOAT16, isa.DTypeFP16, isa.DTypeUINT16, isa.DTypeINT16}
	t.Run("crossbar and SBUF-to-SBUF transposes", func(t *testing.T) {
		for i := 0; i < 330; i++ {
			sb2sb := i >= 220
			g := xgens[rng.Intn(len(xgens))]
			if sb2sb {
				g = isa.MARIANA_PLUS
				if i%5 == 0 {
					g = isa.MAVERICK
				}
			}
			d := xdts[rng.Intn(len(xdts))]
			var shape, perm []int
			for {
				r := 2 + rng.Intn(3)
				shape = make([]int, r)
				total := 1
				for k := range shape {
					shape[k] = []int{1 + rng.Intn(20), 16, 17, 32, 33, 64, 100, 128, 129, 130}[rng.Intn(10)]
					total *= shape[k]
				}
				perm = rng.Perm(r)
				ps := PermutedShape(shape, perm)
				if total <= 8192 && perm[r-1] != r-1 && ps[0] <= 128 && (!sb2sb || shape[0] <= 128) {
					break
				}
			}
			src := uint64(0x10000000) + uint64(rng.Intn(64))*2
			space := "hbm->sbuf"
			if sb2sb {
				src, space = sbufAddr(g, rng.Intn(128-shape[0]+1), uint64(rng.Intn(64)*2)), "sbuf->sbuf"
			}
			ps := PermutedShape(shape, perm)
			dst := sbufAddr(g, rng.Intn(128-ps[0]+1), 100<<10+uint64(rng.Intn(16)*32))
			req, err := TensorRequest(g, src, dst, shape, perm, d)
			if err != nil {
				t.Fatal(err)
			}
			if rng.Intn(3) == 0 {
				req.DMACfg = uint32(1 + rng.Intn(1<<g.Geometry().DMAEngineCount-1))
			}
			if rng.Intn(3) == 0 {
				req.CarveoutCfg = uint32(1+rng.Intn(8)) << 16
			}
			m := dmatest.New(g)
			fillView(t, rng, m, req.Src, d)
			fillView(t, rng, m, req.Dst, d)
			sb := readView(t, m, req.Src)
			p, _, err := runPlanned(m, req, Options{Quiet: true})
			if err != nil {
				t.Fatalf("%v %v perm %v %v: %v", g, shape, perm, d, err)
			}
			cases = append(cases, oracleCase{ID: len(cases), Kind: "tensor", Gen: g.String(), Shape: shape, Perm: perm, In: npName[d], Out: npName[d],
				Space: space, Plan: p.Kind.String(), Src: sb, Result: readView(t, m, req.Dst)})
			count[space]++
			count[p.Kind.String()]++
			count[g.String()]++
		}
	})
	if count["XBAR_TRANSPOSE"] < 200 || count["TRANSPOSE_SB2SB"] < 100 {
		t.Fatalf("too few crossbar (%d) or SBUF-to-SBUF (%d) transposes", count["XBAR_TRANSPOSE"], count["TRANSPOSE_SB2SB"])
	}
	// reshapes: a row-major source read into a destination of another shape (dim merge / split)
	t.Run("reshapes", func(t *testing.T) {
		for i := 0; i < 100; i++ {
			g := isa.Generations[rng.Intn(5)]
			shape := []int{2 + rng.Intn(6), 2 + rng.Intn(6), 1 + rng.Intn(8)}
			total := shape[0] * shape[1] * shape[2]
			dshape := []int{total}
			if rng.Intn(2) == 0 {
				dshape = []int{shape[0] * shape[1], shape[2]}
			}
			d := testDTypes[rng.Intn(len(testDTypes))]
			sv, _ := LayoutView(0x1000, uint32(d.Size()), shape, g)
			dst := uint64(0x80000)
			if dshape[0] <= 128 && rng.Intn(2) == 0 {
				dst = sbufAddr(g, rng.Intn(128-dshape[0]+1), 0x40)
			}
			dv, err := LayoutView(dst, uint32(d.Size()), dshape, g)
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Gen: g, Src: sv, Dst: dv}
			m := dmatest.New(g)
			fillView(t, rng, m, sv, d)
			src := readView(t, m, sv)
			p, _, err := runPlanned(m, req, Options{Quiet: true})
			if err != nil {
				t.Fatal(err)
			}
			cases = append(cases, oracleCase{ID: len(cases), Kind: "tensor", Gen: g.String(), Shape: shape, DstShape: dshape, In: npName[d], Out: npName[d],
				Space: "reshape", Plan: p.Kind.String(), Src: src, Result: readView(t, m, dv)})
			count["reshape"]++
		}
	})
	// gather transpose (NKI formula)
	t.Run("gather transposes", func(t *testing.T) {
		for i := 0; i < 60; i++ {
			g := []isa.Generation{isa.CAYMAN, isa.MARIANA, isa.MARIANA_PLUS, isa.MAVERICK}[i%4]
			geo := g.Geometry()
			N, F := 16+rng.Intn(200), 1+rng.Intn(128)
			P, n := 16*(1+rng.Intn(8)), 16*(1+rng.Intn(8))
			K := (n + P - 1) / P
			m := dmatest.New(g)
			srcB := make([]byte, 2*N*F)
			rng.Read(srcB)
			m.WriteAt(0x1000, srcB)
			idx := make([]uint32, P*K)
			for j := range idx {
				idx[j] = uint32(rng.Intn(N))
			}
			for p := 0; p < P; p++ {
				putU32s(m, isa.DMALocalBase+uint64(uint32(p)*geo.StateBufPartitionSize+0x100), idx[p*K:(p+1)*K])
			}
			in := &isa.DMAGatherXpose{IdxNumActiveChannels: uint8(P), SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: [2]int32{1, int32(F)},
				SrcNumElem: [2]uint16{uint16(F), uint16(n)}, SrcIdxStartAddr: isa.Addr4(0x100), DstStartAddr: isa.LocalAddr8(0x8000),
				DstStepElem1: int32(geo.StateBufPartitionSize / 2), DstNumElem: [2]uint16{uint16(n), uint16(F)}, ElemSize: uint16(2 * F),
				Dtype: isa.MakeDTypePair(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}
			if _, err := runInst(t, g, m, in, nil); err != nil {
				t.Fatal(err)
			}
			res := make([]byte, 2*n*F)
			for f := 0; f < F; f++ {
				m.ReadAt(isa.DMALocalBase+0x8000+uint64(f)*uint64(geo.StateBufPartitionSize), res[2*n*f:2*n*(f+1)])
			}
			cases = append(cases, oracleCase{ID: len(cases), Kind: "gather_xpose", Gen: g.String(), Shape: []int{N, F}, In: "u2", Out: "u2",
				Space: "hbm->sbuf", Plan: "GATHER_TRANSPOSE", Src: srcB, Result: res, Indices: idx, IdxShape: []int{P, K}, N: n})
			count["gather_xpose"]++
		}
	})
	// INDIRECT1D gather rows
	t.Run("gathers", func(t *testing.T) {
		for i := 0; i < 40; i++ {
			g := isa.Generations[rng.Intn(5)]
			rows, es, n := 4+rng.Intn(100), 4*(1+rng.Intn(8)), 1+rng.Intn(200)
			m := dmatest.New(g)
			srcB := make([]byte, rows*es)
			rng.Read(srcB)
			m.WriteAt(0x1000, srcB)
			idx := make([]uint32, n)
			for j := range idx {
				idx[j] = uint32(rng.Intn(rows))
			}
			putU32s(m, isa.DMALocalBase+0x40, idx)
			in := &isa.DMAIndirect1D{SemIncrement: uint8(1 + rng.Intn(16)), IdxNumActiveChannels: 128,
				Flags:        isa.MakeDMAIndirectFlags(isa.SrcIndirection, true, false, 0, 0),
				SrcStartAddr: isa.Addr8(0x1000), SrcStepElem: 1, SrcNumElem: uint16(rows), SrcElemSize: uint16(es),
				DstStartAddr: isa.Addr8(0x100000), DstStepElem: 1, DstNumElem: uint16(n), DstElemSize: uint16(es),
				SrcIdxStartAddr: isa.Addr4(0x40), InDtype: isa.DTypeUINT8, OutDtype: isa.DTypeUINT8}
			if _, err := runInst(t, g, m, in, nil); err != nil {
				t.Fatal(err)
			}
			res := make([]byte, n*es)
			m.ReadAt(0x100000, res)
			cases = append(cases, oracleCase{ID: len(cases), Kind: "gather", Gen: g.String(), Shape: []int{rows, es}, In: "u1", Out: "u1",
				Space: "hbm->hbm", Plan: "INDIRECT", Src: srcB, Result: res, Indices: idx, N: n})
			count["gather"]++
		}
	})
	dir := t.TempDir()
	f := filepath.Join(dir, "cases.json")
	b, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", filepath.Join("..", "testdata", "dge", "oracle.py"), f).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy oracle: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "mismatches=0") {
		t.Fatalf("numpy oracle:\n%s", out)
	}
	t.Logf("%d cases %v: %s", len(cases), count, strings.TrimSpace(string(out)))
	_ = binary.LittleEndian
	_ = dma.KindCopy
}

// oracleNaNScript runs testdata/dge/oracle.py's tensor() on each case (argv[1]: the folder of
// oracle.py, argv[2]: the cases) and compares NaN-aware: where numpy's result is a NaN ours must
// be one, the default NaN narrowed to the out dtype for a compute_op (Provenance num.alu_nan),
// of numpy's sign for a cast (whose payload follows num.nan; numpy's own NaN bits vary with its
// version and host); every other element byte for byte, but for a zero that MAX or MIN picks
// between +0 and -0 (numpy returns its first operand, the model orders -0 below +0 as Go's max
// and min do), whose sign is not compared.
const oracleNaNScript = `
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import oracle

np.seterr(all="ignore")
CANON = {"f4": 0x7FC00000, "f2": 0x7E00}
UINT = {"f4": np.uint32, "f2": np.uint16}
cases = json.load(open(sys.argv[2]))
bad, nans = [], 0
for c in cases:
    want = np.ascontiguousarray(oracle.tensor(c))
    got = oracle.arr(c["result"], c["out"])
    ok = got.shape == want.shape
    if ok and c["out"] in CANON:
        wn, gn = np.isnan(want), np.isnan(got)
        u = UINT[c["out"]]
        if c["op"] in (3, 4):  # MAX, MIN of +0 and -0: numpy gives its first operand, the model orders -0 < +0
            want = np.where((want == 0) & (got == 0), got, want)
        ok = bool((wn == gn).all()) and bool((want[~wn].view(u) == got[~gn].view(u)).all())
        nans += int(gn.sum())
        if ok and c["op"]:
            ok = bool((got[gn].view(u) == CANON[c["out"]]).all())
        elif ok:
            ok = bool((np.signbit(got[gn]) == np.signbit(want[wn])).all())
    elif ok:
        ok = got.tobytes() == want.tobytes()
    if not ok:
        bad.append((c["id"], c["gen"], c["shape"], c.get("perm"), c["in"], c["out"], c["op"]))
print("cases=%d mismatches=%d nans=%d" % (len(cases), len(bad), nans))
for b in bad[:10]:
    print("mismatch:", b)
`

// oracleSpecialF32 are the FP32 words TestNumpyOracleNaNs puts among a view's float elements:
// NaNs of both signs, quiet and signalling, with payloads; infinities; signed zeros.
var oracleSpecialF32 = []uint32{0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFC00001, 0x7F800001, 0xFFA00000, 0x7FBFFFFF,
	0x7F800000, 0xFF800000, 0x7F800000, 0xFF800000, 0, 0x80000000}

// fillSpecials fills a view as fillView does, then, for a float dtype, makes about one element
// in four an oracleSpecialF32 word (stored through num.StoreF32).
func fillSpecials(t testing.TB, rng *rand.Rand, m dma.Memory, v View, d isa.DType) {
	fillView(t, rng, m, v, d)
	if !d.IsFloat() {
		return
	}
	b := readView(t, m, v)
	es := d.Size()
	for i := 0; i+es <= len(b); i += es {
		if rng.Intn(4) == 0 {
			num.StoreF32(num.Kind(d), b[i:], math.Float32frombits(oracleSpecialF32[rng.Intn(len(oracleSpecialF32))]))
		}
	}
	if err := WriteView(m, v, b); err != nil {
		t.Fatal(err)
	}
}

// TestNumpyOracleNaNs: 400 random compute_op (300) and cast (100) requests with float
// operands, a quarter of whose elements (source and destination) are NaNs, infinities and
// zeros, through the planner and the engines (and Reference, which must give the same bytes),
// against testdata/dge/oracle.py's numpy semantics compared NaN-aware (oracleNaNScript): ADD of
// opposite infinities, MULTIPLY of zero by infinity and every op on a NaN must give the default
// NaN, whatever the operands' NaNs.
func TestNumpyOracleNaNs(t *testing.T) {
	if !haveNumpy() {
		t.Skip("python3 with numpy not available")
	}
	rng := rand.New(rand.NewSource(20261130))
	var cases []oracleCase
	ops := map[isa.DGEComputeOp]int{}
	for len(cases) < 400 {
		c := randCase(rng, "any")
		cast := c.req.ComputeOp == isa.DGEComputeNONE
		if c.req.Src.Elements() > 4096 || !c.in.IsFloat() || cast && (c.in == c.out || ops[isa.DGEComputeNONE] >= 100) {
			continue
		}
		m, ref := twinMemories(t, rng, c, fillSpecials)
		src, before := readView(t, m, c.req.Src), readView(t, m, c.req.Dst)
		p, _, err := runPlanned(m, c.req, Options{Quiet: true})
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		reference(t, ref, c.req) // the element-by-element Reference, NaNs included: the same bytes
		if got, want := readView(t, m, c.req.Dst), readView(t, ref, c.req.Dst); !bytes.Equal(got, want) {
			t.Fatalf("%v: the engines and Reference differ", c)
		}
		oc := oracleCase{ID: len(cases), Kind: "tensor", Gen: c.req.Gen.String(), Shape: c.shape, Perm: c.perm, In: npName[c.in], Out: npName[c.out],
			Op: int(c.req.ComputeOp), Space: c.srcSpace + "->" + c.dstSpace, Plan: p.Kind.String(), Src: src, Result: readView(t, m, c.req.Dst)}
		if c.req.ComputeOp != isa.DGEComputeNONE {
			oc.DstBefore = before
		}
		cases = append(cases, oc)
		ops[c.req.ComputeOp]++
	}
	dir := t.TempDir()
	f, script := filepath.Join(dir, "cases.json"), filepath.Join(dir, "nan_oracle.py")
	b, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(oracleNaNScript), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := filepath.Abs(filepath.Join("..", "testdata", "dge"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/usr/bin/python3", script, lib, f).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy oracle: %v\n%s", err, out)
	}
	var n, bad, nans int
	if _, err := fmt.Sscanf(string(out), "cases=%d mismatches=%d nans=%d", &n, &bad, &nans); err != nil || n != len(cases) || bad != 0 {
		t.Fatalf("numpy oracle (%v):\n%s", err, out)
	}
	if nans < 200 {
		t.Errorf("only %d NaN results compared", nans)
	}
	t.Logf("%d cases (per compute_op %v): %s", len(cases), ops, strings.TrimSpace(string(out)))
}
