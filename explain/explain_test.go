package explain

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/demo"
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/timing"
)

// The union Registry returns: ids are unique, every entry names its source and confidence, and
// every INFERRED or INVENTED entry says why; every modelling package contributes.
func TestRegistryWhole(t *testing.T) {
	seen := map[string]bool{}
	prefixes := map[string]int{}
	for _, p := range Registry() {
		t.Run(p.ID, func(t *testing.T) {
			if p.ID == "" {
				t.Fatalf("entry with no id: %+v", p)
			}
			if seen[p.ID] {
				t.Errorf("registered twice")
			}
			if p.Kind != "rule" && p.Kind != "behaviour" {
				t.Errorf("kind %q, want rule or behaviour", p.Kind)
			}
			if strings.TrimSpace(p.Source) == "" || strings.TrimSpace(p.Text) == "" {
				t.Errorf("missing source or text")
			}
			switch p.Confidence.Kind {
			case "OBSERVED", "CARRIED":
			case "INFERRED", "INVENTED":
				if strings.TrimSpace(p.Reason) == "" {
					t.Errorf("%s entry without a reason", p.Confidence)
				}
			default:
				t.Errorf("confidence kind %q", p.Confidence.Kind)
			}
			switch p.Confidence.Level {
			case "HIGH", "MED", "LOW":
			default:
				t.Errorf("confidence level %q", p.Confidence.Level)
			}
		})
		seen[p.ID] = true
		prefixes[strings.SplitN(p.ID, ".", 2)[0]]++
	}
	for _, pkg := range []string{"num", "mem", "dve", "dma", "dge", "sim", "ucode", "isa", "timing", "kernel"} {
		if prefixes[pkg] == 0 {
			t.Errorf("no provenance entries with the %q prefix", pkg)
		}
	}
}

// Every topic Write takes: each registry id prints its entry (a rule with the opcodes it
// applies to), each opcode its layout, each list something; an unknown one is an
// *UnknownTopicError.
func TestWriteTopics(t *testing.T) {
	type tc struct {
		topic, want string
	}
	cases := []tc{
		{"has_multiple_32_channels", "applies to: STREAM_SHUFFLE, STREAM_TRANSPOSE"},
		{"HAS_MULTIPLE_32_CHANNELS", "seed 000 §4.2"},
		{"STREAM_TRANSPOSE", "38  1      mask_enable"},
		{"0xf1", "rules on CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK"},
		{"isa.addr8_address_map", "INVENTED"},
		{"num.cast.via_fp32", "num.cast.via_fp32 (behaviour)"},
		{"rules", "has_multiple_32_channels"},
		{"behaviours", "timing.model"},
		{"behaviors", "timing.model"},
		{"conflicts", "  choice:  "},
		{"opcodes", "STREAM_TRANSPOSE"},
		{"timing", "dma.bytes_per_ns [B/ns]"},
		{"TIMING", "dma.bytes_per_ns [B/ns]"},
	}
	for _, p := range Registry() {
		cases = append(cases, tc{p.ID, p.ID + " (" + p.Kind + ")"})
	}
	for _, op := range isa.AllOpcodes {
		cases = append(cases, tc{op.String(), "(opcode 0x"})
	}
	for _, c := range cases {
		t.Run(c.topic, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, c.topic); err != nil || !strings.Contains(b.String(), c.want) {
				t.Errorf("Write(%q) = %v, want text containing %q:\n%s", c.topic, err, c.want, b.String())
			}
		})
	}
	for _, c := range []struct {
		topic string
		near  []string
	}{
		{"no_such_rule", nil},
		{"mask_enable", []string{"mask_enable_valid", "mask_enable_zero"}},
	} {
		t.Run("unknown "+c.topic, func(t *testing.T) {
			var b bytes.Buffer
			err := Write(&b, c.topic)
			var u *UnknownTopicError
			if !errors.As(err, &u) || u.Topic != c.topic || b.Len() != 0 {
				t.Fatalf("Write(%q) = %v, printed %q", c.topic, err, b.String())
			}
			if p := fault.Path(fault.Wrap("explain", err)); p != "explain: topic" {
				t.Errorf("path %q", p)
			}
			for _, n := range c.near {
				if !strings.Contains(strings.Join(u.Near, ","), n) {
					t.Errorf("Near %v lacks %s", u.Near, n)
				}
			}
		})
	}
}

// WriteTiming: every generation (text and JSON), or one; an invalid generation is refused.
func TestWriteTiming(t *testing.T) {
	for _, c := range []struct {
		name string
		o    TimingOptions
		want string
	}{
		{"all text", TimingOptions{}, "SUNDA 17, CAYMAN 23, MARIANA 33, MARIANA_PLUS 33*, MAVERICK 66*"},
		{"one text", TimingOptions{Gen: isa.SUNDA}, "\n  SUNDA 17\n"},
		{"all json", TimingOptions{JSON: true}, `"MAVERICK": {`},
		{"one json", TimingOptions{Gen: isa.CAYMAN, JSON: true}, `"dma.bytes_per_ns": 23`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTiming(&b, c.o); err != nil || !strings.Contains(b.String(), c.want) {
				t.Errorf("%v: %v, want %q in:\n%s", c.o, err, c.want, b.String())
			}
		})
	}
	if err := WriteTiming(&bytes.Buffer{}, TimingOptions{Gen: isa.MAVERICK + 1}); fault.Rule(err) != isa.RuleGeneration {
		t.Errorf("invalid generation: %v", err)
	}
}

// A failing writer's error comes back from Write, not a silent exit 0.
func TestWriteError(t *testing.T) {
	for _, topic := range []string{"rules", "STREAM_TRANSPOSE", "mask_enable_valid", "timing"} {
		t.Run(topic, func(t *testing.T) {
			if err := Write(failWriter{}, topic); !errors.Is(err, errFail) {
				t.Errorf("Write(%q) = %v, want the writer's error", topic, err)
			}
		})
	}
}

var errFail = errors.New("disk full")

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, errFail }

// runtimeRuleIDs is every rule id a run, a plan or the executors can put in an error.
func runtimeRuleIDs() []string {
	var out []string
	out = append(out, sim.RuleIDs()...)
	out = append(out, mem.RuleIDs()...)
	out = append(out, dve.RuleIDs()...)
	out = append(out, dma.RuleIDs()...)
	return append(out, dge.RuleIDs()...)
}

// Every rule id the runtime can put in an error is one explain knows.
func TestKnowsEveryRuntimeRule(t *testing.T) {
	for _, id := range runtimeRuleIDs() {
		t.Run(id, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, id); err != nil || !strings.HasPrefix(b.String(), id+" (") {
				t.Errorf("Write(%q) = %v, printed %q", id, err, b.String())
			}
		})
	}
}

// ruleLiteral finds rule ids written as string literals where the runtime builds its errors;
// each must be in the packages' RuleIDs lists (and so known to explain).
var ruleLiteral = []*regexp.Regexp{
	regexp.MustCompile(`Rule:\s*"([^"]+)"`),
	regexp.MustCompile(`\berrf\([^,()]+,\s*"([^"]+)"`),
	regexp.MustCompile(`\bfail\([^,()]+,\s*[^,()]+,\s*"([^"]+)"`),
	regexp.MustCompile(`\b(?:reqErr|unsupErr)\(\s*"([^"]+)"`),
	regexp.MustCompile(`\binstErr\([^,()]+,[^,()]+,[^,()]+,\s*"([^"]+)"`),
}

func TestRuntimeRuleLiteralsAreListed(t *testing.T) {
	known := map[string]bool{}
	for _, id := range runtimeRuleIDs() {
		known[id] = true
	}
	for _, dir := range []string{"sim", "dma", "mem", "dve", "dge"} {
		t.Run(dir, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("..", dir, "*.go"))
			if len(files) == 0 {
				t.Fatalf("no sources in %s", dir)
			}
			for _, f := range files {
				if strings.HasSuffix(f, "_test.go") {
					continue
				}
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, re := range ruleLiteral {
					for _, m := range re.FindAllStringSubmatch(string(src), -1) {
						if !known[m[1]] {
							t.Errorf("%s: rule %q is in no RuleIDs list", f, m[1])
						}
					}
				}
			}
		})
	}
}

// The rule ids the library's own typed errors name outside the runtime lists are registered.
func TestLibraryRuleIDsRegistered(t *testing.T) {
	for _, id := range []string{isa.RuleGeneration, timing.RuleCalibration, sim.RuleExpectMet, sim.RuleDGEVerifyMatches,
		demo.RuleResultsMatch, npy.RuleFormat} {
		t.Run(id, func(t *testing.T) {
			if p, ok := Lookup(id); !ok || p.Kind != "rule" {
				t.Errorf("Lookup(%q) = %+v, %v", id, p, ok)
			}
		})
	}
}
