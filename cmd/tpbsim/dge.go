package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/isa"
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

// buildRequest turns the flags (or the --request JSON file, dge.ParseRequestJSON) into a
// dge.Request. A *dge.SpecError (and any other error but a *dge.Error) is a usage error.
func buildRequest(f *dgeFlags) (dge.Request, error) {
	if f.request != "" {
		if f.changed != nil {
			for _, name := range requestFlags {
				if f.changed(name) {
					return dge.Request{}, fmt.Errorf("--%s cannot be combined with --request (the file is the whole request; only --gen overrides it)", name)
				}
			}
		}
		g := isa.GenInvalid // the file's gen
		if f.gen != "" {
			var err error
			if g, err = isa.ParseGeneration(f.gen); err != nil {
				return dge.Request{}, err
			}
		}
		return dge.ReadRequestFile(f.request, g)
	}
	s := dge.RequestSpec{Flags: true, Gen: f.gen, Src: f.src, Dst: f.dst, DType: f.dtype, OutDType: f.outDtype, ComputeOp: f.computeOp, DMAs: f.dmas}
	var err error
	if f.shape != "" {
		if s.Shape, err = dge.ParseInts(f.shape, "--shape"); err != nil {
			return dge.Request{}, err
		}
	}
	if f.perm != "" {
		if s.Perm, err = dge.ParseInts(f.perm, "--perm"); err != nil {
			return dge.Request{}, err
		}
	}
	if s.DMACfg, s.CarveoutCfg, err = regFlags(f); err != nil {
		return dge.Request{}, err
	}
	req, err := s.Request()
	if err == nil {
		err = zeroDMAs(f, req.Gen)
	}
	return req, err
}

// regFlags reads --dma-cfg and --carveout-cfg (numbers; the request checks their width).
func regFlags(f *dgeFlags) (dmaCfg, carveoutCfg dge.RegValue, err error) {
	for _, c := range []struct {
		flag, v string
		to      *dge.RegValue
	}{{"--dma-cfg", f.dmaCfg, &dmaCfg}, {"--carveout-cfg", f.carveoutCfg, &carveoutCfg}} {
		if c.v != "" {
			v, err := isa.ParseNumber(c.v)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %w", c.flag, err)
			}
			*c.to = dge.RegValue(v)
		}
	}
	return dmaCfg, carveoutCfg, nil
}

// zeroDMAs refuses --dmas 0 typed on the command line: 0 is the flag's "not given"; typed, it
// would silently mean all engines (as --max-elements 0 would mean the default).
func zeroDMAs(f *dgeFlags, g isa.Generation) error {
	if f.dmas == 0 && f.changed != nil && f.changed("dmas") {
		n := g.Geometry().DMAEngineCount
		return fmt.Errorf("--dmas 0: %v has %d DMA engines; give 1..%d, or leave --dmas out for all of them", g, n, n)
	}
	return nil
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

func dgePlan(f *dgeFlags, stdout io.Writer) error {
	if f.indirect != "" || f.gatherXpose != "" {
		return dgeIndexPlan(f, stdout)
	}
	req, err := buildRequest(f)
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
		return enc.Encode(p.JSONForm())
	}
	_, err = io.WriteString(stdout, p.Text())
	return err
}

func dgeRun(f *dgeFlags, stdout, stderr io.Writer) error {
	if f.indirect != "" || f.gatherXpose != "" {
		return dgeIndexRun(f, stdout, stderr)
	}
	req, err := buildRequest(f)
	if err != nil {
		return requestErr(err)
	}
	g := req.Gen
	r, err := sim.PlanDGE(req)
	if err != nil {
		return err // a request the planner refuses breaks a rule (its category)
	}
	ran, err := f.execute(r, g, requestName(f), f.request, stdout, stderr)
	if err != nil {
		return err
	}
	return f.report(r, ran)
}

// report prints what dge run ran (the JSON form, or sim.DGERun.WriteReport), then returns the
// verification's mismatch.
func (f *dgeFlags) report(r *sim.DGERun, ran *dgeRan) error {
	var err error
	if f.json {
		enc := json.NewEncoder(ran.report)
		enc.SetIndent("", "  ")
		err = enc.Encode(ran.res.JSONForm(r.Plan()))
	} else {
		err = r.WriteReport(ran.report, ran.res, ran.notes)
	}
	if err != nil {
		return ioErr(err)
	}
	return ran.mismatch
}

// dgeRan is a request dge run executed: the result, the notes of the loads, where the report
// goes (stderr when stdout carries an output), and the verification's mismatch.
type dgeRan struct {
	res      *sim.DGEResult
	notes    []string
	report   io.Writer
	mismatch error
}

// execute runs the planned request r (a tensor or an index request). It checks the work limits
// before anything is allocated, loaded or filled (planning is bounded by dge.MaxPlanNests,
// while the fill, the reference and the run cost what the request moves), reads --timing,
// builds the machine, checks the outputs (sim.OutputArgs: dumps and paths first, as in tpbsim
// run, so a usage mistake costs no large read), writes an index request's indices, loads
// (--load) or fills (--seed), executes, verifies (--verify) and writes the outputs, unless the
// destination differs from the reference. name prefixes a work-limit error ("" none); input is
// the --request file ("" none).
func (f *dgeFlags) execute(r *sim.DGERun, g isa.Generation, name, input string, stdout, stderr io.Writer) (*dgeRan, error) {
	if f.maxElements == 0 {
		return nil, ioErr(errZeroMaxElements)
	}
	cfg := sim.Config{Gen: g, MaxElements: f.maxElements}
	o := sim.DGEOptions{Name: name, Raise: "tpbsim dge run --max-elements N"}
	if err := r.CheckLimits(cfg, o); err != nil {
		return nil, err
	}
	var err error
	if cfg.Timing, err = f.tf.table(g); err != nil {
		return nil, err
	}
	if err := r.Start(cfg, o); err != nil {
		return nil, ioErr(err)
	}
	outs, err := sim.OutputArgs{Dumps: f.dumps, Trace: f.trace, Summary: f.tf.summary, Input: input}.Parse(r.Machine(), g)
	if err != nil {
		return nil, ioErr(err)
	}
	if err := r.WriteIndices(); err != nil {
		return nil, ruleErr(err)
	}
	ran := &dgeRan{report: stdout}
	for _, l := range f.loads {
		note, err := dgeLoad(r, g, l)
		if err != nil {
			return nil, err
		}
		if note != "" {
			ran.notes = append(ran.notes, note)
		}
	}
	if len(f.loads) == 0 {
		if err := r.Fill(f.seed); err != nil {
			return nil, ruleErr(err)
		}
	}
	if ran.res, ran.mismatch = r.Execute(f.verify); ran.res == nil {
		return nil, ruleErr(ran.mismatch)
	}
	if ran.mismatch == nil { // a mismatch writes nothing
		files, _, err := outs.DGEFiles(r.Machine(), ran.res, g)
		if err != nil {
			return nil, ruleErr(err)
		}
		if err := writeOutputs(files, stdout); err != nil {
			return nil, err
		}
	}
	if outs.ToStdout() {
		ran.report = stderr // stdout carries the output (or would have, but for the mismatch)
	}
	return ran, nil
}
