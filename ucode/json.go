package ucode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/internal/jsonkeys"
)

// JSONFormat names the decoded JSON form's version.
const JSONFormat = "tpbsim.dtable/1"

// SetJSON is the readable, decoded form of a table set: `dtable dump --json` prints it and
// `dtable encode` turns it back into byte-identical files. Only nonzero opcode slots, rows and
// blocks are listed; anything omitted is zero. Tables lists which tables the set has, so an
// absent table and an all-zero table stay apart.
type SetJSON struct {
	Format      string       `json:"format"`
	Set         string       `json:"set"`
	Gen         string       `json:"gen"`
	GenReason   string       `json:"gen_reason,omitempty"`
	Tables      []string     `json:"tables"`
	Opcodes     []OpcodeJSON `json:"opcode_table,omitempty"`
	Control     []RowJSON    `json:"control_table,omitempty"`
	ControlFast []RowJSON    `json:"control_fast_table,omitempty"`
	ControlSlow []RowJSON    `json:"control_slow_table,omitempty"`
	Datapath    []BlockJSON  `json:"datapath_table,omitempty"`
}

// OpcodeJSON is one enabled opcode slot. fast_row and slow_row are the authority; raw, when
// given, must agree with them.
type OpcodeJSON struct {
	Op      int    `json:"op"`
	Name    string `json:"name,omitempty"`
	Raw     string `json:"raw,omitempty"`
	FastRow int    `json:"fast_row"`
	SlowRow uint64 `json:"slow_row"`
}

// RowJSON is one nonzero control row. bytes is the authority; fields is informational.
type RowJSON struct {
	Row    int        `json:"row"`
	Bytes  string     `json:"bytes"`
	Fields []RowField `json:"fields,omitempty"`
}

// BlockJSON is one nonzero datapath block; class, form, k and left_packed are informational.
type BlockJSON struct {
	Block      int        `json:"block"`
	Class      string     `json:"class,omitempty"`
	Form       string     `json:"form,omitempty"`
	K          int        `json:"k"`
	LeftPacked bool       `json:"left_packed"`
	Lanes      []LaneJSON `json:"lanes"`
}

// LaneJSON is one nonzero lane. When fields is present it is the authority and word, if given,
// must agree; otherwise word is.
type LaneJSON struct {
	Lane   int             `json:"lane"`
	Word   string          `json:"word,omitempty"`
	Kind   string          `json:"kind,omitempty"`
	Fields *LaneFieldsJSON `json:"fields,omitempty"`
}

// LaneFieldsJSON is LaneFields with JSON names; high is the raw in-place hex.
type LaneFieldsJSON struct {
	OPA   uint8  `json:"opa"`
	OPB   uint8  `json:"opb"`
	MUX   uint16 `json:"mux"`
	EXT3  uint16 `json:"ext3,omitempty"`
	EXT4  uint16 `json:"ext4,omitempty"`
	VALID bool   `json:"valid"`
	MODE  uint8  `json:"mode"`
	STAGE uint8  `json:"stage"`
	HIGH  string `json:"high,omitempty"`
}

func hex64(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

// JSON returns the decoded form of s; a set of an invalid generation has none (an error).
func (s *TableSet) JSON() (SetJSON, error) {
	j := SetJSON{Format: JSONFormat, Set: s.Name, Gen: s.Gen.String(), GenReason: s.GenReason}
	l := layout(s.Gen)
	if l == nil {
		return j, s.Gen.Check()
	}
	for _, t := range AllTables {
		if s.Has(t) {
			j.Tables = append(j.Tables, t.String())
		}
	}
	if s.Opcodes != nil {
		for op, e := range s.Opcodes.Entries {
			if e.Enabled() {
				j.Opcodes = append(j.Opcodes, opcodeJSON(op, e))
			}
		}
	}
	rows := func(ct *ControlTable) ([]RowJSON, error) {
		var out []RowJSON
		for i, r := range ct.Rows {
			if !r.IsZero() {
				rj, err := rowJSON(i, r, ct.Table, s.Gen)
				if err != nil {
					return nil, err
				}
				out = append(out, rj)
			}
		}
		return out, nil
	}
	var err error
	if s.Control != nil {
		if s.Control.Table == TableControl {
			j.Control, err = rows(s.Control)
		} else {
			j.ControlFast, err = rows(s.Control)
		}
		if err != nil {
			return j, err
		}
	}
	if s.Slow != nil {
		if j.ControlSlow, err = rows(s.Slow); err != nil {
			return j, err
		}
	}
	if s.Datapath != nil {
		for i, b := range s.Datapath.Blocks {
			if bj, ok := blockJSON(i, b, l, s.Gen); ok {
				j.Datapath = append(j.Datapath, bj)
			}
		}
	}
	return j, nil
}

// The JSON form one element at a time: JSON and DecodeJSON are these over a whole set.

func opcodeJSON(op int, e OpcodeEntry) OpcodeJSON {
	return OpcodeJSON{op, OpcodeName(uint8(op)), hex64(e.Raw), e.FastRow, e.SlowRow}
}

func rowJSON(i int, r ControlRow, t Table, g TableGen) (RowJSON, error) {
	fs, err := r.RowFields(t, g)
	return RowJSON{i, r.Hex(), fs}, err
}

// blockJSON is block i's JSON form in a generation of layout l; ok is false for an OFF block,
// which the form leaves out.
func blockJSON(i int, b DatapathBlock, l *LaneLayout, g TableGen) (bj BlockJSON, ok bool) {
	in := b.Analyze(g)
	if in.Class == ClassOff {
		return bj, false
	}
	bj = BlockJSON{Block: i, Class: in.Class.String(), Form: in.Form.String(), K: in.Depth, LeftPacked: in.LeftPacked}
	for L, w := range b {
		switch w.Kind(g) {
		case LaneZero:
		case LaneIdle:
			bj.Lanes = append(bj.Lanes, LaneJSON{Lane: L, Word: hex64(uint64(w)), Kind: "idle"})
		default:
			f := l.decode(w)
			fj := &LaneFieldsJSON{f.OPA, f.OPB, f.MUX, f.EXT3, f.EXT4, f.VALID, f.MODE, f.STAGE, ""}
			if f.HIGH != 0 {
				fj.HIGH = hex64(f.HIGH)
			}
			kind := "active"
			if w.Terminal(g) {
				kind = "terminal"
			}
			bj.Lanes = append(bj.Lanes, LaneJSON{Lane: L, Word: hex64(uint64(w)), Kind: kind, Fields: fj})
		}
	}
	return bj, true
}

// entry is the slot o describes in generation g; errors name the field (fast_row, slow_row, raw).
func (o OpcodeJSON) entry(g TableGen) (OpcodeEntry, error) {
	e, err := MakeOpcodeEntry(g, o.FastRow, o.SlowRow)
	if err != nil {
		return e, err
	}
	if o.Raw != "" {
		if raw, err := parseU64(o.Raw); err != nil || raw != e.Raw {
			return e, invalid(RuleJSONAgree, "raw", o.Raw, hex64(e.Raw), "disagrees with fast_row %d and slow_row %d", o.FastRow, o.SlowRow)
		}
	}
	return e, nil
}

// words is the block bj describes in generation g; errors name the lane (lane[L]) and field.
func (bj BlockJSON) words(g TableGen) (DatapathBlock, error) {
	var b DatapathBlock
	seen := map[int]int{}
	for k, lj := range bj.Lanes {
		at := fmt.Sprintf("lane[%d]", lj.Lane)
		if err := jsonIndex(TableInvalid, at, lj.Lane, LanesPerBlock, k, seen); err != nil {
			return b, err
		}
		w, err := laneFromJSON(lj, g)
		if err != nil {
			return b, within(at, err)
		}
		b[lj.Lane] = w
	}
	return b, nil
}

// jsonIndex checks the number n of the i-th entry of a list (an op, row, block or lane): in
// 0..limit-1 and not listed before (seen maps a number to the entry that listed it).
func jsonIndex(t Table, path string, n, limit, i int, seen map[int]int) error {
	var e *Error
	if n < 0 || n >= limit {
		e = invalid(RuleJSONIndex, path, "", fmt.Sprintf("0..%d", limit-1), "out of range (entry %d)", i)
	} else if prev, dup := seen[n]; dup {
		e = invalid(RuleJSONIndex, path, "", "", "listed twice (entries %d and %d)", prev, i)
	} else {
		seen[n] = i
		return nil
	}
	e.Table = t
	return e
}

// MarshalJSONSet renders the decoded form of s, indented.
func MarshalJSONSet(s *TableSet) ([]byte, error) {
	j, err := s.JSON()
	if err != nil {
		return nil, err
	}
	return json.MarshalIndent(j, "", "  ")
}

// parseU64 reads a number string of the JSON form: 0x-hex, or decimal digits (DESIGN.md §7:
// numbers are decimal or 0x-hex): a string without the 0x prefix read as hex would turn "100"
// into 0x100 without a word.
func parseU64(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(t, "0x"); ok {
		return strconv.ParseUint(h, 16, 64)
	}
	if h, ok := strings.CutPrefix(t, "0X"); ok {
		return strconv.ParseUint(h, 16, 64)
	}
	return strconv.ParseUint(t, 10, 64)
}

// ValidSetName checks a table-set name before it becomes part of a file name
// ("<set>_<table>.bin"): not empty, no path separator, not "." or "..", no NUL or control
// character (rule ucode.set_name). Joined to the output folder as given, "../x" would write
// outside it and "" would write files no command can read back.
func ValidSetName(name string) error {
	bad := func(format string, args ...any) error {
		return invalid(RuleSetName, "set", strconv.Quote(name), "a file-name part: not empty, not . or .., no path separator or control character", format, args...)
	}
	switch {
	case name == "":
		return bad("empty (the files are named <set>_<table>.bin)")
	case name == "." || name == "..":
		return bad("not a file-name part")
	case strings.ContainsAny(name, `/\`):
		return bad("holds a path separator; a set name is part of a file name")
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return bad("holds a control character")
		}
	}
	return nil
}

// DecodeJSON reads the decoded form back into a full-size TableSet: the mirror of JSON.
// Unknown keys, anything but white space after the object, out-of-range rows, lanes and fields,
// and words that disagree with their fields are errors naming the rule and the path, e.g.
// "datapath_table: ... block[12]: lane[3]: MUX".
func DecodeJSON(data []byte) (*TableSet, error) {
	var j SetJSON
	syntax := func(format string, args ...any) error {
		return invalid(RuleJSONSyntax, "", "", "", "json: "+format, args...)
	}
	if err := CheckJSONKeys(data, reflect.TypeOf(j)); err != nil {
		return nil, syntax("%v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, syntax("%v", err)
	}
	if off := dec.InputOffset(); len(bytes.TrimLeft(data[off:], " \t\r\n")) != 0 {
		return nil, syntax("data after the set's object at byte %d", off)
	}
	return j.Decode()
}

// Decode is the set j describes: DecodeJSON after the text is read, for a SetJSON built or
// changed in Go.
func (j SetJSON) Decode() (*TableSet, error) {
	if j.Format != JSONFormat {
		return nil, invalid(RuleJSONFormat, "format", strconv.Quote(j.Format), strconv.Quote(JSONFormat), "")
	}
	g, err := ParseTableGen(j.Gen)
	if err != nil {
		return nil, err
	}
	if err := ValidSetName(j.Set); err != nil {
		return nil, err
	}
	s := &TableSet{Name: j.Set, Gen: g, GenReason: j.GenReason, Paths: map[Table]string{}}
	has := map[Table]bool{}
	for i, name := range j.Tables {
		found := false
		for _, t := range g.Tables() {
			if t.String() == name {
				has[t], found = true, true
			}
		}
		if !found {
			return nil, invalid(RuleJSONTables, fmt.Sprintf("tables[%d]", i), strconv.Quote(name), tableList(g.Tables()), "%s has no such table", g)
		}
	}
	for _, c := range []struct {
		t Table
		n int
	}{{TableOpcode, len(j.Opcodes)}, {TableControl, len(j.Control)}, {TableControlFast, len(j.ControlFast)},
		{TableControlSlow, len(j.ControlSlow)}, {TableDatapath, len(j.Datapath)}} {
		if c.n > 0 && !has[c.t] {
			return nil, invalid(RuleJSONTables, c.t.String(), "", "", "has entries but is not listed in tables")
		}
	}
	if has[TableOpcode] {
		s.Opcodes = &OpcodeTable{Gen: g}
		seen := map[int]int{}
		for i, o := range j.Opcodes {
			at := fmt.Sprintf("op[%d]", o.Op)
			if err := jsonIndex(TableOpcode, at, o.Op, NumOpcodes, i, seen); err != nil {
				return nil, err
			}
			e, err := o.entry(g)
			if err != nil {
				return nil, inFile(within(at, err), "", TableOpcode)
			}
			s.Opcodes.Entries[o.Op] = e
		}
	}
	rows := func(t Table, in []RowJSON) (*ControlTable, error) {
		ct := &ControlTable{Table: t, Gen: g, Rows: make([]ControlRow, g.ControlRows())}
		seen := map[int]int{}
		for i, r := range in {
			at := fmt.Sprintf("row[%d]", r.Row)
			if err := jsonIndex(t, at, r.Row, len(ct.Rows), i, seen); err != nil {
				return nil, err
			}
			row, err := ParseControlRowHex(r.Bytes)
			if err != nil {
				return nil, inFile(within(at, err), "", t)
			}
			ct.Rows[r.Row] = row
		}
		return ct, nil
	}
	if has[TableControl] {
		if s.Control, err = rows(TableControl, j.Control); err != nil {
			return nil, err
		}
	}
	if has[TableControlFast] {
		if s.Control, err = rows(TableControlFast, j.ControlFast); err != nil {
			return nil, err
		}
	}
	if has[TableControlSlow] {
		if s.Slow, err = rows(TableControlSlow, j.ControlSlow); err != nil {
			return nil, err
		}
	}
	if has[TableDatapath] {
		dt := &DatapathTable{Gen: g, Blocks: make([]DatapathBlock, g.ControlRows())}
		seen := map[int]int{}
		for i, bj := range j.Datapath {
			at := fmt.Sprintf("block[%d]", bj.Block)
			if err := jsonIndex(TableDatapath, at, bj.Block, len(dt.Blocks), i, seen); err != nil {
				return nil, err
			}
			b, err := bj.words(g)
			if err != nil {
				return nil, inFile(within(at, err), "", TableDatapath)
			}
			dt.Blocks[bj.Block] = b
		}
		s.Datapath = dt
	}
	return s, nil
}

func laneFromJSON(lj LaneJSON, g TableGen) (LaneWord, error) {
	var word LaneWord
	if lj.Word != "" {
		v, err := parseU64(lj.Word)
		if err != nil {
			return 0, invalid(RuleJSONNumber, "word", strconv.Quote(lj.Word), "0x-hex or decimal, 64 bits", "%v", errors.Unwrap(err))
		}
		word = LaneWord(v)
	}
	if lj.Fields == nil {
		if lj.Word == "" {
			return 0, invalid(RuleJSONAgree, "", "", "a word, fields, or both", "the lane has neither word nor fields")
		}
		return word, nil
	}
	f := lj.Fields
	lf := LaneFields{OPA: f.OPA, OPB: f.OPB, MUX: f.MUX, EXT3: f.EXT3, EXT4: f.EXT4, VALID: f.VALID, MODE: f.MODE, STAGE: f.STAGE}
	if f.HIGH != "" {
		h, err := parseU64(f.HIGH)
		if err != nil {
			return 0, invalid(RuleJSONNumber, "HIGH", strconv.Quote(f.HIGH), "0x-hex or decimal, 64 bits", "%v", errors.Unwrap(err))
		}
		lf.HIGH = h
	}
	w, err := lf.Encode(g) // its errors name the field (MUX, HIGH, ...)
	if err != nil {
		return 0, err
	}
	if lj.Word != "" && w != word {
		return 0, invalid(RuleJSONAgree, "word", lj.Word, hex64(uint64(w)), "disagrees with its fields (which encode to %s)", hex64(uint64(w)))
	}
	return w, nil
}

// CheckJSONKeys refuses what encoding/json would read silently into a value of type t: a key
// given twice in one object (json keeps the last) and a key that matches a field only when case
// is ignored ("OPA" for "opa"): internal/jsonkeys.Check, whose *Error it returns. Unknown keys
// and type errors are left to the decoder; a text that is not JSON passes, for the decoder.
func CheckJSONKeys(data []byte, t reflect.Type) error {
	return jsonkeys.Check(data, t)
}
