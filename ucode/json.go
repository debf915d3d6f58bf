package ucode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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

// JSON returns the decoded form of s.
func (s *TableSet) JSON() SetJSON {
	j := SetJSON{Format: JSONFormat, Set: s.Name, Gen: s.Gen.String(), GenReason: s.GenReason}
	for _, t := range AllTables {
		if s.Has(t) {
			j.Tables = append(j.Tables, t.String())
		}
	}
	if s.Opcodes != nil {
		for op, e := range s.Opcodes.Entries {
			if e.Enabled() {
				j.Opcodes = append(j.Opcodes, OpcodeJSON{op, OpcodeName(uint8(op)), hex64(e.Raw), e.FastRow, e.SlowRow})
			}
		}
	}
	rows := func(ct *ControlTable) []RowJSON {
		var out []RowJSON
		for i, r := range ct.Rows {
			if !r.IsZero() {
				out = append(out, RowJSON{i, r.Hex(), r.RowFields(ct.Table, s.Gen)})
			}
		}
		return out
	}
	if s.Control != nil {
		if s.Gen == Gen2 {
			j.Control = rows(s.Control)
		} else {
			j.ControlFast = rows(s.Control)
		}
	}
	if s.Slow != nil {
		j.ControlSlow = rows(s.Slow)
	}
	if s.Datapath != nil {
		for i, b := range s.Datapath.Blocks {
			in := b.Analyze(s.Gen)
			if in.Class == ClassOff {
				continue
			}
			bj := BlockJSON{Block: i, Class: in.Class.String(), Form: in.Form.String(), K: in.Depth, LeftPacked: in.LeftPacked}
			for L, w := range b {
				switch w.Kind(s.Gen) {
				case LaneZero:
				case LaneIdle:
					bj.Lanes = append(bj.Lanes, LaneJSON{Lane: L, Word: hex64(uint64(w)), Kind: "idle"})
				default:
					f := w.Decode(s.Gen)
					fj := &LaneFieldsJSON{f.OPA, f.OPB, f.MUX, f.EXT3, f.EXT4, f.VALID, f.MODE, f.STAGE, ""}
					if f.HIGH != 0 {
						fj.HIGH = hex64(f.HIGH)
					}
					kind := "active"
					if w.Terminal(s.Gen) {
						kind = "terminal"
					}
					bj.Lanes = append(bj.Lanes, LaneJSON{Lane: L, Word: hex64(uint64(w)), Kind: kind, Fields: fj})
				}
			}
			j.Datapath = append(j.Datapath, bj)
		}
	}
	return j
}

// MarshalJSONSet renders the decoded form of s, indented.
func MarshalJSONSet(s *TableSet) ([]byte, error) {
	return json.MarshalIndent(s.JSON(), "", "  ")
}

// parseU64 reads a number string of the JSON form: 0x-hex, or decimal digits (DESIGN.md §7:
// numbers are decimal or 0x-hex). A string without the 0x prefix used to be read as hex, so
// "100" became 0x100 without a word.
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
// character. A name from a JSON set used to be joined to the output folder as given, so
// "../x" wrote outside it and "" wrote files that no command could read back.
func ValidSetName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: set: empty name (the files are named <set>_<table>.bin)", ErrInvalid)
	case name == "." || name == "..":
		return fmt.Errorf("%w: set: %q is not a file-name part", ErrInvalid, name)
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("%w: set: %q holds a path separator; a set name is part of a file name", ErrInvalid, name)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: set: %q holds a control character", ErrInvalid, name)
		}
	}
	return nil
}

// DecodeJSON reads the decoded form back into a full-size TableSet: the mirror of JSON.
// Unknown keys, anything but white space after the object, out-of-range rows, lanes and fields,
// and words that disagree with their fields are errors naming the JSON path.
func DecodeJSON(data []byte) (*TableSet, error) {
	var j SetJSON
	if err := CheckJSONKeys(data, reflect.TypeOf(j)); err != nil {
		return nil, fmt.Errorf("%w: json: %v", ErrInvalid, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%w: json: %v", ErrInvalid, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: json: data after the set's object at byte %d", ErrInvalid, dec.InputOffset())
	}
	if j.Format != JSONFormat {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrInvalid, j.Format, JSONFormat)
	}
	g, err := ParseTableGen(j.Gen)
	if err != nil {
		return nil, fmt.Errorf("gen: %w", err)
	}
	if err := ValidSetName(j.Set); err != nil {
		return nil, err
	}
	s := &TableSet{Name: j.Set, Gen: g, GenReason: j.GenReason, Paths: map[Table]string{}}
	has := map[Table]bool{}
	for _, name := range j.Tables {
		found := false
		for _, t := range g.Tables() {
			if t.String() == name {
				has[t], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("%w: tables: %s has no %q", ErrInvalid, g, name)
		}
	}
	present := func(t Table, n int) error {
		if n > 0 && !has[t] {
			return fmt.Errorf("%w: %s has entries but is not listed in tables", ErrInvalid, t)
		}
		return nil
	}
	for _, c := range []struct {
		t Table
		n int
	}{{TableOpcode, len(j.Opcodes)}, {TableControl, len(j.Control)}, {TableControlFast, len(j.ControlFast)},
		{TableControlSlow, len(j.ControlSlow)}, {TableDatapath, len(j.Datapath)}} {
		if err := present(c.t, c.n); err != nil {
			return nil, err
		}
	}
	if has[TableOpcode] {
		s.Opcodes = &OpcodeTable{Gen: g}
		seen := map[int]bool{}
		for i, o := range j.Opcodes {
			at := fmt.Sprintf("opcode_table[%d] (op %d)", i, o.Op)
			if o.Op < 0 || o.Op >= NumOpcodes || seen[o.Op] {
				return nil, fmt.Errorf("%s: %w: op out of range or repeated", at, ErrInvalid)
			}
			seen[o.Op] = true
			e, err := MakeOpcodeEntry(g, o.FastRow, o.SlowRow)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
			if o.Raw != "" {
				if raw, err := parseU64(o.Raw); err != nil || raw != e.Raw {
					return nil, fmt.Errorf("%s: %w: raw %s disagrees with fast_row/slow_row (%#x)", at, ErrInvalid, o.Raw, e.Raw)
				}
			}
			s.Opcodes.Entries[o.Op] = e
		}
	}
	rows := func(t Table, in []RowJSON) (*ControlTable, error) {
		ct := &ControlTable{Table: t, Gen: g, Rows: make([]ControlRow, g.ControlRows())}
		seen := map[int]bool{}
		for i, r := range in {
			at := fmt.Sprintf("%s[%d] (row %d)", t, i, r.Row)
			if r.Row < 0 || r.Row >= len(ct.Rows) || seen[r.Row] {
				return nil, fmt.Errorf("%s: %w: row out of range or repeated", at, ErrInvalid)
			}
			seen[r.Row] = true
			row, err := ParseControlRowHex(r.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
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
		seen := map[int]bool{}
		for i, bj := range j.Datapath {
			at := fmt.Sprintf("datapath_table[%d] (block %d)", i, bj.Block)
			if bj.Block < 0 || bj.Block >= len(dt.Blocks) || seen[bj.Block] {
				return nil, fmt.Errorf("%s: %w: block out of range or repeated", at, ErrInvalid)
			}
			seen[bj.Block] = true
			lanes := map[int]bool{}
			for k, lj := range bj.Lanes {
				lat := fmt.Sprintf("%s.lanes[%d] (lane %d)", at, k, lj.Lane)
				if lj.Lane < 0 || lj.Lane >= LanesPerBlock || lanes[lj.Lane] {
					return nil, fmt.Errorf("%s: %w: lane out of range or repeated", lat, ErrInvalid)
				}
				lanes[lj.Lane] = true
				w, err := laneFromJSON(lj, g)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", lat, err)
				}
				dt.Blocks[bj.Block][lj.Lane] = w
			}
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
			return 0, fmt.Errorf("%w: word %q: %v", ErrInvalid, lj.Word, err)
		}
		word = LaneWord(v)
	}
	if lj.Fields == nil {
		if lj.Word == "" {
			return 0, fmt.Errorf("%w: lane has neither word nor fields", ErrInvalid)
		}
		return word, nil
	}
	f := lj.Fields
	lf := LaneFields{OPA: f.OPA, OPB: f.OPB, MUX: f.MUX, EXT3: f.EXT3, EXT4: f.EXT4, VALID: f.VALID, MODE: f.MODE, STAGE: f.STAGE}
	if f.HIGH != "" {
		h, err := parseU64(f.HIGH)
		if err != nil {
			return 0, fmt.Errorf("%w: high %q: %v", ErrInvalid, f.HIGH, err)
		}
		lf.HIGH = h
	}
	w, err := lf.Encode(g)
	if err != nil {
		return 0, err
	}
	if lj.Word != "" && w != word {
		return 0, fmt.Errorf("%w: word %s disagrees with its fields (which encode to %s)", ErrInvalid, lj.Word, hex64(uint64(w)))
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
