package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// StdoutPath is the output name that means standard output (DESIGN.md §7). It is allowed only
// where a command writes a single output (and for a timing summary beside files); the command's
// own report then goes to stderr.
const StdoutPath = "-"

// Output is one output of a command: the data for Path ("-" standard output, the null device
// discarded), and Flag, how messages name it ("--trace", "--dump ARG", "-o").
type Output struct {
	Flag string
	Path string
	Data []byte
}

// CheckOutputs validates output paths before a command does its work, so a bad path is a usage
// mistake up front and not a failure after a long run: "-" only as the single output, and every
// other path a possible target (missing, or a regular file or a link to one, in an existing
// folder; Target), none written twice. Data is not looked at.
func CheckOutputs(outs ...Output) error {
	seen := map[string]string{}
	for _, o := range outs {
		if IsDevNull(o.Path) {
			continue // written to nothing: no target to replace
		}
		if o.Path == StdoutPath {
			if len(outs) > 1 {
				return fmt.Errorf("%s: - (standard output) only when it is the single output; %d outputs are given", o.Flag, len(outs))
			}
			continue
		}
		t, err := Target(o.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Flag, err)
		}
		if abs, err := filepath.Abs(t); err == nil {
			if prev, dup := seen[abs]; dup {
				return fmt.Errorf("%s and %s write the same file %s", prev, o.Flag, o.Path)
			}
			seen[abs] = o.Flag
		}
	}
	return nil
}

// ToStdout reports whether one of the outputs goes to standard output.
func ToStdout(outs []Output) bool {
	for _, o := range outs {
		if o.Path == StdoutPath {
			return true
		}
	}
	return false
}

// WriteOutputs writes every file output whole, or none of them (WriteFiles), then the output
// named "-" (at most one) to stdout; outputs to the null device are discarded. An error names
// the flag of the output it failed on.
func WriteOutputs(outs []Output, stdout io.Writer) error {
	files := make([]File, 0, len(outs))
	var std *Output
	for i, o := range outs {
		switch {
		case o.Path == StdoutPath:
			if std != nil {
				return fmt.Errorf("%s and %s: only one output may go to standard output", std.Flag, o.Flag)
			}
			std = &outs[i]
		case IsDevNull(o.Path): // discarded, as the device would
		default:
			files = append(files, File{Path: o.Path, Data: o.Data})
		}
	}
	if len(files) > 0 {
		if err := WriteFiles(files, DefaultPerm); err != nil {
			return flagged(err, outs)
		}
	}
	if std != nil {
		if _, err := stdout.Write(std.Data); err != nil {
			if std.Flag == "" {
				return err
			}
			return fmt.Errorf("%s -: %w", std.Flag, err)
		}
	}
	return nil
}

// flagged prefixes a write error with the flag that named the file it failed on and its
// argument ("--trace FILE", "--dump ARG"), so "write X: ..." says which of several outputs it was.
func flagged(err error, outs []Output) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		for _, o := range outs {
			if o.Path == pe.Path && o.Flag != "" {
				name := o.Flag
				if !strings.Contains(name, " ") {
					name += " " + o.Path
				}
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return err
}

// NotTheInput refuses an output that names the command's input file (the same file, through
// any path or link): `asm prog.s -o prog.s` replaced the source with its words, and `run
// prog.tpb --trace prog.tpb` with a trace. input "-" (standard input) and outputs "-" are no
// file; an input that cannot be read is left for the reading to report.
func NotTheInput(input string, outs ...Output) error {
	if input == StdoutPath {
		return nil
	}
	in, err := os.Stat(input)
	if err != nil {
		return nil
	}
	for _, o := range outs {
		if o.Path == StdoutPath {
			continue
		}
		if out, err := os.Stat(o.Path); err == nil && os.SameFile(in, out) {
			return fmt.Errorf("%s: %s is the input file %s: writing it would replace the input (name another output file)", o.Flag, o.Path, input)
		}
	}
	return nil
}

// IsDevNull reports whether path is the null device (os.DevNull, through any link): an output
// sent there is discarded rather than refused as "not a regular file" (`asm x.s -o /dev/null`
// checks a source without keeping its words).
func IsDevNull(path string) bool {
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
