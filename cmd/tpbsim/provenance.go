package main

import (
	"github.com/tpbsim/tpbsim/explain"
	"github.com/tpbsim/tpbsim/isa"
)

// allProvenance is the registry `tpbsim explain` and `tpbsim check` print from.
func allProvenance() []isa.Provenance { return explain.Registry() }
