package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tpbsim/tpbsim/internal/atomicfile"
	"github.com/tpbsim/tpbsim/isa"
)

// OutputFile is one file a command writes when its work is done: Path ("-" is standard output,
// the null device discards it), Data, and Flag, how messages name it ("--trace", "--dump ARG").
type OutputFile = atomicfile.Output

// StdoutPath is the output name that means standard output.
const StdoutPath = atomicfile.StdoutPath

// OutputArgs are the outputs of a run as `tpbsim run` and `tpbsim dge run` take them: the
// --dump and --expect arguments (ParseDump, ParseExpect), the --trace, --state and --summary
// paths ("" none, "-" standard output), and the command's input file, which no output may name.
type OutputArgs struct {
	Dumps, Expects        []string
	Trace, State, Summary string
	// DumpOnFailure writes the dumps also when the run stops (a failing instruction, a
	// deadlock, races under RacesError): the memory as the stop left it.
	DumpOnFailure bool
	Input         string
}

// RunOutputs are the outputs of a run, checked before it: what RunFiles / DGEFiles render after
// it and Write writes, whole or not at all (DESIGN.md §7), and the expectations CheckExpects
// compares.
type RunOutputs struct {
	Dumps                 []DumpSpec
	Expects               []ExpectSpec
	Trace, State, Summary string
	DumpOnFailure         bool
}

// Parse checks the outputs against machine m of generation g before anything runs (m and g
// are read only by dumps and expectations: without them m may be nil): the dumps
// fit where they read (CheckDumps), the paths are usable (one "-" unless it is --summary's
// beside files; atomicfile.CheckOutputs) and none names the input, and the --expect reference
// files read. Every error is a usage mistake; the dumps and paths are checked before any
// reference file is read, so a mistake there costs no large read.
func (a OutputArgs) Parse(m *Machine, g isa.Generation) (*RunOutputs, error) {
	o := &RunOutputs{Trace: a.Trace, State: a.State, Summary: a.Summary, DumpOnFailure: a.DumpOnFailure}
	for _, arg := range a.Dumps {
		d, err := ParseDump(arg, g)
		if err != nil {
			return nil, fmt.Errorf("--dump %s: %w", arg, err)
		}
		o.Dumps = append(o.Dumps, d)
	}
	if err := CheckDumps(m, o.Dumps); err != nil {
		return nil, fmt.Errorf("--dump %w", err)
	}
	paths := o.Paths()
	if a.Summary == StdoutPath && atomicfile.ToStdout(paths) {
		return nil, errors.New("--summary -: standard output already carries another output given as - (only one output may go there)")
	}
	if err := atomicfile.CheckOutputs(paths...); err != nil {
		return nil, err
	}
	if a.Input != "" {
		if err := atomicfile.NotTheInput(a.Input, paths...); err != nil {
			return nil, err
		}
	}
	for _, arg := range a.Expects {
		e, err := ParseExpect(m, arg, g)
		if err != nil {
			return nil, fmt.Errorf("--expect %s: %w", arg, err)
		}
		o.Expects = append(o.Expects, e)
	}
	return o, nil
}

// Paths lists the output paths with their flags, --summary - left out (it goes to standard
// output after the files, beside them).
func (o *RunOutputs) Paths() []OutputFile {
	var out []OutputFile
	if o.Summary != "" && o.Summary != StdoutPath {
		out = append(out, OutputFile{Flag: "--summary", Path: o.Summary})
	}
	if o.Trace != "" {
		out = append(out, OutputFile{Flag: "--trace", Path: o.Trace})
	}
	if o.State != "" {
		out = append(out, OutputFile{Flag: "--state", Path: o.State})
	}
	for _, d := range o.Dumps {
		out = append(out, OutputFile{Flag: "--dump " + d.Arg, Path: d.File})
	}
	return out
}

// ToStdout reports whether an output goes to standard output (the command's report then goes
// to stderr).
func (o *RunOutputs) ToStdout() bool {
	return o.Summary == StdoutPath || atomicfile.ToStdout(o.Paths())
}

// CheckExpects compares every expectation with the memory after the run; the first unmet one
// is the error (fault.ErrInvalid, naming the first differing element).
func (o *RunOutputs) CheckExpects(m *Machine) error {
	for _, e := range o.Expects {
		if err := e.Check(m); err != nil {
			return fmt.Errorf("--expect %s: %w", e.Arg, err)
		}
	}
	return nil
}

// RunFiles renders the outputs of a run on m that ended with runErr (nil: it finished): the
// dumps (unless it stopped and DumpOnFailure is not set), the trace, the state and the timing
// summary. The notes say which dumps hold raw bits; only the dumps read m (nil without them).
func (o *RunOutputs) RunFiles(m *Machine, res *Result, runErr error) (files []OutputFile, notes []string, err error) {
	if runErr == nil || o.DumpOnFailure {
		if files, notes, err = o.dumpFiles(m); err != nil {
			return nil, nil, err
		}
	}
	if o.Trace != "" && res.Trace != nil {
		var b bytes.Buffer
		if err := res.Trace.Write(&b); err != nil {
			return nil, nil, err
		}
		files = append(files, OutputFile{Flag: "--trace", Path: o.Trace, Data: b.Bytes()})
	}
	if o.State != "" {
		data, err := res.StateJSON(runErr)
		if err != nil {
			return nil, nil, err
		}
		files = append(files, OutputFile{Flag: "--state", Path: o.State, Data: data})
	}
	return append(files, o.summaryFile(res.Summary())...), notes, nil
}

// DGEFiles renders the outputs of a DGE request run on m (generation g): the dumps, the
// descriptors' trace and the timing summary.
func (o *RunOutputs) DGEFiles(m *Machine, res *DGEResult, g isa.Generation) (files []OutputFile, notes []string, err error) {
	if files, notes, err = o.dumpFiles(m); err != nil {
		return nil, nil, err
	}
	if o.Trace != "" {
		files = append(files, OutputFile{Flag: "--trace", Path: o.Trace, Data: res.TraceJSON(g)})
	}
	return append(files, o.summaryFile(res.Summary)...), notes, nil
}

func (o *RunOutputs) dumpFiles(m *Machine) (files []OutputFile, notes []string, err error) {
	for _, d := range o.Dumps {
		data, err := d.Render(m)
		if err != nil {
			return nil, nil, fmt.Errorf("--dump %s: %w", d.Arg, err)
		}
		files = append(files, OutputFile{Flag: "--dump " + d.Arg, Path: d.File, Data: data})
		if raw, typ := d.RawBits(); raw {
			notes = append(notes, fmt.Sprintf("%s holds %v as raw %s bits (numpy has no %v)", OutputName(d.File), d.Kind, typ, d.Kind))
		}
	}
	return files, notes, nil
}

func (o *RunOutputs) summaryFile(s *Summary) []OutputFile {
	if o.Summary == "" || s == nil {
		return nil
	}
	var b bytes.Buffer
	s.WriteJSON(&b) // to memory: no error
	return []OutputFile{{Flag: "--summary", Path: o.Summary, Data: b.Bytes()}}
}

// Write writes the rendered outputs: every file whole or none of them, then the one that goes
// to standard output (atomicfile.WriteOutputs). An error names the output's flag.
func (o *RunOutputs) Write(files []OutputFile, stdout io.Writer) error {
	return atomicfile.WriteOutputs(files, stdout)
}

// OutputName is how a report names an output path: "standard output" for "-".
func OutputName(path string) string {
	if path == StdoutPath {
		return "standard output"
	}
	return path
}
