package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/timing"
)

// timingFlags are --timing and --summary of run, demo and dge run.
type timingFlags struct {
	timingFile string
	summary    string
}

func (tf *timingFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&tf.timingFile, "timing", "", "calibrate the timing model: a JSON file of constants (the form `tpbsim explain timing --json` prints; partial files keep the other defaults)")
	fl.StringVar(&tf.summary, "summary", "", "write the run's timing summary as JSON (end_ns, per-engine busy/wait/idle, DMA bandwidth, critical path, bottleneck; - for standard output)")
}

// table reads --timing onto generation g's defaults (nil without the flag). Any problem is a
// usage error naming the file and the key.
func (tf *timingFlags) table(g isa.Generation) (*timing.Table, error) {
	if tf.timingFile == "" {
		return nil, nil
	}
	f, err := os.Open(tf.timingFile)
	if err != nil {
		return nil, ioErr(fmt.Errorf("--timing: %w", err))
	}
	defer f.Close()
	t := timing.Default(g)
	if err := t.Apply(tf.timingFile, f); err != nil {
		return nil, ioErr(fmt.Errorf("--timing: %w", err))
	}
	return &t, nil
}

// outFlags is --summary as an output file to check up front (none for "-", which goes to
// standard output after every file is written).
func (tf *timingFlags) outFlags() []outFlag {
	if tf.summary == "" || tf.summary == stdoutPath {
		return nil
	}
	return []outFlag{{"--summary", tf.summary}}
}

// toStdout reports --summary -; others are the other outputs' paths, of which none may also
// be "-".
func (tf *timingFlags) toStdout(others ...string) (bool, error) {
	if tf.summary != stdoutPath {
		return false, nil
	}
	for _, o := range others {
		if o == stdoutPath {
			return true, ioErr(errors.New("--summary -: standard output already carries another output given as - (only one output may go there)"))
		}
	}
	return true, nil
}

func summaryJSON(s *sim.Summary) []byte {
	var b bytes.Buffer
	s.WriteJSON(&b) // to memory: no error
	return b.Bytes()
}

// files is the --summary output to write with the command's other files (none for "-").
func (tf *timingFlags) files(s *sim.Summary) []output {
	if tf.summary == "" || tf.summary == stdoutPath {
		return nil
	}
	return []output{{tf.summary, summaryJSON(s)}}
}

// writeStdout writes the summary to stdout for --summary -.
func (tf *timingFlags) writeStdout(s *sim.Summary, stdout io.Writer) error {
	if tf.summary != stdoutPath {
		return nil
	}
	if _, err := stdout.Write(summaryJSON(s)); err != nil {
		return ioErr(fmt.Errorf("--summary -: %w", err))
	}
	return nil
}
