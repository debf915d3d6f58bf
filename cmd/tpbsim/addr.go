package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

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

// stdoutPath is the output name that means standard output. It is allowed only where the
// command writes a single output; the command's own report then goes to stderr.
const stdoutPath = "-"

// output is a file a command writes when its work succeeded.
type output struct {
	path string
	data []byte
}

// outFlag is one output path and the flag that named it.
type outFlag struct{ flag, path string }

// checkOutputs validates output paths before a command does its work, so a bad path is a
// usage error (exit 2) up front and not a failure after a long run: "-" only as the single
// output, and every other path a possible target (missing, or a regular file or a link to one,
// in an existing folder; atomicfile.Target), none written twice.
func checkOutputs(outs ...outFlag) error {
	seen := map[string]string{}
	for _, o := range outs {
		if isDevNull(o.path) {
			continue // written to nothing: no target to replace
		}
		if o.path == stdoutPath {
			if len(outs) > 1 {
				return ioErr(fmt.Errorf("%s: - (standard output) only when it is the single output; %d outputs are given", o.flag, len(outs)))
			}
			continue
		}
		t, err := atomicfile.Target(o.path)
		if err != nil {
			return ioErr(fmt.Errorf("%s: %w", o.flag, err))
		}
		if abs, err := filepath.Abs(t); err == nil {
			if prev, dup := seen[abs]; dup {
				return ioErr(fmt.Errorf("%s and %s write the same file %s", prev, o.flag, o.path))
			}
			seen[abs] = o.flag
		}
	}
	return nil
}

// toStdout reports whether the outputs are the single output "-".
func toStdout(outs []output) bool { return len(outs) == 1 && outs[0].path == stdoutPath }

// flagged prefixes a write error with the flag that named the file it failed on (flagOf maps
// output paths to flags), so "write X: ..." says which of several outputs it was.
func flagged(err error, flagOf map[string]string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if fl, ok := flagOf[pe.Path]; ok {
			return fmt.Errorf("%s: %w", fl, err)
		}
	}
	return err
}

// writeOutputs writes every output whole, or none of them (internal/atomicfile); a single
// output named "-" is written to stdout.
func writeOutputs(outs []output, stdout io.Writer) error {
	if toStdout(outs) {
		_, err := stdout.Write(outs[0].data)
		return err
	}
	files := make([]atomicfile.File, 0, len(outs))
	for _, o := range outs {
		if o.path == stdoutPath {
			return fmt.Errorf("- (standard output) only when it is the single output; %d outputs are given", len(outs))
		}
		if isDevNull(o.path) {
			continue // discarded, as the device would
		}
		files = append(files, atomicfile.File{Path: o.path, Data: o.data})
	}
	if len(files) == 0 {
		return nil
	}
	return atomicfile.WriteFiles(files, atomicfile.DefaultPerm)
}

// notTheInput refuses an output that names the command's input file (the same file, through
// any path or link): `asm prog.s -o prog.s` replaced the source with its words, and `run
// prog.tpb --trace prog.tpb` with a trace. A usage error, before any work; "-" on either side is
// no file.
func notTheInput(input string, outs ...outFlag) error {
	if input == stdinPath {
		return nil
	}
	in, err := os.Stat(input)
	if err != nil {
		return nil // the reading reports it
	}
	for _, o := range outs {
		if o.path == stdoutPath {
			continue
		}
		if out, err := os.Stat(o.path); err == nil && os.SameFile(in, out) {
			return ioErr(fmt.Errorf("%s: %s is the input file %s: writing it would replace the input (name another output file)", o.flag, o.path, input))
		}
	}
	return nil
}

// isDevNull reports whether path is the null device (os.DevNull, through any link): an output
// sent there is discarded rather than refused as "not a regular file" (`asm x.s -o /dev/null`
// checks a source without keeping its words).
func isDevNull(path string) bool {
	if path == os.DevNull {
		return true
	}
	a, err := os.Stat(path)
	if err != nil || a.Mode().IsRegular() {
		return false
	}
	b, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(a, b)
}
