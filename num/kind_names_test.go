package num

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// TestParseKindUnknownListsNames: an unknown name's error lists the names that work.
func TestParseKindUnknownListsNames(t *testing.T) {
	_, err := ParseKind("u16")
	if err == nil || !strings.Contains(err.Error(), "uint16") || !strings.Contains(err.Error(), "bfloat16") {
		t.Fatalf("ParseKind(u16) = %v, want the accepted names listed", err)
	}
}

// TestNamesOneTable: the CLI's names (ParseKind) and the kernels' (LookupNKI) are one table.
// Every NKI name with a kind parses to that kind everywhere, except float8_e4m3fn, which stands
// for FP8_EXP4 in kernels only; a refused name is a typed error under num.kind_name.
func TestNamesOneTable(t *testing.T) {
	for _, name := range strings.Split(NKINames(), ", ") {
		t.Run(name, func(t *testing.T) {
			k, refuse, ok := LookupNKI(name)
			if !ok || refuse != "" || k == INVALID {
				t.Fatalf("LookupNKI(%q) = %v, %q, %v", name, k, refuse, ok)
			}
			got, err := ParseKind(name)
			if name == "float8_e4m3fn" {
				if err == nil || k != FP8_EXP4 {
					t.Errorf("ParseKind(%q) = %v, %v; LookupNKI %v: want a refusal and FP8_EXP4 in kernels", name, got, err, k)
				}
				return
			}
			if err != nil || got != k {
				t.Errorf("ParseKind(%q) = %v, %v; LookupNKI %v", name, got, err, k)
			}
		})
	}
	if _, refuse, ok := LookupNKI("TFloat32"); !ok || refuse == "" {
		t.Errorf("LookupNKI(tfloat32): refuse %q, ok %v; want an NKI name with no kind", refuse, ok)
	}
	for _, s := range []string{"fp32", "int64", "nope"} { // ParseKind's names that are not NKI's
		if _, _, ok := LookupNKI(s); ok {
			t.Errorf("LookupNKI(%q) is an NKI name", s)
		}
	}
	for _, s := range []string{"nope", "tfloat32", "e4m3fn"} {
		_, err := ParseKind(s)
		if !errors.Is(err, fault.ErrInvalid) || fault.Rule(err) != RuleKindName || fault.Path(err) != "dtype" {
			t.Errorf("ParseKind(%q): %v; want fault.ErrInvalid under %s at dtype", s, err, RuleKindName)
		}
	}
}
