package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
	nkipy "github.com/tpbsim/tpbsim/python"
)

func init() { subcommands = append(subcommands, newNKICmd) }

type nkiFlags struct {
	gen, nkiVersion, trace, summary, races, python string
	printProgram, rawBits, keep, verbose, uninit   bool
}

func newNKICmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "nki run|path",
		Short: "Run NKI kernel files (Python) on tpbsim",
		Long: `tpbsim nki run FILE.py [ARGS...] runs a Python file written for the official NKI simulator
(import nki / nki.language / nki.isa, or the older neuronxcc.nki) with tpbsim's front end on
PYTHONPATH: each nki.simulate(kernel)(*arrays) / nki.simulate_kernel(kernel, *arrays) records the
kernel, and tpbsim lowers it to the instructions the machine executes, runs them and hands back
numpy arrays. The script's exit status is the command's.

tpbsim nki path prints the folder holding the front end's Python packages (for PYTHONPATH when
using them as a library).`,
	}
	cmd.AddCommand(newNKIRunCmd(stdout, stderr), newNKIPathCmd(stdout))
	return cmd
}

func newNKIPathCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "path",
		Short: "Print the folder of the front end's Python packages (write it first if needed)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := nkiPythonPath()
			if err != nil {
				return ioErr(err)
			}
			fmt.Fprintln(stdout, dir)
			return nil
		},
	}
}

func newNKIRunCmd(stdout, stderr io.Writer) *cobra.Command {
	var f nkiFlags
	cmd := &cobra.Command{
		Use:   "run [flags] FILE.py [ARGS...]",
		Short: "Run an NKI kernel file; its exit status is the command's",
		Long: `Run FILE.py with python3 (one that has numpy: $TPBSIM_PYTHON, else python3 on PATH, else
/usr/bin/python3), tpbsim's NKI front end on PYTHONPATH. ARGS go to the script. Flags before
FILE.py apply to every kernel the script runs: --gen and --nki-version choose the target and
the NKI release whose rules apply; --trace / --summary write each kernel run's trace / summary
(the first run FILE.json, the N-th FILE-N.json); --print-program prints each
lowered program, every instruction after the NKI call it came from.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return nkiRun(args[0], args[1:], &f, stdout, stderr)
		},
	}
	cmd.Flags().SetInterspersed(false)
	fl := cmd.Flags()
	fl.StringVar(&f.gen, "gen", "", "target generation for every kernel (default: the script's target, else CAYMAN)")
	fl.StringVar(&f.nkiVersion, "nki-version", "", "NKI release whose constraint set applies")
	fl.StringVar(&f.trace, "trace", "", "write each kernel run's Perfetto trace (slices named by NKI call)")
	fl.StringVar(&f.summary, "summary", "", "write each kernel run's timing summary JSON")
	fl.StringVar(&f.races, "races", "", "error (default), warn or off: what a data race between engines does")
	fl.BoolVar(&f.printProgram, "print-program", false, "print each lowered program on stderr")
	fl.BoolVar(&f.rawBits, "raw-bits", false, "hand back bf16/fp8 outputs as raw bits instead of float32 values")
	fl.BoolVar(&f.uninit, "check-uninit", false, "a read of never-written bytes (a fresh tile used before it was written) fails the kernel run, naming the address")
	fl.BoolVar(&f.verbose, "verbose", false, "print each kernel run's report (instructions, per-engine summary, critical path)")
	fl.BoolVar(&f.keep, "keep", false, "keep each run's kernel form and data (TPBSIM_KEEP=1)")
	fl.StringVar(&f.python, "python", "", "the python3 to run (default $TPBSIM_PYTHON, python3 with numpy, /usr/bin/python3)")
	return cmd
}

// nkiPythonPath is the folder of the front end's packages: the repository's python/ when this
// binary runs from a checkout (go run), else the copy the binary carries, written once.
func nkiPythonPath() (string, error) {
	return nkipy.Install("")
}

func nkiRun(file string, args []string, f *nkiFlags, stdout, stderr io.Writer) error {
	if _, err := os.Stat(file); err != nil {
		return ioErr(err)
	}
	// The outputs are checked before the script starts (each kernel run writes its own, FILE.json
	// then FILE-2.json, ..., in FILE's folder): not the script itself, a possible target, and not
	// standard output, which is the script's.
	var outs []output
	for _, o := range []output{{Flag: "--trace", Path: f.trace}, {Flag: "--summary", Path: f.summary}} {
		if o.Path == "" {
			continue
		}
		if o.Path == stdoutPath {
			return ioErr(fmt.Errorf("%s: - (standard output) is not an output of nki run, whose standard output is the script's; give a file", o.Flag))
		}
		outs = append(outs, o)
	}
	if err := checkOutputs(outs...); err != nil {
		return err
	}
	if err := notTheInput(file, outs...); err != nil {
		return err
	}
	if f.races != "" {
		if _, err := parseRaces(f.races); err != nil {
			return err
		}
	}
	if err := checkTargetFlags(f.gen, f.gen != "", f.nkiVersion); err != nil {
		return err
	}
	py, err := nkipy.FindPython(f.python)
	if err != nil {
		return ioErr(err)
	}
	dir, err := nkiPythonPath()
	if err != nil {
		return ioErr(fmt.Errorf("installing the NKI front end: %w", err))
	}
	self, err := os.Executable()
	if err != nil {
		return ioErr(err)
	}
	var kargs []string
	for _, kv := range [][2]string{{"--gen", f.gen}, {"--nki-version", f.nkiVersion}, {"--trace", abs(f.trace)}, {"--summary", abs(f.summary)}, {"--races", f.races}} {
		if kv[1] != "" {
			kargs = append(kargs, kv[0], kv[1])
		}
	}
	for _, b := range []struct {
		on   bool
		flag string
	}{{f.printProgram, "--print-program"}, {!f.verbose, "--quiet"}, {f.uninit, "--check-uninit"}} {
		if b.on {
			kargs = append(kargs, b.flag)
		}
	}
	sc := nkipy.Script{Python: py, PythonPath: dir, Bin: self, File: file, Args: args, KernelArgs: kargs,
		Session: f.trace != "" || f.summary != "", RawBits: f.rawBits, Keep: f.keep}
	cmd, cleanup, err := sc.Command()
	if err != nil {
		return ioErr(err)
	}
	defer cleanup()
	cmd.Stdin = os.Stdin
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code < 0 {
			code = exitRule
		}
		return &cliError{code, errors.New("")}
	}
	if err != nil {
		return ioErr(err)
	}
	return nil
}

func abs(p string) string {
	if p == "" || p == "-" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
