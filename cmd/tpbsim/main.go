// Command tpbsim is the command-line front end of tpbsim, an instruction-level functional model
// of the AWS NeuronCore's data-movement machinery (DVE StreamTranspose and its S4D4_TR siblings,
// the DGE reshape engine and DMA engines, the DVE microcode tables).
//
// Exit status: 0 success; 1 the input is well-formed but breaks a rule (invalid instruction,
// failed bounds check, deadlock, verification mismatch); 2 usage or I/O error.
package main

import (
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole CLI as a function so tests can drive it without a process.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	return exitCode(err, stderr)
}
