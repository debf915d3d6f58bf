package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/kernel"
	nkipy "github.com/tpbsim/tpbsim/python"
	"github.com/tpbsim/tpbsim/sim"
)

func init() { subcommands = append(subcommands, newKernelCmd) }

// kernelFlags are the flags of `kernel run|lower` (and, passed through, of `nki run`).
type kernelFlags struct {
	gen, nkiVersion string
	genSet          bool
	inputs          []string
	outDir          string
	out             string
	rawBits         bool
	trace           string
	printProgram    bool
	quiet           bool
	maxElements     uint64
	races           string
	checkUninit     bool
	summary         string
	timing          string
}

func (f *kernelFlags) common(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.gen, "gen", "", "target generation (default: the kernel's \"gen\", else CAYMAN)")
	fl.StringVar(&f.nkiVersion, "nki-version", "", "NKI release whose constraint set applies (default: the kernel's, else "+kernel.NewestNKIVersion+")")
}

func newKernelCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kernel run|lower K.json",
		Short: "Lower and run a kernel in tpbsim's JSON kernel form (what `tpbsim nki run` records)",
		Long: `A kernel form (kernel/FORMAT.md) is what an NKI front end records: tensors, views and calls with
their file:line. "kernel lower" allocates, lowers every call to the instructions the machine
executes and inserts the semaphores between engines, and writes the program as tpbsim assembly
(tpbsim run executes it); "kernel run" also runs it and writes the outputs as .npy files.

Exit status: 0 success; 1 the kernel breaks an NKI rule, does not fit, or fails at run time;
2 usage or I/O error, or a malformed kernel form.`,
	}
	cmd.AddCommand(newKernelRunCmd(stdout, stderr), newKernelLowerCmd(stdout, stderr))
	return cmd
}

func newKernelRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f kernelFlags
	cmd := &cobra.Command{
		Use:   "run K.json",
		Short: "Lower a kernel form, run it, and write its outputs as .npy files",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.genSet = cmd.Flags().Changed("gen")
			return kernelRun(args[0], &f, stdout, stderr)
		},
	}
	f.common(cmd)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.inputs, "input", nil, "NAME=FILE.npy: the data of input NAME (default: the kernel's \"file\")")
	fl.StringVar(&f.outDir, "out-dir", "", "write output<k>.npy per output and result.json into DIR (made if missing)")
	fl.BoolVar(&f.rawBits, "raw-bits", false, "write bf16/fp8 outputs as raw bits (uint16/uint8) instead of float32 values")
	fl.StringVar(&f.trace, "trace", "", "write a Chrome/Perfetto trace (slices named by NKI call)")
	fl.BoolVar(&f.printProgram, "print-program", false, "print the lowered program (each instruction after the NKI call it came from) on stderr")
	fl.BoolVar(&f.quiet, "quiet", false, "print nothing on success")
	fl.Uint64Var(&f.maxElements, "max-elements", sim.DefaultMaxElements, "per-instruction work limit (as tpbsim run)")
	fl.StringVar(&f.races, "races", "error", racesHelp)
	fl.BoolVar(&f.checkUninit, "check-uninit", false, "a read of never-written bytes (a tile stored or used before it was written) is an error with its address")
	fl.StringVar(&f.summary, "summary", "", "write the timing summary JSON (end_ns, engines, DMA bandwidth, critical path); - for standard output")
	fl.StringVar(&f.timing, "timing", "", "override timing-model constants from a JSON file (the form of tpbsim explain timing --json)")
	return cmd
}

func newKernelLowerCmd(stdout, stderr io.Writer) *cobra.Command {
	var f kernelFlags
	cmd := &cobra.Command{
		Use:   "lower K.json -o PROG.tpb",
		Short: "Lower a kernel form to tpbsim assembly",
		Long: `Write the lowered kernel as tpbsim assembly: a header naming where each tensor lives, then the
engine queues, each instruction after a comment naming the NKI call it came from. tpbsim run
executes it; load the inputs at the addresses the header gives (--load hbm:ADDR=FILE.npy).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.genSet = cmd.Flags().Changed("gen")
			if f.out == "" {
				return ioErr(errors.New("kernel lower: -o PROG.tpb is required (- for standard output)"))
			}
			if err := checkOutputs(output{Flag: "-o", Path: f.out}); err != nil {
				return err
			}
			if err := notTheInput(args[0], output{Flag: "-o", Path: f.out}); err != nil {
				return err
			}
			lw, _, err := lowerKernelFile(args[0], &f, false)
			if err != nil {
				return err
			}
			return writeOutputs([]output{{Flag: "-o", Path: f.out, Data: []byte(lw.Text())}}, stdout)
		},
	}
	f.common(cmd)
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "the assembly file to write (- for standard output)")
	return cmd
}

// kernelErr maps a kernel error onto the exit status: a malformed form is a usage error, a
// kernel that breaks a rule (or a word the machine refuses) a rule error.
func kernelErr(err error) error {
	if kernel.IsMalformed(err) {
		return ioErr(err)
	}
	var ke *kernel.Error
	var le *kernel.LoweringError
	if errors.As(err, &ke) || errors.As(err, &le) {
		return ruleErr(err)
	}
	return ioErr(err)
}

// isCheckRefusal reports whether err, from the run of a kernel lowered with DeferCheck that
// stopped before anything ran, is its check's refusal, which the run returns as Lower would have
// (the call's *kernel.Error, a *kernel.LoweringError, or a *sim.ProgramError for the program's
// settings), rather than a malformed input the run's loading refused.
func isCheckRefusal(err error) bool {
	var ke *kernel.Error
	var le *kernel.LoweringError
	var pe *sim.ProgramError
	return !kernel.IsMalformed(err) && (errors.As(err, &ke) || errors.As(err, &le) || errors.As(err, &pe))
}

// checkTargetFlags checks --gen (when given) and --nki-version (when not "") before any work:
// usage errors.
func checkTargetFlags(gen string, genSet bool, nkiVersion string) error {
	if nkiVersion != "" {
		if err := kernel.CheckNKIVersion(nkiVersion); err != nil {
			return ioErr(fmt.Errorf("--nki-version %s: unknown NKI release (tpbsim knows %s)", nkiVersion, strings.Join(kernel.NKIVersions, ", ")))
		}
	}
	if genSet {
		if _, err := parseGenFlag(gen); err != nil {
			return ioErr(fmt.Errorf("--gen: %w", err))
		}
	}
	return nil
}

// lowerKernelFile reads and lowers the kernel form at path; deferCheck leaves the check of the
// lowered words to the run (kernel.Options.DeferCheck).
func lowerKernelFile(path string, f *kernelFlags, deferCheck bool) (*kernel.Lowered, *kernel.Kernel, error) {
	if err := checkTargetFlags(f.gen, f.genSet, f.nkiVersion); err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, ioErr(err)
	}
	k, err := kernel.Parse(data)
	if err != nil {
		return nil, nil, ioErr(fmt.Errorf("%s: %w", path, err))
	}
	gen := ""
	if f.genSet {
		if gen = f.gen; gen == "" {
			gen = isa.DefaultGeneration.String() // --gen "": the default, over the form's
		}
	}
	o, err := k.TargetOptions(gen, f.nkiVersion)
	if err != nil {
		return nil, nil, ioErr(fmt.Errorf("--gen: %w", err))
	}
	o.DeferCheck = deferCheck
	lw, err := kernel.Lower(k, o)
	if err != nil {
		return nil, nil, kernelErr(err)
	}
	return lw, k, nil
}

func kernelRun(path string, f *kernelFlags, stdout, stderr io.Writer) error {
	if f.maxElements == 0 {
		return ioErr(errZeroMaxElements)
	}
	overrides := map[string]string{}
	for _, in := range f.inputs {
		name, file, ok := strings.Cut(in, "=")
		if !ok || name == "" || file == "" {
			return ioErr(fmt.Errorf("--input %s: want NAME=FILE.npy", in))
		}
		if _, dup := overrides[name]; dup {
			return ioErr(fmt.Errorf("--input %s: input %s given twice", in, name))
		}
		overrides[name] = file
	}
	races, err := parseRaces(f.races)
	if err != nil {
		return err
	}
	// The N-th kernel run of one `tpbsim nki run` script (N >= 2) writes FILE-N.json.
	if dir := os.Getenv(nkipy.EnvSession); dir != "" && (f.trace != "" && f.trace != stdoutPath || f.summary != "" && f.summary != stdoutPath) {
		n := nkipy.SessionRun(dir)
		f.trace, f.summary = nkipy.Numbered(f.trace, n), nkipy.Numbered(f.summary, n)
	}
	outs, err := sim.OutputArgs{Trace: f.trace, Summary: f.summary, Input: path}.Parse(nil, 0) // no dumps: no machine, no generation
	if err != nil {
		return ioErr(err)
	}
	// The lowered words are checked once, by the run, when its check is the one Lower makes
	// (a default machine's: the default work limits) and nothing is printed between the two
	// (--print-program prints a program Lower's check accepted). A refusal of that check is then
	// reported as Lower's, before anything that would have come after it: the inputs read, the
	// timing file, the run's "kernel NAME (FILE):" prefix.
	deferred := f.maxElements == sim.DefaultMaxElements && !f.printProgram
	lw, k, err := lowerKernelFile(path, f, deferred)
	if err != nil {
		return err
	}
	checkFirst := func(err error) error {
		if deferred {
			if cerr := lw.Check(); cerr != nil {
				return kernelErr(cerr)
			}
		}
		return err
	}
	if f.printProgram {
		fmt.Fprint(stderr, lw.Text())
	}
	inputs, err := kernel.ReadInputs(k, lw.Gen, filepath.Dir(path), overrides)
	if err != nil {
		return checkFirst(kernelErr(err))
	}
	cfg := sim.Config{Trace: f.trace != "", MaxElements: f.maxElements, Races: races, CheckUninit: f.checkUninit}
	if cfg.Timing, err = (&timingFlags{timingFile: f.timing}).table(lw.Gen); err != nil {
		return checkFirst(err)
	}
	res, err := lw.Run(cfg, inputs)
	if deferred && err != nil && (res == nil || res.Sim == nil) && isCheckRefusal(err) {
		return kernelErr(err)
	}
	if err != nil {
		// The trace and the summary of the run up to the stop are still written.
		if res != nil && res.Sim != nil {
			files, _, werr := outs.RunFiles(nil, res.Sim, err)
			if werr == nil {
				werr = kernel.WriteOutputs("", files, stdout)
			}
			if werr != nil {
				err = errors.Join(err, werr)
			}
			if !f.quiet {
				res.Sim.WriteSummary(stderr)
			}
		}
		return ruleErr(fmt.Errorf("kernel %s (%s): %w", k.Name, path, err))
	}
	files, _, err := outs.RunFiles(nil, res.Sim, nil)
	if err != nil {
		return ioErr(err)
	}
	npys, metas, err := lw.OutputFiles(res, f.rawBits, f.outDir)
	if err != nil {
		return ioErr(err)
	}
	if err := kernel.WriteOutputs(f.outDir, append(files, npys...), stdout); err != nil {
		return ioErr(err)
	}
	printRaces(stderr, res.Sim.Races)
	if !f.quiet && f.summary != stdoutPath {
		fmt.Fprintf(stdout, "kernel %s (%s): %d calls lowered to %d instructions on %v (NKI %s), finished\n", k.Name, path, len(k.Calls), len(lw.Insts), lw.Gen, lw.NKIVersion)
		res.Sim.WriteSummary(stdout)
		for _, m := range metas {
			where := ""
			if f.outDir != "" {
				where = " -> " + filepath.Join(f.outDir, m.File)
			}
			fmt.Fprintf(stdout, "output %s %v %s (%s)%s\n", m.Name, m.Shape, m.DType, m.Encoding, where)
		}
	}
	return nil
}
