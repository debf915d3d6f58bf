package isa

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// TestErrorsAcrossLayers: every error of the instruction layer, wrapped as the layers above
// wrap it (fault.Wrap with a path, fmt.Errorf %w), still matches its category with errors.Is,
// its type with errors.As, and gives its rule and path through fault.Rule / fault.Path.
func TestErrorsAcrossLayers(t *testing.T) {
	_, short := Decode(make([]byte, 10))
	_, long := Decode(make([]byte, 70))
	_, stream := DecodeStream(make([]byte, 64*2+3))
	viol := Validate(&S4D4TR{Header: Header{Opcode: OpCOPY, InstWordLen: 16}}, CAYMAN)
	if len(viol) == 0 {
		t.Fatal("an all-zero COPY validates")
	}
	cases := []struct {
		name     string
		err      error
		category error
		also     error
		rule     string
		path     string
	}{
		{"short word", short, fault.ErrTruncated, nil, RuleInstNBytes, "program: word[0]"},
		{"long word", long, fault.ErrInvalid, ErrTrailing, RuleInstNBytes, "program: word[0]"},
		{"stream", stream, fault.ErrTruncated, nil, RuleInstNBytes, "program: word[2]"},
		{"violation", viol[0], fault.ErrInvalid, nil, viol[0].Rule, "program: word[0]: " + viol[0].Field},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.err == nil {
				t.Fatal("no error")
			}
			// the word-length errors name their word themselves; a violation's caller names it
			w := fmt.Errorf("load: %w", fault.Wrap("program", c.err))
			if c.name == "violation" {
				w = fmt.Errorf("load: %w", fault.Wrap("program", fault.Wrap("word[0]", c.err)))
			}
			if !errors.Is(w, c.category) || fault.Category(w) != c.category {
				t.Errorf("category: Is %v false, Category %v", c.category, fault.Category(w))
			}
			if c.also != nil && !errors.Is(w, c.also) {
				t.Errorf("errors.Is(%v) false", c.also)
			}
			if got := fault.Rule(w); got != c.rule {
				t.Errorf("fault.Rule = %q, want %q", got, c.rule)
			}
			if got := fault.Path(w); got != c.path {
				t.Errorf("fault.Path = %q, want %q", got, c.path)
			}
			var v Violation
			var wl *WordLengthError
			var sl *LengthError
			switch {
			case errors.As(w, &v):
				if v != viol[0] {
					t.Errorf("errors.As gave %+v", v)
				}
				if fv := v.Fault(); fv.Rule != v.Rule || fv.Path != v.Field || fv.Offset != v.Offset {
					t.Errorf("Fault() = %+v", fv)
				}
			case errors.As(w, &wl), errors.As(w, &sl):
			default:
				t.Errorf("errors.As finds no isa error type in %v", w)
			}
		})
	}
}
