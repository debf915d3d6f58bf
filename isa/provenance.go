package isa

import (
	"fmt"
	"strings"
)

// Confidence is the evidence grade a rule or behaviour rests on, in the seeds' own terms:
// an evidence kind (OBSERVED / INFERRED / CARRIED) and a level (HIGH / MED / LOW).
type Confidence struct {
	Kind  string // OBSERVED, INFERRED, CARRIED, or INVENTED (the seeds are silent; the project chose)
	Level string // HIGH, MED, LOW
}

func (c Confidence) String() string { return c.Level + "/" + c.Kind }

// Common confidence values.
var (
	HighObserved = Confidence{"OBSERVED", "HIGH"}
	HighInferred = Confidence{"INFERRED", "HIGH"}
	MedInferred  = Confidence{"INFERRED", "MED"}
	LowInferred  = Confidence{"INFERRED", "LOW"}
	// Invented marks a behaviour the seeds and FACTS are silent on: the project's own choice.
	Invented = Confidence{"INVENTED", "LOW"}
)

// Provenance is one entry of the rule/provenance registry: a validity rule (Kind "rule") whose
// ID is the ISA header's predicate name, or a modelled behaviour (Kind "behaviour") whose ID
// names the choice. Every package that models hardware exports its entries through a
// Provenance() function; `tpbsim explain` prints the union.
type Provenance struct {
	ID         string     // predicate name (rule) or behaviour id, e.g. "dve.mask_enable_geometry"
	Kind       string     // "rule" or "behaviour"
	Text       string     // what holds, in one or two sentences
	Source     string     // seed file and section, or FACTS section, e.g. "seed 000 §4.2"
	Confidence Confidence // evidence grade
	Fields     []string   // the fields the rule reads (rules only)
	Reason     string     // for INFERRED / INVENTED entries: why this reading was chosen
}

// Format renders an entry the way `tpbsim explain` prints it.
func (p Provenance) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", p.ID, p.Kind)
	fmt.Fprintf(&b, "  %s\n", p.Text)
	if len(p.Fields) > 0 {
		fmt.Fprintf(&b, "  reads:      %s\n", strings.Join(p.Fields, ", "))
	}
	fmt.Fprintf(&b, "  source:     %s\n", p.Source)
	fmt.Fprintf(&b, "  confidence: %s\n", p.Confidence)
	if p.Reason != "" {
		fmt.Fprintf(&b, "  why:        %s\n", p.Reason)
	}
	return b.String()
}

// Behaviour builds a behaviour entry of the registry (a modelled choice, not a validity rule).
func Behaviour(id, text, source string, c Confidence, reason string) Provenance {
	return Provenance{ID: id, Kind: "behaviour", Text: text, Source: source, Confidence: c, Reason: reason}
}

// Rule builds a rule entry of the registry: a check whose id errors carry, with the fields it reads.
func Rule(id, text, source string, c Confidence, fields []string, reason string) Provenance {
	return Provenance{ID: id, Kind: "rule", Text: text, Source: source, Confidence: c, Fields: fields, Reason: reason}
}
