package kernel

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// The NKI rule sets differ by release (NKI.md §2-§3): the same call is accepted by one release
// and refused by another, with the rule id naming why.
func TestRulesByRelease(t *testing.T) {
	reduce := func(axis []int, dshape []int) *kb {
		b := newKB()
		a := b.tensor("a", []int{32, 4, 8}, "float32", BufHBM, true)
		x := b.tensor("x", []int{32, 4, 8}, "float32", BufSBUF, false)
		y := b.tensor("y", dshape, "float32", BufSBUF, false)
		o := b.tensor("o", dshape, "float32", BufSharedHBM, false)
		b.call(Call{Op: OpDMACopy, Call: "nl.load", Dst: full(x, []int{32, 4, 8}), Src: full(a, []int{32, 4, 8})})
		b.call(Call{Op: OpTensorReduce, Call: "nisa.tensor_reduce", Dst: full(y, dshape), Data: full(x, []int{32, 4, 8}), ReduceOp: "add", Axis: axis})
		b.call(Call{Op: OpDMACopy, Call: "nl.store", Dst: full(o, dshape), Src: full(y, dshape)})
		b.k.Outputs = []int{o}
		return b
	}
	xpose := func(shape []int, dtype string) *kb {
		b := newKB()
		a := b.tensor("a", shape, dtype, BufHBM, true)
		perm := transposePerm(len(shape))
		ds := make([]int, len(shape))
		for i, p := range perm {
			ds[i] = shape[p]
		}
		y := b.tensor("y", ds, dtype, BufSBUF, false)
		hw := "hwdge"
		b.call(Call{Op: OpDMATranspose, Call: "nisa.dma_transpose", Dst: full(y, ds), Src: full(a, shape), DGEMode: &hw})
		return b
	}
	shuffle := func(srcP, dstP int) *kb {
		b := newKB()
		x := b.tensor("x", []int{srcP, 16}, "float32", BufSBUF, false)
		y := b.tensor("y", []int{dstP, 16}, "float32", BufSBUF, false)
		zero := Number(0)
		b.call(Call{Op: OpMemset, Call: "nisa.memset", Dst: full(x, []int{srcP, 16}), Value: &zero})
		b.call(Call{Op: OpStreamShuffle, Call: "nisa.nc_stream_shuffle", Dst: full(y, []int{dstP, 16}), Src: full(x, []int{srcP, 16}), ShuffleMask: make([]int, 32)})
		return b
	}
	for _, tc := range []struct {
		name    string
		b       *kb
		version string
		rule    string // "" = accepted
	}{
		{"reduce last axis 2.32", reduce([]int{2}, []int{32, 4}), "2.32", ""},
		{"reduce axis 1 of 3-D 2.32", reduce([]int{1}, []int{32, 8}), "2.32", "nki.tensor_reduce.axes_last"},
		{"reduce axis 1 of 3-D 2.28", reduce([]int{1}, []int{32, 8}), "2.28", ""},
		{"reduce last axis 2.28", reduce([]int{2}, []int{32, 4}), "2.28", "nki.tensor_reduce.axes_from_1"},
		{"reduce both 2.28", reduce([]int{1, 2}, []int{32, 1}), "2.28", ""},
		{"dma_transpose [16,128] bf16 2.27", xpose([]int{16, 128}, "bfloat16"), "2.27", ""},
		{"dma_transpose [16,40] bf16 2.27", xpose([]int{16, 40}, "bfloat16"), "2.27", "nki.dma_transpose.src_cols"},
		{"dma_transpose [16,40] bf16 2.32", xpose([]int{16, 40}, "bfloat16"), "2.32", ""},
		{"dma_transpose [8,128] bf16 2.27", xpose([]int{8, 128}, "bfloat16"), "2.27", "nki.dma_transpose.src_rows"},
		{"dma_transpose [16,128] fp32 2.32", xpose([]int{16, 128}, "float32"), "2.32", "nki.dma_transpose.dtype_2byte"},
		{"dma_transpose [16,128] fp32 2.26", xpose([]int{16, 128}, "float32"), "2.26", ""},
		{"dma_transpose 3-D 2.32", xpose([]int{2, 8, 16}, "bfloat16"), "2.32", ""},
		{"dma_transpose 3-D 2.31", xpose([]int{2, 8, 128}, "bfloat16"), "2.31", "nki.dma_transpose.src_rows"},
		{"dma_transpose fp32 [2048,128] default path 2.32", func() *kb { b := xpose([]int{2048, 128}, "float32"); b.k.Calls[0].DGEMode = nil; return b }(), "2.32", ""},
		{"shuffle 1 -> 32 2.32", shuffle(1, 32), "2.32", ""},
		{"shuffle 1 -> 32 2.22", shuffle(1, 32), "2.22", "nki.nc_stream_shuffle.partitions"},
		{"shuffle 32 -> 32 2.22", shuffle(32, 32), "2.22", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Lower(&tc.b.k, Options{Gen: isa.CAYMAN, NKIVersion: tc.version})
			if tc.rule == "" {
				if err != nil {
					t.Fatalf("NKI %s refused: %v", tc.version, err)
				}
				return
			}
			var ke *Error
			if !errors.As(err, &ke) || ke.Rule != tc.rule || !errors.Is(err, fault.ErrInvalid) {
				t.Fatalf("NKI %s: err = %v, want rule %s", tc.version, err, tc.rule)
			}
		})
	}
	if _, err := rulesFor("3.0"); !errors.Is(err, fault.ErrInvalid) || !IsMalformed(err) {
		t.Fatalf("unknown release: %v", err)
	}
}

// Every rule id the lowering's errors name is in the registry (tpbsim explain ID).
func TestRuleIDsRegistered(t *testing.T) {
	known := map[string]bool{}
	for _, p := range Provenance() {
		if known[p.ID] {
			t.Errorf("%s registered twice", p.ID)
		}
		known[p.ID] = true
	}
	files, _ := filepath.Glob("*.go")
	re := regexp.MustCompile(`"((?:nki|kernel)\.[a-z0-9_.]+)"`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, _ := os.ReadFile(f)
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			if !known[m[1]] {
				t.Errorf("%s: rule %s is not registered", f, m[1])
			}
		}
	}
}

// An indirect dma_transpose lowers to DMA_GATHER_TRANSPOSE, so a generation whose feature row
// lacks it (isa.Features.GatherTranspose: SUNDA) refuses it under nki.dma_transpose.indirect_gen,
// and no generation that has it does.
func TestIndirectTransposeByGeneration(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			b := newKB()
			tab := b.tensor("table", []int{256, 16}, "bfloat16", BufHBM, true)
			it := b.tensor("it", []int{128, 1}, "uint32", BufSBUF, false)
			y := b.tensor("y", []int{16, 128}, "bfloat16", BufSBUF, false)
			src := full(tab, []int{128, 16})
			src.Indirect = &Indirect{Index: *full(it, []int{128, 1}), Dim: 0}
			b.call(Call{Op: OpDMATranspose, Call: "nisa.dma_transpose", Dst: full(y, []int{16, 128}), Src: src})
			_, err := Lower(&b.k, Options{Gen: g, NKIVersion: "2.32"})
			f, _ := g.Features()
			if refused := fault.Rule(err) == "nki.dma_transpose.indirect_gen"; refused == f.GatherTranspose {
				t.Errorf("GatherTranspose %v, err %v", f.GatherTranspose, err)
			}
		})
	}
}
