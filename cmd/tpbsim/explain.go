package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/dve"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/kernel"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/sim"
	"github.com/tpbsim/tpbsim/timing"
	"github.com/tpbsim/tpbsim/ucode"
)

// provenanceSources are the registries `tpbsim explain` searches: the isa rule registry and the
// behaviour entries of every package that models hardware (provenance.go).
var provenanceSources = []func() []isa.Provenance{
	isa.Registry, numProvenance, mem.Provenance, dve.Provenance, dma.Provenance, dge.Provenance,
	sim.Provenance, ucode.Provenance, timing.Provenance, kernel.Provenance,
}

func allProvenance() []isa.Provenance {
	var out []isa.Provenance
	for _, f := range provenanceSources {
		out = append(out, f()...)
	}
	return out
}

func newExplainCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		asJSON bool
		gen    string
	)
	c := &cobra.Command{
		Use:   "explain RULE|OPCODE|rules|opcodes|behaviours|timing",
		Short: "Explain a rule, a modelled behaviour or an opcode, with its provenance",
		Long: `explain RULE prints a rule's text, the fields it reads, its source (seed or FACTS
section) and confidence, and the opcodes it applies to. explain OPCODE (a name or a number)
prints the opcode's engine, generations, struct layout and the rules that apply per generation.
'explain rules', 'explain opcodes' and 'explain behaviours' list everything.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.EqualFold(args[0], "timing") {
				return explainTiming(stdout, asJSON, gen, cmd.Flags().Changed("gen"))
			}
			if asJSON || cmd.Flags().Changed("gen") {
				return ioErr(fmt.Errorf("explain %s: --json and --gen apply to 'explain timing' only", args[0]))
			}
			return explain(stdout, args[0])
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "explain timing: print the timing tables as JSON, the form --timing FILE.json reads")
	c.Flags().StringVar(&gen, "gen", isa.DefaultGeneration.String(), "explain timing: one generation's table (default: all generations; with --json a flat object for this generation)")
	return c
}

// explainTiming prints the timing model: every constant with its value per generation (or
// one generation's), unit, confidence and source; --json the tables as Apply reads them.
func explainTiming(w io.Writer, asJSON bool, genName string, one bool) error {
	g, err := isa.ParseGeneration(genName)
	if err != nil {
		return ioErr(err)
	}
	if asJSON {
		if one {
			t := timing.Default(g)
			js, _ := t.MarshalJSON()
			_, err := fmt.Fprintf(w, "%s\n", js)
			return err
		}
		_, err := w.Write(timing.DefaultsJSON())
		return err
	}
	fmt.Fprintln(w, "tpbsim's timing model (shared/spec/TIMING.md; * = extrapolated, no public figure). Calibrate with --timing FILE.json;")
	fmt.Fprintln(w, "'tpbsim explain timing --json' prints the defaults in that form, 'tpbsim explain timing.KEY' one constant's reasons.")
	for _, k := range timing.Keys {
		vals := k.Values()
		if one {
			t := timing.Default(g)
			vals = fmt.Sprintf("%v %v", g, k.Value(&t))
		}
		fmt.Fprintf(w, "\n%s [%s] %v\n  %s\n  %s\n  source: %s\n", k.Name, k.Unit, k.Confidence, k.Text, vals, k.Source)
	}
	return nil
}

func explain(w io.Writer, what string) error {
	all := allProvenance()
	switch strings.ToLower(what) {
	case "rules", "behaviours", "behaviors":
		kind := "rule"
		if !strings.HasPrefix(strings.ToLower(what), "rule") {
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
	}
	for _, p := range all {
		if strings.EqualFold(p.ID, what) {
			fmt.Fprint(w, p.Format())
			if p.Kind == "rule" {
				if uses := ruleUses(p.ID); uses != "" {
					fmt.Fprintf(w, "  applies to: %s\n", uses)
				}
			}
			return nil
		}
	}
	if op, err := isa.ParseOpcode(what); err == nil && op.Known() {
		explainOpcode(w, op)
		return nil
	}
	var near []string
	for _, p := range all {
		if strings.Contains(p.ID, strings.ToLower(what)) {
			near = append(near, p.ID)
		}
	}
	msg := fmt.Sprintf("explain: %q is neither a rule, a behaviour nor an opcode tpbsim knows", what)
	if len(near) > 0 {
		msg += " (did you mean: " + strings.Join(near, ", ") + "?)"
	} else {
		msg += " (try 'tpbsim explain rules' or 'tpbsim explain opcodes')"
	}
	return ioErr(fmt.Errorf("%s", msg))
}

// ruleUses lists the opcodes (and generations, when not all) whose rule set contains id.
func ruleUses(id string) string {
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

func explainOpcode(w io.Writer, op isa.Opcode) {
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
	// rule sets, grouping generations with identical lists
	type grp struct {
		gens  []string
		rules []string
	}
	var groups []grp
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
			groups = append(groups, grp{[]string{g.String()}, rs})
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
