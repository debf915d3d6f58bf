package isa

import "testing"

// TestOpcodeEngines: the opcode table's engine sets, written out by hand from FACTS §D.2's
// engine surface column (and the machine's queue list): every opcode a queue executes, and no
// other. An opcode not listed runs on no queue.
func TestOpcodeEngines(t *testing.T) {
	want := map[Opcode]string{
		OpTENSOR_REDUCE_ARITH_OP:            "DVE, POOL",
		OpTENSOR_REDUCE_BITVEC_OP:           "DVE, POOL",
		OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP:  "DVE, POOL",
		OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP: "DVE, POOL",
		OpTENSOR_CUMULATIVE_ARITH_OP:        "DVE",
		OpTENSOR_CUMULATIVE_BITVEC_OP:       "DVE",
		OpCOPY:                              "DVE, POOL, ACT",
		OpCAST:                              "DVE, POOL, ACT",
		OpRECIPROCAL:                        "DVE",
		OpSTREAM_SHUFFLE:                    "DVE",
		OpSTREAM_TRANSPOSE:                  "DVE",
		OpTENSOR_REDUCE_ADD_BF16:            "DVE",
		OpTENSOR_REDUCE_MAX_BF16:            "DVE",
		OpLOAD_MASK_SELECT:                  "DVE",
		OpMEMSET:                            "DVE",
		OpDMAMEMCPY:                         "POOL, ACT, SP",
		OpDMA_INDIRECT:                      "POOL, ACT, SP",
		OpDMA_TRANSPOSE:                     "POOL, ACT, SP",
		OpDMA_GATHER_TRANSPOSE:              "POOL",
	}
	for c := 0; c < 256; c++ {
		op := Opcode(c)
		w, ok := want[op]
		if !ok {
			w = "none"
		}
		t.Run(op.String(), func(t *testing.T) {
			if got := op.Engines().String(); got != w {
				t.Errorf("Engines() = %s, want %s", got, w)
			}
			for _, e := range op.Engines().List() {
				if !op.Engines().Has(e) {
					t.Errorf("List holds %v, Has says no", e)
				}
			}
			if ok && !op.Engines().Has(op.Engine()) {
				t.Errorf("home engine %v not in %v", op.Engine(), op.Engines())
			}
		})
	}
}

// TestEngineSet: membership, order and text of the set type, including values outside the enum.
func TestEngineSet(t *testing.T) {
	cases := []struct {
		name string
		in   []Engine
		want string
	}{
		{"empty", nil, "none"},
		{"one", []Engine{EngineACT}, "ACT"},
		{"queue order", []Engine{EngineTPB_SP, EnginePE, EngineDVE}, "DVE, SP, PE"},
		{"none and out of range dropped", []Engine{EngineNone, Engine(200), EnginePOOL}, "POOL"},
		{"all", []Engine{EnginePE, EngineACT, EnginePOOL, EngineDVE, EngineTPB_SP, EngineTOP_SP}, "DVE, POOL, ACT, SP, PE, TOP_SP"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := EngineSetOf(c.in...)
			if got := s.String(); got != c.want {
				t.Errorf("String = %q, want %q", got, c.want)
			}
			if s.Has(EngineNone) {
				t.Error("Has(EngineNone)")
			}
			for e := 0; e < 256; e++ {
				_ = s.Has(Engine(e)) // never panics on any value
			}
		})
	}
	if got := EngineSet(0xFFFF).String(); got != "DVE, POOL, ACT, SP, PE, TOP_SP" {
		t.Errorf("bits beyond the enum: %q", got)
	}
}
