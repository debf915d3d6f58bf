package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/ucode"
)

type runFlags struct {
	gen         string
	loads       []string
	dumps       []string
	expects     []string
	boundRegs   []string
	trace       string
	checkUninit bool
	tables      string
	hbmCap      string
	maxElements uint64
	quiet       bool
	genSet      bool
	butterfly   bool
	races       string
	state       string
	dumpOnFail  bool
	tf          timingFlags
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run PROGRAM",
		Short: "Run a program of engine queues on the machine model",
		Long: `Run a program on a model NeuronCore: engine queues DVE, POOL, ACT and SP run concurrently,
synchronised by the 256 semaphores of their instructions' EVENTS (wait before issue; update after
the reads or on completion). Every instruction is checked before anything runs; a failing
instruction changes no memory and no semaphore; a deadlock stops the run with each engine's state.

PROGRAM is assembly text (.s, .asm, .tpb; one file may hold several engine queues, ".engine DVE"
sections), JSON (.json; an "engine" key names an instruction's queue), or a raw .bin of 64-byte
words (a bare instruction list runs each instruction on the queue of the engine that executes its
opcode). A file of another name is read as words when it is not text. asm, disasm and check read
the same forms.

Addresses: sbuf:P:OFF, psum:P:OFF (partition, byte offset), hbm:ADDR, or a raw on-chip number.
--load ADDR=FILE.npy[:DTYPE]      in SBUF/PSUM the first axis is the partition axis; bf16/fp8 travel
                                  as raw uint16/uint8 bits, or as float32 converted with :DTYPE;
                                  float64 (no device type) needs :DTYPE; bool loads as bytes 0/1
--dump ADDR=SHAPE:DTYPE:FILE.npy  SHAPE like 128x64 (decimal, each >= 1); written with the dtype's numpy type where one
                                  exists (float32, float16, ints), raw bits otherwise (bf16 -> uint16);
                                  FILE.npy:float32 writes the values as float32 instead (bf16, fp8, fp16, ints);
                                  never-written HBM reads as zeros and a dump allocates no HBM
--expect ADDR=SHAPE:DTYPE:FILE.npy  after the run the memory must hold FILE.npy (its dtype's numpy type or raw bits,
                                  or values converted to DTYPE as --load converts them); exit 1 naming the first
                                  differing element's index and both values (NaN equals NaN)
--hbm-cap BYTES                   HBM is allocated in 64 KiB pages on first write; the cap counts whole
                                  pages (at least one) and bounds loads and the program's writes

Data races: every run tracks happens-before (queue order, semaphore updates with their counts,
DMA completion) and reports two accesses to a common byte, at least one a write, that nothing
orders: one line per instruction pair, both sides, the bytes, the semaphore that could order them
(--races error, the default: exit 1; warn: printed, exit unchanged; off: not checked).

Outputs (dumps, trace, state) are written whole or not at all. When the run stops (a failing
instruction, a deadlock, races under --races=error) the trace and --state are still written, the
dumps only with --dump-on-failure. A single output may be "-" (standard output); the summary then
goes to stderr.
Exit status: 0 success; 1 a rule is broken (invalid instruction, bounds, uninitialised read,
a work limit of --max-elements, deadlock, data race, an --expect not met); 2 usage or I/O error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.genSet = cmd.Flags().Changed("gen")
			return runProgram(args[0], &f, stdout, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gen, "gen", isa.DefaultGeneration.String(), "hardware generation: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK")
	fl.StringArrayVar(&f.loads, "load", nil, "ADDR=FILE.npy[:DTYPE]: load an array before the run (repeatable)")
	fl.StringArrayVar(&f.dumps, "dump", nil, "ADDR=SHAPE:DTYPE:FILE.npy[:float32]: write memory to a .npy after the run, :float32 as float32 values (repeatable)")
	fl.StringArrayVar(&f.boundRegs, "bound-reg", nil, "N=VALUE: set bound-check register N (0..63) before the run, as .bound_reg does (repeatable)")
	fl.StringArrayVar(&f.expects, "expect", nil, "ADDR=SHAPE:DTYPE:FILE.npy: after the run memory must equal the .npy (exit 1 naming the first differing element; repeatable)")
	fl.StringVar(&f.trace, "trace", "", "write a Chrome/Perfetto trace-event JSON file (open in ui.perfetto.dev)")
	fl.BoolVar(&f.checkUninit, "check-uninit", false, "report reads of never-written memory as errors")
	fl.StringVar(&f.tables, "tables", "", "DVE microcode table set (folder): annotate DVE instructions with control rows, block class, depth")
	fl.StringVar(&f.hbmCap, "hbm-cap", "", "cap on HBM bytes the run may allocate, in whole 64 KiB pages (at least one; default 4 GiB; suffixes K, M, G)")
	fl.Uint64Var(&f.maxElements, "max-elements", sim.DefaultMaxElements, maxElementsHelp)
	fl.BoolVar(&f.quiet, "quiet", false, "do not print the summary table")
	fl.BoolVar(&f.butterfly, "butterfly", false, "run transposes on the faithful 5-stage dsel butterfly model (slower; same bytes)")
	fl.StringVar(&f.races, "races", "error", racesHelp)
	fl.StringVar(&f.state, "state", "", `write the machine state at the end of the run, finished or stopped, as JSON: "semaphores" (all 256), "engines" (engine, status, pc, ...)`)
	f.tf.register(fl)
	fl.BoolVar(&f.dumpOnFail, "dump-on-failure", false, "write the --dump files also when the run stops (failure, deadlock, races): the memory as the stop left it (a failing instruction changed nothing)")
	return cmd
}

// racesHelp is the help of --races (run, demo).
const racesHelp = "data races between engines and DMA descriptors: error (report them, exit 1), warn (report them), off (do not check)"

// parseRaces reads a --races value (a usage error names the legal ones).
func parseRaces(s string) (sim.RaceMode, error) {
	m, err := sim.ParseRaceMode(s)
	if err != nil {
		return 0, ioErr(fmt.Errorf("--races: %v", err))
	}
	return m, nil
}

// printRaces lists the races of a run that finished under --races=warn, or stopped otherwise.
func printRaces(w io.Writer, races []sim.Race) {
	if len(races) == 0 {
		return
	}
	fmt.Fprintf(w, "tpbsim: warning: %d data race(s):\n", len(races))
	for _, r := range races {
		fmt.Fprintf(w, "  %v\n", r)
	}
}

// errZeroMaxElements: sim.Config reads MaxElements 0 as "the default", which a user who typed 0
// would not expect; the flag takes 1 or more.
var errZeroMaxElements = errors.New("--max-elements 0: the limit must be at least 1 (the default is 2^26)")

// maxElementsHelp is the help of --max-elements (run and dge run; README "Work limits").
const maxElementsHelp = "largest element count one instruction may stream: per channel for a DVE-family instruction, in all " +
	"for the DMA descriptors of a DMA instruction (or dge request); also sets the per-instruction byte limit, 16 x N bytes " +
	"read plus written (1 GiB at the default)"

func runProgram(path string, f *runFlags, stdout, stderr io.Writer) error {
	g, err := isa.ParseGeneration(f.gen)
	if err != nil {
		return ioErr(err)
	}
	if f.maxElements == 0 {
		return ioErr(errZeroMaxElements)
	}
	races, err := parseRaces(f.races)
	if err != nil {
		return err
	}
	cfg := sim.Config{Gen: g, CheckUninit: f.checkUninit, Trace: f.trace != "", MaxElements: f.maxElements, Butterfly: f.butterfly,
		HugePages: true, Races: races}
	if f.hbmCap != "" {
		if cfg.HBMCapBytes, err = parseSize(f.hbmCap); err != nil {
			return ioErr(fmt.Errorf("--hbm-cap: %v", err))
		}
		if cfg.HBMCapBytes < mem.HBMPageSize {
			return ioErr(fmt.Errorf("--hbm-cap %s: %d bytes is less than one HBM page (%d bytes): HBM is allocated in whole pages, so nothing could be written",
				f.hbmCap, cfg.HBMCapBytes, mem.HBMPageSize))
		}
	}
	pf, err := loadProgramFile(path, g, f.genSet)
	if err != nil {
		return err
	}
	path = pf.Path // "<stdin>" for "-"
	prog, err := runProgramOf(pf)
	if err != nil {
		return err
	}
	if err := applyBoundRegFlags(prog, f.boundRegs); err != nil {
		return err
	}
	g = pf.Gen
	cfg.Gen = g
	if cfg.Timing, err = f.tf.table(g); err != nil {
		return err
	}
	sumOut, err := f.tf.toStdout(f.trace, f.state)
	if err != nil {
		return err
	}
	var tables *ucode.TableSet
	if f.tables != "" {
		if tables, err = loadTables(f.tables, g, stderr); err != nil {
			return err
		}
		cfg.Annotate = sim.TableAnnotator(tables)
		var ops []uint8
		for _, op := range prog.Opcodes(isa.EngineDVE) {
			ops = append(ops, uint8(op))
		}
		for _, op := range tables.MissingOpcodes(ops) {
			fmt.Fprintf(stderr, "tpbsim: warning: the microcode table set %q lacks opcode %v (0x%02x), which the DVE queue uses\n",
				tables.Name, isa.Opcode(op), op)
		}
	}
	m, err := sim.New(cfg)
	if err != nil {
		return ioErr(err)
	}
	// Dumps are checked (addresses, sizes against the HBM cap, output paths) before any --load is
	// read, so a usage mistake costs no large read or allocation.
	dumps, err := parseDumps(m, g, f.dumps, f.trace, f.state, f.tf.outFlags()...)
	if err != nil {
		return err
	}
	written := f.tf.outFlags()
	if f.trace != "" {
		written = append(written, outFlag{"--trace", f.trace})
	}
	if f.state != "" {
		written = append(written, outFlag{"--state", f.state})
	}
	for _, d := range dumps {
		written = append(written, outFlag{"--dump " + d.arg, d.file})
	}
	if err := notTheInput(path, written...); err != nil {
		return err
	}
	expects, err := parseExpects(m, g, f.expects)
	if err != nil {
		return err
	}
	for _, l := range f.loads {
		if err := loadArg(m, g, l); err != nil {
			return ioErr(fmt.Errorf("--load %s: %w", l, err))
		}
	}
	res, err := m.Run(prog)
	if err != nil {
		return ruleErr(stopped(err, res, f, path, prog.Len(), g, m, dumps, stdout, stderr))
	}
	if err := checkExpects(m, expects); err != nil {
		return err
	}
	outs, notes, err := runOutputs(res, nil, f, m, dumps)
	if err != nil {
		return err
	}
	if err := writeRunOutputs(outs, f, dumps, stdout); err != nil {
		return err
	}
	if err := f.tf.writeStdout(res.Summary(), stdout); err != nil {
		return err
	}
	printRaces(stderr, res.Races) // --races=warn; --quiet silences the summary, not a warning
	if !f.quiet {
		info := stdout
		if toStdout(outs) || sumOut {
			info = stderr // stdout carries the output
		}
		fmt.Fprintf(info, "%s: %d instructions on %v, finished\n", path, prog.Len(), g)
		res.WriteSummary(info)
		for _, o := range outs {
			fmt.Fprintf(info, "wrote %s (%d bytes)\n", outputName(o.path), len(o.data))
		}
		for _, n := range notes {
			fmt.Fprintln(info, "note:", n)
		}
	}
	return nil
}

func loadTables(dir string, g isa.Generation, stderr io.Writer) (*ucode.TableSet, error) {
	tg := ucode.TableGenFor(g)
	if tg == ucode.GenUnknown {
		return nil, ioErr(fmt.Errorf("--tables: %v has no DVE microcode table generation", g))
	}
	// A missing path is an I/O error in its own words (as in dtable), not a file whose table
	// kind cannot be told.
	if _, err := os.Stat(dir); err != nil {
		return nil, ioErr(fmt.Errorf("--tables: %w", err))
	}
	ts, err := ucode.Load([]string{dir}, "", ucode.GenUnknown)
	if err != nil {
		return nil, ioErr(fmt.Errorf("--tables: %w", err))
	}
	if ts.Gen != tg {
		fmt.Fprintf(stderr, "tpbsim: warning: table set %q is %v (%s) but %v uses %v tables\n", ts.Name, ts.Gen, ts.GenReason, g, tg)
	}
	return ts, nil
}

func parseSize(s string) (uint64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mul := uint64(1)
	for suf, m := range map[string]uint64{"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40} {
		if strings.HasSuffix(t, suf+"IB") || strings.HasSuffix(t, suf) {
			t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), suf)
			mul = m
			break
		}
	}
	v, err := isa.ParseNumber(t)
	if err != nil {
		return 0, fmt.Errorf("bad size %q: %v", s, err)
	}
	if v > math.MaxUint64/mul {
		return 0, fmt.Errorf("bad size %q: overflows 64 bits", s)
	}
	if v == 0 {
		return 0, fmt.Errorf("bad size %q: must be at least 1", s)
	}
	return v * mul, nil
}

func readNPY(path string) (*npy.Array, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return npy.Read(fh)
}

// loadArg applies one --load ADDR=FILE.npy[:DTYPE].
func loadArg(m *sim.Machine, g isa.Generation, arg string) error {
	addrS, rest, ok := strings.Cut(arg, "=")
	if !ok || rest == "" {
		return errors.New("want ADDR=FILE.npy[:DTYPE]")
	}
	at, err := isa.ParseAddress(addrS, g)
	if err != nil {
		return err
	}
	file, kind, err := splitLoadFile(rest)
	if err != nil {
		return err
	}
	// The file's size bounds its array: refuse a file too large for where it goes before reading it.
	st, err := os.Stat(file)
	if err != nil {
		return err
	}
	if limit, why := transferLimit(m, at, true); st.Size() > 0 && uint64(st.Size()) > limit+npyHeaderMax {
		return fmt.Errorf("%s is %s: more than %s", file, fmtBytes(uint64(st.Size())), why)
	}
	a, err := readNPY(file)
	if err != nil {
		return err
	}
	if _, ok := npy.KindOf(a.Dtype); !ok && kind == num.INVALID {
		// float64 (numpy's default float) is the one type npy reads whose bytes no device
		// element type has: loaded as they are, they would be garbage to every instruction.
		name := a.Dtype
		if name == "f8" {
			name = "float64"
		}
		return fmt.Errorf("%s holds %s, which no device element type is (the device has no FP64): add :DTYPE to convert "+
			"the values on load (%s:FP32, :BF16, :FP16, ...), or save the array as float32", file, name, file)
	}
	data, size := a.Data, npy.ItemSize(a.Dtype)
	n := uint64(len(a.Data))
	if kind != num.INVALID && size > 0 {
		n = n / uint64(size) * uint64(kind.Size()) // the bytes after conversion
	}
	if err := checkTransferSize(m, at, n, true); err != nil {
		return fmt.Errorf("array %v of %s: %w", a.Shape, a.Dtype, err)
	}
	if kind != num.INVALID {
		if data, err = a.Convert(kind); err != nil {
			return err
		}
		size = kind.Size()
	}
	shape := a.Shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	return m.WriteTensor(at, shape, size, data)
}

// splitLoadFile splits FILE.npy[:DTYPE]. The part after the last ':' is a DTYPE when it names
// an element type; otherwise the whole text is the file name, unless no such file exists and
// the suffix looks like a type name (no path separator, no '.'), which is reported as an unknown
// dtype rather than as a missing file "x.npy:NOPE".
func splitLoadFile(rest string) (string, num.Kind, error) {
	i := strings.LastIndexByte(rest, ':')
	if i <= 0 {
		return rest, num.INVALID, nil
	}
	file, suffix := rest[:i], rest[i+1:]
	if k, err := num.ParseKind(suffix); err == nil && suffix != "" {
		return file, k, nil
	}
	if _, err := os.Stat(rest); err == nil || strings.ContainsAny(suffix, `/\.`) {
		return rest, num.INVALID, nil // a file name with a ':' in it
	}
	if suffix == "" {
		return "", num.INVALID, fmt.Errorf("empty DTYPE after %s: (want FILE.npy[:DTYPE], e.g. x.npy:bf16)", file)
	}
	return "", num.INVALID, fmt.Errorf("unknown dtype %s after %s (want FILE.npy[:DTYPE], e.g. x.npy:bf16)", suffix, file)
}

type dumpSpec struct {
	arg   string
	at    isa.Location
	shape []int
	kind  num.Kind
	file  string
	asF32 bool // FILE.npy:float32: values widened to float32, not the dtype's raw bits
}

// parseDump reads ADDR=SHAPE:DTYPE:FILE.npy. SHAPE is decimal dimensions, each at least 1,
// separated by 'x' (128x64); "0x64" is refused as a hex number, not read as a 0-by-64 array.
func parseDump(arg string, g isa.Generation) (dumpSpec, error) {
	d := dumpSpec{arg: arg}
	addrS, rest, ok := strings.Cut(arg, "=")
	parts := strings.SplitN(rest, ":", 3)
	if !ok || len(parts) != 3 || parts[2] == "" {
		return d, errors.New("want ADDR=SHAPE:DTYPE:FILE.npy")
	}
	var err error
	if d.at, err = isa.ParseAddress(addrS, g); err != nil {
		return d, err
	}
	if d.shape, err = parseShape(parts[0]); err != nil {
		return d, err
	}
	if d.kind, err = num.ParseKind(parts[1]); err != nil {
		return d, err
	}
	if d.kind.Size() == 0 || !d.kind.Numeric() {
		return d, fmt.Errorf("element type %v cannot be dumped", d.kind)
	}
	d.file, d.asF32 = cutFloat32Suffix(parts[2])
	return d, nil
}

// maxDumpBytes is tpbsim's absolute limit on the bytes of one --load or --dump array, and on the
// dumps of a run together: each is held whole in memory (a dump twice while it is encoded). It is
// the default HBM cap (mem.DefaultHBMCapBytes), so by default the cap is what a user meets.
const maxDumpBytes = mem.DefaultHBMCapBytes

// npyHeaderMax is the most a .npy file holds besides its data (preamble, length, header): a
// larger file cannot hold an array under a limit.
const npyHeaderMax = 12 + 1<<20

// transferLimit is the largest array a --load (load true) or --dump may move at at, and what the
// limit is: for a load into HBM the run's HBM cap (no more can be written there), on chip the
// size of the largest on-chip memory; never more than maxDumpBytes. A dump of HBM allocates no
// HBM (never-written bytes read as zero), so the cap does not bound it.
func transferLimit(m *sim.Machine, at isa.Location, load bool) (uint64, string) {
	limit, why := uint64(maxDumpBytes), fmt.Sprintf("tpbsim's limit of %s on one array", fmtBytes(maxDumpBytes))
	if at.Space == isa.SpaceHBM {
		if !load {
			return limit, why
		}
		if c := m.Memory().Options().HBMCapBytes; c < limit {
			limit, why = c, fmt.Sprintf("the run's HBM cap of %s (--hbm-cap)", fmtBytes(c))
		}
		return limit, why
	}
	mm := m.Memory()
	chip := uint64(0)
	for _, r := range []mem.Region{mem.SBUF, mem.PSUM} {
		chip = max(chip, uint64(mm.NumPartitions(r))*uint64(mm.PartitionActive(r)))
	}
	if chip < limit {
		limit, why = chip, fmt.Sprintf("the %s of on-chip memory", fmtBytes(chip))
	}
	return limit, why
}

// checkTransferSize refuses an array of n bytes larger than transferLimit allows at at.
func checkTransferSize(m *sim.Machine, at isa.Location, n uint64, load bool) error {
	if limit, why := transferLimit(m, at, load); n > limit {
		return fmt.Errorf("%s is more than %s", fmtBytes(n), why)
	}
	return nil
}

// fmtBytes prints a byte count exactly, with a binary-unit reading when it is large.
func fmtBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%d bytes (%.2f GiB)", n, float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d bytes (%.2f MiB)", n, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.2f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// parseShape reads a --dump SHAPE: decimal dimensions >= 1 separated by 'x' (or 'X', or ',' as
// `dge --shape` writes them). An empty dimension ("128xx64") is an error, not skipped.
func parseShape(s string) ([]int, error) {
	want := "want decimal dimensions >= 1 separated by 'x', e.g. 128x64"
	t := strings.TrimSpace(s)
	if t == "" {
		return nil, fmt.Errorf("empty shape (%s)", want)
	}
	if len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') {
		return nil, fmt.Errorf("shape %q looks like a hex number, and a 0 dimension is not allowed (%s)", s, want)
	}
	var shape []int
	total := uint64(1)
	for _, p := range strings.Split(strings.NewReplacer("X", "x", ",", "x").Replace(t), "x") {
		if p == "" {
			return nil, fmt.Errorf("bad shape %q: an empty dimension (%s)", s, want)
		}
		u, err := strconv.ParseUint(p, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("bad shape %q: dimension %q overflows 64 bits", s, p)
		}
		if err != nil || strings.HasPrefix(p, "+") {
			return nil, fmt.Errorf("bad shape %q: dimension %q is not a decimal number (%s)", s, p, want)
		}
		if u == 0 {
			return nil, fmt.Errorf("bad shape %q: a dimension is 0 (%s)", s, want)
		}
		if u > maxDumpBytes/total {
			return nil, fmt.Errorf("bad shape %q: too many elements (more than %d; tpbsim's limit on one dump is %s)", s, uint64(maxDumpBytes), fmtBytes(maxDumpBytes))
		}
		total *= u
		shape = append(shape, int(u))
	}
	return shape, nil
}

// parseDumps reads every --dump and checks, before the run, that each fits where it reads
// (partitions, active partition size, HBM range) and that the output paths (with --trace) are
// usable: all usage errors, exit 2, like the same mistakes in --load.
func parseDumps(m *sim.Machine, g isa.Generation, args []string, trace, state string, more ...outFlag) ([]dumpSpec, error) {
	dumps := make([]dumpSpec, 0, len(args))
	var paths []outFlag
	total := uint64(0)
	for _, a := range args {
		d, err := parseDump(a, g)
		if err == nil {
			err = d.check(m)
		}
		if err != nil {
			return nil, ioErr(fmt.Errorf("--dump %s: %w", a, err))
		}
		if total += d.bytes(); total > maxDumpBytes {
			return nil, ioErr(fmt.Errorf("--dump %s: the dumps come to %s, more than tpbsim's limit of %s on the dumps of one run",
				a, fmtBytes(total), fmtBytes(maxDumpBytes)))
		}
		dumps = append(dumps, d)
		paths = append(paths, outFlag{"--dump " + a, d.file})
	}
	if trace != "" {
		paths = append(paths, outFlag{"--trace", trace})
	}
	if state != "" {
		paths = append(paths, outFlag{"--state", state})
	}
	paths = append(paths, more...)
	if err := checkOutputs(paths...); err != nil {
		return nil, err
	}
	return dumps, nil
}

// bytes is the dump's size (parseShape bounds the element count, so it does not wrap).
func (d dumpSpec) bytes() uint64 {
	size := uint64(d.kind.Size())
	for _, n := range d.shape {
		size *= uint64(n)
	}
	return size
}

// check tells whether the dump's range is readable on m (the checks of sim.Machine.ReadTensor
// on chip; the HBM window of mem for HBM, without reading a large range) and whether its size
// is within the run's limits (the HBM cap for HBM, tpbsim's own limit): the dump is held in
// memory whole, so a size past them is refused here, before the run, not by the allocator.
func (d dumpSpec) check(m *sim.Machine) error {
	size := d.bytes()
	if err := checkTransferSize(m, d.at, size, false); err != nil {
		return fmt.Errorf("shape %v of %v: %w", d.shape, d.kind, err)
	}
	if d.at.Space != isa.SpaceHBM {
		_, err := m.ReadTensor(d.at, d.shape, d.kind.Size())
		return err
	}
	if end := d.at.Offset + size; end < d.at.Offset || end > isa.DMALocalBase {
		return fmt.Errorf("%d bytes from hbm:0x%x pass the HBM window 0x%x", size, d.at.Offset, uint64(isa.DMALocalBase))
	}
	return nil
}

// render returns the dump's .npy bytes. The array is read straight into the buffer that is
// written out, after its header (npy.Header), so a large dump is held in memory once, not twice.
func (d dumpSpec) render(m *sim.Machine) ([]byte, error) {
	if d.asF32 {
		return d.renderFloat32(m)
	}
	typ, _ := npy.TypeOf(d.kind)
	hdr, err := npy.Header(typ, d.shape)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, uint64(len(hdr))+d.bytes())
	copy(buf, hdr)
	if err := m.ReadTensorInto(d.at, d.shape, d.kind.Size(), buf[len(hdr):]); err != nil {
		return nil, err
	}
	return buf, nil
}

// outputName is how the report names an output.
func outputName(p string) string {
	if p == stdoutPath {
		return "standard output"
	}
	return p
}

// runOutputs renders the outputs of a run: the dumps (unless it stopped and --dump-on-failure is
// not given), the trace and the state. runErr is the run's error (nil: it finished).
func runOutputs(res *sim.Result, runErr error, f *runFlags, m *sim.Machine, dumps []dumpSpec) (outs []output, notes []string, err error) {
	if runErr == nil || f.dumpOnFail {
		for _, d := range dumps {
			data, err := d.render(m)
			if err != nil {
				return nil, nil, ruleErr(fmt.Errorf("--dump %s: %w", d.arg, err))
			}
			outs = append(outs, output{d.file, data})
			if typ, own := npy.TypeOf(d.kind); !own && !d.asF32 {
				notes = append(notes, fmt.Sprintf("%s holds %v as raw %s bits (numpy has no %v)", outputName(d.file), d.kind, npy.TypeName(typ), d.kind))
			}
		}
	}
	if f.trace != "" && res.Trace != nil {
		var b bytes.Buffer
		if err := res.Trace.Write(&b); err != nil {
			return nil, nil, ioErr(err)
		}
		outs = append(outs, output{f.trace, b.Bytes()})
	}
	if f.state != "" {
		data, err := res.StateJSON(runErr)
		if err != nil {
			return nil, nil, ioErr(err)
		}
		outs = append(outs, output{f.state, data})
	}
	if f.tf.summary != "" {
		outs = append(outs, f.tf.files(res.Summary())...)
	}
	return outs, notes, nil
}

// writeRunOutputs writes the outputs of a run, all whole or none; an error names the flag.
func writeRunOutputs(outs []output, f *runFlags, dumps []dumpSpec, stdout io.Writer) error {
	if err := writeOutputs(outs, stdout); err != nil {
		flagOf := map[string]string{f.trace: "--trace " + f.trace, f.state: "--state " + f.state, f.tf.summary: "--summary " + f.tf.summary}
		for _, d := range dumps {
			flagOf[d.file] = "--dump " + d.arg
		}
		return ioErr(flagged(err, flagOf))
	}
	return nil
}

// stopped handles a run that stopped at run time (a failing instruction, a deadlock, races under
// --races=error): the trace and the state of the run up to the stop, whole files, are still
// written (--trace, --state), as they show why, and the summary goes to stderr; the --dump files
// only with --dump-on-failure. It returns err, or the error writing the outputs joined to it.
func stopped(err error, res *sim.Result, f *runFlags, path string, n int, g isa.Generation, m *sim.Machine, dumps []dumpSpec, stdout, stderr io.Writer) error {
	if res == nil {
		return err // refused before the run: nothing ran
	}
	outs, _, oerr := runOutputs(res, err, f, m, dumps)
	if oerr == nil {
		oerr = writeRunOutputs(outs, f, dumps, stdout)
	}
	if oerr == nil {
		oerr = f.tf.writeStdout(res.Summary(), stdout) // the timing summary up to the stop
	}
	if oerr != nil {
		return errors.Join(err, oerr)
	}
	if !errors.Is(err, fault.ErrRace) {
		printRaces(stderr, res.Races) // the races found up to another stop
	}
	if !f.quiet {
		how := "stopped"
		if errors.Is(err, fault.ErrRace) {
			how = "finished with data races"
		}
		fmt.Fprintf(stderr, "%s: %d instructions on %v, %s\n", path, n, g, how)
		res.WriteSummary(stderr)
		for _, o := range outs {
			what := "the run up to the stop"
			if o.path != f.trace && o.path != f.state && o.path != f.tf.summary {
				what = "memory as the stop left it"
			}
			fmt.Fprintf(stderr, "wrote %s (%d bytes): %s\n", outputName(o.path), len(o.data), what)
		}
	}
	return err
}
