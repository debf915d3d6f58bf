package asm

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// TestOverlappingAssignments: settings that write the same bits — a whole tensor then one of
// its fields, a bitfield byte then a bitfield, a field under two names — are refused as set
// twice, in text and JSON; disjoint settings of one tensor are not.
func TestOverlappingAssignments(t *testing.T) {
	for _, c := range []struct {
		src, field string // field: the path the error names, "" for no error
	}{
		{"STREAM_TRANSPOSE src=sbuf:0:0x0[64@1] src_mem_pattern.num_elem[0]=3", "src_mem_pattern.num_elem[0]"},
		{"STREAM_TRANSPOSE src_mem_pattern.num_elem=[1,2,3,4] src_mem_pattern.num_elem[2]=3", "src_mem_pattern.num_elem[2]"},
		{"STREAM_TRANSPOSE src_mem_pattern.num_elem[0]=3 src=sbuf:0:0x0[64@1]", "src_mem_pattern"},
		{"DMAMEMCPY dma_configs=3 dma_configs.priority_class=1", "dma_configs.priority_class"},
		{"STREAM_TRANSPOSE src_mem_pattern.num_elem[0]=3 src_mem_pattern.num_elem[1]=4", ""},
		{"STREAM_TRANSPOSE src=sbuf:0:0x0[64@1] dst=sbuf:0:0x100[64@1]", ""},
	} {
		t.Run(c.src, func(t *testing.T) {
			_, err := Parse("f.s", []byte(c.src), isa.CAYMAN)
			var e *Error
			switch {
			case c.field == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case c.field != "" && (!errors.As(err, &e) || e.Field != c.field || !strings.Contains(e.Msg, "set twice")):
				t.Fatalf("got %v, want field %s set twice", err, c.field)
			}
		})
	}
	_, err := ParseJSON("f.json", []byte(`{"opcode":"STREAM_TRANSPOSE","src":"sbuf:0:0x0[64@1]","src_mem_pattern":{"num_elem":[3,1,1,1]}}`), isa.CAYMAN)
	if err == nil || !strings.Contains(err.Error(), "set twice") {
		t.Errorf("JSON tensor then its num_elem: %v", err)
	}
}
