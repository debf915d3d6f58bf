package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit statuses (DESIGN.md §7).
const (
	exitOK      = 0
	exitRule    = 1 // well-formed input that breaks a rule: invalid instruction, bounds, deadlock, mismatch
	exitUsageIO = 2 // usage or I/O error
)

// cliError carries an exit status with the message. Commands return ruleErr(...) or ioErr(...);
// any other error (cobra's own flag errors included) is a usage error.
type cliError struct {
	code int
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// ruleErr wraps an error as "the input breaks a rule" (exit 1).
func ruleErr(err error) error { return &cliError{exitRule, err} }

// ioErr wraps an error as a usage or I/O error (exit 2).
func ioErr(err error) error { return &cliError{exitUsageIO, err} }

// silentRuleErr signals exit 1 after the command already printed its report.
var errSilentRule = &cliError{exitRule, errors.New("")}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ce *cliError
	code := exitUsageIO
	if errors.As(err, &ce) {
		code = ce.code
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(stderr, "tpbsim:", msg)
	}
	return code
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "tpbsim",
		Short: "An instruction-level functional model of the NeuronCore's data-movement machinery",
		Long: `tpbsim models the AWS NeuronCore (Trainium / Inferentia2) DVE StreamTranspose instruction
and its S4D4_TR siblings, the DGE reshape engine and DMA engines, and the DVE microcode tables,
per hardware generation (SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK).

Exit status: 0 success; 1 the input breaks a rule (invalid instruction, failed bounds check,
deadlock, verification mismatch); 2 usage or I/O error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.CompletionOptions.DisableDefaultCmd = true
	// Bare `tpbsim` prints the help to stdout (what the user most likely wants to see) but is
	// still a usage error, exit 2 (DESIGN.md §7): a script that runs tpbsim without a command is
	// broken and must not pass. Unknown commands are rejected by cobra (exit 2) before this runs.
	root.RunE = func(cmd *cobra.Command, args []string) error {
		cmd.Help()
		return ioErr(errors.New("missing command (see the list above)"))
	}
	// `tpbsim help TOPIC` with an unknown topic is a usage error too (cobra's prints the usage
	// and exits 0).
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if cmd == nil || err != nil || len(rest) > 0 {
				return ioErr(fmt.Errorf("unknown help topic %q (see 'tpbsim --help')", strings.Join(args, " ")))
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	})
	for _, add := range subcommands {
		c := add(stdout, stderr)
		if c.HasSubCommands() {
			requireSubcommand(c)
		}
		root.AddCommand(c)
	}
	onceFlags(root)
	return root
}

// onceFlags makes every single-valued flag of c and its subcommands a usage error (exit 2) when
// it is given twice with different values: pflag keeps the last one silently, so `asm -o a.bin
// -o b.bin` wrote only b.bin and `run --gen MAVERICK ... --gen CAYMAN` ran CAYMAN. Repeatable
// flags (--load, --dump, --op, --block: slice and array types) are left alone, and repeating
// a flag with the same value (--quiet --quiet) stays harmless.
func onceFlags(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		t := f.Value.Type()
		if strings.HasSuffix(t, "Slice") || strings.HasSuffix(t, "Array") {
			return
		}
		f.Value = &onceValue{Value: f.Value, name: f.Name}
	})
	for _, s := range c.Commands() {
		onceFlags(s)
	}
}

// onceValue is a flag value that refuses a second, different value.
type onceValue struct {
	pflag.Value
	name  string
	first *string // the value given first on the command line
}

func (v *onceValue) Set(s string) error {
	if v.first != nil {
		if *v.first == s {
			return nil
		}
		return fmt.Errorf("--%s is given twice (%q, then %q); it takes one value", v.name, *v.first, s)
	}
	if err := v.Value.Set(s); err != nil {
		return err
	}
	v.first = &s
	return nil
}

// requireSubcommand makes a command group (dge, dtable) run only through its subcommands:
// without one, or with an unknown one, it is a usage error (exit 2) naming the choices. Cobra
// alone would print the group's help and exit 0.
func requireSubcommand(c *cobra.Command) {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		choices := strings.Join(names, ", ")
		if len(args) == 0 {
			return ioErr(fmt.Errorf("%s: missing subcommand: one of %s (see '%s --help')", cmd.Name(), choices, cmd.CommandPath()))
		}
		msg := fmt.Sprintf("%s: unknown subcommand %q: want one of %s", cmd.Name(), args[0], choices)
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2
		}
		if sug := cmd.SuggestionsFor(args[0]); len(sug) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(sug, " or "))
		}
		return ioErr(errors.New(msg))
	}
}

// subcommands lists the constructors of every subcommand; each lives in its own file.
var subcommands = []func(stdout, stderr io.Writer) *cobra.Command{
	// one line per subcommand file, e.g. newDtableCmd,
	newDtableCmd,
	newAsmCmd, newDisasmCmd, newCheckCmd, newExplainCmd,
	newRunCmd, newDemoCmd,
	newDgeCmd,
}
