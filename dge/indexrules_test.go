package dge_test

import (
	"errors"
	"testing"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Each request the instruction cannot carry is a typed *dge.Error of fault.ErrInvalid naming
// its rule and the field of the request.
func TestIndexRequestErrorsTyped(t *testing.T) {
	at := isa.Location{Space: isa.SpaceSBUF, Offset: 0x1000}
	base := dge.IndexRequest{Gen: isa.CAYMAN, Kind: dge.IndexGather, Rows: 8, Cols: 4, DType: isa.DTypeFP32,
		Index: []uint32{1, 2}, IndexShape: []int{2}, IndexAt: at, Dst: 0x10000}
	for _, c := range []struct {
		name       string
		change     func(r *dge.IndexRequest)
		rule, path string
	}{
		{"no indices", func(r *dge.IndexRequest) { r.Index, r.IndexShape = nil, []int{0} }, dge.RuleIndexRequest, "index"},
		{"empty table", func(r *dge.IndexRequest) { r.Rows = 0 }, dge.RuleIndexRequest, "table"},
		{"indices off partition 0", func(r *dge.IndexRequest) { r.IndexAt.Partition = 3 }, dge.RuleIndexRequest, "index_at"},
		{"gather-transpose 1-D indices", func(r *dge.IndexRequest) { r.Kind = dge.IndexGatherTranspose }, dge.RuleIndexRequest, "index_shape"},
		{"no kind", func(r *dge.IndexRequest) { r.Kind = dge.IndexNone }, dge.RuleIndexRequest, "kind"},
		{"no dtype size", func(r *dge.IndexRequest) { r.DType = 0 }, dge.RuleDtypes, "dtype"},
		{"no generation", func(r *dge.IndexRequest) { r.Gen = isa.GenInvalid }, isa.RuleGeneration, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := base
			c.change(&r)
			_, err := r.Inst()
			var re fault.Ruled // a *dge.Error, or isa's *GenerationError
			if !errors.As(err, &re) || !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != c.rule || (c.path != "" && fault.Path(err) != c.path) {
				t.Errorf("Inst: %v (%T), rule %q path %q; want a typed error of rule %q at %q", err, err, fault.Rule(err), fault.Path(err), c.rule, c.path)
			}
		})
	}
	if _, err := dge.DefaultIndexAt(isa.CAYMAN, 1<<30); fault.Rule(err) != dge.RuleIndexRequest || fault.Path(err) != "index" {
		t.Errorf("DefaultIndexAt past the partition: %v", err)
	}
}
