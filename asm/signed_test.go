package asm

import (
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// A decimal number past a signed field's range is refused instead of wrapping (40000 in the
// 16-bit step_elem would be -25536); hex writes the raw bits on purpose; JSON goes the same way.
func TestSignedFieldRange(t *testing.T) {
	line := func(step string) string {
		return "COPY in=FP32 out=FP32 nac=32 src=sbuf:0:0[2@" + step + "] dst=sbuf:0:0x100[2@1]"
	}
	if _, err := ParseLine(line("40000"), isa.CAYMAN); err == nil ||
		!strings.Contains(err.Error(), "40000 out of range (-32768..32767) for a signed field; 0x9c40 writes these bits as -25536") {
		t.Fatalf("40000: %v", err)
	}
	for _, ok := range []string{"32767", "-32768", "0x9c40", "-25536", "0xffff"} {
		if _, err := ParseLine(line(ok), isa.CAYMAN); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	a, _ := ParseLine(line("0x9c40"), isa.CAYMAN)
	b, _ := ParseLine(line("-25536"), isa.CAYMAN)
	if a != b {
		t.Error("0x9c40 and -25536 differ")
	}
	if _, err := ParseJSON("x.json", []byte(`{"opcode":"COPY","src_mem_pattern":{"start_addr":"sbuf:0:0","step_elem":[40000,1,1,1],"num_elem":[2,1,1,1]}}`), isa.CAYMAN); err == nil ||
		!strings.Contains(err.Error(), "out of range (-32768..32767)") {
		t.Fatalf("JSON 40000: %v", err)
	}
}
