package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// FileReport is the check report of a program file, word by word in file order: what `tpbsim
// check` prints. It is CheckProgram's report of FileCheckProgram(f), matched back to the
// file's words and lines.
type FileReport struct {
	Path  string
	Gen   isa.Generation
	Words []WordReport
	// Invalid counts the words that break a rule, Unsupported those run does not execute (an
	// invalid word whose struct tpbsim does not model counts in both).
	Invalid, Unsupported int
}

// WordReport is one word of a FileReport.
type WordReport struct {
	Word   int    // its index in the file
	Offset int    // its byte offset (Word * 64)
	At     string // FILE:LINE of a source's word, "" for a word file
	Opcode isa.Opcode
	// Supported reports whether run executes the word's form (its struct modelled, no
	// unsupported form); Unsupported says why not ("rule ID: ...", "" when supported or only
	// unmodelled).
	Supported   bool
	Unsupported string
	Violations  []fault.Violation
}

// Valid reports whether the word breaks no rule.
func (w *WordReport) Valid() bool { return len(w.Violations) == 0 }

// RuleLookup finds a violated rule's registry entry for an opcode (explain.RuleProvenance, which
// holds every package's registry; nil: none printed).
type RuleLookup func(rule string, op isa.Opcode) (isa.Provenance, bool)

// CheckFile runs the check pipeline (CheckProgram, cfg as run takes it) on every word of a
// program file. An error is a file the pipeline cannot take (an invalid generation, a source
// word on no queue is reported, not refused).
func CheckFile(f *asm.File, cfg Config) (*FileReport, error) {
	p, err := FileCheckProgram(f)
	if err != nil {
		return nil, err
	}
	cfg.Gen = f.Gen
	rep, err := CheckProgram(p, cfg)
	if err != nil {
		return nil, err
	}
	byWord := make([]*InstReport, f.Len())
	for i := range rep.Insts {
		if k := int(rep.Insts[i].Offset / isa.InstNBytes); k >= 0 && k < len(byWord) {
			byWord[k] = &rep.Insts[i]
		}
	}
	out := &FileReport{Path: f.Path, Gen: f.Gen}
	for k, r := range byWord {
		if r == nil { // every word is in the program FileCheckProgram builds
			continue
		}
		w := WordReport{Word: k, Offset: k * isa.InstNBytes, At: strings.TrimSpace(f.Where(k)), Opcode: r.Opcode,
			Supported: r.Modelled && r.Unsupported.Rule == "", Violations: r.Violations}
		if r.Unsupported.Rule != "" {
			w.Unsupported = "rule " + r.Unsupported.String()
		}
		if !w.Valid() {
			out.Invalid++
		}
		if !w.Supported {
			out.Unsupported++
		}
		out.Words = append(out.Words, w)
	}
	return out, nil
}

// OK reports whether every word is valid (check's exit status 0).
func (r *FileReport) OK() bool { return r.Invalid == 0 }

// WriteText writes a line per violation and per unsupported word, each naming the word, its
// offset, its source line and opcode (and the rule's source and confidence where prov finds
// them), then the summary line.
func (r *FileReport) WriteText(w io.Writer, prov RuleLookup) error {
	ew := bufio.NewWriter(w) // keeps the first write error
	for _, wr := range r.Words {
		where := ""
		if wr.At != "" {
			where = " " + wr.At
		}
		for _, v := range wr.Violations {
			src := ""
			if p, ok := lookup(prov, v.Rule, wr.Opcode); ok {
				src = fmt.Sprintf(" [%s, %v]", p.Source, p.Confidence)
			}
			fmt.Fprintf(ew, "word %d (offset 0x%x)%s %v: %s%s\n", wr.Word, wr.Offset, where, wr.Opcode, v, src)
		}
		if wr.Unsupported != "" {
			fmt.Fprintf(ew, "word %d (offset 0x%x)%s %v: unsupported: %s (run refuses it before anything executes)\n", wr.Word, wr.Offset, where, wr.Opcode, wr.Unsupported)
		}
	}
	n := len(r.Words)
	fmt.Fprintf(ew, "%s: %d words, %d valid, %d invalid, %d unsupported on %v\n", r.Path, n, n-r.Invalid, r.Invalid, r.Unsupported, r.Gen)
	return ew.Flush()
}

// WriteJSON writes one JSON object per word (check --json).
func (r *FileReport) WriteJSON(w io.Writer, prov RuleLookup) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, wr := range r.Words {
		o := CheckWordJSON{Word: wr.Word, Offset: fmt.Sprintf("0x%x", wr.Offset), At: wr.At, Opcode: wr.Opcode.String(),
			Valid: wr.Valid(), Supported: wr.Supported, Unsupported: wr.Unsupported, Violations: []CheckViolationJSON{}}
		for _, v := range wr.Violations {
			j := CheckViolationJSON{Rule: v.Rule, Field: v.Path, Value: v.Value, Legal: v.Legal, Offset: v.Offset, Msg: v.Msg}
			if p, ok := lookup(prov, v.Rule, wr.Opcode); ok {
				j.Source, j.Confidence = p.Source, p.Confidence.String()
			}
			o.Violations = append(o.Violations, j)
		}
		if err := enc.Encode(o); err != nil {
			return err
		}
	}
	return nil
}

func lookup(prov RuleLookup, rule string, op isa.Opcode) (isa.Provenance, bool) {
	if prov == nil {
		return isa.Provenance{}, false
	}
	return prov(rule, op)
}

// CheckViolationJSON is a violation in check --json.
type CheckViolationJSON struct {
	Rule       string `json:"rule"`
	Field      string `json:"field"`
	Value      string `json:"value"`
	Legal      string `json:"legal"`
	Offset     int    `json:"field_offset"` // -1 when the rule names no one field
	Msg        string `json:"why,omitempty"`
	Source     string `json:"source,omitempty"`
	Confidence string `json:"confidence,omitempty"`
}

// CheckWordJSON is the JSON form of a WordReport: one line of check --json.
type CheckWordJSON struct {
	Word      int    `json:"word"`
	Offset    string `json:"offset"`
	At        string `json:"at,omitempty"` // FILE:LINE of a source's word
	Opcode    string `json:"opcode"`
	Valid     bool   `json:"valid"`
	Supported bool   `json:"supported"`
	// Unsupported says why run does not execute the word (the rule and the form; run refuses it
	// before anything executes).
	Unsupported string               `json:"unsupported,omitempty"`
	Violations  []CheckViolationJSON `json:"violations"`
}
