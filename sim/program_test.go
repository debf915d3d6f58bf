package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// A word of a bare instruction list that no modelled queue executes is named by its file, word
// index and byte offset (there is no engine to name it by).
func TestFromListNamesTheWord(t *testing.T) {
	good := isa.Encode(transposeWord())
	bad := make([]byte, isa.InstNBytes)
	bad[0] = 0xff
	data := append(append(good[:0:0], good[:]...), bad...)
	insts, err := isa.DecodeStream(data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = FromList("prog.bin", insts, nil)
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "prog.bin: word 1 (offset 0x40): ") || strings.Contains(msg, "- instruction") {
		t.Errorf("message %q: want it to start with \"prog.bin: word 1 (offset 0x40): \"", msg)
	}
	if !strings.Contains(msg, "rule opcode_has_engine") {
		t.Errorf("message %q lacks the rule", msg)
	}
}
