package ucode

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
)

// The rule ids a ucode error names (each is a registry entry: tpbsim explain ucode.table_size).
const (
	RuleTableSize     = "ucode.table_size"      // a table file is its generation's exact size
	RuleTableGen      = "ucode.table_gen"       // the generation is gen2, gen3 or gen4, and the files agree on one
	RuleTableKind     = "ucode.table_kind"      // a file is named <set>_<table>.bin and a table of its generation
	RuleTablePresent  = "ucode.table_present"   // the table an operation reads is in the set
	RuleOneSet        = "ucode.one_set"         // the files given are of one set, once each; a folder's set is named
	RuleSetName       = "ucode.set_name"        // a set name is usable as a file-name part
	RuleLaneField     = "ucode.lane_field"      // a lane field exists in the generation and its value fits
	RuleOpcodeEntry   = "ucode.opcode_slot"     // a fast row and slow row fit the generation's opcode_table slot
	RuleOpcode        = "ucode.opcode"          // an opcode is a number 0..255 or a DVE opcode name
	RuleControlRow    = "ucode.control_row"     // a control row is 16 bytes of hex
	RuleBlockIndex    = "ucode.block_index"     // a block number names a block of the datapath table
	RuleResolves      = "ucode.opcode_resolves" // a cross-generation check's opcode has a datapath block in both sets
	RuleJSONSyntax    = "ucode.json_syntax"     // the JSON form is one object of the form's keys, each once, spelled exactly
	RuleJSONFormat    = "ucode.json_format"     // the JSON form names its format version
	RuleJSONTables    = "ucode.json_tables"     // "tables" lists tables of the generation, and every table with entries
	RuleJSONIndex     = "ucode.json_index"      // a listed opcode, row, block or lane is in range and listed once
	RuleJSONAgree     = "ucode.json_agree"      // a redundant value (raw, word) agrees with the fields it repeats
	RuleJSONNumber    = "ucode.json_number"     // a number string is 0x-hex or decimal
	RuleFixture       = "ucode.fixture"         // a synthetic set is one BuildFixture knows
	RuleOutputFolder  = "ucode.output_folder"   // encode writes into a folder
	RuleDiffSameGen   = "ucode.diff_same_gen"   // a word-by-word diff compares sets of one generation
	RuleOpcodeTable   = "ucode.opcode_table"    // an analysis over every opcode has both opcode tables
	RuleDumpSelection = "ucode.dump_selection"  // dump's JSON prints the opcodes or the blocks asked for, not both
)

// Error is every error of package ucode: the file and table it is about, the byte offset where
// the problem is (when it is at one), the category (fault.ErrTruncated, fault.ErrInvalid; nil for
// an I/O error, which Err then holds) and the broken rule as a value: its id, the path inside the
// structure ("block[12]: lane[3]: MUX"), the value found and what is legal.
type Error struct {
	File   string          // the file or folder read; "" when parsed from bytes
	Table  Table           // TableInvalid when the problem is not one table's
	Offset int64           // byte offset in the file; -1 when the problem is not at an offset
	Kind   error           // the fault category
	V      fault.Violation // Rule, Path, Value, Legal, Msg
	Err    error           // an underlying cause (a file-system error), or nil
}

func (e *Error) where() []string {
	var w []string
	if e.File != "" {
		w = append(w, e.File)
	}
	if e.Table != TableInvalid {
		w = append(w, e.Table.String())
	}
	if e.Offset >= 0 {
		w = append(w, fmt.Sprintf("offset %#x", e.Offset))
	}
	return w
}

// Error renders "FILE: TABLE: offset 0xN: KIND: rule R: path = value, legal: L: msg: CAUSE"
// (the broken rule as fault.Violation.String prints it), leaving out what is empty.
func (e *Error) Error() string {
	var parts []string
	parts = append(parts, e.where()...)
	if e.Kind != nil {
		parts = append(parts, e.Kind.Error())
	}
	switch {
	case e.V.Rule != "":
		parts = append(parts, "rule "+e.V.String())
	case e.V.Detail() != "":
		parts = append(parts, e.V.Detail())
	}
	if e.Err != nil {
		parts = append(parts, e.Err.Error())
	}
	return strings.Join(parts, ": ")
}

// Unwrap gives errors.Is and errors.As the category and the cause.
func (e *Error) Unwrap() []error {
	var out []error
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Err != nil {
		out = append(out, e.Err)
	}
	return out
}

// RuleID is the id of the broken rule ("" for an I/O error).
func (e *Error) RuleID() string { return e.V.Rule }

// ErrPath is where the problem is: file, table, offset and the path inside the structure.
func (e *Error) ErrPath() string {
	w := e.where()
	if e.V.Path != "" {
		w = append(w, e.V.Path)
	}
	return strings.Join(w, ": ")
}

// Violation is the broken rule as a value.
func (e *Error) Violation() fault.Violation { return e.V }

// invalid is an ErrInvalid error of rule at path (value and legal may be empty) with a message.
func invalid(rule, path, value, legal, format string, args ...any) *Error {
	return &Error{Offset: -1, Kind: fault.ErrInvalid, V: fault.Violation{Rule: rule, Path: path, Value: value, Legal: legal, Offset: -1, Msg: fmt.Sprintf(format, args...)}}
}

// ioError is an I/O failure on file (no rule: the input could not be read or written).
func ioError(file string, err error) *Error {
	return &Error{File: file, Offset: -1, Err: err}
}

// within puts err inside path: a *Error gets path prepended to its structural path; any other
// error is wrapped by fault.Wrap.
func within(path string, err error) error {
	if err == nil || path == "" {
		return err
	}
	var e *Error
	if errors.As(err, &e) {
		c := *e
		if c.V.Path == "" {
			c.V.Path = path
		} else {
			c.V.Path = path + ": " + c.V.Path
		}
		return &c
	}
	return fault.Wrap(path, err)
}

// inFile names file (and table, when e has none) in a *Error that has no file yet.
func inFile(err error, file string, t Table) error {
	var e *Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	if e.File == "" {
		e.File = file
	}
	if e.Table == TableInvalid {
		e.Table = t
	}
	return err
}

// Check returns nil for gen2, gen3 and gen4, and an ErrInvalid error (rule ucode.table_gen) for
// anything else: every ucode function that reads tables, lane words or entries of a generation
// refuses an invalid one instead of reading it as another generation.
func (g TableGen) Check() error {
	if g.Valid() {
		return nil
	}
	return invalid(RuleTableGen, "gen", g.String(), "gen2, gen3 or gen4", "not a DVE table generation")
}
