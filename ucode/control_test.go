package ucode

import (
	"strings"
	"testing"
)

func TestControlRows(t *testing.T) {
	slow48 := ControlRow{0x00, 0xc3, 0x30, 0x0c, 0xc3, 0x30, 0x01, 0x00}
	if st := slow48.SlowSteps(); st != [4]uint16{0x300, 0x30c, 0x30c, 0x30c} {
		t.Errorf("steps %#x", st)
	}
	fs := slow48.RowFields(TableControlSlow, Gen4)
	if fs[1].Name != "loop_count" || fs[1].Value != "1" {
		t.Errorf("slow fields %+v", fs)
	}
	row111 := ControlRow{0x00, 0x00, 0xe8, 0x00, 0xa0, 0x82, 0x08, 0x00}
	if h := row111.Hex(); !strings.HasPrefix(h, "00 00 e8 00 a0 82 08 00") {
		t.Errorf("hex %q", h)
	}
	back, err := ParseControlRowHex(row111.Hex())
	if err != nil || back != row111 {
		t.Errorf("hex round trip %v %v", back, err)
	}
	var got string
	for _, f := range row111.RowFields(TableControlFast, Gen4) {
		got += f.Name + "=" + f.Value + ";"
	}
	if !strings.Contains(got, "step_config=0x00e8;") || !strings.Contains(got, "issue_marker=a082;") || !strings.Contains(got, "step_op_select=0x08;") {
		t.Errorf("fast fields %s", got)
	}
	allIdle := ControlRow{0x55, 0x55, 0x10, 0, 0x20, 0x80, 0x10}
	if f := allIdle.RowFields(TableControl, Gen2)[0]; !strings.Contains(f.Value, "0x5555 (lanes 0..7: 01 01 01 01 01 01 01 01)") {
		t.Errorf("lane_mode %q", f.Value)
	}
	if _, err := ParseControlRowHex("00 11"); err == nil {
		t.Error("short row accepted")
	}
}
