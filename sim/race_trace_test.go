package sim

import "github.com/tpbsim/tpbsim/internal/trace"

// instSlices is the trace's instruction and descriptor slices (without wait and failure slices).
func instSlices(tr *trace.Trace) []trace.Event {
	var out []trace.Event
	for _, e := range tr.Events() {
		if e.Cat != TraceCatWait && e.Cat != TraceCatFailure {
			out = append(out, e)
		}
	}
	return out
}
