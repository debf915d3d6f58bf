package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
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
	for _, add := range subcommands {
		root.AddCommand(add(stdout, stderr))
	}
	return root
}

// subcommands lists the constructors of every subcommand; each lives in its own file.
var subcommands = []func(stdout, stderr io.Writer) *cobra.Command{
	// one line per subcommand file, e.g. newDtableCmd,
	newDtableCmd,
	newAsmCmd, newDisasmCmd, newCheckCmd, newExplainCmd,
	newRunCmd, newDemoCmd,
	newDgeCmd,
}
