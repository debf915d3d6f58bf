package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/tpbsim/tpbsim/isa"
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
	t, err := timing.ReadFile(tf.timingFile, g)
	if err != nil {
		return nil, ioErr(fmt.Errorf("--timing: %w", err))
	}
	return t, nil
}
