package explain_test

import (
	"fmt"
	"os"

	"github.com/tpbsim/tpbsim/explain"
	"github.com/tpbsim/tpbsim/isa"
)

// What `tpbsim explain mask_enable_valid` prints: the rule, the fields it reads, its source and
// confidence, and the opcodes whose rule sets hold it.
func ExampleWrite() {
	if err := explain.Write(os.Stdout, "mask_enable_valid"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// mask_enable_valid (rule)
	//   STREAM_TRANSPOSE: mask_enable is 0 or 1 (the partial-tile mask).
	//   reads:      mask_enable
	//   source:     seed 000 §4.2
	//   confidence: HIGH/OBSERVED
	//   applies to: STREAM_TRANSPOSE
}

// A topic tpbsim does not know is an *explain.UnknownTopicError naming the ids that contain it.
func ExampleWrite_unknown() {
	err := explain.Write(os.Stdout, "no_such_rule")
	fmt.Println(err)
	// Output:
	// explain: "no_such_rule" is neither a rule, a behaviour nor an opcode tpbsim knows (try 'tpbsim explain rules' or 'tpbsim explain opcodes')
}

// Lookup finds an entry of any package's registry: here a behaviour of the timing model.
func ExampleLookup() {
	p, ok := explain.Lookup("timing.dma.bytes_per_ns")
	fmt.Println(ok, p.Kind, p.Confidence)
	// Output:
	// true behaviour MED/INFERRED
}

// One generation's timing table as the JSON `--timing FILE.json` reads (the first lines).
func ExampleWriteTiming() {
	var b limitWriter
	b.lines = 3
	explain.WriteTiming(&b, explain.TimingOptions{Gen: isa.MAVERICK, JSON: true})
	// Output:
	// {
	//   "gen": "MAVERICK",
	//   "clock.dve_ghz": 1.2,
}

// limitWriter prints the first lines of what is written to it.
type limitWriter struct{ lines int }

func (w *limitWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		if w.lines == 0 {
			break
		}
		os.Stdout.Write([]byte{c})
		if c == '\n' {
			w.lines--
		}
	}
	return len(p), nil
}

// RuleProvenance is the entry `tpbsim check` cites for a violation: the instruction layer's
// rule with its confidence for that opcode, else the checking package's entry.
func ExampleRuleProvenance() {
	p, ok := explain.RuleProvenance("has_multiple_32_channels", isa.OpSTREAM_TRANSPOSE)
	fmt.Println(ok, p.Source, p.Confidence)
	_, ok = explain.RuleProvenance("no_such_rule", isa.OpSTREAM_TRANSPOSE)
	fmt.Println(ok)
	// Output:
	// true seed 000 §4.2, common.h:1767 HIGH/OBSERVED
	// false
}
