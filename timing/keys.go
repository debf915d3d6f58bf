package timing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Key is one constant of the model: its JSON name, unit, what it means, and its provenance.
type Key struct {
	Name       string // JSON key and, prefixed "timing.", the registry id
	Unit       string
	Text       string
	Source     string
	Confidence isa.Confidence
	Reason     string // why this value; the alternative where the sources disagree
	field      func(*Table) *float64
}

const srcArch = "TIMING.md: the architecture guides (trainium_inferentia2_arch, trainium2_arch, trainium3_arch)"
const srcISA = "TIMING.md: the NKI ISA stub's \"Estimated instruction cost\" sections (to release 2.26)"
const srcBW = "TIMING.md: nki-dma-bandwidth-guide"
const srcDMA = "TIMING.md: nki-dma-overview and nki-dma-bandwidth-guide"

// Keys lists every constant of a Table, in the order explain prints them.
var Keys = []Key{
	{"clock.dve_ghz", "GHz", "Vector Engine clock (the DVE queue)", srcArch, isa.HighObserved,
		"SUNDA 1.12, CAYMAN 0.96, MARIANA 1.2 as the guides give them (not the 1.4 GHz of the NC-v2 SBUF figure)", func(t *Table) *float64 { return &t.DVEClockGHz }},
	{"clock.act_ghz", "GHz", "Scalar Engine clock (the ACT queue; SP, which issues only DMAs, is given this clock too)", srcArch, isa.HighObserved,
		"the SP queue's clock is the project's choice (INVENTED): its only cost is dge.issue_ns", func(t *Table) *float64 { return &t.ACTClockGHz }},
	{"clock.pool_ghz", "GHz", "GpSimd clock (the POOL queue)", srcArch, isa.HighObserved, "", func(t *Table) *float64 { return &t.POOLClockGHz }},
	{"clock.pe_ghz", "GHz", "Tensor Engine clock (the PE queue)", srcArch, isa.HighObserved, "", func(t *Table) *float64 { return &t.PEClockGHz }},

	{"ve.min_ii_cycles", "cycles", "MIN_II: the floor of every Vector Engine cost formula (tensor_copy, transpose, shuffle max(MIN_II, N))", srcISA, isa.HighObserved,
		"\"~64 engine cycles\"; applied to every S4D4_TR opcode, also on the ACT and POOL queues (INFERRED: the stub gives formulas for the VE)", func(t *Table) *float64 { return &t.MinIICycles }},
	{"ve.static_cycles", "cycles", "static overhead added to a tiny instruction (formula below MIN_II) or a dependent one (it waited on a semaphore)", srcISA, isa.MedInferred,
		"\"add ~100 cycles of static overhead for tiny or back-to-back dependent instructions\"; reading \"dependent\" as \"issued after a semaphore wait\" is the project's", func(t *Table) *float64 { return &t.StaticCycles }},
	{"ve.reciprocal_cycles_per_elem", "cycles/elem", "Vector Engine reciprocal: max(MIN_II, k N)", srcISA, isa.HighObserved, "k = 8", func(t *Table) *float64 { return &t.ReciprocalCyclesPerElem }},
	{"ve.act_reciprocal_cycles_per_elem", "cycles/elem", "Scalar Engine (ACT queue) reciprocal: max(MIN_II, k N)", srcISA, isa.HighObserved, "k = 1", func(t *Table) *float64 { return &t.ACTReciprocalCycles }},
	{"ve.reduce_bf16_factor", "x", "tensor_reduce costs N cycles, times this when input and output are both bf16 and the op is add or max", srcISA, isa.HighObserved,
		"N/2; TRANSPOSE_TENSOR_REDUCE is costed as one pass of the same formula (INVENTED: no public figure for the fused opcode), TENSOR_CUMULATIVE as max(MIN_II, N) (INFERRED: tensor_tensor_scan's 2N has two inputs)", func(t *Table) *float64 { return &t.ReduceBF16Factor }},
	{"ve.access_cycles", "cycles", "one SBUF access request: an instruction completes (its SEM_*_COMPLETE update) this long after its reads are done", srcISA, isa.MedInferred,
		"\"each access request costs ~60 cycles\"; charging it once per instruction, as the write-back latency that does not hold the queue, is the project's reading", func(t *Table) *float64 { return &t.AccessCycles }},
	{"ve.perf_mode_2byte", "x", "NC-v3+ perf mode: COPY / CAST (tensor_copy) with bf16/fp16 in and out, SBUF source and destination, contiguous innermost dims run this much faster (1 = no perf mode)", srcArch, isa.HighObserved,
		"4x on NC-v3 (512 bf16 elements per cycle), none on NC-v2 (128 elements per cycle); tensor_scalar has no tpbsim opcode", func(t *Table) *float64 { return &t.PerfMode2Byte }},
	{"ve.perf_mode_other", "x", "the same copies with other dtypes (the 256-wide datapath of NC-v3/v4)", srcArch, isa.MedInferred,
		"the guide's \"2x in partial cases\" read as the 256 elements per cycle the datapath gives other types (the project's reading)", func(t *Table) *float64 { return &t.PerfModeOther }},
	{"ve.perf_mode_fp8", "0/1", "1: fp8 counts as 2-byte class for the perf mode (NC-v4: 512 elements per cycle for BF16/FP16/FP8)", srcArch, isa.HighObserved, "", func(t *Table) *float64 { return &t.PerfModeFP8 }},
	{"sbuf.stride_limit_bytes", "B", "an innermost source or destination stride above this many bytes ...", srcArch, isa.HighObserved,
		"\"an innermost stride above 16 bytes halves the bandwidth\" (SBUF interface)", func(t *Table) *float64 { return &t.StrideLimitBytes }},
	{"sbuf.stride_factor", "x", "... multiplies the engine's element rate by this", srcArch, isa.HighObserved, "halves: 0.5", func(t *Table) *float64 { return &t.StrideFactor }},

	{"dma.bytes_per_ns", "B/ns", "one DMA engine's peak copy bandwidth", srcBW, isa.MedInferred,
		"sources disagree: 17 / 23 / 33 B/ns (bandwidth guide: 272 / 368 / 528 GB/s per NeuronCore over 16 engines) is chosen, as it matches the measured [4, 4096] bf16 load (32 KiB in 1416 ns = 23.1 B/ns); the alternatives are 27.2 GB/s (NC-v2/v3) and 38.4 GB/s (NC-v4) \"theoretical\" (DMA overview) and 27 GiB/s (NC-v2 guide)", func(t *Table) *float64 { return &t.DMABytesPerNs }},
	{"dma.row_overhead_bytes", "B", "each contiguous run of a descriptor (a partition row) costs this many bytes' time at peak, on top of its bytes: a run of b bytes moves at b/(b+k) of peak", srcBW, isa.Invented,
		"the guide gives only the shape (< 256 B per partition a small fraction of peak, 2 KiB approaching it, >= 4 KiB saturating); k = 384 gives 40% at 256 B, 84% at 2 KiB, 91% at 4 KiB, 96% at 8 KiB (the [4, 4096] bf16 load then takes 1491 ns, 5% over the measured 1416)", func(t *Table) *float64 { return &t.DMARowOverheadBytes }},
	{"dma.descriptor_ns", "ns", "fixed cost of one descriptor on its engine", srcDMA, isa.Invented,
		"no public figure apart from the per-transfer ~1300 ns (dma.sem_to_start_ns) and the per-run overhead (dma.row_overhead_bytes); the measured 1416 ns load leaves no room for more", func(t *Table) *float64 { return &t.DMADescriptorNs }},
	{"dma.descriptor_gen_ns", "ns", "the hardware DGE's cost per descriptor it generates, after the instruction's dge.issue_ns (the MARIANA_PLUS ring-credit fast path keeps the DGE model's own 25 ns)", srcDMA, isa.Invented,
		"\"~600 ns per DGE-based DMA instruction\" is read as covering the generation of its descriptors; a per-descriptor cost would put the last of 16 engines far behind the first, and the guide's saturation at >= 4 KiB per partition forbids that", func(t *Table) *float64 { return &t.DMADescriptorGenNs }},
	{"dma.xbar_hbm_factor", "x", "DMA transpose (crossbar) from HBM: fraction of the copy throughput of the same bytes", srcDMA, isa.HighObserved, "\"up to 90%\" (Trn2), applied on every generation", func(t *Table) *float64 { return &t.DMAXbarHBMFactor }},
	{"dma.xbar_sbuf_factor", "x", "DMA transpose SBUF -> SBUF: fraction of the copy throughput", srcDMA, isa.HighObserved, "\"up to 50%\" (Trn2), applied on every generation", func(t *Table) *float64 { return &t.DMAXbarSBUFFactor }},
	{"dma.compute_factor", "x", "a DMA with a compute_op (read-modify-write of the destination): fraction of the copy throughput", srcDMA, isa.MedInferred,
		"Trn3 SBUF read-add-write by DMA runs at full copy throughput (1.0 from MARIANA); before v4 it went through the collective-compute engines at 50%", func(t *Table) *float64 { return &t.DMAComputeFactor }},
	{"dma.partitions_per_engine", "partitions", "SBUF partitions one DMA engine serves: a descriptor whose SBUF side lies within one such group of partitions runs on the engine of that group (0 = keep the DGE's engines)", srcDMA, isa.MedInferred,
		"\"each engine typically serves 8 SBUF partitions (128 / 16): a transfer is spread over the engines by partition\"; descriptors spanning several groups keep the engine the DGE gave them (tpbsim does not split them)", func(t *Table) *float64 { return &t.DMAPartitionsPerEng }},
	{"dge.issue_ns", "ns", "what a hardware-DGE DMA instruction costs its issuing queue (SP, ACT); its descriptors start after it", srcDMA, isa.HighObserved, "\"~600 ns per DGE-based DMA instruction (NC-v3)\", applied on every generation", func(t *Table) *float64 { return &t.DGEIssueNs }},
	{"dge.pool_issue_ns", "ns", "what a DMA instruction costs the POOL queue (software DGE on GpSimd)", srcDMA, isa.Invented, "no public figure for software DGE; the hardware DGE's 600 ns", func(t *Table) *float64 { return &t.DGEPoolIssueNs }},
	{"dma.sem_to_start_ns", "ns", "from a DMA's completion semaphore update (its last descriptor's end) to the start of an engine waiting on it", srcDMA, isa.MedInferred,
		"\"per-transfer setup + synchronisation + semaphore-to-start latency ~1300 ns across engines\": all of it is put after the data (setup before it is dge.issue_ns)", func(t *Table) *float64 { return &t.DMASemToStartNs }},
	{"sync.engine_sem_ns", "ns", "from a compute instruction's semaphore update to the waiting engine", srcISA, isa.Invented,
		"no public figure; a dependent instruction pays ve.static_cycles instead", func(t *Table) *float64 { return &t.EngineSemNs }},
	{"dma.completion_bytes", "B", "the completion update each engine of a transfer writes; an engine with no data writes only this", srcDMA, isa.HighObserved,
		"\"engines with no data write only a 4-byte update\"; at 4 B the update takes no modelled time: it is written at the transfer's start (dma.sem_increment)", func(t *Table) *float64 { return &t.DMACompletionBytes }},
}

// Lookup finds a key by name.
func Lookup(name string) (Key, bool) {
	for _, k := range Keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// Value is the constant k of table t.
func (k Key) Value(t *Table) float64 { return *k.field(t) }

// Values renders the key's value on every generation, extrapolated ones marked "*".
func (k Key) Values() string {
	var parts []string
	for _, g := range isa.Generations {
		t := Default(g)
		s := fmt.Sprintf("%v %s", g, fmtNum(k.Value(&t)))
		if Extrapolated(g) {
			s += "*"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Provenance lists a registry entry per constant (id "timing.<key>"), and the model's
// behaviours.
func Provenance() []isa.Provenance {
	out := []isa.Provenance{{ID: "timing.model", Kind: "behaviour",
		Text: "Instruction and DMA times come from the generation's timing table (tpbsim explain timing): a compute instruction holds its queue " +
			"for its cost formula's cycles at the queue's clock and completes ve.access_cycles later; a DMA instruction holds its queue for " +
			"dge.issue_ns, then each descriptor takes dma.descriptor_ns + (bytes + runs x dma.row_overhead_bytes) / dma.bytes_per_ns (x the transpose " +
			"or compute factor) on its engine, and the completion reaches a waiting engine dma.sem_to_start_ns after the last descriptor. " +
			"MARIANA_PLUS and MAVERICK (marked *) repeat MARIANA's figures, MAVERICK's 8 DMA engines at twice the per-engine bandwidth.",
		Source: "shared/spec/TIMING.md", Confidence: isa.MedInferred,
		Reason: "a first-order model from the public figures, each reproduced by a test (timing/figures_test.go); --timing FILE.json calibrates any constant"}}
	out = append(out,
		isa.Rule(RuleCalibration, "A calibration file (--timing FILE.json) is one JSON object of keys `tpbsim explain timing --json` prints, each a finite number >= 0, optionally with \"gen\" naming the run's generation, or such objects keyed by generation; a key given twice is refused. A refused file changes nothing.",
			"shared/spec/TIMING.md", isa.Invented, []string{"gen", "key"},
			"the file form is tpbsim's own; refusing rather than ignoring what it cannot apply keeps a typo from running on the defaults unnoticed"))
	for _, k := range Keys {
		txt := fmt.Sprintf("%s [%s]: %s", k.Text, k.Unit, k.Values())
		if strings.Contains(k.Values(), "*") {
			txt += " (* extrapolated from MARIANA: no public figure)"
		}
		out = append(out, isa.Provenance{ID: "timing." + k.Name, Kind: "behaviour", Text: txt, Source: k.Source, Confidence: k.Confidence, Reason: k.Reason})
	}
	return out
}

// Values returns the table as key -> value, the JSON form.
func (t *Table) Values() map[string]float64 {
	m := make(map[string]float64, len(Keys))
	for _, k := range Keys {
		m[k.Name] = k.Value(t)
	}
	return m
}

// MarshalJSON writes {"gen": G, key: value, ...} with the keys in Keys order.
func (t Table) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"gen\": %q", t.Gen.String())
	for _, k := range Keys {
		fmt.Fprintf(&b, ",\n  %q: %s", k.Name, fmtNum(k.Value(&t)))
	}
	b.WriteString("\n}")
	return b.Bytes(), nil
}

// DefaultsJSON is every generation's table, {"SUNDA": {...}, "CAYMAN": {...}, ...}: the form
// `tpbsim explain timing --json` prints and Apply reads back.
func DefaultsJSON() []byte {
	var b bytes.Buffer
	b.WriteString("{")
	for i, g := range isa.Generations {
		if i > 0 {
			b.WriteString(",")
		}
		t := Default(g)
		js, _ := t.MarshalJSON()
		fmt.Fprintf(&b, "\n%q: %s", g.String(), bytes.ReplaceAll(js, []byte("\n"), []byte("\n  ")))
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// RuleCalibration is the rule a calibration file that cannot be applied breaks: a JSON object
// of known keys, each a finite number >= 0, for the table's generation.
const RuleCalibration = "timing.calibration"

// Error is a calibration file that cannot be applied: Key names the key (or generation.key) at
// fault. It unwraps to fault.ErrInvalid; its path is the file and the key.
type Error struct {
	File string
	Key  string
	Msg  string
}

func (e *Error) Unwrap() error  { return fault.ErrInvalid }
func (e *Error) RuleID() string { return RuleCalibration }

// ErrPath is "FILE: KEY" (either part left out when unknown).
func (e *Error) ErrPath() string {
	switch {
	case e.Key == "":
		return e.File
	case e.File == "":
		return e.Key
	}
	return e.File + ": " + e.Key
}

func (e *Error) Error() string {
	loc := e.File
	if loc == "" {
		loc = "timing"
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: key %q: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// Apply reads a calibration file into t: a JSON object of key -> number (partial files keep
// the other defaults), optionally with "gen" naming t's generation, or an object keyed by
// generation names whose entry for t.Gen is such an object (Defaults' form; other
// generations' entries are checked and ignored). An unknown key, a value that is not a finite
// number >= 0, a "gen" naming another generation or a duplicate key is refused, naming the key;
// t is then unchanged.
func (t *Table) Apply(name string, r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return &Error{File: name, Msg: err.Error()}
	}
	top, err := object(data, name, "")
	if err != nil {
		return err
	}
	byGen := len(top) > 0
	for _, kv := range top {
		if _, err := isa.ParseGeneration(kv.key); err != nil {
			byGen = false
		}
	}
	nt := *t
	if byGen {
		for _, kv := range top {
			g, _ := isa.ParseGeneration(kv.key)
			sub, err := object(kv.raw, name, kv.key)
			if err != nil {
				return err
			}
			scratch := Default(g)
			dst := &scratch
			if g == t.Gen {
				dst = &nt
			}
			if err := dst.set(name, kv.key+".", sub); err != nil {
				return err
			}
		}
	} else if err := nt.set(name, "", top); err != nil {
		return err
	}
	*t = nt
	return nil
}

type kv struct {
	key string
	raw json.RawMessage
}

// object decodes one JSON object keeping key order and refusing duplicates.
func object(data []byte, file, where string) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		msg := "must be a JSON object of key: number"
		if err != nil {
			msg += " (" + err.Error() + ")"
		}
		return nil, &Error{File: file, Key: strings.TrimSuffix(where, "."), Msg: msg}
	}
	var out []kv
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &Error{File: file, Msg: err.Error()}
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, &Error{File: file, Key: where + key, Msg: err.Error()}
		}
		if seen[key] {
			return nil, &Error{File: file, Key: where + key, Msg: "given twice"}
		}
		seen[key] = true
		out = append(out, kv{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, &Error{File: file, Msg: err.Error()}
	}
	if dec.More() {
		return nil, &Error{File: file, Msg: "trailing data after the object"}
	}
	return out, nil
}

func (t *Table) set(file, where string, kvs []kv) error {
	for _, e := range kvs {
		if e.key == "gen" {
			var s string
			if err := json.Unmarshal(e.raw, &s); err != nil {
				return &Error{File: file, Key: where + "gen", Msg: "must be a generation name"}
			}
			g, err := isa.ParseGeneration(s)
			if err != nil {
				return &Error{File: file, Key: where + "gen", Msg: err.Error()}
			}
			if g != t.Gen {
				return &Error{File: file, Key: where + "gen", Msg: fmt.Sprintf("the file is for %v, the run is on %v (drop \"gen\", or key the file by generation as `tpbsim explain timing --json` prints it)", g, t.Gen)}
			}
			continue
		}
		k, ok := Lookup(e.key)
		if !ok {
			return &Error{File: file, Key: where + e.key, Msg: "unknown key (the keys are those `tpbsim explain timing --json` prints: " + keyList() + ")"}
		}
		var v float64
		if err := json.Unmarshal(e.raw, &v); err != nil {
			return &Error{File: file, Key: where + e.key, Msg: fmt.Sprintf("%s: must be a number", e.raw)}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return &Error{File: file, Key: where + e.key, Msg: fmt.Sprintf("%s: must be a finite number >= 0", e.raw)}
		}
		*k.field(t) = v
	}
	return nil
}

func keyList() string {
	names := make([]string, len(Keys))
	for i, k := range Keys {
		names[i] = k.Name
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
