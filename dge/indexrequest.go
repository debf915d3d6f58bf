package dge

import (
	"encoding/binary"
	"fmt"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
)

// RuleIndexRequest is the rule an index request breaks when the DMA instruction it lowers to
// cannot carry it (IndexRequest.Inst, DefaultIndexAt).
const RuleIndexRequest = "dge_index_request_valid"

// IndexProvenance registers RuleIndexRequest.
func IndexProvenance() []isa.Provenance {
	return []isa.Provenance{
		isa.Rule(RuleIndexRequest, "An index request is a gather (DMA_INDIRECT1D with src indirection) or NKI's gather-transpose (DMA_GATHER_TRANSPOSE) of a table of at least 1x1 elements, "+
			"its uint32 indices in SBUF from partition 0 within the partition's active area; a gather has 1..65535 indices of a table of at most 65535 rows of at most 65535 bytes "+
			"(the struct's 16-bit counts); a gather-transpose's indices are a (P, K) array.",
			"FACTS §C.3 (DMA_INDIRECT1D: 16-bit num_elem and elem_size, src_idx_start_addr an ADDR4); NKI.md (gather-transpose: indices of shape (P, K))", isa.MedInferred,
			[]string{"src_num_elem", "src_elem_size", "dst_num_elem", "src_idx_start_addr"}, "the instruction's fields bound the request; a (P, K) layout is NKI's"),
	}
}

// IndexKind says which index request an IndexRequest is. The zero value is none.
type IndexKind uint8

const (
	IndexNone IndexKind = iota
	// IndexGather gathers table rows by the indices (a DMA_INDIRECT1D with src indirection):
	// destination row j is table row Index[j].
	IndexGather
	// IndexGatherTranspose is NKI's gather-transpose (a DMA_GATHER_TRANSPOSE): with the indices
	// as a (P, K) array and flat = Index.T.flatten(), dst[f][j] = table[flat[j]][f], row f of
	// the destination in SBUF partition p0+f.
	IndexGatherTranspose
)

var indexKindNames = [...]string{"none", "indirect", "gather-xpose"}

// String is the kind's flag name ("indirect", "gather-xpose"), or IndexKind(n).
func (k IndexKind) String() string {
	if int(k) < len(indexKindNames) {
		return indexKindNames[k]
	}
	return fmt.Sprintf("IndexKind(%d)", uint8(k))
}

// IndexRequest is a gather of the rows of a row-major table (Rows x Cols elements of DType at
// device address Table) by uint32 indices that live in SBUF at IndexAt: what `tpbsim dge
// plan|run --indirect / --gather-xpose` lowers into one DMA instruction.
type IndexRequest struct {
	Gen        isa.Generation
	Kind       IndexKind
	Table      uint64 // device address of row 0 (isa.addr8_address_map)
	Rows, Cols int
	DType      isa.DType
	// Index holds the indices as given: IndexGather N of them (IndexShape [N]);
	// IndexGatherTranspose a (P, K) array row-major, partition p's K indices at [p*K, (p+1)*K)
	// (IndexShape [P, K], NKI's layout).
	Index      []uint32
	IndexShape []int
	// IndexAt is where the indices are written: SBUF, from partition 0 (DefaultIndexAt).
	IndexAt isa.Location
	Dst     uint64 // device address of the destination
	Config  Config
}

// DefaultIndexAt is where an index request's indices go when the caller names no place: the
// last 64-byte aligned bytes of partition 0's active SBUF area that hold n bytes per partition.
func DefaultIndexAt(g isa.Generation, n int) (isa.Location, error) {
	if _, err := FeaturesOf(g); err != nil {
		return isa.Location{}, err
	}
	active := int(g.Geometry().StateBufPartitionActive)
	if n > active {
		return isa.Location{}, reqErr(RuleIndexRequest, "index", "%d index bytes per partition do not fit SBUF's %d", n, active)
	}
	return isa.Location{Space: isa.SpaceSBUF, Offset: uint64((active - n) &^ 63)}, nil
}

// IndexBytesPerPartition is how many index bytes each partition holds: all N indices in
// partition 0 (IndexGather), K per partition (IndexGatherTranspose).
func (r *IndexRequest) IndexBytesPerPartition() int {
	if r.Kind == IndexGatherTranspose && len(r.IndexShape) == 2 {
		return 4 * r.IndexShape[1]
	}
	return 4 * len(r.Index)
}

// flat is the order the instruction reads the indices in: as given for a gather,
// Index.T.flatten() for a gather-transpose (element m is Index[m % P][m / P]).
func (r *IndexRequest) flat() []uint32 {
	if r.Kind != IndexGatherTranspose || len(r.IndexShape) != 2 {
		return r.Index
	}
	P, K := r.IndexShape[0], r.IndexShape[1]
	out := make([]uint32, P*K)
	for m := range out {
		out[m] = r.Index[(m%P)*K+m/P]
	}
	return out
}

// Inst is the DMA instruction the request is. An *Error says what of the request the
// instruction cannot carry (RuleIndexRequest: the kind, the table's shape, where the indices
// are, counts past the instruction's 16-bit fields; RuleDtypes: a dtype of no whole-byte
// element; RuleGeneration).
func (r *IndexRequest) Inst() (isa.Inst, error) {
	if _, err := FeaturesOf(r.Gen); err != nil {
		return nil, err
	}
	if r.Kind != IndexGather && r.Kind != IndexGatherTranspose {
		return nil, reqErr(RuleIndexRequest, "kind", "index request kind %v: want %v or %v", r.Kind, IndexGather, IndexGatherTranspose)
	}
	es := r.DType.Size()
	if es == 0 {
		return nil, reqErr(RuleDtypes, "dtype", "dtype %v has no whole-byte element", r.DType)
	}
	if r.Rows < 1 || r.Cols < 1 {
		return nil, reqErr(RuleIndexRequest, "table", "a %dx%d table: the table is R,C (rows, elements per row), each at least 1", r.Rows, r.Cols)
	}
	if r.IndexAt.Space != isa.SpaceSBUF || r.IndexAt.Partition != 0 {
		return nil, reqErr(RuleIndexRequest, "index_at", "the indices at %v: they live in SBUF from partition 0 (sbuf:0:OFF)", r.IndexAt)
	}
	ia, ok := r.IndexAt.OnChip(r.Gen)
	if !ok {
		return nil, reqErr(RuleIndexRequest, "index_at", "the indices at %v: not an SBUF address of %v", r.IndexAt, r.Gen)
	}
	switch r.Kind {
	case IndexGather:
		n := len(r.Index)
		if n == 0 || n > 0xFFFF || r.Rows > 0xFFFF || r.Cols*es > 0xFFFF {
			return nil, reqErr(RuleIndexRequest, "index", "%d indices of a %dx%d table: the struct counts rows in 16 bits (1..65535) and a row's bytes too", n, r.Rows, r.Cols)
		}
		return &isa.DMAIndirect1D{Header: isa.Header{Opcode: isa.OpDMA_INDIRECT, InstWordLen: 16}, IdxNumActiveChannels: 128,
			Flags:        isa.MakeDMAIndirectFlags(isa.SrcIndirection, true, false, 0, 0),
			SrcStartAddr: isa.Addr8(r.Table), SrcStepElem: 1, SrcNumElem: uint16(r.Rows), SrcElemSize: uint16(r.Cols * es),
			DstStartAddr: isa.Addr8(r.Dst), DstStepElem: 1, DstNumElem: uint16(n), DstElemSize: uint16(r.Cols * es),
			SrcIdxStartAddr: isa.Addr4(ia), InDtype: r.DType, OutDtype: r.DType}, nil
	case IndexGatherTranspose:
		if len(r.IndexShape) != 2 || r.IndexShape[0]*r.IndexShape[1] != len(r.Index) {
			return nil, reqErr(RuleIndexRequest, "index_shape", "index shape %v: the indices are a (P, K) array, P partitions of K indices (NKI's layout)", r.IndexShape)
		}
		P, n := r.IndexShape[0], len(r.Index)
		geo := r.Gen.Geometry()
		return &isa.DMAGatherXpose{Header: isa.Header{Opcode: isa.OpDMA_GATHER_TRANSPOSE, InstWordLen: 16}, IdxNumActiveChannels: uint8(min(P, 255)),
			SrcStartAddr: isa.Addr8(r.Table), SrcStepElem: [2]int32{1, int32(r.Cols)}, SrcNumElem: [2]uint16{uint16(min(r.Cols, 0xFFFF)), uint16(min(n, 0xFFFF))},
			SrcIdxStartAddr: isa.Addr4(ia), DstStartAddr: isa.Addr8(r.Dst), DstStepElem1: int32(geo.StateBufPartitionSize / uint32(es)),
			DstNumElem: [2]uint16{uint16(min(n, 0xFFFF)), uint16(min(r.Cols, 0xFFFF))}, ElemSize: uint16(min(r.Cols*es, 0xFFFF)),
			Dtype: isa.MakeDTypePair(r.DType, r.DType), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}, nil
	}
	return nil, reqErr(RuleIndexRequest, "kind", "index request kind %v: want %v or %v", r.Kind, IndexGather, IndexGatherTranspose)
}

// Plan validates the request's instruction with the instruction layer's rules (the first
// violation is an *Error of fault.ErrInvalid under its rule) and plans it as the DGE would.
func (r *IndexRequest) Plan(opt Options) (*Plan, error) {
	inst, err := r.Inst()
	if err != nil {
		return nil, err
	}
	if vs := isa.Validate(inst, r.Gen); len(vs) > 0 {
		return nil, isaError(vs[0], "")
	}
	return PlanInst(r.Gen, inst, r.Config, opt)
}

// TableView is the table's view (row-major Rows x Cols).
func (r *IndexRequest) TableView() View {
	return RowMajor(r.Table, uint32(r.DType.Size()), []int{r.Rows, r.Cols})
}

// IndexTensor is what to write at IndexAt before the run: the shape (partitions x indices per
// partition) and the uint32 indices as little-endian bytes.
func (r *IndexRequest) IndexTensor() (shape []int, data []byte) {
	shape = []int{1, len(r.Index)}
	if r.Kind == IndexGatherTranspose && len(r.IndexShape) == 2 {
		shape = []int{r.IndexShape[0], r.IndexShape[1]}
	}
	data = make([]byte, 4*len(r.Index))
	for i, v := range r.Index {
		binary.LittleEndian.PutUint32(data[4*i:], v)
	}
	return shape, data
}

// Expect is the direct meaning of the request on the table's bytes (row-major): the
// destination's bytes in the order ReadDst reads them. An index past the table's rows leaves
// its destination row zero (the engines refuse such a row before a result is compared).
func (r *IndexRequest) Expect(table []byte) []byte {
	es := r.DType.Size()
	row := r.Cols * es
	idx := r.flat()
	n := len(idx)
	out := make([]byte, n*row)
	for j, ix := range idx {
		if int(ix) >= r.Rows {
			continue
		}
		src := table[int(ix)*row : (int(ix)+1)*row]
		if r.Kind == IndexGather {
			copy(out[j*row:], src)
			continue
		}
		for c := 0; c < r.Cols; c++ { // dst[c][j] = src[ix][c]
			copy(out[(c*n+j)*es:], src[c*es:(c+1)*es])
		}
	}
	return out
}

// ReadDst reads the destination: N rows back to back (IndexGather), or Cols SBUF partitions
// of N elements each (IndexGatherTranspose).
func (r *IndexRequest) ReadDst(m dma.Memory) ([]byte, error) {
	es := r.DType.Size()
	n := len(r.Index)
	b := make([]byte, n*r.Cols*es)
	if r.Kind == IndexGather {
		return b, m.ReadAt(r.Dst, b)
	}
	stride := uint64(r.Gen.Geometry().StateBufPartitionSize)
	for c := 0; c < r.Cols; c++ {
		if err := m.ReadAt(r.Dst+uint64(c)*stride, b[c*n*es:(c+1)*n*es]); err != nil {
			return nil, err
		}
	}
	return b, nil
}
