package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// A word of a bare instruction list goes to its opcode's engine queue, whatever it is; the check
// pipeline then refuses what no modelled queue executes, naming a word on no queue by its file,
// word index and byte offset (there is no engine to name it by).
func TestFromListWordsOnNoModelledQueue(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opcode byte
		kind   error
		rule   string
		where  string
	}{
		{"unknown opcode", 0xff, fault.ErrInvalid, "has_valid_neuron_header", "prog.bin: word 1 (offset 0x40): "},
		{"PE opcode (MATMUL)", 0x02, fault.ErrUnsupported, RuleEngineModelled, "PE instruction 0 (prog.bin, byte offset 64): "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := isa.Encode(transposeWord())
			bad := make([]byte, isa.InstNBytes)
			bad[0], bad[1] = tc.opcode, isa.InstWordLen
			insts, err := isa.DecodeStream(append(good[:], bad...))
			if err != nil {
				t.Fatal(err)
			}
			p, err := FromList("prog.bin", insts, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := New(Config{Gen: isa.CAYMAN})
			_, err = m.Run(p)
			var pe *ProgramError
			if !errors.As(err, &pe) || len(pe.Errs) != 1 || !errors.Is(err, tc.kind) || pe.Errs[0].Rule != tc.rule {
				t.Fatalf("err = %v, want one %v error under rule %s", err, tc.kind, tc.rule)
			}
			if msg := pe.Errs[0].Error(); !strings.HasPrefix(msg, tc.where) || strings.Contains(msg, "- instruction") {
				t.Errorf("message %q: want it to start with %q", msg, tc.where)
			}
		})
	}
	if _, err := FromList("prog.bin", []isa.Inst{transposeWord()}, []int64{0, 64}); !errors.Is(err, fault.ErrInvalid) {
		t.Errorf("two offsets for one instruction: %v", err)
	}
}
