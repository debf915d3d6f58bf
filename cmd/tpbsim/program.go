package main

import (
	"fmt"
	"io"
	"os"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// Every command that takes a program (asm, disasm, check, run) reads it with asm.Load, so they
// accept the same files the same way (.bin words, .s/.asm/.tpb text, .json, or by content);
// "-" is standard input, whose form is told by its content.

// stdinPath is the PROGRAM argument that means standard input; stdinName names it in messages
// (FILE:LINE of a source, the summary line). stdin is the reader, a variable for the tests.
const (
	stdinPath = "-"
	stdinName = "<stdin>"
)

var stdin io.Reader = os.Stdin

// loadProgramArg is loadProgramFile for a command's PROGRAM argument and its --gen flag value
// (empty: not given, CAYMAN unless the file names its generation).
func loadProgramArg(path, gen string) (*asm.File, error) {
	g, err := parseGenFlag(gen)
	if err != nil {
		return nil, ioErr(err)
	}
	return loadProgramFile(path, g, gen != "")
}

// loadProgramFile reads a program file (or standard input) with asm.Load; genSet says g came
// from an explicit --gen, which a file's own generation must then agree with. Every error is a
// usage or I/O error (exit 2).
func loadProgramFile(path string, g isa.Generation, genSet bool) (*asm.File, error) {
	var data []byte
	var err error
	if path == stdinPath {
		path = stdinName
		if data, err = io.ReadAll(stdin); err != nil {
			return nil, ioErr(fmt.Errorf("reading standard input: %w", err))
		}
	} else if data, err = os.ReadFile(path); err != nil {
		return nil, ioErr(err)
	}
	f, err := asm.Load(path, data, g, genSet)
	if err != nil {
		return nil, ioErr(err)
	}
	return f, nil
}

// runProgramOf is the program run executes (sim.FileProgram); a source word on no queue is a
// usage error (it needs an .engine line).
func runProgramOf(f *asm.File) (*sim.Program, error) {
	p, err := sim.FileProgram(f)
	if err != nil {
		return nil, ioErr(err)
	}
	return p, nil
}
