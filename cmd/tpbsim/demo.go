package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/demo"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// `tpbsim demo` is package demo's program, inputs, reference and verification, printed.

const demoDefTrace = "tpbsim-demo-trace.json"

func newDemoCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		gen       string
		tracef    string
		noTrace   bool
		printProg bool
		export    string
		racesf    string
		tf        timingFlags
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the built-in multi-engine program, verify it, and show what moved where",
		Long: `Run an embedded program on four engine queues synchronised by semaphores:

  SP    DMAMEMCPY HBM -> SBUF over up to 4 DMA engines      they add 4 to sem[4]
  POOL  CAST fp32 -> bf16 (waits sem[4] >= 4)               then sem[1] += 1
  DVE   LOAD_MASK_SELECT, STREAM_TRANSPOSE (waits sem[1]), STREAM_SHUFFLE (then sem[2] += 1),
        TRANSPOSE_TENSOR_REDUCE add
  ACT   CAST bf16 -> fp32 (waits sem[2])                    then sem[3] += 1

on 64 channels x 64 elements (two 32-channel groups, two 32-element tiles), verify every result
against an independent reference, draw the 32x32 tile mapping, print the per-engine summary and
write a Chrome/Perfetto trace (open it in ui.perfetto.dev). --print-program prints the program
as assembly text for tpbsim run.

Exit status: 0 verified; 1 a result differs from the reference or the run failed; 2 I/O error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := isa.ParseGeneration(gen)
			if err != nil {
				return ioErr(err)
			}
			if printProg {
				src, err := demo.Source(g)
				if err != nil {
					return ioErr(err)
				}
				fmt.Fprint(stdout, src)
				return nil
			}
			if export != "" {
				return exportDemo(g, export, stdout)
			}
			races, err := parseRaces(racesf)
			if err != nil {
				return err
			}
			if noTrace {
				tracef = ""
			}
			return runDemo(g, tracef, races, &tf, stdout, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&gen, "gen", isa.DefaultGeneration.String(), "hardware generation")
	cmd.Flags().StringVar(&tracef, "trace", demoDefTrace, "trace file to write (- for standard output; the report then goes to stderr)")
	cmd.Flags().BoolVar(&noTrace, "no-trace", false, "do not write a trace file")
	cmd.Flags().StringVar(&racesf, "races", "error", racesHelp)
	tf.register(cmd.Flags())
	cmd.Flags().BoolVar(&printProg, "print-program", false, "print the demo program (assembly text) and exit")
	cmd.Flags().StringVar(&export, "export", "", "write the program and its input arrays (.npy) to this folder, print the tpbsim run command, and exit")
	// Flags that contradict each other are a usage error: --print-program used to drop --export
	// silently, and --no-trace a --trace FILE the user asked for.
	for _, pair := range [][2]string{{"print-program", "export"}, {"trace", "no-trace"}, {"print-program", "trace"}, {"export", "trace"}} {
		cmd.MarkFlagsMutuallyExclusive(pair[0], pair[1])
	}
	return cmd
}

// exportDemo writes the demo as files tpbsim run takes (demo.Export), and prints the command line.
func exportDemo(g isa.Generation, dir string, w io.Writer) error {
	paths, err := demo.Export(g, dir)
	if err != nil {
		return ioErr(fmt.Errorf("--export %s: %w", dir, err))
	}
	fmt.Fprintf(w, "wrote %s, x.npy, tags.npy, sentinel.npy, ones.npy and the references expect_transposed.npy (bf16 bits),\n", paths[0])
	fmt.Fprintf(w, "expect_reduced.npy (fp32); run the demo program on its data, checking both results, with:\n\n")
	fmt.Fprint(w, demo.RunCommand(dir))
	return nil
}

// runDemo runs the demo (demo.Demo.RunOn), printing the report to w (to stderr when stdout
// carries an output) and writing the trace and the summary ("-": stdout).
func runDemo(g isa.Generation, tracePath string, races sim.RaceMode, tf *timingFlags, w, stdout, stderr io.Writer) error {
	t0 := time.Now()
	outs, err := sim.OutputArgs{Trace: tracePath, Summary: tf.summary}.Parse(nil, g)
	if err != nil {
		return ioErr(err)
	}
	if outs.ToStdout() {
		w = stderr // stdout carries the trace or the summary
	}
	d, err := demo.New(g)
	if err != nil {
		return ioErr(fmt.Errorf("the embedded demo program: %w", err))
	}
	tt, err := tf.table(g)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "tpbsim demo: %d channels x %d elements on %v, four engine queues synchronised by semaphores\n", demo.Channels, demo.Elems, g)
	fmt.Fprintf(w, "(the program: tpbsim demo --print-program)\n\n")
	for _, s := range d.Steps {
		fmt.Fprintf(w, "  %-4s %d  %-32s %s\n", s.Engine, s.Index, s.Op, s.What)
	}
	res, mismatch := d.Run(sim.Config{Trace: true, CheckUninit: true, Races: races, Timing: tt})
	if res == nil {
		return ruleErr(mismatch)
	}
	printRaces(stderr, res.Run.Races)
	fmt.Fprintf(w, "\nresults, each checked against an independent reference:\n")
	for _, c := range res.Checks {
		fmt.Fprintf(w, "  %-48s %dx%d at sbuf:0:0x%04x  %s\n", c.Name, demo.Channels, c.Cols, c.Off, c.Status())
	}
	fmt.Fprintln(w)
	demo.WriteTileMap(w, [2]string{"after STREAM_TRANSPOSE", "then STREAM_SHUFFLE, lane map (5i+3) mod 32"}, [2][]byte{res.TagT, res.TagS})
	fmt.Fprintln(w)
	res.Run.WriteSummary(w)
	if races != sim.RacesOff && len(res.Run.Races) == 0 {
		fmt.Fprintln(w, "data races: none (every pair of accesses to common bytes is ordered by queue order or a semaphore)")
	}
	files, _, err := outs.RunFiles(nil, res.Run, nil) // no dumps: no machine read
	if err != nil {
		return ioErr(err)
	}
	if err := writeOutputs(files, stdout); err != nil {
		return err
	}
	if outs.Trace != "" {
		fmt.Fprintf(w, "trace: %s (%d slices; open it in ui.perfetto.dev)\n", sim.OutputName(outs.Trace), res.Run.Trace.Len())
	}
	if mismatch != nil {
		return mismatch
	}
	fmt.Fprintf(w, "demo verified in %v\n", time.Since(t0).Round(time.Millisecond))
	return nil
}
