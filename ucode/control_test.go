package ucode

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// Control rows quoted in FACTS §E.3: gen4 slow[48], gen4 fast row 111 (StreamTranspose), the
// gen2 all-idle row.
func TestControlRows(t *testing.T) {
	slow48 := ControlRow{0x00, 0xc3, 0x30, 0x0c, 0xc3, 0x30, 0x01, 0x00}
	row111 := ControlRow{0x00, 0x00, 0xe8, 0x00, 0xa0, 0x82, 0x08, 0x00}
	allIdle := ControlRow{0x55, 0x55, 0x10, 0, 0x20, 0x80, 0x10}
	cases := []struct {
		name  string
		row   ControlRow
		table Table
		g     TableGen
		want  []string // name=value of fields, in order, as a substring of the joined list
	}{
		{"gen4 slow48", slow48, TableControlSlow, Gen4, []string{"steps=0x300 0x30c 0x30c 0x30c;", "loop_count=1;"}},
		{"gen4 fast row111", row111, TableControlFast, Gen4, []string{"step_config=0x00e8;", "issue_marker=a082;", "step_op_select=0x08;"}},
		{"gen3 fast row111", row111, TableControlFast, Gen3, []string{"step_config=0x00e8;"}},
		{"gen2 all-idle", allIdle, TableControl, Gen2, []string{"lane_mode=0x5555 (lanes 0..7: 01 01 01 01 01 01 01 01);", "operand_mux=100000000000 (step_valid=true);"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, err := c.row.RowFields(c.table, c.g)
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for _, f := range fs {
				got += f.Name + "=" + f.Value + ";"
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("fields %s lack %s", got, w)
				}
			}
			back, err := ParseControlRowHex(c.row.Hex())
			if err != nil || back != c.row {
				t.Errorf("hex round trip %v %v", back, err)
			}
		})
	}
	if h := row111.Hex(); h != "00 00 e8 00 a0 82 08 00 00 00 00 00 00 00 00 00" {
		t.Errorf("hex %q", h)
	}
}

func TestControlRowErrors(t *testing.T) {
	cases := []struct {
		name, rule string
		err        func() error
	}{
		{"short hex", RuleControlRow, func() error { _, err := ParseControlRowHex("00 11"); return err }},
		{"not hex", RuleControlRow, func() error { _, err := ParseControlRowHex("zz"); return err }},
		{"control_table in gen3", RuleTableKind, func() error { _, err := (ControlRow{}).RowFields(TableControl, Gen3); return err }},
		{"slow table in gen2", RuleTableKind, func() error { _, err := (ControlRow{}).RowFields(TableControlSlow, Gen2); return err }},
		{"datapath is no control table", RuleTableKind, func() error { _, err := ParseControlTable(make([]byte, 8192), TableDatapath, Gen2); return err }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.err(); fault.Category(err) != fault.ErrInvalid || fault.Rule(err) != c.rule {
				t.Errorf("err %v, want rule %s", err, c.rule)
			}
		})
	}
}
