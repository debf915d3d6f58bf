package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/tpbsim/tpbsim/fault"
)

// Exit statuses (DESIGN.md §7).
const (
	exitOK      = 0
	exitRule    = 1 // well-formed input that breaks a rule: invalid instruction, bounds, deadlock, mismatch
	exitUsageIO = 2 // usage or I/O error
)

// categoryStatus is the exit status of each of fault's categories: the input broke a rule of the
// hardware or of the model (1), except a structure cut short, which is a file of the wrong
// length (2, as a usage or I/O error: "a file whose length is not a multiple of 64").
var categoryStatus = map[error]int{
	fault.ErrTruncated:   exitUsageIO,
	fault.ErrInvalid:     exitRule,
	fault.ErrBounds:      exitRule,
	fault.ErrCapacity:    exitRule,
	fault.ErrUninit:      exitRule,
	fault.ErrDeadlock:    exitRule,
	fault.ErrRace:        exitRule,
	fault.ErrUnsupported: exitRule,
	fault.ErrLimit:       exitRule,
}

// exitStatus is the one mapping from a command's error to the exit status (DESIGN.md §7): what
// the command marked itself (ioErr: usage or I/O, whatever the cause's category; the status an
// NKI script exited with) is that; otherwise the error's fault category decides
// (categoryStatus); an error of no category (cobra's flag errors, an unknown explain topic, an
// unreadable file) is a usage or I/O error.
func exitStatus(err error) int {
	if err == nil {
		return exitOK
	}
	var ce *cliError
	if errors.As(err, &ce) {
		return ce.code
	}
	if c := fault.Category(err); c != nil {
		return categoryStatus[c]
	}
	return exitUsageIO
}

// cliError carries an exit status the command chose with the message: ioErr's usage or I/O
// errors, ruleErr's rule failures of no fault category, an NKI script's own status.
type cliError struct {
	code int
	err  error
}

func (e *cliError) Error() string { return e.err.Error() }
func (e *cliError) Unwrap() error { return e.err }

// ruleErr marks err as "the input breaks a rule" (exit 1) when its category does not say so
// already (an error of a layer outside fault's vocabulary); an error whose category is a rule's
// is returned as it is, for exitStatus to map.
func ruleErr(err error) error {
	if c := fault.Category(err); c != nil && categoryStatus[c] == exitRule {
		return err
	}
	return &cliError{exitRule, err}
}

// ioErr wraps an error as a usage or I/O error (exit 2).
func ioErr(err error) error { return &cliError{exitUsageIO, err} }

// errSilentRule signals exit 1 after the command already printed its report.
var errSilentRule = &cliError{exitRule, errors.New("")}

// exitCode prints err (unless its message is empty: the report said it) and returns its status.
func exitCode(err error, stderr io.Writer) int {
	if err != nil && err.Error() != "" {
		fmt.Fprintln(stderr, "tpbsim:", err.Error())
	}
	return exitStatus(err)
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
	namedArgErrors(root)
	root.SetFlagErrorFunc(flagError)
	return root
}

// namedArgErrors makes a wrong number of arguments name the command and its usage line: cobra's
// own "accepts 1 arg(s), received 0" said neither which command nor what it wanted.
func namedArgErrors(c *cobra.Command) {
	if check := c.Args; check != nil && !c.HasSubCommands() {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return ioErr(fmt.Errorf("%s: %v (usage: %s)", subName(cmd), err, cmd.UseLine()))
			}
			return nil
		}
	}
	for _, s := range c.Commands() {
		namedArgErrors(s)
	}
}

// flagError is every command's flag-parsing error (an unknown or misspelt flag, a bad value):
// it names the command, and for an unknown flag the command's nearest flag names ("unknown
// flag: --laod" said neither where nor what was meant). Always a usage error, exit 2.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	// A bad value (pflag's *InvalidValueError around strconv's *NumError) says what the flag
	// takes, not which Go function refused it ("strconv.ParseUint: parsing ...").
	var iv *pflag.InvalidValueError
	var ne *strconv.NumError
	if errors.As(err, &iv) && errors.As(err, &ne) {
		what := "a number"
		switch ne.Func {
		case "ParseUint":
			what = "a number, 0 or more"
		case "ParseBool":
			what = "true or false"
		}
		msg = fmt.Sprintf("invalid argument %q for \"--%s\" flag: %v (want %s)", iv.GetValue(), iv.GetFlag().Name, ne.Err, what)
	}
	if name := subName(cmd); name != "" {
		msg = name + ": " + msg
	}
	if name, ok := unknownFlagName(err.Error()); ok {
		if near := nearFlags(cmd, name); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, " or "))
		} else {
			msg += fmt.Sprintf(" (see '%s --help')", cmd.CommandPath())
		}
	}
	return ioErr(errors.New(msg))
}

// subName is the command's path without the program name ("dge plan"; "" for the root), for
// messages that exitCode prefixes with "tpbsim:".
func subName(cmd *cobra.Command) string {
	return strings.TrimSpace(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()))
}

// unknownFlagName is the flag name in pflag's "unknown flag: --name" / "unknown shorthand flag:
// 'x' in -x" errors.
func unknownFlagName(msg string) (string, bool) {
	if rest, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name, _, _ := strings.Cut(rest, "=")
		return name, name != ""
	}
	return "", false
}

// nearFlags lists the command's flags (its own and inherited) nearest to name, as "--name":
// those differing only in case, else those fewest edits away, at most two.
func nearFlags(cmd *cobra.Command, name string) []string {
	var near []string
	best := 3
	seen := map[string]bool{}
	visit := func(f *pflag.Flag) {
		if seen[f.Name] || f.Hidden {
			return
		}
		seen[f.Name] = true
		d := editDistance(f.Name, name)
		if strings.EqualFold(f.Name, name) {
			d = 0
		}
		switch {
		case d < best:
			best, near = d, []string{"--" + f.Name}
		case d == best:
			near = append(near, "--"+f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return near
}

// editDistance is the Levenshtein distance between a and b (flag names: short ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
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
