package main

import (
	"strings"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// numProvenance adopts the element-type decisions of package num (which does not import isa)
// into the registry's entry type.
func numProvenance() []isa.Provenance {
	var out []isa.Provenance
	for _, d := range num.Provenance() {
		c := isa.Confidence{Kind: "INFERRED", Level: "MED"}
		if lvl, kind, ok := strings.Cut(d.Confidence, "/"); ok {
			c = isa.Confidence{Kind: kind, Level: lvl}
		}
		out = append(out, isa.Provenance{
			ID: d.ID, Kind: "behaviour", Text: d.Text, Source: d.Source, Confidence: c, Reason: d.Reason,
		})
	}
	return out
}
