package ucode

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// CrossGenReport is the seed 004 §5 check of several opcodes across two sets of different
// generations.
type CrossGenReport struct {
	A, B       string // the set names
	GenA, GenB TableGen
	Results    []CrossGenResult
}

// OK reports whether every opcode's relocated fields agree.
func (r CrossGenReport) OK() bool {
	for _, x := range r.Results {
		if !x.OK {
			return false
		}
	}
	return true
}

// CrossGenCheckAll runs CrossGenCheck for each of ops, or, when ops is empty, for every opcode
// but 0 enabled in both sets (which then need their opcode tables, rule ucode.opcode_table).
func CrossGenCheckAll(a, b *TableSet, ops []uint8) (CrossGenReport, error) {
	r := CrossGenReport{A: a.Name, B: b.Name, GenA: a.Gen, GenB: b.Gen}
	if len(ops) == 0 {
		if a.Opcodes == nil || b.Opcodes == nil {
			return r, invalid(RuleOpcodeTable, "", "", "", "a cross-generation check of every opcode needs both opcode tables (name the opcodes to check otherwise)")
		}
		for _, op := range a.Opcodes.Enabled() {
			if op != 0 && b.Opcodes.Entries[op].Enabled() {
				ops = append(ops, op)
			}
		}
	}
	for _, op := range ops {
		x, err := CrossGenCheck(a, b, op)
		if err != nil {
			return r, err
		}
		r.Results = append(r.Results, x)
	}
	return r, nil
}

// WriteText writes the text form `dtable diff` prints across generations: a line per opcode, and
// a line per lane active in either set, marked !! when its relocated fields differ, naming those
// fields with both values (and the low fields that differ, which the check allows).
func (r CrossGenReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("cross-generation check %s %s vs %s %s (VALID/MODE/STAGE after relocation, seed 004 §5)\n", r.GenA, r.A, r.GenB, r.B)
	la, lb := layout(r.GenA), layout(r.GenB)
	for _, x := range r.Results {
		verdict := "ok"
		if !x.OK {
			verdict = "FIELDS DIFFER"
		}
		ew.printf("op %d %s: row %d k=%d -> row %d k=%d: %s\n", x.Opcode, x.Name, x.RowA, x.DepthA, x.RowB, x.DepthB, verdict)
		for _, l := range x.Lanes {
			if l.KindA != LaneActive && l.KindB != LaneActive {
				continue
			}
			mark := "  "
			if !l.Relocated {
				mark = "!!"
			}
			ew.printf("  %s lane%d %#x -> %#x", mark, l.Lane, uint64(l.A), uint64(l.B))
			if len(l.Differs) > 0 {
				ew.printf("  %s", differsText(l, la, lb, r.GenA, r.GenB))
			}
			if len(l.LowDiffers) > 0 {
				ew.printf("  (%s differ)", strings.Join(l.LowDiffers, ", "))
			}
			ew.printf("\n")
		}
	}
	return ew.err
}

// differsText names what makes a lane fail: "MODE 0 -> 1, STAGE 0 -> 4 differ after relocation",
// or "kind idle -> active (the depth differs)".
func differsText(l CrossGenLane, la, lb *LaneLayout, ga, gb TableGen) string {
	if len(l.Differs) == 1 && l.Differs[0] == "kind" {
		return fmt.Sprintf("kind %s -> %s (the depth differs)", l.KindA, l.KindB)
	}
	if la == nil || lb == nil {
		return strings.Join(l.Differs, ", ") + " differ after relocation"
	}
	fa, fb := la.decode(l.A), lb.decode(l.B)
	var parts []string
	for _, name := range l.Differs {
		var va, vb any
		switch name {
		case "VALID":
			va, vb = fa.VALID, fb.VALID
		case "MODE":
			va, vb = fa.MODE, fb.MODE
		case "STAGE":
			va, vb = fa.STAGE, fb.STAGE
		}
		parts = append(parts, fmt.Sprintf("%s %v -> %v", name, va, vb))
	}
	return strings.Join(parts, ", ") + " differ after relocation"
}

// WriteText writes the text form `dtable diff` prints for two sets of one generation.
func (d Diff) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	l := layout(d.Gen)
	if l == nil {
		return d.Gen.Check()
	}
	ew.printf("%s %s vs %s\n", d.Gen, d.A, d.B)
	ew.printf("lane words differing: %d in %d blocks %v\n", len(d.Words), len(d.Blocks), d.Blocks)
	ew.printf("distinct XOR deltas: %d\n", len(d.Deltas))
	for _, x := range d.Deltas {
		ew.printf("  %#016x x%d  (%s)\n", uint64(x.XOR), x.Count, strings.Join(l.differing(x.XOR, 0), " "))
	}
	ew.printf("opcode slots differing: %v\n", []uint8(d.OpcodeSlots))
	ew.printf("opcodes affected: %s\n", FormatOpcodes(d.Opcodes))
	ew.printf("control rows differing: %d %v\nslow rows differing: %d %v\n", len(d.ControlRows), d.ControlRows, len(d.SlowRows), d.SlowRows)
	if len(d.MissingInA) > 0 || len(d.MissingInB) > 0 {
		ew.printf("tables only in B: %v; only in A: %v\n", d.MissingInA, d.MissingInB)
	}
	for _, x := range d.Words {
		ew.printf("  block %d lane %d: %#016x -> %#016x  %s -> %s\n", x.Block, x.Lane, uint64(x.A), uint64(x.B), x.A.Format(d.Gen), x.B.Format(d.Gen))
	}
	return ew.err
}

// Comparison is what `dtable diff` finds: a word-by-word Diff of two sets of one generation, or
// the cross-generation check of sets of two.
type Comparison struct {
	Diff  *Diff
	Cross *CrossGenReport
}

// Compare compares a and b: DiffSets when they are of one generation (ops is not used then),
// CrossGenCheckAll of ops otherwise.
func Compare(a, b *TableSet, ops []uint8) (*Comparison, error) {
	if a.Gen != b.Gen {
		r, err := CrossGenCheckAll(a, b, ops)
		if err != nil {
			return nil, err
		}
		return &Comparison{Cross: &r}, nil
	}
	d, err := DiffSets(a, b)
	if err != nil {
		return nil, err
	}
	return &Comparison{Diff: &d}, nil
}

// OK reports whether the comparison found nothing that breaks a rule: a same-generation diff
// always is; a cross-generation check is when every relocated field agrees.
func (c *Comparison) OK() bool { return c.Cross == nil || c.Cross.OK() }

// WriteText writes the comparison's text form.
func (c *Comparison) WriteText(w io.Writer) error {
	if c.Cross != nil {
		return c.Cross.WriteText(w)
	}
	return c.Diff.WriteText(w)
}

// MarshalJSON renders the Diff, or the cross-generation results as an array.
func (c *Comparison) MarshalJSON() ([]byte, error) {
	if c.Cross != nil {
		return json.Marshal(c.Cross.Results)
	}
	return json.Marshal(c.Diff)
}
