package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
)

// Index requests: `dge plan|run --indirect IDX.npy` gathers rows of the table
// at --src (--shape R,C: R rows of C elements) by the N indices of IDX.npy into N rows at --dst;
// `--gather-xpose IDX.npy` is NKI's gather-transpose of a (P, K) index array (dge.IndexRequest).
// The indices are uint32 in SBUF at --index-addr (by default dge.DefaultIndexAt).

// buildIndexRequest reads the flags of an index request; every error is a usage error.
func buildIndexRequest(f *dgeFlags) (*dge.IndexRequest, error) {
	if f.request != "" {
		return nil, errors.New("--indirect / --gather-xpose take the request as flags, not --request")
	}
	kind, file := dge.IndexGather, f.indirect
	if f.gatherXpose != "" {
		if f.indirect != "" {
			return nil, errors.New("--indirect and --gather-xpose exclude each other")
		}
		kind, file = dge.IndexGatherTranspose, f.gatherXpose
	}
	if f.perm != "" || f.outDtype != "" || (f.computeOp != "" && f.computeOp != "NONE") {
		return nil, fmt.Errorf("--%v: --perm, --out-dtype and --compute-op do not apply", kind)
	}
	g, err := parseGenFlag(f.gen)
	if err != nil {
		return nil, err
	}
	if f.src == "" || f.dst == "" || f.shape == "" || f.dtype == "" {
		return nil, fmt.Errorf("--%v needs --src (the table), --shape R,C (its rows and columns), --dst and --dtype", kind)
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
	src, err := dge.DeviceAddress(f.src, g)
	if err != nil {
		return nil, fmt.Errorf("--src: %w", err)
	}
	dst, err := dge.DeviceAddress(f.dst, g)
	if err != nil {
		return nil, fmt.Errorf("--dst: %w", err)
	}
	a, err := sim.ReadNPY(file)
	if err != nil {
		return nil, fmt.Errorf("--%v: %w", kind, err)
	}
	vals, err := npy.Uint32s(a)
	if err != nil {
		return nil, fmt.Errorf("--%v %s: %w", kind, file, err)
	}
	r := &dge.IndexRequest{Gen: g, Kind: kind, Table: src, Rows: shape[0], Cols: shape[1], DType: d, Index: vals, IndexShape: a.Shape, Dst: dst}
	if r.Config, err = indexCfg(f); err != nil {
		return nil, err
	}
	if kind == dge.IndexGather {
		r.IndexShape = []int{len(vals)}
	}
	if r.IndexAt, err = indexAddr(f, r); err != nil {
		return nil, err
	}
	if _, err := r.Inst(); err != nil { // the request as the instruction carries it (dge.RuleIndexRequest)
		return nil, fmt.Errorf("--%v %s: %w", kind, file, err)
	}
	return r, nil
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

// indexAddr is --index-addr (an SBUF partition-0 location), or by default dge.DefaultIndexAt.
func indexAddr(f *dgeFlags, r *dge.IndexRequest) (isa.Location, error) {
	if f.indexAddr == "" {
		return dge.DefaultIndexAt(r.Gen, r.IndexBytesPerPartition())
	}
	l, err := parseCLIAddress("--index-addr", f.indexAddr, r.Gen)
	if err != nil {
		return l, err
	}
	if l.Space != isa.SpaceSBUF || l.Partition != 0 {
		return l, fmt.Errorf("--index-addr %s: the indices live in SBUF from partition 0 (sbuf:0:OFF)", f.indexAddr)
	}
	return l, nil
}

func dgeIndexPlan(f *dgeFlags, stdout io.Writer) error {
	r, err := buildIndexRequest(f)
	if err != nil {
		return ioErr(err)
	}
	p, err := r.Plan(dge.Options{})
	if err != nil {
		return err // an instruction the rules or the planner refuse: its category
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p.JSONForm())
	}
	fmt.Fprintf(stdout, "request:      %v of %d indices (%v) from the %dx%d %v table at 0x%x; indices at %v\n", r.Kind, len(r.Index), r.IndexShape, r.Rows, r.Cols, r.DType, r.Table, r.IndexAt)
	_, err = io.WriteString(stdout, p.Text())
	return err
}

func dgeIndexRun(f *dgeFlags, stdout, stderr io.Writer) error {
	ir, err := buildIndexRequest(f)
	if err != nil {
		return ioErr(err)
	}
	r, err := sim.PlanDGEIndex(ir)
	if err != nil {
		return err // an instruction the rules or the planner refuse: its category
	}
	sumOut, err := f.start(r, ir.Gen, "")
	if err != nil {
		return err
	}
	m := r.Machine()
	dumps, err := parseDumps(m, ir.Gen, f.dumps, f.trace, "", f.tf.outFlags()...)
	if err != nil {
		return err
	}
	if err := r.WriteIndices(); err != nil {
		return ruleErr(err)
	}
	for _, l := range f.loads {
		if err := loadArg(m, ir.Gen, l); err != nil {
			return ioErr(fmt.Errorf("--load %s: %w", l, err))
		}
	}
	if len(f.loads) == 0 {
		if err := r.Fill(f.seed); err != nil {
			return ruleErr(err)
		}
	}
	res, err := r.Execute(f.verify)
	if err != nil {
		return ruleErr(err)
	}
	p := r.Plan()
	outs, err := dgeOutputs(m, dumps, f.trace, res, ir.Gen)
	if err != nil {
		return err
	}
	outs = append(outs, f.tf.files(res.Summary)...)
	if err := writeOutputs(outs, stdout); err != nil {
		return ioErr(err)
	}
	if err := f.tf.writeStdout(res.Summary, stdout); err != nil {
		return err
	}
	if toStdout(outs) || sumOut {
		stdout = stderr
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.JSONForm(p))
	}
	fmt.Fprintf(stdout, "%v: %v of %d indices, %d descriptors on %d of %d DMA engines, %d bytes, modelled time %d ns\n",
		ir.Gen, p.Kind, len(ir.Index), p.Descriptors, p.NumDMA, p.DMAAvail, res.Bytes, res.End)
	if res.Verified {
		fmt.Fprintln(stdout, "verify: destination matches the direct reference")
	}
	return nil
}
