package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	var gen string
	var asJSON bool
	var maxElements uint64
	c := &cobra.Command{
		Use:   "check IN.bin [--gen G] [--json] [--max-elements N]",
		Short: "Validate every instruction word against the rules of a generation",
		Long: `Decode and validate each 64-byte word of IN.bin (or an .s / .tpb / .json source, assembled
first) for generation G and report every violation: the word, its byte offset, the opcode, the
rule id (the ISA header's predicate name), the field, the value found, what is legal, and the
rule's source and confidence ('tpbsim explain RULE' says more).

--gen defaults to CAYMAN. Exit status: 0 all words valid; 1 any word invalid; 2 usage or I/O
error (e.g. a file whose length is not a multiple of 64: the offset is named).

check makes every check run makes before it executes anything (sim.CheckProgram: the same
pipeline, the same rule ids): the queue's engine check, the instruction layer, the DGE's
lowering of a DMA instruction (a view past the last partition, overlapping src and dst, a
crossbar placement), the work limits (--max-elements, as run takes it) and the GpSimd PSUM
rule are violations; a word tpbsim does not execute (an opcode it names but does not model,
event or register-offset EVENTS forms, shape-register / indirect ADDR4s, ADDR8 register
markers, a reduce op it does not compute, a word on no modelled queue) is reported as
unsupported with its rule. A word check calls valid and supported is one run accepts before
the run. An address register's value is run-time state: for an ADDR4 in register mode (reg:N)
and a _REG wait check checks the register number; run resolves the register when the
instruction issues and applies the checks of an immediate address then (README "Registers").`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxElements == 0 {
				return ioErr(errZeroMaxElements)
			}
			f, err := loadProgramArg(args[0], gen)
			if err != nil {
				return err
			}
			p, err := sim.FileCheckProgram(f)
			if err != nil {
				return ioErr(err)
			}
			rep, err := sim.CheckProgram(p, sim.Config{Gen: f.Gen, MaxElements: maxElements})
			if err != nil {
				return ioErr(err)
			}
			bw := bufio.NewWriter(stdout)
			defer bw.Flush()
			invalid, unsupported := printCheck(bw, f, rep, asJSON)
			if !asJSON {
				fmt.Fprintf(bw, "%s: %d words, %d valid, %d invalid, %d unsupported on %v\n",
					f.Path, f.Len(), f.Len()-invalid, invalid, unsupported, f.Gen)
			}
			if invalid > 0 {
				bw.Flush()
				return errSilentRule
			}
			return nil
		},
	}
	c.Flags().StringVar(&gen, "gen", "", "generation: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK (default CAYMAN)")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per word")
	c.Flags().Uint64Var(&maxElements, "max-elements", sim.DefaultMaxElements, maxElementsHelp)
	return c
}

// printCheck prints the report of every word, in file order, and counts the invalid words and
// the unsupported ones (an invalid word whose struct tpbsim does not model counts in both).
func printCheck(w io.Writer, f *asm.File, rep *sim.Report, asJSON bool) (invalid, unsupported int) {
	byWord := make([]*sim.InstReport, f.Len())
	for i := range rep.Insts {
		if k := int(rep.Insts[i].Offset / isa.InstNBytes); k >= 0 && k < len(byWord) {
			byWord[k] = &rep.Insts[i]
		}
	}
	for k, r := range byWord {
		if r == nil { // every word is in the program checkProgram builds
			continue
		}
		off := k * isa.InstNBytes
		sup := r.Modelled && r.Unsupported.Rule == ""
		if !r.Valid() {
			invalid++
		}
		if !sup {
			unsupported++
		}
		why := ""
		if r.Unsupported.Rule != "" {
			why = "rule " + r.Unsupported.String()
		}
		if asJSON {
			writeCheckJSON(w, k, off, r.Opcode, sup, why, f.Where(k), r.Violations)
			continue
		}
		where := f.Where(k)
		for _, v := range r.Violations {
			src := ""
			if p, ok := ruleProvenance(v.Rule, r.Opcode); ok {
				src = fmt.Sprintf(" [%s, %v]", p.Source, p.Confidence)
			}
			fmt.Fprintf(w, "word %d (offset 0x%x)%s %v: %s%s\n", k, off, where, r.Opcode, v, src)
		}
		if why != "" {
			fmt.Fprintf(w, "word %d (offset 0x%x)%s %v: unsupported: %s (run refuses it before anything executes)\n", k, off, where, r.Opcode, why)
		}
	}
	return invalid, unsupported
}

type checkViolationJSON struct {
	Rule       string `json:"rule"`
	Field      string `json:"field"`
	Value      string `json:"value"`
	Legal      string `json:"legal"`
	Offset     int    `json:"field_offset"` // -1 when the rule names no one field
	Msg        string `json:"why,omitempty"`
	Source     string `json:"source,omitempty"`
	Confidence string `json:"confidence,omitempty"`
}

type checkWordJSON struct {
	Word      int    `json:"word"`
	Offset    string `json:"offset"`
	At        string `json:"at,omitempty"` // FILE:LINE of a source's word
	Opcode    string `json:"opcode"`
	Valid     bool   `json:"valid"`
	Supported bool   `json:"supported"`
	// Unsupported says why run does not execute the word (the rule and the form; run refuses it
	// before anything executes).
	Unsupported string               `json:"unsupported,omitempty"`
	Violations  []checkViolationJSON `json:"violations"`
}

func writeCheckJSON(w io.Writer, k, off int, op isa.Opcode, sup bool, why, where string, vs []fault.Violation) {
	o := checkWordJSON{Word: k, Offset: fmt.Sprintf("0x%x", off), At: strings.TrimSpace(where), Opcode: op.String(),
		Valid: len(vs) == 0, Supported: sup, Unsupported: why, Violations: []checkViolationJSON{}}
	for _, v := range vs {
		j := checkViolationJSON{Rule: v.Rule, Field: v.Path, Value: v.Value, Legal: v.Legal, Offset: v.Offset, Msg: v.Msg}
		if p, ok := ruleProvenance(v.Rule, op); ok {
			j.Source, j.Confidence = p.Source, p.Confidence.String()
		}
		o.Violations = append(o.Violations, j)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(o)
}

// ruleProvenance finds a violated rule's registry entry: the instruction layer's (with the
// confidence as applied to op, isa.LookupFor), else the entry of the package that checks it
// (the engine check of sim, dve's op checks, ...).
func ruleProvenance(rule string, op isa.Opcode) (isa.Provenance, bool) {
	if p, ok := isa.LookupFor(rule, op); ok {
		return p, true
	}
	for _, p := range allProvenance() {
		if p.ID == rule {
			return p, true
		}
	}
	return isa.Provenance{}, false
}
