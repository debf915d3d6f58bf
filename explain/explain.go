// Package explain is `tpbsim explain` as a library: the provenance registries of every package
// that models hardware gathered into one list (Registry), looked up by id (Lookup), and the
// text the command prints for a rule, a behaviour, an opcode, the lists of them, the conflicts
// between sources (Write) and the timing model's constants (WriteTiming).
//
// The registry entries stay in the packages that make the decisions (each package's
// provenance.go); this package only walks them, so it sits above every modelling package and
// below the command line.
package explain

import (
	"errors"
	"fmt"
	"github.com/tpbsim/tpbsim/asm"
	"io"
	"strings"

	"github.com/tpbsim/tpbsim/demo"
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/kernel"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/num"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/timing"
	"github.com/tpbsim/tpbsim/ucode"
)

// sources are the registries Registry gathers, in the order the lists print them: the isa rule
// registry, then the behaviour entries of every package that models hardware.
var sources = []func() []isa.Provenance{
	isa.Registry, numProvenance, asm.Provenance, mem.Provenance, dve.Provenance, dma.Provenance, dge.Provenance, dge.IndexProvenance, dge.RequestProvenance,
	sim.Provenance, sim.VerifyProvenance, ucode.Provenance, timing.Provenance, kernel.Provenance, demo.Provenance, npy.Provenance,
}

// Registry returns every registry entry tpbsim has: the rules of the instruction layer and the
// behaviours and rules of every modelling package, each id once.
func Registry() []isa.Provenance {
	var out []isa.Provenance
	for _, f := range sources {
		out = append(out, f()...)
	}
	return out
}

// Lookup finds the entry whose id is id (ignoring case).
func Lookup(id string) (isa.Provenance, bool) {
	for _, p := range Registry() {
		if strings.EqualFold(p.ID, id) {
			return p, true
		}
	}
	return isa.Provenance{}, false
}

// numProvenance adopts the element-type decisions of package num (which does not import isa)
// into the registry's entry type: num writes its confidence as "LEVEL/KIND".
func numProvenance() []isa.Provenance {
	var out []isa.Provenance
	for _, d := range num.Provenance() {
		c := isa.Confidence{Kind: "INFERRED", Level: "MED"}
		if lvl, kind, ok := strings.Cut(d.Confidence, "/"); ok {
			c = isa.Confidence{Kind: kind, Level: lvl}
		}
		kind := "behaviour"
		if d.Kind == "rule" {
			kind = "rule"
		}
		out = append(out, isa.Provenance{
			ID: d.ID, Kind: kind, Text: d.Text, Source: d.Source, Confidence: c, Reason: d.Reason,
		})
	}
	return out
}

// UnknownTopicError is a topic that is neither a registry id, an opcode nor one of the lists.
// It breaks no rule of the hardware, so it has no category; Near lists the ids that contain
// the topic.
type UnknownTopicError struct {
	Topic string
	Near  []string
}

func (e *UnknownTopicError) Error() string {
	msg := fmt.Sprintf("explain: %q is neither a rule, a behaviour nor an opcode tpbsim knows", e.Topic)
	if len(e.Near) > 0 {
		return msg + " (did you mean: " + strings.Join(e.Near, ", ") + "?)"
	}
	return msg + " (try 'tpbsim explain rules' or 'tpbsim explain opcodes')"
}

// RuleID is empty: an unknown topic is a question tpbsim cannot answer, not a broken rule.
func (e *UnknownTopicError) RuleID() string { return "" }

// ErrPath names what was asked about: the topic.
func (e *UnknownTopicError) ErrPath() string { return "topic" }

// Topics are the list topics Write takes besides a registry id or an opcode.
var Topics = []string{"rules", "behaviours", "conflicts", "opcodes", "timing"}

// Write prints what `tpbsim explain TOPIC` prints: for "rules" / "behaviours" (or "behaviors")
// one line per entry, for "conflicts" every conflict between sources with tpbsim's choice, for
// "opcodes" one line per opcode, for "timing" the timing model on every generation; otherwise
// the registry entry whose id is topic (a rule with the opcodes it applies to), else the opcode
// topic names (a name or a number) with its layout and rule sets. An unknown topic is an
// *UnknownTopicError; an error writing to w is returned as it is.
func Write(w io.Writer, topic string) error {
	return render(w, func(w io.Writer) error { return write(w, topic) })
}

func write(w io.Writer, topic string) error {
	all := Registry()
	switch strings.ToLower(topic) {
	case "rules", "behaviours", "behaviors":
		kind := "rule"
		if !strings.HasPrefix(strings.ToLower(topic), "rule") {
			kind = "behaviour"
		}
		for _, p := range all {
			if p.Kind == kind {
				fmt.Fprintf(w, "%-45s %-14v %s\n", p.ID, p.Confidence, p.Source)
			}
		}
		return nil
	case "conflicts":
		for _, c := range isa.Conflicts() {
			fmt.Fprintf(w, "%s\n  between: %s\n  what:    %s\n  choice:  %s\n  see:     tpbsim explain %s\n", c.ID, c.Between, c.What, c.Choice, c.See)
		}
		return nil
	case "opcodes":
		for _, op := range isa.AllOpcodes {
			in, _ := op.Info()
			fmt.Fprintf(w, "0x%02x %-36s %-6v %-18v %v..%v\n", uint8(op), in.Name, in.Engine, in.Struct, in.First, in.Last)
		}
		return nil
	case "timing":
		return writeTiming(w, TimingOptions{})
	}
	for _, p := range all {
		if strings.EqualFold(p.ID, topic) {
			fmt.Fprint(w, p.Format())
			if p.Kind == "rule" {
				if uses := RuleUses(p.ID); uses != "" {
					fmt.Fprintf(w, "  applies to: %s\n", uses)
				}
			}
			return nil
		}
	}
	if op, err := isa.ParseOpcode(topic); err == nil && op.Known() {
		writeOpcode(w, op)
		return nil
	}
	e := &UnknownTopicError{Topic: topic}
	for _, p := range all {
		if strings.Contains(p.ID, strings.ToLower(topic)) {
			e.Near = append(e.Near, p.ID)
		}
	}
	return e
}

// RuleUses lists the opcodes (and generations, when not all of the opcode's) whose rule set
// contains id; more than twelve are counted and cut.
func RuleUses(id string) string {
	var parts []string
	for _, op := range isa.AllOpcodes {
		var gens []string
		n := 0
		for _, g := range isa.Generations {
			if !op.InGen(g) {
				continue
			}
			n++
			for _, r := range isa.RuleSet(op, g) {
				if r == id {
					gens = append(gens, g.String())
					break
				}
			}
		}
		switch {
		case len(gens) == 0:
		case len(gens) == n:
			parts = append(parts, op.String())
		default:
			parts = append(parts, op.String()+" ("+strings.Join(gens, ", ")+")")
		}
	}
	if len(parts) > 12 {
		return fmt.Sprintf("%d opcodes: %s, ...", len(parts), strings.Join(parts[:12], ", "))
	}
	return strings.Join(parts, ", ")
}

// writeOpcode prints an opcode's engine, generations, struct layout (every field's offset and
// size) and its rule sets, generations with the same list grouped.
func writeOpcode(w io.Writer, op isa.Opcode) {
	in, _ := op.Info()
	fmt.Fprintf(w, "%s (opcode 0x%02x)\n", in.Name, uint8(op))
	fmt.Fprintf(w, "  %s\n", in.Doc)
	fmt.Fprintf(w, "  engine:      %v\n", in.Engine)
	fmt.Fprintf(w, "  generations: %v..%v\n", in.First, in.Last)
	l := isa.LayoutOf(op)
	fmt.Fprintf(w, "  struct:      %s (%v)\n", l.CName, in.Struct)
	if l.Partial != "" {
		fmt.Fprintf(w, "  layout note: %s\n", l.Partial)
	}
	fmt.Fprintf(w, "\n  offset  bytes  field\n")
	for _, f := range l.Fields {
		size := fmt.Sprint(f.ByteLen())
		name := f.Path
		if f.Bits != 0 {
			size = fmt.Sprintf("bits %d..%d", f.Shift, f.Shift+f.Bits-1)
		}
		if f.Count > 1 && f.Kind != isa.KBlob {
			name = fmt.Sprintf("%s[%d]", f.Path, f.Count)
		}
		fmt.Fprintf(w, "  %6d  %-5s  %s\n", f.Offset, size, name)
	}
	type group struct {
		gens  []string
		rules []string
	}
	var groups []group
	for _, g := range isa.Generations {
		rs := isa.RuleSet(op, g)
		if rs == nil {
			continue
		}
		key := strings.Join(rs, ",")
		found := false
		for k := range groups {
			if strings.Join(groups[k].rules, ",") == key {
				groups[k].gens = append(groups[k].gens, g.String())
				found = true
			}
		}
		if !found {
			groups = append(groups, group{[]string{g.String()}, rs})
		}
	}
	for _, gr := range groups {
		fmt.Fprintf(w, "\n  rules on %s (in order):\n", strings.Join(gr.gens, ", "))
		for _, r := range gr.rules {
			conf := ""
			if p, ok := isa.LookupFor(r, op); ok {
				conf = p.Confidence.String()
			}
			fmt.Fprintf(w, "    %-45s %s\n", r, conf)
		}
	}
	if len(groups) == 0 {
		fmt.Fprintf(w, "\n  no rules: tpbsim does not model this struct (header and events only)\n")
	}
}

// TimingOptions choose the form of WriteTiming: one generation's values (Gen valid) or every
// generation's (Gen zero), as text or as the JSON that --timing FILE.json reads.
type TimingOptions struct {
	// Gen is the generation to print. The zero value (isa.GenInvalid, which is no generation)
	// means none given: every generation's values; any other invalid value is the
	// *isa.GenerationError of timing.For.
	Gen  isa.Generation
	JSON bool
}

// WriteTiming prints the timing model: every constant with its value per generation (or
// Gen's), its unit, confidence and source; with JSON the tables as timing.Table.Apply reads
// them (one generation's flat object, or every generation's keyed by name).
func WriteTiming(w io.Writer, o TimingOptions) error {
	return render(w, func(w io.Writer) error { return writeTiming(w, o) })
}

func writeTiming(w io.Writer, o TimingOptions) error {
	var one *timing.Table
	if o.Gen != isa.GenInvalid {
		t, err := timing.For(o.Gen)
		if err != nil {
			return err
		}
		one = &t
	}
	if o.JSON {
		if one != nil {
			js, _ := one.MarshalJSON()
			fmt.Fprintf(w, "%s\n", js)
			return nil
		}
		w.Write(timing.DefaultsJSON())
		return nil
	}
	fmt.Fprintln(w, "tpbsim's timing model (shared/spec/TIMING.md; * = extrapolated, no public figure). Calibrate with --timing FILE.json;")
	fmt.Fprintln(w, "'tpbsim explain timing --json' prints the defaults in that form, 'tpbsim explain timing.KEY' one constant's reasons.")
	for _, k := range timing.Keys {
		vals := k.Values()
		if one != nil {
			vals = fmt.Sprintf("%v %v", one.Gen, k.Value(one))
		}
		fmt.Fprintf(w, "\n%s [%s] %v\n  %s\n  %s\n  source: %s\n", k.Name, k.Unit, k.Confidence, k.Text, vals, k.Source)
	}
	return nil
}

// render runs f on w through an errWriter: the first write error wins over f's own.
func render(w io.Writer, f func(io.Writer) error) error {
	ew := &errWriter{w: w}
	err := f(ew)
	if ew.err != nil {
		return ew.err
	}
	return err
}

// errWriter keeps the first write error so the renderers can print without checking each
// line; later writes are dropped.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	} else if n < len(p) {
		e.err = errors.New("short write")
	}
	return len(p), nil
}

// RuleProvenance finds a violated rule's registry entry: the instruction layer's with the
// confidence as applied to op (isa.LookupFor), else the entry of the package that checks it
// (sim's engine check, dve's op checks, ...). It is the sim.RuleLookup `tpbsim check` prints
// each violation's source and confidence with.
func RuleProvenance(rule string, op isa.Opcode) (isa.Provenance, bool) {
	if p, ok := isa.LookupFor(rule, op); ok {
		return p, true
	}
	for _, p := range Registry() {
		if p.ID == rule {
			return p, true
		}
	}
	return isa.Provenance{}, false
}
