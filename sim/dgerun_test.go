package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// Tensor requests of every shape of work dge run does (a transpose, a cast, a compute op into
// SBUF) run and verify against dge's reference on each generation.
func TestDGERunVerifies(t *testing.T) {
	type tc struct {
		name string
		req  func(g isa.Generation) (dge.Request, error)
	}
	cases := []tc{
		{"transpose hbm", func(g isa.Generation) (dge.Request, error) {
			return dge.TensorRequest(g, 0, 0x100000, []int{64, 32}, []int{1, 0}, isa.DTypeBFLOAT16)
		}},
		{"copy to sbuf", func(g isa.Generation) (dge.Request, error) {
			return dge.TensorRequest(g, 0, isa.DMALocalBase, []int{32, 64}, nil, isa.DTypeFP32)
		}},
		{"cast", func(g isa.Generation) (dge.Request, error) {
			r, err := dge.TensorRequest(g, 0, 0x100000, []int{16, 16}, nil, isa.DTypeFP32)
			r.Out, r.Dst.ElemSize = isa.DTypeBFLOAT16, r.Dst.ElemSize/2
			return r, err
		}},
		{"compute add", func(g isa.Generation) (dge.Request, error) {
			r, err := dge.TensorRequest(g, 0, 0x100000, []int{16, 16}, nil, isa.DTypeFP32)
			r.ComputeOp = isa.DGEComputeADD
			return r, err
		}},
	}
	for _, g := range isa.Generations {
		for _, c := range cases {
			t.Run(g.String()+"/"+c.name, func(t *testing.T) {
				req, err := c.req(g)
				if err != nil {
					t.Fatal(err)
				}
				r, err := NewDGERun(Config{}, req, DGEOptions{})
				if err != nil {
					t.Fatalf("NewDGERun: %v", err)
				}
				if err := r.Fill(7); err != nil {
					t.Fatal(err)
				}
				res, err := r.Execute(true)
				if err != nil || !res.Checked || !res.Verified || res.Bytes == 0 || res.Summary == nil {
					t.Fatalf("Execute: %v, %+v", err, res)
				}
			})
		}
	}
}

// Index requests write their indices, gather, and verify; the gathered rows are the ones a
// hand-written table says.
func TestDGEIndexRunVerifies(t *testing.T) {
	g := isa.CAYMAN
	at, err := dge.DefaultIndexAt(g, 4*4)
	if err != nil {
		t.Fatal(err)
	}
	ir := &dge.IndexRequest{Gen: g, Kind: dge.IndexGather, Table: 0, Rows: 8, Cols: 4, DType: isa.DTypeUINT32,
		Index: []uint32{7, 0, 3, 3}, IndexShape: []int{4}, IndexAt: at, Dst: 0x10000}
	r, err := NewDGEIndexRun(Config{}, ir, DGEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	table := make([]byte, 8*4*4)
	for i := range table {
		table[i] = byte(i)
	}
	if err := r.Machine().Memory().WriteAt(0, table); err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(true)
	if err != nil || !res.Verified {
		t.Fatalf("Execute: %v, %+v", err, res)
	}
	got := make([]byte, 4*16)
	r.Machine().Memory().ReadAt(0x10000, got)
	want := append(append(append(append([]byte{}, table[7*16:8*16]...), table[0:16]...), table[3*16:4*16]...), table[3*16:4*16]...)
	if !bytes.Equal(got, want) {
		t.Errorf("gathered %v, want %v", got, want)
	}
}

// A work limit refuses the request before a machine exists, under the request's name.
func TestDGERunLimitBeforeMemory(t *testing.T) {
	req, _ := dge.TensorRequest(isa.CAYMAN, 0, 0x100000, []int{64, 32}, []int{1, 0}, isa.DTypeBFLOAT16)
	r, err := PlanDGE(req)
	if err != nil {
		t.Fatal(err)
	}
	err = r.Start(Config{MaxElements: 100}, DGEOptions{Name: "req"})
	var le *LimitError
	if !errors.As(err, &le) || fault.Path(err) != "req: descriptors" || r.Machine() != nil {
		t.Errorf("Start: %v (path %q), machine %v", err, fault.Path(err), r.Machine())
	}
}

// The result checks' errors are of fault's vocabulary, through wrapping.
func TestVerifyErrorsVocabulary(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		rule string
		text string
	}{
		{"dge tensor", &DGEVerifyError{Element: 3, Got: []byte{1, 2}, Want: []byte{1, 3}}, RuleDGEVerifyMatches,
			"verify: destination element 3 differs from the reference: got 0102, want 0103"},
		{"dge gather", &DGEVerifyError{Element: 5, Gather: "table[idx].T"}, RuleDGEVerifyMatches,
			"verify: destination element 5 differs from the reference (dst = table[idx].T)"},
		{"expect", &ExpectError{Kind: num.INT16, Source: "r.npy", First: 2, Index: []int{0, 2}, Got: []byte{0xFF, 0xFF}, Want: []byte{1, 0}, Differ: 1, All: 4},
			RuleExpectMet, "expectation not met: element [0, 2] (flat 2) is -1 in memory, 1 in r.npy; 1 of 4 elements differ"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := fault.Wrap("--verify", c.err)
			if !errors.Is(w, fault.ErrInvalid) || fault.Rule(w) != c.rule || c.err.Error() != c.text {
				t.Errorf("%v: category %v, rule %q", c.err, fault.Category(w), fault.Rule(w))
			}
		})
	}
	ids := map[string]bool{}
	for _, p := range VerifyProvenance() {
		ids[p.ID] = true
	}
	if !ids[RuleExpectMet] || !ids[RuleDGEVerifyMatches] {
		t.Errorf("registered: %v", ids)
	}
}

// Diff: bits equal or both NaN (any payload) are the same element.
func TestDiff(t *testing.T) {
	f32 := func(vs ...float32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			num.StoreF32(num.FP32, b[4*i:], v)
		}
		return b
	}
	nan1, nan2 := math.Float32frombits(0x7FC00000), math.Float32frombits(0xFFC00001)
	for _, c := range []struct {
		name         string
		k            num.Kind
		got, want    []byte
		first, count int
	}{
		{"equal", num.FP32, f32(1, 2), f32(1, 2), -1, 0},
		{"nan payloads", num.FP32, f32(nan1, 2), f32(nan2, 2), -1, 0},
		{"one differs", num.FP32, f32(1, 2, 3), f32(1, 5, 3), 1, 1},
		{"nan vs number", num.FP32, f32(nan1), f32(0), 0, 1},
		{"ints: nan bits differ", num.UINT32, f32(nan1), f32(nan2), 0, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			if first, n := Diff(c.k, c.got, c.want); first != c.first || n != c.count {
				t.Errorf("Diff = %d, %d; want %d, %d", first, n, c.first, c.count)
			}
		})
	}
}

// The trace of a dge run has one slice per descriptor, on a track per DMA engine.
func TestDGEResultTraceJSON(t *testing.T) {
	req, _ := dge.TensorRequest(isa.CAYMAN, 0, 0x100000, []int{64, 32}, []int{1, 0}, isa.DTypeBFLOAT16)
	r, err := NewDGERun(Config{}, req, DGEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(false)
	if err != nil || res.Checked {
		t.Fatalf("Execute: %v, %+v", err, res)
	}
	var doc struct {
		TraceEvents []struct {
			Ph  string `json:"ph"`
			Cat string `json:"cat"`
			Tid int    `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(res.TraceJSON(isa.CAYMAN), &doc); err != nil {
		t.Fatal(err)
	}
	slices, tracks := 0, map[int]bool{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" && e.Cat == "dma" {
			slices++
			tracks[e.Tid] = true
		}
	}
	if slices != len(res.Records) || slices != r.Plan().Descriptors || len(tracks) == 0 {
		t.Errorf("%d slices on %d tracks for %d descriptors", slices, len(tracks), r.Plan().Descriptors)
	}
}
