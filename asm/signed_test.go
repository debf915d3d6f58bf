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
	for _, c := range []struct {
		step, err string // err: "" when the line assembles
	}{
		{"40000", "40000 out of range (-32768..32767) for a signed field; 0x9c40 writes these bits as -25536"},
		{"32767", ""}, {"-32768", ""}, {"0x9c40", ""}, {"-25536", ""}, {"0xffff", ""},
		{"-32769", "out of range (-32768..32767) for a signed field"},
	} {
		t.Run(c.step, func(t *testing.T) {
			_, err := ParseLine(line(c.step), isa.CAYMAN)
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("%v, want %q", err, c.err)
			}
		})
	}
	t.Run("hex is the raw bits", func(t *testing.T) {
		a, _ := ParseLine(line("0x9c40"), isa.CAYMAN)
		b, _ := ParseLine(line("-25536"), isa.CAYMAN)
		if a != b {
			t.Error("0x9c40 and -25536 differ")
		}
	})
	t.Run("JSON", func(t *testing.T) {
		if _, err := ParseJSON("x.json", []byte(`{"opcode":"COPY","src_mem_pattern":{"start_addr":"sbuf:0:0","step_elem":[40000,1,1,1],"num_elem":[2,1,1,1]}}`), isa.CAYMAN); err == nil ||
			!strings.Contains(err.Error(), "out of range (-32768..32767)") {
			t.Fatalf("JSON 40000: %v", err)
		}
	})
}
