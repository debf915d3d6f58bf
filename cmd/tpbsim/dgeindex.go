package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/sim"
)

// Index requests: `dge plan|run --indirect IDX.npy` gathers rows of the table
// at --src (--shape R,C: R rows of C elements) by the N indices of IDX.npy into N rows at --dst;
// `--gather-xpose IDX.npy` is NKI's gather-transpose of a (P, K) index array (dge.IndexRequest).
// The indices are uint32 in SBUF at --index-addr (by default dge.DefaultIndexAt).

// buildIndexRequest reads the flags of an index request (dge.IndexRequestSpec); every error is
// a usage error.
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
	s := dge.IndexRequestSpec{Gen: f.gen, Kind: kind, IndexFile: file, Src: f.src, Dst: f.dst, DType: f.dtype, DMAs: f.dmas, IndexAt: f.indexAddr}
	var err error
	if f.shape != "" {
		if s.Shape, err = dge.ParseInts(f.shape, "--shape"); err != nil {
			return nil, err
		}
	}
	if s.DMACfg, s.CarveoutCfg, err = regFlags(f); err != nil {
		return nil, err
	}
	r, err := s.Request()
	if err == nil {
		err = zeroDMAs(f, r.Gen)
	}
	return r, err
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
	ran, err := f.execute(r, ir.Gen, "", "", stdout, stderr)
	if err != nil {
		return err
	}
	if ran.mismatch != nil {
		return ruleErr(ran.mismatch) // no report
	}
	return f.report(r, ran)
}
