package ucode

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// relocatedBits is where VALID, MODE and STAGE sit in each generation, written from seed 004
// §4-§5 (gen2 20 / 21..23 / 24..26, +12 in gen3, VALID at 42 in gen4 with MODE and STAGE above
// it), not read from the package's layouts.
var relocatedBits = map[TableGen]struct{ valid, mode, stage uint }{Gen2: {20, 21, 24}, Gen3: {32, 33, 36}, Gen4: {42, 43, 46}}

func relocatedFields(w LaneWord, g TableGen) (valid, mode, stage uint64) {
	b := relocatedBits[g]
	return uint64(w) >> b.valid & 1, uint64(w) >> b.mode & 7, uint64(w) >> b.stage & 7
}

// TestCrossGenNamesDifferingFields: `dtable diff --op` across generations once named
// only OPA and MUX (the low fields it allows to change) when MODE was what made a lane fail, so a
// reader looked in the wrong field. The synthetic default sets never fail the check (their
// unquoted lanes are relocated gen2 lanes), which is why a run over them could not reproduce it;
// gen4 saturate changes MODE and STAGE bits of its re-configured lanes. Every ordered pair of
// synthetic sets of different generations and every opcode enabled in both: each failing lane
// names exactly the relocated fields whose values differ (computed here from the seed's bit
// positions), and its text line names each with both values and no other relocated field.
func TestCrossGenNamesDifferingFields(t *testing.T) {
	var sets []*TableSet
	for _, name := range FixtureNames() {
		sets = append(sets, mustFixture(t, name))
	}
	seen := map[string]int{}
	for _, a := range sets {
		for _, b := range sets {
			if a.Gen == b.Gen {
				continue
			}
			t.Run(fmt.Sprintf("%s %s vs %s %s", a.Gen, a.Name, b.Gen, b.Name), func(t *testing.T) {
				rep, err := CrossGenCheckAll(a, b, nil)
				if err != nil {
					t.Fatal(err)
				}
				var text strings.Builder
				if err := rep.WriteText(&text); err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(text.String(), "\n")
				ok := true
				for _, r := range rep.Results {
					for _, l := range r.Lanes {
						var want []string
						activeA, activeB := l.A != 0 && l.A != idleWords[a.Gen], l.B != 0 && l.B != idleWords[b.Gen]
						switch {
						case activeA != activeB:
							want = []string{"kind"}
						case activeA:
							va, ma, sa := relocatedFields(l.A, a.Gen)
							vb, mb, sb := relocatedFields(l.B, b.Gen)
							for _, f := range []struct {
								name string
								x, y uint64
							}{{"VALID", va, vb}, {"MODE", ma, mb}, {"STAGE", sa, sb}} {
								if f.x != f.y {
									want = append(want, f.name)
								}
							}
						}
						if !slices.Equal(l.Differs, want) || l.Relocated != (len(want) == 0) {
							t.Errorf("op %d lane %d %#x -> %#x: differs %v relocated %v, want %v", r.Opcode, l.Lane, uint64(l.A), uint64(l.B), l.Differs, l.Relocated, want)
						}
						ok = ok && len(want) == 0
						for _, f := range want {
							seen[f]++
						}
						if len(want) == 0 {
							continue
						}
						line := laneLine(lines, r.Opcode, l)
						for _, f := range []string{"VALID", "MODE", "STAGE"} {
							named := strings.Contains(line, f+" ")
							if slices.Contains(want, f) != named {
								t.Errorf("op %d lane %d: %q names %s: %v, want %v", r.Opcode, l.Lane, line, f, named, slices.Contains(want, f))
							}
						}
						if want[0] != "kind" {
							_, ma, _ := relocatedFields(l.A, a.Gen)
							_, mb, _ := relocatedFields(l.B, b.Gen)
							if slices.Contains(want, "MODE") && !strings.Contains(line, fmt.Sprintf("MODE %d -> %d", ma, mb)) {
								t.Errorf("op %d lane %d: %q lacks the MODE values %d -> %d", r.Opcode, l.Lane, line, ma, mb)
							}
						}
					}
				}
				if rep.OK() != ok {
					t.Errorf("report OK %v, lanes say %v", rep.OK(), ok)
				}
			})
		}
	}
	// The pairs with gen4 saturate hold failing lanes of each kind; without them the test would
	// check nothing that fails.
	for _, f := range []string{"MODE", "STAGE"} {
		if seen[f] == 0 {
			t.Errorf("no failing lane differs in %s: the synthetic sets no longer exercise the naming", f)
		}
	}
}

// laneLine finds the text line of lane l of opcode op in a cross-generation report.
func laneLine(lines []string, op uint8, l CrossGenLane) string {
	in := false
	for _, s := range lines {
		if strings.HasPrefix(s, "op ") {
			in = strings.HasPrefix(s, fmt.Sprintf("op %d ", op))
			continue
		}
		if in && strings.Contains(s, fmt.Sprintf(" lane%d %#x -> %#x", l.Lane, uint64(l.A), uint64(l.B))) {
			return s
		}
	}
	return ""
}
