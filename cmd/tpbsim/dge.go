package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/jsonkeys"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
)

// dgeFlags is the request of `tpbsim dge plan|run`, as flags or as a JSON file (--request).
type dgeFlags struct {
	gen, src, dst, shape, perm, dtype, outDtype, computeOp string
	dmas                                                   int
	dmaCfg, carveoutCfg                                    string
	request                                                string
	json                                                   bool
	indirect, gatherXpose, indexAddr                       string
	// changed reports whether a flag was given on the command line (nil: none was).
	changed func(name string) bool
	// run only
	loads, dumps []string
	verify       bool
	seed         int64
	trace        string
	maxElements  uint64
	races        string
	tf           timingFlags
}

// dgeRequestJSON is the JSON request form. Either src/dst/shape/dtype (the flag form) or
// src_view/dst_view (a general pair of views, dim 0 innermost) are given.
type dgeRequestJSON struct {
	Gen          string    `json:"gen,omitempty"`
	Src          string    `json:"src,omitempty"`
	Dst          string    `json:"dst,omitempty"`
	Shape        []int     `json:"shape,omitempty"`
	Perm         []int     `json:"perm,omitempty"`
	Dtype        string    `json:"dtype,omitempty"`
	OutDtype     string    `json:"out_dtype,omitempty"`
	ComputeOp    string    `json:"compute_op,omitempty"`
	DMAs         int       `json:"dmas,omitempty"`
	DMACfg       jsonNum   `json:"dma_cfg,omitempty"`
	CarveoutCfg  jsonNum   `json:"carveout_cfg,omitempty"`
	Semaphore    *int      `json:"semaphore,omitempty"`
	SemIncrement int       `json:"sem_increment,omitempty"`
	SrcView      *viewJSON `json:"src_view,omitempty"`
	DstView      *viewJSON `json:"dst_view,omitempty"`
}

type viewJSON struct {
	Base     jsonAddr `json:"base"`
	ElemSize uint32   `json:"elem_size"`
	NumElem  []uint32 `json:"num_elem"`
	StepElem []int64  `json:"step_elem"`
}

// jsonAddr is an address given as a JSON string ("hbm:0x0", "sbuf:1:0x40", "0x800000000000") or
// a JSON number (a raw device address).
type jsonAddr string

func (a *jsonAddr) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = jsonAddr(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("address %s: want a string (\"hbm:0x0\") or a non-negative integer", b)
	}
	v, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		return fmt.Errorf("address %s: want a non-negative integer", b)
	}
	*a = jsonAddr(strconv.FormatUint(v, 10))
	return nil
}

// jsonNum accepts a JSON number or a string ("0x...").
type jsonNum uint64

func (n *jsonNum) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := isa.ParseNumber(s)
	if err != nil {
		return err
	}
	*n = jsonNum(v)
	return nil
}

const dgeLong = `Lower a reshape/transpose through the DGE reshape engine of a generation (seed 003).

The request is the row-major tensor of --shape at --src, written permuted by --perm (numpy axes,
destination axis k = source axis perm[k]) row-major at --dst. In SBUF/PSUM a tensor's first axis
runs over partitions and the rest of each row is contiguous from the byte offset.

Addresses: sbuf:P:OFF, psum:P:OFF, hbm:ADDR, or a raw device address (below 0x800000000000 is
HBM; 0x800000000000 + a 29-bit on-chip address is SBUF/PSUM). Numbers are decimal or 0x-hex.

--request FILE.json gives the request as JSON instead: the same fields (gen, src, dst, shape,
perm, dtype, out_dtype, compute_op, dmas, dma_cfg, carveout_cfg, semaphore, sem_increment), or a
general pair of views: "src_view"/"dst_view": {"base", "elem_size", "num_elem", "step_elem"}
(dim 0 innermost, steps in elements; base a string like "hbm:0x0" or a number, a raw device
address). With --request the file is the whole request: only --gen may be given with it (it
overrides the file's "gen"); any other request flag (--src, --dst, --shape, --perm, --dtype,
--out-dtype, --compute-op, --dmas, --dma-cfg, --carveout-cfg) is a usage error. Output flags
(--json; run's --load, --dump, --verify, --seed, --trace) combine freely.

The JSON form is read strictly: a key given twice, the flag form's src/dst/shape beside
src_view/dst_view, and a semaphore without sem_increment (or the reverse) are usage errors.

--gen defaults to CAYMAN. --dmas N enables DMA engines 0..N-1 (MEMCOPY_DMA_CFG low bits);
--dma-cfg sets the whole MEMCOPY_DMA_CFG: low 16 bits the DMA bitfield (0 = every engine of the
generation, as the plan notes; bits of engines the generation lacks, e.g. 8..15 on MAVERICK, are
refused), high 16 bits the queue bitfield. --carveout-cfg sets MEMCOPY_CARVEOUT_CFG: its high 16
bits are the descriptor ring depth of MARIANA_PLUS's wait_for_credit, and the plan notes that it
has no effect on other generations, nor its low 16 bits (the descriptor RAM offset) anywhere.
Both are 32-bit registers, so a larger value is a usage error.

Exit status: 0 success; 1 the request breaks a rule (bounds, unsupported kind, a work limit of
run, verification mismatch); 2 usage or I/O error.`

func newDgeCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dge",
		Short: "Plan and run reshape/transpose requests through the DGE reshape engine and the DMA engines",
		Long:  dgeLong,
	}
	plan := &cobra.Command{
		Use:   "plan",
		Short: "Print the kind, the fan-out, each DMA engine's micro-op stream and the firmware log",
		Long:  dgeLong,
		Args:  cobra.NoArgs,
	}
	run := &cobra.Command{
		Use:   "run",
		Short: "Plan a request and execute it on the memory model (random data unless --load)",
		Long: dgeLong + `

run: --load ADDR=FILE.npy[:DTYPE] and --dump ADDR=SHAPE:DTYPE:FILE.npy as in tpbsim run. A
--load at the request's source (or destination) address fills that view: the array must hold its
element count, and values of another numpy type than the dtype's own (or its raw-bits unsigned
integer) are converted to the dtype, which the report notes. --trace and --dump may not name the
--request file. Without --load the source (and, for compute ops, the destination) is filled with random values
(--seed). --verify compares the destination with a direct element-by-element reference.
--trace FILE.json writes a Chrome/Perfetto trace with one track per DMA engine. Outputs are
written whole or not at all; a single output may be "-" (standard output; the report then goes
to stderr).

Work limits (as tpbsim run's for a DMA instruction): the request's descriptors may move at most
--max-elements elements (default 2^26) and read plus write at most 16 x --max-elements bytes
(1 GiB by default). They are checked after planning, before any memory is allocated or filled;
a request past either is refused with exit 1.`,
		Args: cobra.NoArgs,
	}
	var pf, rf dgeFlags
	addDgeFlags(plan, &pf)
	addDgeFlags(run, &rf)
	rfl := run.Flags()
	rfl.StringArrayVar(&rf.loads, "load", nil, "ADDR=FILE.npy[:DTYPE]: load an array before the run (repeatable)")
	rfl.StringArrayVar(&rf.dumps, "dump", nil, "ADDR=SHAPE:DTYPE:FILE.npy: write memory to a .npy after the run (repeatable)")
	rfl.BoolVar(&rf.verify, "verify", false, "compare the destination with a direct reference (exit 1 on mismatch)")
	rfl.Int64Var(&rf.seed, "seed", 1, "seed of the random fill")
	rfl.StringVar(&rf.trace, "trace", "", "write a Chrome/Perfetto trace of the descriptors to FILE.json")
	rfl.Uint64Var(&rf.maxElements, "max-elements", sim.DefaultMaxElements, maxElementsHelp)
	rf.tf.register(rfl)
	rfl.StringVar(&rf.races, "races", "error", racesHelp+"; as in tpbsim run: a request is one DMA instruction, whose descriptors "+
		"never race with each other (the DMA model runs those that overlap in order), so dge run has none to report")
	plan.RunE = func(c *cobra.Command, _ []string) error {
		pf.changed = c.Flags().Changed
		return dgePlan(&pf, stdout)
	}
	run.RunE = func(c *cobra.Command, _ []string) error {
		rf.changed = c.Flags().Changed
		if _, err := parseRaces(rf.races); err != nil {
			return err
		}
		return dgeRun(&rf, stdout, stderr)
	}
	cmd.AddCommand(plan, run)
	return cmd
}

func addDgeFlags(c *cobra.Command, f *dgeFlags) {
	fl := c.Flags()
	fl.StringVar(&f.gen, "gen", "", "generation: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK (default CAYMAN; with --request it overrides the file's gen)")
	fl.StringVar(&f.src, "src", "", "source address (sbuf:P:OFF, psum:P:OFF, hbm:ADDR or a number)")
	fl.StringVar(&f.dst, "dst", "", "destination address")
	fl.StringVar(&f.shape, "shape", "", "source shape D0,D1,... (numpy order, 1 to 4 axes)")
	fl.StringVar(&f.perm, "perm", "", "axis permutation P0,P1,... (default: none)")
	fl.StringVar(&f.dtype, "dtype", "", "element type (bf16, fp16, fp32, int8, uint16, ...)")
	fl.StringVar(&f.outDtype, "out-dtype", "", "destination element type (a cast through FP32; default --dtype)")
	fl.StringVar(&f.computeOp, "compute-op", "", "reduce-on-copy: NONE, ADD, MULTIPLY, MAX, MIN")
	fl.IntVar(&f.dmas, "dmas", 0, "use DMA engines 0..N-1 (default: all of the generation's)")
	fl.StringVar(&f.dmaCfg, "dma-cfg", "", "MEMCOPY_DMA_CFG (low 16 bits DMA bitfield, high 16 queue bitfield)")
	fl.StringVar(&f.carveoutCfg, "carveout-cfg", "", "MEMCOPY_CARVEOUT_CFG (high 16 bits = max descriptors: the ring depth)")
	fl.StringVar(&f.request, "request", "", "read the request from a JSON file instead of flags (only --gen may be combined with it)")
	fl.BoolVar(&f.json, "json", false, "print JSON for machines")
	fl.StringVar(&f.indirect, "indirect", "", "IDX.npy: gather rows of the --src table (--shape R,C) by these indices into --dst (a DMA_INDIRECT1D)")
	fl.StringVar(&f.gatherXpose, "gather-xpose", "", "IDX.npy of shape (P,K): NKI's gather-transpose of the --src table into SBUF (a DMA_GATHER_TRANSPOSE)")
	fl.StringVar(&f.indexAddr, "index-addr", "", "where the indices go: sbuf:0:OFF (default: the end of each partition's active area)")
}

// parseInts reads --shape / --perm: integers separated by ',' (or 'x', or spaces). An empty
// item ("1,,0", ",") is an error, not skipped: "--perm ," used to plan with no permutation.
// An item written as a hex number ("0x10") is refused, as --dump's SHAPE refuses it: split at
// its 'x' it read as the two axes 0 and 10 and failed as a rule (exit 1) about a 0 axis the
// user never wrote.
func parseInts(s, what string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(s, ",") {
		for _, f := range strings.Fields(item) {
			if len(f) > 1 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X') {
				return nil, fmt.Errorf("%s %q: %q looks like a hex number; write decimal integers separated by ',' (e.g. 64,32)", what, s, f)
			}
		}
	}
	for _, part := range strings.Split(strings.NewReplacer("x", ",", "X", ",").Replace(s), ",") {
		items := strings.Fields(part)
		if len(items) == 0 {
			return nil, fmt.Errorf("%s %q: an empty item (want comma-separated integers, e.g. 1,0)", what, s)
		}
		for _, p := range items {
			v, err := strconv.Atoi(p)
			if err != nil {
				return nil, fmt.Errorf("%s %q: %q is not an integer (want comma-separated integers, e.g. 1,0)", what, s, p)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

func parseComputeOp(s string) (isa.DGEComputeOp, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", "NONE", "BYPASS":
		return isa.DGEComputeNONE, nil
	case "ADD":
		return isa.DGEComputeADD, nil
	case "MULTIPLY", "MUL", "MULT":
		return isa.DGEComputeMULTIPLY, nil
	case "MAX":
		return isa.DGEComputeMAX, nil
	case "MIN":
		return isa.DGEComputeMIN, nil
	}
	v, err := strconv.ParseUint(s, 0, 8)
	if err != nil {
		return 0, fmt.Errorf("--compute-op %q: want NONE, ADD, MULTIPLY, MAX or MIN", s)
	}
	return isa.DGEComputeOp(v), nil
}

// deviceAddress turns a CLI location into a device address (isa.Addr8 map).
func deviceAddress(flag, s string, g isa.Generation) (uint64, error) {
	loc, err := parseCLIAddress(flag, s, g)
	if err != nil {
		return 0, err
	}
	switch loc.Space {
	case isa.SpaceSBUF, isa.SpacePSUM:
		a, _ := loc.OnChip(g)
		return isa.DMALocalBase + uint64(a), nil
	case isa.SpaceHBM:
		return loc.Offset, nil
	case isa.SpaceRaw:
		// A raw number is a device address (isa.addr8_address_map): HBM below DMALocalBase, or
		// DMALocalBase + a 29-bit on-chip address. Anything above names no memory; the planner
		// would wrap it around 2^64 (0xffffffffffffffff + 1024 planned as address 0x3ff).
		if a := loc.Offset; a >= isa.DMALocalBase && a-isa.DMALocalBase > isa.TPBPartitionAddrMask {
			return 0, fmt.Errorf("%s: raw address 0x%x is outside the device address map: HBM is below 0x%x, SBUF/PSUM at 0x%x + a 29-bit on-chip address (up to 0x%x); see tpbsim explain isa.addr8_address_map",
				flag, a, uint64(isa.DMALocalBase), uint64(isa.DMALocalBase), uint64(isa.DMALocalBase)+isa.TPBPartitionAddrMask)
		}
		return loc.Offset, nil
	}
	return 0, fmt.Errorf("%s: %v: register addresses are resolved by a program, not here", flag, loc)
}

// location is the CLI location of a device address, for --load/--dump style helpers.
func location(a uint64, g isa.Generation) isa.Location {
	if a >= isa.DMALocalBase && a-isa.DMALocalBase <= isa.TPBPartitionAddrMask {
		geo := g.Geometry()
		l := uint32(a - isa.DMALocalBase)
		if geo.PSUMSize > 0 && l >= geo.PSUMOffset && l < geo.PSUMOffset+geo.PSUMSize && !(l < geo.StateBufOffset+geo.StateBufSize) {
			o := l - geo.PSUMOffset
			return isa.Location{Space: isa.SpacePSUM, Partition: int(o / geo.PSUMPartitionSize), Offset: uint64(o % geo.PSUMPartitionSize)}
		}
		o := l - geo.StateBufOffset
		return isa.Location{Space: isa.SpaceSBUF, Partition: int(o / geo.StateBufPartitionSize), Offset: uint64(o % geo.StateBufPartitionSize)}
	}
	return isa.Location{Space: isa.SpaceHBM, Offset: a}
}

// requestFlags are the flags that describe a request: with --request the file describes it, so
// none of them may be given (--gen excepted: it overrides the file's gen).
var requestFlags = []string{"src", "dst", "shape", "perm", "dtype", "out-dtype", "compute-op", "dmas", "dma-cfg", "carveout-cfg"}

// requestName names a request in messages: its file, or the request flags as given.
func requestName(f *dgeFlags) string {
	if f.request != "" {
		return "request " + f.request
	}
	s := "request"
	for _, fl := range []struct{ name, v string }{{"src", f.src}, {"dst", f.dst}, {"shape", f.shape}, {"perm", f.perm},
		{"dtype", f.dtype}, {"out-dtype", f.outDtype}, {"compute-op", f.computeOp}} {
		if fl.v != "" {
			s += " --" + fl.name + " " + fl.v
		}
	}
	return s
}

// buildRequest turns the flags (or the JSON file) into a dge.Request. The error is a usage error.
func buildRequest(f *dgeFlags) (dge.Request, []int, error) {
	j := dgeRequestJSON{Gen: f.gen, Src: f.src, Dst: f.dst, Dtype: f.dtype, OutDtype: f.outDtype, ComputeOp: f.computeOp, DMAs: f.dmas}
	var err error
	if f.request != "" {
		if f.changed != nil {
			for _, name := range requestFlags {
				if f.changed(name) {
					return dge.Request{}, nil, fmt.Errorf("--%s cannot be combined with --request (the file is the whole request; only --gen overrides it)", name)
				}
			}
		}
		data, err := os.ReadFile(f.request)
		if err != nil {
			return dge.Request{}, nil, err
		}
		data = asm.StripBOM(".json", data)
		// A key given twice (the decoder keeps the last) or spelt in another case is refused.
		if err := jsonkeys.Check(data, reflect.TypeOf(dgeRequestJSON{})); err != nil {
			return dge.Request{}, nil, fmt.Errorf("%s: %w", f.request, err)
		}
		j = dgeRequestJSON{}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("empty file (want one JSON object)")
			}
			return dge.Request{}, nil, fmt.Errorf("%s: %w", f.request, err)
		}
		// One request per file: a second object (or any other text) after it was ignored.
		rest := data[dec.InputOffset():]
		if extra := bytes.TrimLeft(rest, " \t\r\n"); len(extra) > 0 {
			return dge.Request{}, nil, fmt.Errorf("%s: text after the request object at byte offset %d (the file holds one JSON object)",
				f.request, len(data)-len(extra))
		}
		if f.gen != "" {
			j.Gen = f.gen
		}
	} else {
		if f.shape != "" {
			if j.Shape, err = parseInts(f.shape, "--shape"); err != nil {
				return dge.Request{}, nil, err
			}
		}
		if f.perm != "" {
			if j.Perm, err = parseInts(f.perm, "--perm"); err != nil {
				return dge.Request{}, nil, err
			}
		}
		if f.dmaCfg != "" {
			v, err := isa.ParseNumber(f.dmaCfg)
			if err != nil {
				return dge.Request{}, nil, fmt.Errorf("--dma-cfg: %w", err)
			}
			j.DMACfg = jsonNum(v)
		}
		if f.carveoutCfg != "" {
			v, err := isa.ParseNumber(f.carveoutCfg)
			if err != nil {
				return dge.Request{}, nil, fmt.Errorf("--carveout-cfg: %w", err)
			}
			j.CarveoutCfg = jsonNum(v)
		}
	}
	for _, c := range []struct {
		name string
		v    jsonNum
	}{{"dma-cfg", j.DMACfg}, {"carveout-cfg", j.CarveoutCfg}} {
		if c.v > 0xFFFFFFFF {
			what := "--" + c.name
			if f.request != "" {
				what = f.request + ": " + strings.ReplaceAll(c.name, "-", "_")
			}
			return dge.Request{}, nil, fmt.Errorf("%s 0x%x: the register is 32 bits (max 0xffffffff)", what, uint64(c.v))
		}
	}
	g, err := parseGenFlag(j.Gen)
	if err != nil {
		return dge.Request{}, nil, err
	}
	var req dge.Request
	if j.SrcView != nil || j.DstView != nil {
		if j.SrcView == nil || j.DstView == nil {
			return req, nil, errors.New("src_view and dst_view go together")
		}
		// The flag form's fields describe another request; beside the views they were ignored.
		for _, k := range []struct {
			name  string
			given bool
		}{{"src", j.Src != ""}, {"dst", j.Dst != ""}, {"shape", len(j.Shape) > 0}} {
			if k.given {
				return req, nil, fmt.Errorf("%q is the flag form's; with src_view/dst_view the views are the request (drop %q)", k.name, k.name)
			}
		}
		sv, err := viewFrom("src_view", j.SrcView, g)
		if err != nil {
			return req, nil, err
		}
		dv, err := viewFrom("dst_view", j.DstView, g)
		if err != nil {
			return req, nil, err
		}
		req = dge.Request{Gen: g, Src: sv, Dst: dv, Perm: j.Perm, Semaphore: -1}
		if j.Dtype != "" {
			k, err := num.ParseKind(j.Dtype)
			if err != nil {
				return req, nil, err
			}
			req.In, req.Out = isa.DType(k), isa.DType(k)
		}
	} else {
		if j.Src == "" || j.Dst == "" || len(j.Shape) == 0 || j.Dtype == "" {
			var missing []string
			for _, m := range []struct {
				name  string
				given bool
			}{{"--src", j.Src != ""}, {"--dst", j.Dst != ""}, {"--shape", len(j.Shape) > 0}, {"--dtype", j.Dtype != ""}} {
				if !m.given {
					missing = append(missing, m.name)
				}
			}
			return req, nil, fmt.Errorf("missing %s: a request needs --src, --dst, --shape and --dtype (or --request FILE.json)", strings.Join(missing, ", "))
		}
		k, err := num.ParseKind(j.Dtype)
		if err != nil {
			return req, nil, fmt.Errorf("--dtype: %w", err)
		}
		src, err := deviceAddress("--src", j.Src, g)
		if err != nil {
			return req, nil, err
		}
		dst, err := deviceAddress("--dst", j.Dst, g)
		if err != nil {
			return req, nil, err
		}
		req, err = dge.TensorRequest(g, src, dst, j.Shape, j.Perm, isa.DType(k))
		if err != nil {
			return req, nil, err
		}
	}
	if j.OutDtype != "" {
		k, err := num.ParseKind(j.OutDtype)
		if err != nil {
			return req, nil, fmt.Errorf("--out-dtype: %w", err)
		}
		if req.In == 0 {
			return req, nil, errors.New("--out-dtype needs --dtype")
		}
		req.Out = isa.DType(k)
		req.Dst.ElemSize = req.Src.ElemSize / uint32(req.In.Size()) * uint32(k.Size())
		if j.Src != "" && j.SrcView == nil { // re-lay the destination for the new element size
			dst, _ := deviceAddress("--dst", j.Dst, g)
			dv, err := dge.LayoutView(dst, req.Dst.ElemSize, dge.PermutedShape(j.Shape, j.Perm), g)
			if err != nil {
				return req, nil, err
			}
			req.Dst = dv
		}
	}
	if req.ComputeOp, err = parseComputeOp(j.ComputeOp); err != nil {
		return req, nil, err
	}
	req.DMACfg, req.CarveoutCfg = uint32(j.DMACfg), uint32(j.CarveoutCfg)
	if f.changed != nil && f.changed("dmas") {
		// 0 is the flag's "not given"; typed, it would silently mean all engines (as
		// --max-elements 0 would mean the default).
		if j.DMAs == 0 {
			return req, nil, fmt.Errorf("--dmas 0: %v has %d DMA engines; give 1..%d, or leave --dmas out for all of them", g, g.Geometry().DMAEngineCount, g.Geometry().DMAEngineCount)
		}
	}
	if j.DMAs != 0 {
		n := g.Geometry().DMAEngineCount
		if j.DMAs < 1 || j.DMAs > n {
			return req, nil, fmt.Errorf("--dmas %d: %v has %d DMA engines", j.DMAs, g, n)
		}
		// --dmas replaces MEMCOPY_DMA_CFG's DMA bitfield: another one given in --dma-cfg was
		// silently dropped.
		mask := uint32(1<<j.DMAs - 1)
		if bits := req.DMACfg & 0xFFFF; bits != 0 && bits != mask {
			return req, nil, fmt.Errorf("--dmas %d enables DMA engines 0..%d (mask 0x%x) but --dma-cfg 0x%x enables mask 0x%x: give one of them (or --dma-cfg with the DMA bits 0)",
				j.DMAs, j.DMAs-1, mask, req.DMACfg, bits)
		}
		req.DMACfg = req.DMACfg&0xFFFF0000 | mask
	}
	switch {
	case j.Semaphore != nil && j.SemIncrement == 0:
		// Without an increment the engines would signal nothing: the semaphore was dropped.
		return req, nil, fmt.Errorf("semaphore %d without sem_increment: give the total the engines add to it (1..255; it also caps the engines used)", *j.Semaphore)
	case j.Semaphore == nil && j.SemIncrement != 0:
		return req, nil, fmt.Errorf("sem_increment %d without semaphore: name the semaphore (0..255) the engines add it to", j.SemIncrement)
	case j.Semaphore != nil:
		req.Semaphore, req.SemIncrement = *j.Semaphore, j.SemIncrement
	}
	return req, j.Shape, nil
}

// maxViewElements is the planner's limit on a view's element count (dge_view_valid: 2^40).
const maxViewElements = 1 << 40

func viewFrom(name string, v *viewJSON, g isa.Generation) (dge.View, error) {
	a, err := deviceAddress(name+".base", string(v.Base), g)
	if err != nil {
		return dge.View{}, err
	}
	out := dge.View{Base: a, ElemSize: v.ElemSize, NumElem: [4]uint32{1, 1, 1, 1}}
	if len(v.NumElem) > 4 || len(v.StepElem) != len(v.NumElem) {
		return out, fmt.Errorf("%s: num_elem and step_elem need the same length, at most 4", name)
	}
	total := uint64(1)
	for k := range v.NumElem {
		out.NumElem[k], out.StepElem[k] = v.NumElem[k], v.StepElem[k]
		// dge.View.Elements multiplies in 64 bits: 65536^4 wraps to 0, passes the planner's
		// 2^40 limit and panicked the random fill. Refuse it here by the same rule.
		if n := uint64(v.NumElem[k]); n > 0 && total > maxViewElements/n {
			return out, &dge.Error{Rule: dge.RuleViewValid, Err: fault.ErrInvalid,
				Msg: fmt.Sprintf("%s.num_elem %v: more than 2^40 elements", name, v.NumElem)}
		}
		total *= uint64(v.NumElem[k])
	}
	return out, nil
}

// requestErr marks request-building errors as usage errors, except a request that parses but
// breaks a layout rule of the DGE (a tensor that does not fit the partitions, ...): its
// category decides.
func requestErr(err error) error {
	var de *dge.Error
	if errors.As(err, &de) {
		return err
	}
	return ioErr(err)
}

type planJSON struct {
	Gen          string       `json:"gen"`
	Kind         int          `json:"kind"`
	KindName     string       `json:"kind_name"`
	Requested    int          `json:"requested_kind"`
	SrcStrategy  string       `json:"src_strategy"`
	DstStrategy  string       `json:"dst_strategy"`
	FastPath     bool         `json:"fast_path"`
	Simple       bool         `json:"simple_assessment"`
	DMAAvail     int          `json:"dma_avail"`
	NumDMA       int          `json:"num_dma"`
	EngMask      string       `json:"eng_mask"`
	TileRows     int          `json:"tile_src_rows,omitempty"`
	TileCols     int          `json:"tile_src_cols,omitempty"`
	Descriptors  int          `json:"descriptors"`
	LowerBound   int          `json:"lower_bound"`
	Bytes        uint64       `json:"bytes"`
	RingDepth    int          `json:"ring_depth,omitempty"`
	Engines      []engineJSON `json:"engines"`
	Log          []string     `json:"log"`
	Notes        []string     `json:"notes,omitempty"`
	SrcAnalysis  dge.Analysis `json:"src_analysis"`
	DstAnalysis  dge.Analysis `json:"dst_analysis"`
	ElemSizeSrc  uint32       `json:"elem_size_src"`
	ElemSizeDst  uint32       `json:"elem_size_dst"`
	Verification *bool        `json:"verified,omitempty"`
	Bound        boundJSON    `json:"bound"`
	Backend      string       `json:"backend"`
}

type engineJSON struct {
	Engine      int           `json:"engine"`
	Descriptors int           `json:"descriptors"`
	Bytes       uint64        `json:"bytes"`
	MicroOps    []string      `json:"micro_ops"`
	Ops         []microOpJSON `json:"ops"`
}

func planToJSON(p *dge.Plan) planJSON {
	j := planJSON{Gen: p.Gen.String(), Kind: int(p.Kind), KindName: p.Kind.String(), Requested: int(p.Requested),
		SrcStrategy: p.Src.Strategy.String(), DstStrategy: p.Dst.Strategy.String(), FastPath: p.FastPath, Simple: p.Simple,
		DMAAvail: p.DMAAvail, NumDMA: p.NumDMA, EngMask: fmt.Sprintf("0x%x", p.EngMask), TileRows: p.TileRows, TileCols: p.TileCols,
		Descriptors: p.Descriptors, LowerBound: p.LowerBound, Bytes: p.Bytes, RingDepth: p.Job.RingDepth, Log: p.Log, Notes: p.Notes,
		SrcAnalysis: p.Src, DstAnalysis: p.Dst, ElemSizeSrc: p.ElemSize[0], ElemSizeDst: p.ElemSize[1], Bound: boundToJSON(p), Backend: p.Backend.String()}
	for e, q := range p.Job.Queues {
		if len(q) == 0 {
			continue
		}
		ej := engineJSON{Engine: e, Descriptors: len(q)}
		for i := range q {
			ej.Bytes += q[i].Bytes()
		}
		for _, op := range p.Streams[e] {
			ej.MicroOps = append(ej.MicroOps, op.String())
			ej.Ops = append(ej.Ops, opToJSON(op))
		}
		j.Engines = append(j.Engines, ej)
	}
	return j
}

func dgePlan(f *dgeFlags, stdout io.Writer) error {
	if f.indirect != "" || f.gatherXpose != "" {
		return dgeIndexPlan(f, stdout)
	}
	req, _, err := buildRequest(f)
	if err != nil {
		return requestErr(err)
	}
	p, err := dge.PlanRequest(req, dge.Options{})
	if err != nil {
		return err // a request the planner refuses breaks a rule (its category)
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(planToJSON(p))
	}
	_, err = io.WriteString(stdout, p.Text())
	return err
}

type runJSON struct {
	Plan     planJSON        `json:"plan"`
	EndNs    int64           `json:"end_ns"`
	Bytes    uint64          `json:"bytes"`
	Waits    int             `json:"credit_waits"`
	Sems     []dma.SemUpdate `json:"semaphore_updates"`
	Trace    []dma.Record    `json:"descriptors"`
	Verified *bool           `json:"verified,omitempty"`
}

func dgeRun(f *dgeFlags, stdout, stderr io.Writer) error {
	if f.indirect != "" || f.gatherXpose != "" {
		return dgeIndexRun(f, stdout, stderr)
	}
	req, _, err := buildRequest(f)
	if err != nil {
		return requestErr(err)
	}
	g := req.Gen
	r, err := sim.PlanDGE(req)
	if err != nil {
		return err // a request the planner refuses breaks a rule (its category)
	}
	sumOut, err := f.start(r, g, requestName(f))
	if err != nil {
		return err
	}
	m := r.Machine()
	// Dumps and output paths first, as in tpbsim run: a usage mistake costs no large read.
	dumps, err := parseDumps(m, g, f.dumps, f.trace, "", f.tf.outFlags()...)
	if err != nil {
		return err
	}
	if f.request != "" {
		written := []outFlag{}
		if f.trace != "" {
			written = append(written, outFlag{"--trace", f.trace})
		}
		for _, d := range dumps {
			written = append(written, outFlag{"--dump " + d.Arg, d.File})
		}
		if err := notTheInput(f.request, written...); err != nil {
			return err
		}
	}
	var loadNotes []string
	for _, l := range f.loads {
		note, err := dgeLoad(r, g, l)
		if err != nil {
			return err
		}
		if note != "" {
			loadNotes = append(loadNotes, note)
		}
	}
	if len(f.loads) == 0 {
		if err := r.Fill(f.seed); err != nil {
			return ruleErr(err)
		}
	}
	res, mismatch := r.Execute(f.verify)
	if res == nil {
		return ruleErr(mismatch)
	}
	p := r.Plan()
	outs, err := dgeOutputs(m, dumps, f.trace, res, g)
	if err != nil {
		return err
	}
	outs = append(outs, f.tf.files(res.Summary)...)
	if mismatch == nil && len(outs) > 0 {
		if err := writeOutputs(outs, stdout); err != nil {
			flagOf := map[string]string{f.trace: "--trace " + f.trace, f.tf.summary: "--summary " + f.tf.summary}
			for _, d := range dumps {
				flagOf[d.File] = "--dump " + d.Arg
			}
			return ioErr(flagged(err, flagOf))
		}
	}
	if mismatch == nil {
		if err := f.tf.writeStdout(res.Summary, stdout); err != nil {
			return err
		}
	}
	if toStdout(outs) || sumOut {
		stdout = stderr // stdout carries the output (or would have, but for the mismatch)
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(runToJSON(p, res)); err != nil {
			return ioErr(err)
		}
	} else {
		fmt.Fprintf(stdout, "%v: %v, %d descriptors on %d of %d DMA engines (lower bound %d), %d bytes, modelled time %d ns",
			g, p.Kind, p.Descriptors, p.NumDMA, p.DMAAvail, p.LowerBound, res.Bytes, res.End)
		if n := len(res.Summary.Engines); n != p.NumDMA {
			fmt.Fprintf(stdout, ", carried by %d engine(s) by SBUF partition (tpbsim explain sim.dma_partition_spread)", n)
		}
		if p.Job.RingDepth > 0 {
			fmt.Fprintf(stdout, ", %d credit waits (ring depth %d)", res.CreditWaits, p.Job.RingDepth)
		}
		fmt.Fprintln(stdout)
		for _, n := range append(loadNotes, p.Notes...) {
			fmt.Fprintf(stdout, "note: %s\n", n)
		}
		for _, s := range res.Sems {
			fmt.Fprintf(stdout, "semaphore %d += %d at %d ns (DMA[%d])\n", s.Sem, s.Delta, s.Time, s.Engine)
		}
		if res.Verified {
			fmt.Fprintln(stdout, "verify: destination matches the direct reference")
		}
	}
	return mismatch
}

// start checks the work limits of the planned request r (before anything is allocated, loaded
// or filled: planning is bounded by dge.MaxPlanNests, while the fill, the reference and the
// run cost what the request moves), reads --timing and builds the machine. It reports whether
// --summary goes to standard output. name prefixes a work-limit error ("" none).
func (f *dgeFlags) start(r *sim.DGERun, g isa.Generation, name string) (bool, error) {
	if f.maxElements == 0 {
		return false, ioErr(errZeroMaxElements)
	}
	cfg := sim.Config{Gen: g, MaxElements: f.maxElements}
	o := sim.DGEOptions{Name: name, Raise: "tpbsim dge run --max-elements N"}
	if err := r.CheckLimits(cfg, o); err != nil {
		return false, err
	}
	var err error
	if cfg.Timing, err = f.tf.table(g); err != nil {
		return false, err
	}
	sumOut, err := f.tf.toStdout(f.trace)
	if err != nil {
		return false, err
	}
	if err := r.Start(cfg, o); err != nil {
		return false, ioErr(err)
	}
	return sumOut, nil
}

// runToJSON is dge run's --json form: the plan and what the engines did.
func runToJSON(p *dge.Plan, res *sim.DGEResult) runJSON {
	j := runJSON{Plan: planToJSON(p), EndNs: res.End, Bytes: res.Bytes, Waits: res.CreditWaits, Sems: res.Sems, Trace: res.Records}
	if res.Checked {
		j.Verified = &res.Verified
	}
	return j
}

// dgeOutputs renders dge run's --dump files and --trace after the run.
func dgeOutputs(m *sim.Machine, dumps []sim.DumpSpec, tracePath string, res *sim.DGEResult, g isa.Generation) ([]output, error) {
	var outs []output
	for _, d := range dumps {
		data, err := d.Render(m)
		if err != nil {
			return nil, ruleErr(fmt.Errorf("--dump %s: %w", d.Arg, err))
		}
		outs = append(outs, output{path: d.File, data: data})
	}
	if tracePath != "" {
		outs = append(outs, output{path: tracePath, data: res.TraceJSON(g)})
	}
	return outs, nil
}
