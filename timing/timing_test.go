package timing

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Each generation's table is the previous one with exactly the documented patches.
func TestGenerationsPatchThePrevious(t *testing.T) {
	want := map[isa.Generation][]string{
		isa.CAYMAN:       {"clock.act_ghz", "clock.dve_ghz", "clock.pe_ghz", "clock.pool_ghz", "dma.bytes_per_ns", "ve.perf_mode_2byte", "ve.perf_mode_other"},
		isa.MARIANA:      {"clock.dve_ghz", "dma.bytes_per_ns", "dma.compute_factor", "ve.perf_mode_fp8"},
		isa.MARIANA_PLUS: nil,
		isa.MAVERICK:     {"dma.bytes_per_ns", "dma.partitions_per_engine"},
	}
	for i := 1; i < len(isa.Generations); i++ {
		prev, g := isa.Generations[i-1], isa.Generations[i]
		t.Run(g.String(), func(t *testing.T) {
			a, b := Default(prev), Default(g)
			if b.Gen != g {
				t.Errorf("Default(%v).Gen = %v", g, b.Gen)
			}
			var diff []string
			for _, k := range Keys {
				if k.Value(&a) != k.Value(&b) {
					diff = append(diff, k.Name)
				}
			}
			sort.Strings(diff)
			if !reflect.DeepEqual(diff, want[g]) {
				t.Errorf("%v patches %v of %v, want %v", g, diff, prev, want[g])
			}
		})
	}
	for g, want := range map[isa.Generation]bool{isa.SUNDA: false, isa.CAYMAN: false, isa.MARIANA: false, isa.MARIANA_PLUS: true, isa.MAVERICK: true} {
		if Extrapolated(g) != want {
			t.Errorf("Extrapolated(%v) = %v, want %v", g, !want, want)
		}
	}
}

// Every field of Table is a key (so --timing can override any constant), and every key has
// its provenance.
func TestEveryConstantIsAKey(t *testing.T) {
	n := reflect.TypeOf(Table{}).NumField() - 1 // Gen
	if len(Keys) != n {
		t.Errorf("%d keys for %d constants", len(Keys), n)
	}
	seen := map[*float64]bool{}
	tt := Default(isa.CAYMAN)
	for _, k := range Keys {
		if seen[k.field(&tt)] {
			t.Errorf("%s shares its field", k.Name)
		}
		seen[k.field(&tt)] = true
		if k.Source == "" || k.Text == "" || k.Confidence.Kind == "" {
			t.Errorf("%s lacks its provenance", k.Name)
		}
		if k.Confidence == isa.Invented && k.Reason == "" {
			t.Errorf("%s is INVENTED without a reason", k.Name)
		}
	}
	ids := map[string]bool{}
	for _, p := range Provenance() {
		ids[p.ID] = true
	}
	for _, k := range Keys {
		if !ids["timing."+k.Name] {
			t.Errorf("timing.%s not registered", k.Name)
		}
	}
}

func TestApply(t *testing.T) {
	cases := []struct {
		name, file string
		key        string // the key an error names ("" = no error)
		check      func(t *testing.T, tt *Table)
	}{
		{"partial", `{"dma.bytes_per_ns": 25.5}`, "", func(t *testing.T, tt *Table) {
			if tt.DMABytesPerNs != 25.5 || tt.DVEClockGHz != 0.96 {
				t.Errorf("%+v", tt)
			}
		}},
		{"gen matches", `{"gen": "CAYMAN", "clock.dve_ghz": 1}`, "", func(t *testing.T, tt *Table) {
			if tt.DVEClockGHz != 1 {
				t.Error(tt.DVEClockGHz)
			}
		}},
		{"by generation", `{"SUNDA": {"clock.dve_ghz": 3}, "CAYMAN": {"clock.dve_ghz": 2}}`, "", func(t *testing.T, tt *Table) {
			if tt.DVEClockGHz != 2 {
				t.Error(tt.DVEClockGHz)
			}
		}},
		{"unknown key", `{"dma.bytes_per_nss": 1}`, "dma.bytes_per_nss", nil},
		{"unknown key in another generation", `{"SUNDA": {"nope": 1}}`, "SUNDA.nope", nil},
		{"gen differs", `{"gen": "SUNDA"}`, "gen", nil},
		{"negative", `{"dge.issue_ns": -1}`, "dge.issue_ns", nil},
		{"not a number", `{"dge.issue_ns": "600"}`, "dge.issue_ns", nil},
		{"twice", `{"dge.issue_ns": 1, "dge.issue_ns": 2}`, "dge.issue_ns", nil},
		{"not an object", `[1]`, "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tt := Default(isa.CAYMAN)
			before := tt
			err := tt.Apply("t.json", strings.NewReader(c.file))
			if c.check != nil {
				if err != nil {
					t.Fatal(err)
				}
				c.check(t, &tt)
				return
			}
			var te *Error
			if !errors.As(err, &te) || te.Key != c.key || te.File != "t.json" {
				t.Fatalf("err = %v, want one naming key %q", err, c.key)
			}
			if tt != before {
				t.Error("a refused file changed the table")
			}
		})
	}
}

// explain timing --json's forms read back to the defaults.
func TestJSONRoundTrip(t *testing.T) {
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			want := Default(g)
			js, _ := want.MarshalJSON()
			got := Default(g)
			got.DMABytesPerNs = 1
			if err := got.Apply("flat", strings.NewReader(string(js))); err != nil || got != want {
				t.Errorf("%v flat: %v, %+v", g, err, got)
			}
			got.DVEClockGHz = 9
			if err := got.Apply("all", strings.NewReader(string(DefaultsJSON()))); err != nil || got != want {
				t.Errorf("%v by generation: %v, %+v", g, err, got)
			}
		})
	}
}

// An invalid generation is an error, never another generation's table: For refuses it with a
// *isa.GenerationError (rule isa.generation, category fault.ErrInvalid), Default gives the zero
// table, and Extrapolated says no.
func TestInvalidGenerationRefused(t *testing.T) {
	for _, g := range []isa.Generation{isa.GenInvalid, isa.MAVERICK + 1, 0xFF} {
		t.Run(g.String(), func(t *testing.T) {
			_, err := For(g)
			var ge *isa.GenerationError
			if !errors.As(err, &ge) || ge.Gen != g {
				t.Fatalf("For(%v) = %v, want an *isa.GenerationError", g, err)
			}
			if !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != isa.RuleGeneration {
				t.Errorf("For(%v): category %v, rule %q", g, fault.Category(err), fault.Rule(err))
			}
			if d := Default(g); d != (Table{Gen: g}) {
				t.Errorf("Default(%v) = %+v, want the zero table", g, d)
			}
			if Extrapolated(g) {
				t.Errorf("Extrapolated(%v)", g)
			}
		})
	}
	for _, g := range isa.Generations {
		t.Run(g.String(), func(t *testing.T) {
			tt, err := For(g)
			if err != nil || tt.Gen != g || tt != Default(g) {
				t.Errorf("For(%v) = %v, %v", g, tt.Gen, err)
			}
		})
	}
}

// A calibration error is a typed error of the shared vocabulary, readable from a wrapping layer.
func TestCalibrationErrorVocabulary(t *testing.T) {
	tt := Default(isa.CAYMAN)
	err := tt.Apply("cal.json", strings.NewReader(`{"dge.issue_ns": -1}`))
	wrapped := fault.Wrap("--timing", err)
	var te *Error
	if !errors.As(wrapped, &te) || !errors.Is(wrapped, fault.ErrInvalid) {
		t.Fatalf("%v: not a *timing.Error of fault.ErrInvalid", wrapped)
	}
	if r, p := fault.Rule(wrapped), fault.Path(wrapped); r != RuleCalibration || p != "--timing: cal.json: dge.issue_ns" {
		t.Errorf("rule %q, path %q", r, p)
	}
	// a file that is no JSON object has the file as its path
	err = tt.Apply("cal.json", strings.NewReader(`[1]`))
	if r, p := fault.Rule(err), fault.Path(fmt.Errorf("x: %w", err)); r != RuleCalibration || p != "cal.json" {
		t.Errorf("not an object: rule %q, path %q (%v)", r, p, err)
	}
	ids := map[string]bool{}
	for _, p := range Provenance() {
		ids[p.ID] = true
	}
	for _, id := range []string{RuleCalibration} {
		if !ids[id] {
			t.Errorf("%s is not registered", id)
		}
	}
}
