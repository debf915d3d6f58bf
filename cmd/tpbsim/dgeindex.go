package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
)

// Index requests (issue 15 item 6): `dge plan|run --indirect IDX.npy` gathers rows of the table
// at --src (--shape R,C: R rows of C elements) by the N indices of IDX.npy into N rows at --dst
// (a DMA_INDIRECT1D, src indirection); `--gather-xpose IDX.npy` is NKI's gather-transpose
// (DMA_GATHER_TRANSPOSE): with IDX.npy of shape (P, K), flat = IDX.T.flatten(), it writes
// dst[f][j] = src[flat[j]][f] for the P*K gathered rows, dst in SBUF with row f in partition
// p0+f. The indices are uint32 in SBUF at --index-addr (partition 0 for --indirect, partitions
// 0..P-1 for --gather-xpose; by default at the end of each partition's active area).

type indexReq struct {
	kind       string // "indirect" or "gather-xpose"
	gen        isa.Generation
	inst       isa.Inst
	table      dge.View // the source table, row-major R x C
	rows, cols int
	dtype      isa.DType
	idx        []uint32 // in the flat order the instruction reads (gather-xpose: idx.T.flatten())
	idxShape   []int
	idxAt      isa.Location
	dst        uint64
	cfg        dge.Config
}

// buildIndexRequest reads the flags of an index request.
func buildIndexRequest(f *dgeFlags) (*indexReq, error) {
	if f.request != "" {
		return nil, errors.New("--indirect / --gather-xpose take the request as flags, not --request")
	}
	kind, file := "indirect", f.indirect
	if f.gatherXpose != "" {
		if f.indirect != "" {
			return nil, errors.New("--indirect and --gather-xpose exclude each other")
		}
		kind, file = "gather-xpose", f.gatherXpose
	}
	if f.perm != "" || f.outDtype != "" || (f.computeOp != "" && f.computeOp != "NONE") {
		return nil, fmt.Errorf("--%s: --perm, --out-dtype and --compute-op do not apply", kind)
	}
	g, err := parseGenFlag(f.gen)
	if err != nil {
		return nil, err
	}
	if f.src == "" || f.dst == "" || f.shape == "" || f.dtype == "" {
		return nil, fmt.Errorf("--%s needs --src (the table), --shape R,C (its rows and columns), --dst and --dtype", kind)
	}
	shape, err := parseInts(f.shape, "--shape")
	if err != nil {
		return nil, err
	}
	if len(shape) == 1 {
		shape = append(shape, 1)
	}
	if len(shape) != 2 || shape[0] < 1 || shape[1] < 1 {
		return nil, fmt.Errorf("--shape %s: the table is R,C (rows, elements per row)", f.shape)
	}
	k, err := num.ParseKind(f.dtype)
	if err != nil {
		return nil, fmt.Errorf("--dtype: %w", err)
	}
	d := isa.DType(k)
	es := d.Size()
	if es == 0 {
		return nil, fmt.Errorf("--dtype %v has no whole-byte element", d)
	}
	src, err := deviceAddress("--src", f.src, g)
	if err != nil {
		return nil, err
	}
	dst, err := deviceAddress("--dst", f.dst, g)
	if err != nil {
		return nil, err
	}
	a, err := readNPY(file)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", kind, err)
	}
	vals, err := indexValues(a.Dtype, a.Data, a.Len())
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", kind, file, err)
	}
	r := &indexReq{kind: kind, gen: g, rows: shape[0], cols: shape[1], dtype: d, dst: src, idxShape: a.Shape}
	r.dst = dst
	r.table = dge.RowMajor(src, uint32(es), shape)
	if r.cfg, err = indexCfg(f); err != nil {
		return nil, err
	}
	geo := g.Geometry()
	if kind == "indirect" {
		n := len(vals)
		if n == 0 || n > 0xFFFF || shape[0] > 0xFFFF || shape[1]*es > 0xFFFF {
			return nil, fmt.Errorf("--indirect: %d indices of a %dx%d table: the struct counts rows in 16 bits (1..65535) and a row's bytes too", n, shape[0], shape[1])
		}
		r.idx = vals
		if r.idxAt, err = indexAddr(f, g, 4*n); err != nil {
			return nil, err
		}
		ia, _ := r.idxAt.OnChip(g)
		r.inst = &isa.DMAIndirect1D{Header: isa.Header{Opcode: isa.OpDMA_INDIRECT, InstWordLen: 16}, IdxNumActiveChannels: 128,
			Flags:        isa.MakeDMAIndirectFlags(isa.SrcIndirection, true, false, 0, 0),
			SrcStartAddr: isa.Addr8(src), SrcStepElem: 1, SrcNumElem: uint16(shape[0]), SrcElemSize: uint16(shape[1] * es),
			DstStartAddr: isa.Addr8(dst), DstStepElem: 1, DstNumElem: uint16(n), DstElemSize: uint16(shape[1] * es),
			SrcIdxStartAddr: isa.Addr4(ia), InDtype: d, OutDtype: d}
		return r, nil
	}
	if len(a.Shape) != 2 {
		return nil, fmt.Errorf("--gather-xpose %s: shape %v: the indices are a (P, K) array, P partitions of K indices (NKI's layout)", file, a.Shape)
	}
	P, K := a.Shape[0], a.Shape[1]
	n := P * K
	// flat = idx.T.flatten(): element m is idx[m % P][m / P].
	r.idx = make([]uint32, n)
	for m := 0; m < n; m++ {
		r.idx[m] = vals[(m%P)*K+m/P]
	}
	if r.idxAt, err = indexAddr(f, g, 4*K); err != nil {
		return nil, err
	}
	ia, _ := r.idxAt.OnChip(g)
	r.inst = &isa.DMAGatherXpose{Header: isa.Header{Opcode: isa.OpDMA_GATHER_TRANSPOSE, InstWordLen: 16}, IdxNumActiveChannels: uint8(min(P, 255)),
		SrcStartAddr: isa.Addr8(src), SrcStepElem: [2]int32{1, int32(shape[1])}, SrcNumElem: [2]uint16{uint16(min(shape[1], 0xFFFF)), uint16(min(n, 0xFFFF))},
		SrcIdxStartAddr: isa.Addr4(ia), DstStartAddr: isa.Addr8(dst), DstStepElem1: int32(geo.StateBufPartitionSize / uint32(es)),
		DstNumElem: [2]uint16{uint16(min(n, 0xFFFF)), uint16(min(shape[1], 0xFFFF))}, ElemSize: uint16(min(shape[1]*es, 0xFFFF)),
		Dtype: isa.MakeDTypePair(d, d), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}
	return r, nil
}

// indexValues reads an index array as uint32 values: any integer numpy type, each 0..2^32-1.
func indexValues(dtype string, data []byte, n int) ([]uint32, error) {
	k, ok := npyKind[dtype]
	if !ok || !k.IsInteger() {
		return nil, fmt.Errorf("the indices are %s: want an integer array (uint32, int32, int64, ...)", dtype)
	}
	out := make([]uint32, n)
	es := k.Size()
	for i := 0; i < n; i++ {
		v := num.LoadInt(k, data[i*es:])
		if k == num.UINT64 {
			v = int64(num.LoadUint(k, data[i*es:]))
		}
		if v < 0 || v > 0xFFFFFFFF {
			return nil, fmt.Errorf("index [%d] = %d: the DGE reads uint32 indices", i, v)
		}
		out[i] = uint32(v)
	}
	return out, nil
}

func indexCfg(f *dgeFlags) (dge.Config, error) {
	var c dge.Config
	for _, x := range []struct {
		flag string
		s    string
		to   *uint32
	}{{"--dma-cfg", f.dmaCfg, &c.DMACfg}, {"--carveout-cfg", f.carveoutCfg, &c.CarveoutCfg}} {
		if x.s == "" {
			continue
		}
		v, err := isa.ParseNumber(x.s)
		if err != nil || v > 0xFFFFFFFF {
			return c, fmt.Errorf("%s %s: want a 32-bit number", x.flag, x.s)
		}
		*x.to = uint32(v)
	}
	if f.dmas > 0 {
		c.DMACfg = c.DMACfg&0xFFFF0000 | uint32(1<<f.dmas-1)
	}
	return c, nil
}

// indexAddr is --index-addr (an SBUF partition-0 location), or by default the last 64-byte
// aligned bytes of partition 0's active area that hold n bytes.
func indexAddr(f *dgeFlags, g isa.Generation, n int) (isa.Location, error) {
	if f.indexAddr != "" {
		l, err := parseCLIAddress("--index-addr", f.indexAddr, g)
		if err != nil {
			return l, err
		}
		if l.Space != isa.SpaceSBUF || l.Partition != 0 {
			return l, fmt.Errorf("--index-addr %s: the indices live in SBUF from partition 0 (sbuf:0:OFF)", f.indexAddr)
		}
		return l, nil
	}
	active := int(g.Geometry().StateBufPartitionActive)
	if n > active {
		return isa.Location{}, fmt.Errorf("%d index bytes per partition do not fit SBUF's %d", n, active)
	}
	return isa.Location{Space: isa.SpaceSBUF, Offset: uint64((active - n) &^ 63)}, nil
}

func (r *indexReq) plan() (*dge.Plan, error) {
	if vs := isa.Validate(r.inst, r.gen); len(vs) > 0 {
		return nil, &dge.Error{Rule: vs[0].Rule, Err: dge.ErrRequest, Msg: fmt.Sprintf("the %s instruction: %v", r.kind, vs[0])}
	}
	return dge.PlanInst(r.gen, r.inst, r.cfg, dge.Options{})
}

// planIndex builds and plans an index request (usage errors exit 2, plan errors exit 1).
func planIndex(f *dgeFlags) (*indexReq, *dge.Plan, error) {
	r, err := buildIndexRequest(f)
	if err != nil {
		return nil, nil, ioErr(err)
	}
	p, err := r.plan()
	if err != nil {
		return nil, nil, planErr(err)
	}
	return r, p, nil
}

func dgeIndexPlan(f *dgeFlags, stdout io.Writer) error {
	r, p, err := planIndex(f)
	if err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(planToJSON(p))
	}
	fmt.Fprintf(stdout, "request:      %s of %d indices (%v) from the %dx%d %v table at 0x%x; indices at %v\n", r.kind, len(r.idx), r.idxShape, r.rows, r.cols, r.dtype, r.table.Base, r.idxAt)
	_, err = io.WriteString(stdout, p.Text())
	return err
}

// expect is the reference result of the request on the table bytes, as dst bytes in the
// order dstRead reads them.
func (r *indexReq) expect(table []byte) []byte {
	es := r.dtype.Size()
	row := r.cols * es
	n := len(r.idx)
	out := make([]byte, n*row)
	for j, ix := range r.idx {
		if int(ix) >= r.rows {
			continue // out of range: refused by the engines before this is compared
		}
		if r.kind == "indirect" {
			copy(out[j*row:], table[int(ix)*row:(int(ix)+1)*row])
			continue
		}
		for c := 0; c < r.cols; c++ { // dst[c][j] = src[ix][c]
			copy(out[(c*n+j)*es:], table[int(ix)*row+c*es:int(ix)*row+(c+1)*es])
		}
	}
	return out
}

// dstRead reads the destination: N rows back to back (indirect), or C SBUF partitions of N
// elements (gather-xpose).
func (r *indexReq) dstRead(m dma.Memory) ([]byte, error) {
	es := r.dtype.Size()
	n := len(r.idx)
	if r.kind == "indirect" {
		b := make([]byte, n*r.cols*es)
		return b, m.ReadAt(r.dst, b)
	}
	stride := uint64(r.gen.Geometry().StateBufPartitionSize)
	b := make([]byte, n*r.cols*es)
	for c := 0; c < r.cols; c++ {
		if err := m.ReadAt(r.dst+uint64(c)*stride, b[c*n*es:(c+1)*n*es]); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func dgeIndexRun(f *dgeFlags, stdout, stderr io.Writer) error {
	r, p, err := planIndex(f)
	if err != nil {
		return err
	}
	if f.maxElements == 0 {
		return ioErr(errZeroMaxElements)
	}
	cfg := sim.Config{Gen: r.gen, MaxElements: f.maxElements}
	if err := cfg.CheckPlan(p, "tpbsim dge run --max-elements N"); err != nil {
		return ruleErr(err)
	}
	if cfg.Timing, err = f.tf.table(r.gen); err != nil {
		return err
	}
	sumOut, err := f.tf.toStdout(f.trace)
	if err != nil {
		return err
	}
	m, err := sim.New(cfg)
	if err != nil {
		return ioErr(err)
	}
	mm := m.Memory()
	dumps, err := parseDumps(m, r.gen, f.dumps, f.trace, "", f.tf.outFlags()...)
	if err != nil {
		return err
	}
	// The indices: partition 0 (indirect), or partition p holds idx[p][:] (gather-xpose).
	idxBytes := func(vs []uint32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	if r.kind == "indirect" {
		err = m.WriteTensor(r.idxAt, []int{1, len(r.idx)}, 4, idxBytes(r.idx))
	} else {
		P, K := r.idxShape[0], r.idxShape[1]
		rowsIdx := make([]uint32, P*K)
		for m := range r.idx {
			rowsIdx[(m%P)*K+m/P] = r.idx[m]
		}
		err = m.WriteTensor(r.idxAt, []int{P, K}, 4, idxBytes(rowsIdx))
	}
	if err != nil {
		return ruleErr(fmt.Errorf("writing the indices at %v: %w", r.idxAt, err))
	}
	for _, l := range f.loads {
		if err := loadArg(m, r.gen, l); err != nil {
			return ioErr(fmt.Errorf("--load %s: %w", l, err))
		}
	}
	if len(f.loads) == 0 {
		if err := randomFill(mm, r.table, r.dtype, rand.New(rand.NewSource(f.seed))); err != nil {
			return ruleErr(fmt.Errorf("random fill of the table: %w", err))
		}
	}
	table, err := dge.ReadView(mm, r.table)
	if err != nil {
		return ruleErr(err)
	}
	res, sum, err := m.RunDMAPlan(p) // timed and placed as in tpbsim dge run
	if err != nil {
		return ruleErr(err)
	}
	if f.verify {
		got, err := r.dstRead(mm)
		if err != nil {
			return ruleErr(err)
		}
		if want := r.expect(table); !bytes.Equal(got, want) {
			i := firstDiff(got, want) / r.dtype.Size()
			return ruleErr(fmt.Errorf("verify: destination element %d differs from the reference (dst = table[idx]%s)", i, map[bool]string{true: "", false: ".T"}[r.kind == "indirect"]))
		}
	}
	outs, err := dgeOutputs(m, dumps, f.trace, res, r.gen)
	if err != nil {
		return err
	}
	outs = append(outs, f.tf.files(sum)...)
	if err := writeOutputs(outs, stdout); err != nil {
		return ioErr(err)
	}
	if err := f.tf.writeStdout(sum, stdout); err != nil {
		return err
	}
	if toStdout(outs) || sumOut {
		stdout = stderr
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(runJSON{Plan: planToJSON(p), EndNs: res.End, Bytes: res.Bytes, Sems: res.Sems, Trace: res.Records})
	}
	fmt.Fprintf(stdout, "%v: %v of %d indices, %d descriptors on %d of %d DMA engines, %d bytes, modelled time %d ns\n",
		r.gen, p.Kind, len(r.idx), p.Descriptors, p.NumDMA, p.DMAAvail, res.Bytes, res.End)
	if f.verify {
		fmt.Fprintln(stdout, "verify: destination matches the direct reference")
	}
	return nil
}
