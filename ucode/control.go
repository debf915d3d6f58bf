package ucode

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
)

// ControlRowSize is the stride of every control table row, in every generation (FACTS §E.3).
const ControlRowSize = 16

// ControlRow is one 16-byte control table row. The raw bytes are the authority; RowFields names
// the parts the sources identify (FACTS §E.3) and leaves the rest raw.
type ControlRow [ControlRowSize]byte

// IsZero reports an unused row.
func (r ControlRow) IsZero() bool { return r == ControlRow{} }

// Hex renders the row as space-separated bytes, "00 00 e8 00 a0 82 08 00 ...".
func (r ControlRow) Hex() string {
	var b strings.Builder
	for i, c := range r {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%02x", c)
	}
	return b.String()
}

// ParseControlRowHex reads the Hex form back (spaces optional).
func ParseControlRowHex(s string) (ControlRow, error) {
	var r ControlRow
	const legal = "16 bytes of hex, spaces optional"
	raw, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	if err != nil {
		return r, invalid(RuleControlRow, "bytes", strconv.Quote(s), legal, "%v", err)
	}
	if len(raw) != ControlRowSize {
		return r, invalid(RuleControlRow, "bytes", fmt.Sprintf("%d bytes", len(raw)), legal, "a control row is %d bytes", ControlRowSize)
	}
	copy(r[:], raw)
	return r, nil
}

// RowField is one named part of a control row.
type RowField struct {
	Name  string `json:"name"`  // e.g. "lane_mode", "issue_marker", "raw"
	Bytes string `json:"bytes"` // byte range, e.g. "[0:2]"
	Value string `json:"value"` // rendered value
}

// RowFields names the known fields of a row of table t in generation g (FACTS §E.3, STRONG;
// the slow-word step grammar is INFERRED); bytes with no known role are listed as "raw". An
// invalid generation, or a table that is not one of g's control tables, is an error.
func (r ControlRow) RowFields(t Table, g TableGen) ([]RowField, error) {
	if err := checkControlTable(t, g); err != nil {
		return nil, err
	}
	u16 := func(i int) uint16 { return uint16(r[i]) | uint16(r[i+1])<<8 }
	hexb := func(lo, hi int) string { return hex.EncodeToString(r[lo:hi]) }
	f := func(name string, lo, hi int, v string) RowField {
		return RowField{name, fmt.Sprintf("[%d:%d]", lo, hi), v}
	}
	switch {
	case t == TableControl:
		lm := u16(0)
		modes := make([]string, LanesPerBlock)
		for L := range modes {
			modes[L] = fmt.Sprintf("%02b", (lm>>(2*L))&3)
		}
		return []RowField{
			f("lane_mode", 0, 2, fmt.Sprintf("%#04x (lanes 0..7: %s)", lm, strings.Join(modes, " "))),
			f("step_op_select", 2, 3, fmt.Sprintf("%#02x", r[2])),
			f("raw", 3, 4, hexb(3, 4)),
			f("issue_marker", 4, 6, hexb(4, 6)+fmt.Sprintf(" (seq pc/imm %#02x)", r[4])),
			f("operand_mux", 6, 12, hexb(6, 12)+fmt.Sprintf(" (step_valid=%t)", r[6] == 0x10)),
			f("zero", 12, 16, hexb(12, 16)),
		}, nil
	case t == TableControlFast:
		return []RowField{
			f("byte0", 0, 1, fmt.Sprintf("%#02x", r[0])),
			f("micro_pc", 1, 2, fmt.Sprintf("%#02x", r[1])),
			f("step_config", 2, 4, fmt.Sprintf("%#04x", u16(2))),
			f("issue_marker", 4, 6, hexb(4, 6)),
			f("step_op_select", 6, 7, fmt.Sprintf("%#02x", r[6])),
			f("high_op_bits", 7, 8, fmt.Sprintf("%#02x", r[7])),
			f("zero", 8, 16, hexb(8, 16)),
		}, nil
	default: // TableControlSlow
		st := r.SlowSteps()
		return []RowField{
			f("steps", 0, 6, fmt.Sprintf("%#03x %#03x %#03x %#03x", st[0], st[1], st[2], st[3])),
			f("loop_count", 6, 7, fmt.Sprintf("%d", r[6])),
			f("raw", 7, 8, hexb(7, 8)),
			f("loop_payload", 8, 14, hexb(8, 14)),
			f("zero", 14, 16, hexb(14, 16)),
		}, nil
	}
}

// checkControlTable refuses an invalid generation and a table that is not one of g's control
// tables (control_table in gen2; control_fast_table and control_slow_table in gen3/gen4).
func checkControlTable(t Table, g TableGen) error {
	if err := g.Check(); err != nil {
		return err
	}
	var ctl []Table
	for _, c := range g.Tables() {
		if c == TableControl || c == TableControlFast || c == TableControlSlow {
			ctl = append(ctl, c)
		}
	}
	msg := ""
	switch {
	case t != TableControl && t != TableControlFast && t != TableControlSlow:
		msg = fmt.Sprintf("not a control table (%s's are %s)", g, tableList(ctl))
	case !g.Has(t):
		msg = fmt.Sprintf("%s has no %s (its control tables are %s)", g, t, tableList(ctl))
	}
	if msg != "" {
		return &Error{Table: t, Offset: -1, Kind: fault.ErrInvalid, V: fault.Violation{Rule: RuleTableKind, Offset: -1, Msg: msg}}
	}
	return nil
}

// SlowSteps reads bytes [0:6] of a slow row as four 12-bit steps, low nibble first (FACTS §E.3
// "nibble stream ... 3-nibble steps"). INFERRED: FACTS lists gen4 slow[48] = 00 c3 30 0c c3 30 01 00
// as steps {0x001, 0x30c, 0x30c, 0x30c}; a plain low-first read gives {0x300, 0x30c, 0x30c, 0x30c}
// and byte[6] = 0x01, the loop count. The "head nibbles substitute the first step" rule is not
// specified well enough to apply, so the plain read is shown.
func (r ControlRow) SlowSteps() [4]uint16 {
	var v uint64
	for i := 5; i >= 0; i-- {
		v = v<<8 | uint64(r[i])
	}
	var st [4]uint16
	for i := range st {
		st[i] = uint16(v >> (12 * i) & 0xfff)
	}
	return st
}

// ControlTable is a whole control_table.bin (gen2), control_fast_table.bin or
// control_slow_table.bin (gen3/gen4): rows of 16 bytes (FACTS §E.1, §E.3).
type ControlTable struct {
	Table Table
	Gen   TableGen
	Rows  []ControlRow
}

// ParseControlTable reads control table t of generation g: control_table (gen2),
// control_fast_table or control_slow_table (gen3/gen4).
func ParseControlTable(data []byte, t Table, g TableGen) (*ControlTable, error) {
	if err := checkControlTable(t, g); err != nil {
		return nil, err
	}
	if err := checkSize(data, t, g); err != nil {
		return nil, err
	}
	ct := &ControlTable{Table: t, Gen: g, Rows: make([]ControlRow, len(data)/ControlRowSize)}
	for i := range ct.Rows {
		copy(ct.Rows[i][:], data[i*ControlRowSize:])
	}
	return ct, nil
}

// Bytes encodes ct to its file form.
func (ct *ControlTable) Bytes() []byte {
	out := make([]byte, 0, len(ct.Rows)*ControlRowSize)
	for _, r := range ct.Rows {
		out = append(out, r[:]...)
	}
	return out
}

// UsedRows counts the nonzero rows (FACTS §E.3: gen2 127/128; gen3/gen4 182/256 fast and slow).
func (ct *ControlTable) UsedRows() int {
	n := 0
	for _, r := range ct.Rows {
		if !r.IsZero() {
			n++
		}
	}
	return n
}
