package dge

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// Expect written out by hand for a 3x2 table of one-byte elements (row r, column c holds
// 10r+c): a gather copies rows, a gather-transpose lays column c of the gathered rows in
// destination row c, the indices read as Index.T.flatten().
func TestIndexRequestExpect(t *testing.T) {
	table := []byte{0, 1, 10, 11, 20, 21}
	for _, c := range []struct {
		name string
		r    IndexRequest
		want []byte
	}{
		{"gather", IndexRequest{Kind: IndexGather, Rows: 3, Cols: 2, DType: isa.DTypeUINT8, Index: []uint32{2, 0, 2}, IndexShape: []int{3}},
			[]byte{20, 21, 0, 1, 20, 21}},
		{"gather past the rows leaves zeros", IndexRequest{Kind: IndexGather, Rows: 3, Cols: 2, DType: isa.DTypeUINT8, Index: []uint32{1, 7}, IndexShape: []int{2}},
			[]byte{10, 11, 0, 0}},
		// Index (P=2, K=2) [[2, 0], [1, 2]]: flat = [2, 1, 0, 2]; dst[c][j] = table[flat[j]][c].
		{"gather-transpose", IndexRequest{Kind: IndexGatherTranspose, Rows: 3, Cols: 2, DType: isa.DTypeUINT8, Index: []uint32{2, 0, 1, 2}, IndexShape: []int{2, 2}},
			[]byte{20, 10, 0, 20, 21, 11, 1, 21}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.r.Expect(table); !bytes.Equal(got, c.want) {
				t.Errorf("Expect = %v, want %v", got, c.want)
			}
		})
	}
}

// Inst refuses what the instruction's fields cannot hold, naming it; a valid request plans.
func TestIndexRequestInst(t *testing.T) {
	at := isa.Location{Space: isa.SpaceSBUF, Offset: 0x1000}
	base := IndexRequest{Gen: isa.CAYMAN, Kind: IndexGather, Table: 0, Rows: 8, Cols: 4, DType: isa.DTypeFP32,
		Index: []uint32{1, 2}, IndexShape: []int{2}, IndexAt: at, Dst: 0x10000}
	for _, c := range []struct {
		name   string
		change func(r *IndexRequest)
		want   string // in the error; "" plans
	}{
		{"valid gather", func(r *IndexRequest) {}, ""},
		{"valid gather-transpose", func(r *IndexRequest) {
			r.Kind, r.DType, r.Index, r.IndexShape, r.Dst = IndexGatherTranspose, isa.DTypeBFLOAT16, make([]uint32, 256), []int{128, 2}, isa.DMALocalBase
		}, ""},
		{"no indices", func(r *IndexRequest) { r.Index, r.IndexShape = nil, []int{0} }, "counts rows in 16 bits"},
		{"row too wide", func(r *IndexRequest) { r.Cols = 1 << 15 }, "counts rows in 16 bits"},
		{"indices off partition 0", func(r *IndexRequest) { r.IndexAt.Partition = 3 }, "from partition 0"},
		{"indices in PSUM", func(r *IndexRequest) { r.IndexAt.Space = isa.SpacePSUM }, "from partition 0"},
		{"gather-transpose 1-D indices", func(r *IndexRequest) { r.Kind = IndexGatherTranspose }, "(P, K) array"},
		{"no kind", func(r *IndexRequest) { r.Kind = IndexNone }, "want indirect or gather-xpose"},
		{"no dtype size", func(r *IndexRequest) { r.DType = 0 }, "no whole-byte element"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := base
			c.change(&r)
			_, err := r.Plan(Options{})
			if c.want == "" {
				if err != nil {
					t.Fatalf("Plan: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Plan: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// The default place of the indices is the end of partition 0's active area, 64-byte aligned;
// more than the area holds is refused.
func TestDefaultIndexAt(t *testing.T) {
	active := int(isa.CAYMAN.Geometry().StateBufPartitionActive)
	for _, c := range []struct {
		n    int
		want uint64
		ok   bool
	}{{4, uint64((active - 4) &^ 63), true}, {active, 0, true}, {active + 1, 0, false}} {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			l, err := DefaultIndexAt(isa.CAYMAN, c.n)
			if (err == nil) != c.ok || (c.ok && (l.Offset != c.want || l.Space != isa.SpaceSBUF || l.Partition != 0)) {
				t.Errorf("DefaultIndexAt(%d) = %v, %v; want offset 0x%x ok %v", c.n, l, err, c.want, c.ok)
			}
		})
	}
}

func TestIndexKindString(t *testing.T) {
	for k, want := range map[IndexKind]string{IndexNone: "none", IndexGather: "indirect", IndexGatherTranspose: "gather-xpose", 9: "IndexKind(9)", 255: "IndexKind(255)"} {
		if got := k.String(); got != want {
			t.Errorf("IndexKind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}
