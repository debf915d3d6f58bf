package dge

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// IndexRequestSpec is an index request as a person writes it: the flags of `tpbsim dge
// plan|run --indirect IDX.npy` (Kind IndexGather) and `--gather-xpose IDX.npy`
// (IndexGatherTranspose), whose names its messages use. Request reads the index file and
// builds the IndexRequest; the registers follow RequestSpec's rules (the same checks and
// messages for both request forms).
type IndexRequestSpec struct {
	Gen       string // a generation name; "" is CAYMAN (isa.DefaultGeneration)
	Kind      IndexKind
	IndexFile string // a .npy of unsigned integers that fit in uint32 (ReadIndexFile)
	Src       string // the table's address (sbuf:P:OFF, psum:P:OFF, hbm:ADDR or a device address)
	Dst       string
	// Shape is the table's rows and elements per row, R,C (R alone is R,1).
	Shape       []int
	DType       string // an element type name (num.ParseKind)
	DMAs        int    // enable DMA engines 0..DMAs-1 (0: DMACfg's bits)
	DMACfg      RegValue
	CarveoutCfg RegValue
	IndexAt     string // where the indices go, sbuf:0:OFF; "" is DefaultIndexAt
}

// name is how messages name a field given by its JSON key: as the flag.
func (s *IndexRequestSpec) name(key string) string { return "--" + strings.ReplaceAll(key, "_", "-") }

// ReadIndexFile reads a .npy of indices: an unsigned (or non-negative signed) integer array
// whose values fit in uint32, and its shape.
func ReadIndexFile(path string) (vals []uint32, shape []int, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	a, err := npy.Read(fh)
	if err != nil {
		return nil, nil, err
	}
	vals, err = npy.Uint32s(a)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return vals, a.Shape, nil
}

// Request checks the spec, reads the index file and returns the request, checked as the
// instruction carries it (IndexRequest.Inst). A form mistake is a *SpecError; a request the
// instruction cannot carry an *Error; a file that does not read its own error.
func (s *IndexRequestSpec) Request() (*IndexRequest, error) {
	kind := s.Kind
	if kind != IndexGather && kind != IndexGatherTranspose {
		return nil, specErr("kind", nil, "index request kind %v: want %v or %v", kind, IndexGather, IndexGatherTranspose)
	}
	g := isa.DefaultGeneration
	if s.Gen != "" {
		var err error
		if g, err = isa.ParseGeneration(s.Gen); err != nil {
			return nil, specErr("gen", err, "%v", err)
		}
	}
	if s.Src == "" || s.Dst == "" || len(s.Shape) == 0 || s.DType == "" {
		return nil, specErr("src", nil, "--%v needs --src (the table), --shape R,C (its rows and columns), --dst and --dtype", kind)
	}
	shape := s.Shape
	if len(shape) == 1 {
		shape = []int{shape[0], 1}
	}
	if len(shape) != 2 || shape[0] < 1 || shape[1] < 1 {
		return nil, specErr("shape", nil, "--shape %s: the table is R,C (rows, elements per row)", intsText(s.Shape))
	}
	k, err := num.ParseKind(s.DType)
	if err != nil {
		return nil, specErr("dtype", err, "--dtype: %v", err)
	}
	src, err := DeviceAddress(s.Src, g)
	if err != nil {
		return nil, specErr("src", err, "--src: %v", err)
	}
	dst, err := DeviceAddress(s.Dst, g)
	if err != nil {
		return nil, specErr("dst", err, "--dst: %v", err)
	}
	vals, ishape, err := ReadIndexFile(s.IndexFile)
	if err != nil {
		return nil, fmt.Errorf("--%v: %w", kind, err)
	}
	r := &IndexRequest{Gen: g, Kind: kind, Table: src, Rows: shape[0], Cols: shape[1], DType: isa.DType(k), Index: vals, IndexShape: ishape, Dst: dst}
	if err := checkRegs32(s.DMACfg, s.CarveoutCfg, s.name); err != nil {
		return nil, err
	}
	r.Config.CarveoutCfg = uint32(s.CarveoutCfg)
	if r.Config.DMACfg, err = withDMAs(g, s.DMAs, uint32(s.DMACfg), s.name); err != nil {
		return nil, err
	}
	if kind == IndexGather {
		r.IndexShape = []int{len(vals)}
	}
	if r.IndexAt, err = s.indexAt(r); err != nil {
		return nil, err
	}
	if _, err := r.Inst(); err != nil { // the request as the instruction carries it (RuleIndexRequest)
		return nil, fmt.Errorf("--%v %s: %w", kind, s.IndexFile, err)
	}
	return r, nil
}

// indexAt is IndexAt (an SBUF partition-0 location), or by default DefaultIndexAt.
func (s *IndexRequestSpec) indexAt(r *IndexRequest) (isa.Location, error) {
	if s.IndexAt == "" {
		return DefaultIndexAt(r.Gen, r.IndexBytesPerPartition())
	}
	l, err := isa.ParseAddress(s.IndexAt, r.Gen)
	if err != nil {
		return l, specErr("index_at", err, "--index-addr: %v", err)
	}
	if l.Space != isa.SpaceSBUF || l.Partition != 0 {
		return l, specErr("index_at", nil, "--index-addr %s: the indices live in SBUF from partition 0 (sbuf:0:OFF)", s.IndexAt)
	}
	return l, nil
}

// intsText writes a shape as the flags take it (4,8).
func intsText(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}
