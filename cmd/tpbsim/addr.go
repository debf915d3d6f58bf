package main

import (
	"fmt"
	"io"

	"github.com/tpbsim/tpbsim/internal/atomicfile"
	"github.com/tpbsim/tpbsim/isa"
)

// The CLI address syntax (DESIGN.md §7) is parsed by isa.ParseAddress so every command (and
// package) reads `sbuf:P:OFF`, `psum:P:OFF`, `hbm:ADDR`, `reg:N` and raw numbers the same way,
// with the partition stride of the chosen generation.

// parseCLIAddress reads one address argument for generation g; errors name the flag.
func parseCLIAddress(flag, s string, g isa.Generation) (isa.Location, error) {
	loc, err := isa.ParseAddress(s, g)
	if err != nil {
		return isa.Location{}, fmt.Errorf("%s: %w", flag, err)
	}
	return loc, nil
}

// parseGenFlag reads --gen (default CAYMAN, DESIGN.md §1).
func parseGenFlag(s string) (isa.Generation, error) {
	if s == "" {
		return isa.DefaultGeneration, nil
	}
	return isa.ParseGeneration(s)
}

// stdoutPath is the output name that means standard output (atomicfile.StdoutPath).
const stdoutPath = atomicfile.StdoutPath

// output is a file a command writes when its work succeeded, and the flag that named it
// (atomicfile: written whole or not at all, "-" to standard output).
type output = atomicfile.Output

// checkOutputs validates output paths before a command does its work (atomicfile.CheckOutputs):
// a bad path is a usage error (exit 2) up front, not a failure after a long run.
func checkOutputs(outs ...output) error {
	if err := atomicfile.CheckOutputs(outs...); err != nil {
		return ioErr(err)
	}
	return nil
}

// writeOutputs writes every output whole, or none of them, then the one named "-" to stdout
// (atomicfile.WriteOutputs); an error is an I/O error naming the output's flag.
func writeOutputs(outs []output, stdout io.Writer) error {
	if err := atomicfile.WriteOutputs(outs, stdout); err != nil {
		return ioErr(err)
	}
	return nil
}

// notTheInput refuses an output that names the command's input file (atomicfile.NotTheInput):
// a usage error, before any work.
func notTheInput(input string, outs ...output) error {
	if err := atomicfile.NotTheInput(input, outs...); err != nil {
		return ioErr(err)
	}
	return nil
}
