package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

type runFlags struct {
	gen         string
	loads       []string
	dumps       []string
	expects     []string
	boundRegs   []string
	addrRegs    []string
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
	fl.StringArrayVar(&f.addrRegs, "addr-reg", nil, "N=VALUE: set address register N (0..63) before the run, as .addr_reg does; VALUE a number or sbuf:P:OFF / psum:P:OFF (repeatable)")
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
		if cfg.HBMCapBytes, err = sim.ParseHBMCap(f.hbmCap); err != nil {
			return ioErr(fmt.Errorf("--hbm-cap %s: %v", f.hbmCap, err))
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
	if err := prog.ApplyRegArgs(pf.Gen, f.boundRegs, f.addrRegs); err != nil {
		return ioErr(err)
	}
	g = pf.Gen
	cfg.Gen = g
	if cfg.Timing, err = f.tf.table(g); err != nil {
		return err
	}
	if f.tables != "" {
		tables, warnings, err := sim.LoadTableSet(f.tables, g, prog)
		if err != nil {
			return ioErr(fmt.Errorf("--tables: %w", err))
		}
		for _, w := range warnings {
			fmt.Fprintf(stderr, "tpbsim: warning: %s\n", w)
		}
		cfg.Annotate = sim.TableAnnotator(tables)
	}
	m, err := sim.New(cfg)
	if err != nil {
		return ioErr(err)
	}
	// The outputs are checked (dump addresses, sizes against the HBM cap, output paths, the
	// --expect files) before any --load is read, so a usage mistake costs no large read.
	outs, err := sim.OutputArgs{Dumps: f.dumps, Expects: f.expects, Trace: f.trace, State: f.state, Summary: f.tf.summary,
		DumpOnFailure: f.dumpOnFail, Input: path}.Parse(m, g)
	if err != nil {
		return ioErr(err)
	}
	for _, l := range f.loads {
		if err := loadArg(m, g, l); err != nil {
			return ioErr(fmt.Errorf("--load %s: %w", l, err))
		}
	}
	res, err := m.Run(prog)
	if err != nil {
		return ruleErr(stopped(err, res, outs, path, prog.Len(), g, m, f.quiet, stdout, stderr))
	}
	if err := outs.CheckExpects(m); err != nil {
		return ruleErr(err) // no output is written
	}
	files, notes, err := outs.RunFiles(m, res, nil)
	if err != nil {
		return ruleErr(err)
	}
	if err := writeOutputs(files, stdout); err != nil {
		return err
	}
	printRaces(stderr, res.Races) // --races=warn; --quiet silences the summary, not a warning
	if !f.quiet {
		info := stdout
		if outs.ToStdout() {
			info = stderr // stdout carries the output
		}
		fmt.Fprintf(info, "%s: %d instructions on %v, finished\n", path, prog.Len(), g)
		res.WriteSummary(info)
		for _, o := range files {
			if o.Path != stdoutPath || o.Flag != "--summary" {
				fmt.Fprintf(info, "wrote %s (%d bytes)\n", sim.OutputName(o.Path), len(o.Data))
			}
		}
		for _, n := range notes {
			fmt.Fprintln(info, "note:", n)
		}
	}
	return nil
}

// loadArg applies one --load ADDR=FILE.npy[:DTYPE] (sim.ParseLoad, sim.Machine.Load).
func loadArg(m *sim.Machine, g isa.Generation, arg string) error {
	l, err := sim.ParseLoad(arg, g)
	if err != nil {
		return err
	}
	return m.Load(l)
}

// stopped handles a run that stopped at run time (a failing instruction, a deadlock, races under
// --races=error): the trace and the state of the run up to the stop, whole files, are still
// written (--trace, --state, --summary), as they show why, and the summary goes to stderr; the
// --dump files only with --dump-on-failure. It returns err, or the error writing the outputs
// joined to it.
func stopped(err error, res *sim.Result, outs *sim.RunOutputs, path string, n int, g isa.Generation, m *sim.Machine, quiet bool, stdout, stderr io.Writer) error {
	if res == nil {
		return err // refused before the run: nothing ran
	}
	files, _, oerr := outs.RunFiles(m, res, err)
	if oerr != nil {
		oerr = ruleErr(oerr)
	} else {
		oerr = writeOutputs(files, stdout)
	}
	if oerr != nil {
		return errors.Join(err, oerr)
	}
	if !errors.Is(err, fault.ErrRace) {
		printRaces(stderr, res.Races) // the races found up to another stop
	}
	if !quiet {
		how := "stopped"
		if errors.Is(err, fault.ErrRace) {
			how = "finished with data races"
		}
		fmt.Fprintf(stderr, "%s: %d instructions on %v, %s\n", path, n, g, how)
		res.WriteSummary(stderr)
		for _, o := range files {
			if o.Path == stdoutPath && o.Flag == "--summary" {
				continue
			}
			what := "the run up to the stop"
			if strings.HasPrefix(o.Flag, "--dump") {
				what = "memory as the stop left it"
			}
			fmt.Fprintf(stderr, "wrote %s (%d bytes): %s\n", sim.OutputName(o.Path), len(o.Data), what)
		}
	}
	return err
}
