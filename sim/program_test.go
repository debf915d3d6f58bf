package sim

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
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

// TestHandBuiltProgramIndex: a hand-built Program whose Instr carry no Index (all 0) has its
// instructions named by their position in their engine's queue, the Queues of one engine
// counted as one: in the check pipeline's Report and its errors, in a run's instruction error,
// in its race report and in its trace (InstReport.Index once copied Instr.Index: every
// instruction was instruction 0).
func TestHandBuiltProgramIndex(t *testing.T) {
	g := isa.CAYMAN
	cp := func(src, dst uint32) isa.Inst {
		return s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, src), sbufAddr(g, 0, dst), 32, isa.Events{})
	}
	hand := func(e isa.Engine, insts ...isa.Inst) Queue { // no Index, no Offset
		q := Queue{Engine: e}
		for _, in := range insts {
			q.Insts = append(q.Insts, Instr{Inst: in, Offset: -1})
		}
		return q
	}
	bad := s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 32, isa.Events{})
	bad.InDtype = isa.DType(31) // no such dtype

	p := &Program{File: "hand", Queues: []Queue{hand(isa.EngineDVE, cp(0, 0x1000), cp(0, 0x2000)), hand(isa.EngineACT, cp(0, 0x3000)),
		hand(isa.EngineDVE, bad)}}
	rep, err := CheckProgram(p, Config{Gen: g})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, r := range rep.Insts {
		got = append(got, r.Index)
	}
	if want := []int{0, 1, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("Report indices %v, want %v", got, want)
	}
	var pe *ProgramError
	if err := rep.Err(); !errors.As(err, &pe) || len(pe.Errs) != 1 || pe.Errs[0].Index != 2 || !strings.HasPrefix(pe.Errs[0].Error(), "DVE instruction 2 ") {
		t.Errorf("the invalid DVE instruction (third on DVE, in the program's second DVE queue): %v", err)
	}

	// A run-time failure: the second DVE instruction, alone in the second DVE Queue, reads
	// never-written bytes.
	m, err := New(Config{Gen: g, CheckUninit: true})
	if err != nil {
		t.Fatal(err)
	}
	for part := 0; part < 32; part++ {
		if err := m.Memory().Write(mem.Loc{Region: mem.SBUF, Partition: part}, make([]byte, 0x100)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = m.Run(&Program{File: "hand", Queues: []Queue{hand(isa.EngineDVE, cp(0, 0x1000)), hand(isa.EngineDVE, cp(0x8000, 0x9000))}})
	var ie *InstError
	if !errors.As(err, &ie) || !errors.Is(err, fault.ErrUninit) || ie.Index != 1 || !strings.HasPrefix(ie.Error(), "DVE instruction 1 ") {
		t.Errorf("run-time failure of DVE's second instruction: %v", err)
	}

	// A race between DVE's only instruction and ACT's second, both writing 0x4000; the trace
	// names ACT's instructions 0 and 1.
	m, err = New(Config{Gen: g, Races: RacesWarn, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Run(&Program{File: "hand", Queues: []Queue{hand(isa.EngineDVE, cp(0, 0x4000)), hand(isa.EngineACT, cp(0, 0x5000), cp(0x100, 0x4000))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Races) != 1 {
		t.Fatalf("races %v, want the one between DVE and ACT", res.Races)
	}
	sides := map[string]int{res.Races[0].First.Engine: res.Races[0].First.Index, res.Races[0].Second.Engine: res.Races[0].Second.Index}
	if sides["DVE"] != 0 || sides["ACT"] != 1 {
		t.Errorf("race sides %v, want DVE instruction 0 and ACT instruction 1: %v", sides, res.Races[0])
	}
	var actIdx []any
	for _, ev := range res.Trace.Events() {
		if ev.Cat == "ACT" {
			actIdx = append(actIdx, ev.Args["index"])
		}
	}
	if want := []any{0, 1}; !reflect.DeepEqual(actIdx, want) {
		t.Errorf("trace: ACT slices' indices %v, want %v", actIdx, want)
	}
}
