package sim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// verdicts lists "ENGINE[index] rule" for every refused instruction of a report (and "program
// rule" for a refused setting), sorted.
func verdicts(rep *Report) []string {
	var out []string
	for _, v := range rep.Settings {
		out = append(out, "program "+v.Rule)
	}
	for i := range rep.Insts {
		r := &rep.Insts[i]
		if !r.Executable() {
			out = append(out, fmt.Sprintf("%v[%d] %s", r.Engine, r.Index, r.Rules()[0]))
		}
	}
	slices.Sort(out)
	return out
}

// runVerdicts lists the same for the *ProgramError Run returned (nil: Run refused nothing before
// the run).
func runVerdicts(err error) []string {
	var pe *ProgramError
	if !errors.As(err, &pe) {
		return nil
	}
	var out []string
	for _, ie := range pe.Errs {
		if ie.Index < 0 {
			out = append(out, "program "+ie.Rule)
			continue
		}
		eng := ie.Engine
		if eng == "" {
			eng = isa.EngineNone.String()
		}
		out = append(out, fmt.Sprintf("%s[%d] %s", eng, ie.Index, ie.Rule))
	}
	slices.Sort(out)
	return out
}

// sameVerdicts holds the check pipeline, run alone on p (sim.CheckProgram, the entry point of
// tpbsim check) with the machine's configuration, to what Run returned: the same instructions
// refused before the run under the same rule ids, and a program it calls OK not refused.
func sameVerdicts(t *testing.T, p *Program, cfg Config, runErr error) {
	t.Helper()
	rep, err := CheckProgram(p, cfg)
	if err != nil {
		t.Fatalf("CheckProgram: %v", err)
	}
	want, got := verdicts(rep), runVerdicts(runErr)
	if !slices.Equal(want, got) {
		t.Fatalf("check and run disagree before the run:\ncheck: %v\nrun:   %v (%v)", want, got, runErr)
	}
	var pe *ProgramError
	if rep.OK() == errors.As(runErr, &pe) {
		t.Fatalf("check says OK = %v, run's error %v", rep.OK(), runErr)
	}
}

// The corpus of testdata/sim: check's verdict on each program (sim.CheckProgram) is the one Run
// makes before the run, on every generation the program can be read for.
func TestCheckMatchesRunOnCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "sim", "*.tpb"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs under testdata/sim (%v)", err)
	}
	refused := 0
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".tpb"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ap, err := asm.Parse(f, data, isa.CAYMAN)
			if err != nil {
				t.Fatal(err)
			}
			p := FromAsm(f, ap)
			m, err := New(Config{Gen: ap.Gen, Races: RacesOff})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Run(p)
			sameVerdicts(t, p, m.cfg, err)
			if runVerdicts(err) != nil {
				refused++
			}
		})
	}
	if refused == 0 {
		t.Error("no corpus program is refused before the run: the comparison met only accepted programs")
	}
}

// The DGE plans a request (tpbsim dge plan|run) by the rules the check pipeline applies to the
// DMA instruction that asks for the same copy: each case is a cast or plain copy written both
// ways, a dge.Request and its DMAMEMCPY word. Either both are refused, under the same rule, or
// both accepted.
// The rule with a source is the instruction's: FACTS §C.2 has is_valid_dma_cce require "aligned
// start addresses and steps", which the cast at src 0x1 / dst 0x3 (moved clear of its source
// here) breaks on both sides.
func TestDGERequestAgreesWithCheck(t *testing.T) {
	g := isa.CAYMAN
	const rows, cols = 4, 8
	for _, tc := range []struct {
		name     string
		src, dst uint64
		in, out  isa.DType
		op       isa.DGEComputeOp
		ses, des uint32    // element sizes (0: the dtype sizes)
		word     isa.DType // the word's dtype when it is not the request's (a plain copy moves raw bytes)
	}{
		{"aligned cast", 0x0, 0x1000, isa.DTypeFP32, isa.DTypeBFLOAT16, 0, 0, 0, 0},
		{"cast at src 0x1 / dst 0x1003", 0x1, 0x1003, isa.DTypeFP32, isa.DTypeBFLOAT16, 0, 0, 0, 0},
		{"cast at src 0x4 / dst 0x1003", 0x4, 0x1003, isa.DTypeFP32, isa.DTypeBFLOAT16, 0, 0, 0, 0},
		{"widening cast aligned", 0x2, 0x1004, isa.DTypeBFLOAT16, isa.DTypeFP32, 0, 0, 0, 0},
		{"plain copy at odd addresses", 0x1, 0x1003, isa.DTypeFP32, isa.DTypeFP32, 0, 0, 0, 0},
		// are_valid_memcpy_dtypes: no 64-bit dtype on the CCE path (is_valid_dtype, FACTS §A).
		{"INT64 MAX on copy", 0x0, 0x1000, isa.DTypeINT64, isa.DTypeINT64, isa.DGEComputeMAX, 0, 0, 0},
		{"UINT64 ADD on copy", 0x0, 0x1000, isa.DTypeUINT64, isa.DTypeUINT64, isa.DGEComputeADD, 0, 0, 0},
		{"INT64 -> INT32 cast", 0x0, 0x1000, isa.DTypeINT64, isa.DTypeINT32, 0, 0, 0, 0},
		// A plain copy of 64-bit values moves raw bytes: the word asking for it names a dtype
		// is_valid_dtype allows and an 8-byte element.
		{"plain INT64 copy", 0x0, 0x1000, isa.DTypeINT64, isa.DTypeINT64, 0, 0, 0, isa.DTypeUINT32},
		{"plain UINT64 copy", 0x8, 0x1008, isa.DTypeUINT64, isa.DTypeUINT64, 0, 0, 0, isa.DTypeUINT8},
		// is_valid_dma_cce: a cast's element sizes are the dtype sizes.
		{"cast FP32 -> BF16 of 8-byte / 4-byte elements", 0x0, 0x1000, isa.DTypeFP32, isa.DTypeBFLOAT16, 0, 8, 4, 0},
		{"MAX on copy of 8-byte FP32 elements", 0x0, 0x1000, isa.DTypeFP32, isa.DTypeFP32, isa.DGEComputeMAX, 8, 8, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss, ds := uint32(tc.in.Size()), uint32(tc.out.Size())
			if tc.ses != 0 {
				ss, ds = tc.ses, tc.des
			}
			req := dge.Request{Gen: g, Src: dge.RowMajor(tc.src, ss, []int{rows, cols}), Dst: dge.RowMajor(tc.dst, ds, []int{rows, cols}),
				In: tc.in, Out: tc.out, ComputeOp: tc.op}
			_, planErr := dge.PlanRequest(req, dge.Options{Quiet: true})
			win, wout := tc.in, tc.out
			if tc.word != 0 {
				win, wout = tc.word, tc.word
			}
			word := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: isa.InstWordLen}, ComputeOp: tc.op,
				SrcStartAddr: isa.Addr8(tc.src), SrcStepElem: [2]int32{1, cols}, SrcNumElem: [2]uint16{cols, rows}, SrcElemSize: uint16(ss),
				DstStartAddr: isa.Addr8(tc.dst), DstStepElem: [2]int32{1, cols}, DstNumElem: [2]uint16{cols, rows}, DstElemSize: uint16(ds),
				InDtype: win, OutDtype: wout}
			r, err := CheckInst(Config{Gen: g}, isa.EngineTPB_SP, word)
			if err != nil {
				t.Fatal(err)
			}
			checkRule, dgeRule := "", ""
			if !r.Executable() {
				checkRule = r.Rules()[0]
			}
			if planErr != nil {
				dgeRule = ruleOf(planErr, "(no rule)")
			}
			agree := checkRule == dgeRule
			if !agree {
				t.Errorf("check refuses the word under %q, the DGE the request under %q (%v)", checkRule, dgeRule, planErr)
			}
			if agree && checkRule != "" {
				// One rule, one message: the DGE's refusal is the validator's value and legal values.
				cv, dv := r.Violations[0], violationOf(planErr)
				if cv.Value != dv.Value || cv.Legal != dv.Legal {
					t.Errorf("check: %q (legal %q); the DGE: %q (legal %q)", cv.Value, cv.Legal, dv.Value, dv.Legal)
				}
			}
		})
	}
}

// violationOf is the broken rule a DGE error carries as a value.
func violationOf(err error) fault.Violation {
	var de *dge.Error
	if errors.As(err, &de) {
		return de.Violation()
	}
	return fault.Violation{}
}

// Every DMA word the DGE would plan is one check accepts: dge.PlanInst, the planner run and
// check lower words with, must not plan a word the instruction layer refuses (else `dge run`,
// the kernel lowering's choice of a crossbar form, and check disagree about the same word).
// Each case is a DMA_GATHER_TRANSPOSE of 16 BF16 rows of an HBM table into SBUF with another
// destination row step (dst_step_elem_1, in elements).
func TestPlannedDMAWordsPassCheck(t *testing.T) {
	g := isa.CAYMAN
	stride := g.Geometry().StateBufPartitionSize
	for _, tc := range []struct {
		name string
		step int32 // dst_step_elem_1
	}{
		{"one partition a row", int32(stride / 2)},
		{"32 elements", 32},
		{"16 elements (32 bytes)", 16},
		{"8 elements (16 bytes)", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const rows, cols = 16, 16
			w := &isa.DMAGatherXpose{Header: isa.Header{Opcode: isa.OpDMA_GATHER_TRANSPOSE, InstWordLen: isa.InstWordLen}, IdxNumActiveChannels: 128,
				SrcStartAddr: 0x10000, SrcStepElem: [2]int32{1, cols}, SrcNumElem: [2]uint16{cols, rows},
				SrcIdxStartAddr: isa.Addr4(0x1000), DstStartAddr: isa.LocalAddr8(0x2000), DstStepElem1: tc.step,
				DstNumElem: [2]uint16{rows, cols}, ElemSize: cols * 2,
				Dtype: isa.MakeDTypePair(isa.DTypeBFLOAT16, isa.DTypeBFLOAT16), Flags: isa.GatherTransposeFlags(isa.IndirectDimY)}
			_, planErr := dge.PlanInst(g, w, dge.Config{}, dge.Options{Quiet: true})
			r, err := CheckInst(Config{Gen: g}, isa.EnginePOOL, w)
			if err != nil {
				t.Fatal(err)
			}
			if planErr == nil && !r.Executable() {
				t.Errorf("the DGE plans a word check refuses: %v", r.Err(""))
			}
		})
	}
}

// A transposing reduce of 8-byte cells (TRANSPOSE_TENSOR_REDUCE_*: the model transposes 1-, 2-
// and 4-byte cells only) is refused by check and by run before the run, under
// transpose_cell_width: check once called these words valid and run failed them halfway
// through. Each case is one word of 32 channels x 32 elements reduced along X; what check
// accepts must run to the end.
func TestTransposeReduceCellWidthCheckAgreesWithRun(t *testing.T) {
	type tc struct {
		op     isa.Opcode
		eng    isa.Engine
		alu    isa.ALUOp
		dt     isa.DType
		refuse bool // transpose_cell_width
	}
	var cases []tc
	for _, dt := range []isa.DType{isa.DTypeINT64, isa.DTypeUINT64, isa.DTypeINT32} {
		for _, alu := range []isa.ALUOp{isa.ALUMaxInt, isa.ALUMinInt, isa.ALUAddInt} {
			cases = append(cases, tc{isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.EnginePOOL, alu, dt, dt.Size() == 8})
		}
	}
	for _, dt := range []isa.DType{isa.DTypeUINT64, isa.DTypeUINT32} {
		cases = append(cases, tc{isa.OpTRANSPOSE_TENSOR_REDUCE_BITVEC_OP, isa.EngineDVE, isa.ALUBitwiseXor, dt, dt.Size() == 8})
	}
	for _, g := range []isa.Generation{isa.CAYMAN, isa.MARIANA, isa.MAVERICK} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%v/%v/%v", g, c.op, c.alu, c.dt), func(t *testing.T) {
				in := s4(c.op, c.dt, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 32, isa.Events{})
				in.DstMemPattern.NumElem[0] = 1
				in.Op, in.OpDim = c.alu, isa.SubdimX
				p := &Program{Queues: []Queue{{Engine: c.eng, Insts: []Instr{{Inst: in, Offset: -1}}}}}
				m, err := New(Config{Gen: g, Races: RacesOff})
				if err != nil {
					t.Fatal(err)
				}
				fillRandom(t, m, 1)
				_, runErr := m.Run(p)
				sameVerdicts(t, p, m.cfg, runErr)
				rep, _ := CheckProgram(p, m.cfg)
				switch {
				case c.refuse && (rep.OK() || rep.Insts[0].Rules()[0] != "transpose_cell_width"):
					t.Errorf("check: OK %v, rules %v; want transpose_cell_width", rep.OK(), rep.Insts[0].Rules())
				case !c.refuse && runErr != nil:
					t.Errorf("check accepts the word, run fails it: %v", runErr)
				}
			})
		}
	}
}

// One rule, one message: the words check refuses, run refuses before the run with the same
// text (fault.Violation.String, the one renderer): an ISA violation (value, legal), one with a
// reason as well, and an unsupported word with a reason.
func TestCheckAndRunPrintARuleAlike(t *testing.T) {
	g := isa.CAYMAN
	psum := isa.Addr4(g.Geometry().PSUMOffset)
	cellWidth := s4(isa.OpTRANSPOSE_TENSOR_REDUCE_ARITH_OP, isa.DTypeINT64, 32, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 32, isa.Events{})
	cellWidth.DstMemPattern.NumElem[0] = 1
	cellWidth.Op, cellWidth.OpDim = isa.ALUMaxInt, isa.SubdimX
	for _, tc := range []struct {
		name string
		eng  isa.Engine
		in   isa.Inst
	}{
		{"has_multiple_32_channels", isa.EngineDVE, s4(isa.OpSTREAM_TRANSPOSE, isa.DTypeFP32, 48, sbufAddr(g, 0, 0), sbufAddr(g, 0, 0x1000), 32, isa.Events{})},
		{"gpsimd_cannot_access_psum", isa.EnginePOOL, s4(isa.OpCOPY, isa.DTypeFP32, 32, sbufAddr(g, 0, 0), psum, 32, isa.Events{})},
		{"transpose_cell_width", isa.EnginePOOL, cellWidth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Program{Queues: []Queue{{Engine: tc.eng, Insts: []Instr{{Inst: tc.in, Offset: -1}}}}}
			m, err := New(Config{Gen: g, Races: RacesOff})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := CheckProgram(p, m.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := &rep.Insts[0]
			v := r.Unsupported
			if len(r.Violations) > 0 {
				v = r.Violations[0]
			}
			if v.Rule != tc.name {
				t.Fatalf("check: %v, want rule %s", v, tc.name)
			}
			_, runErr := m.Run(p)
			if runErr == nil || !strings.Contains(runErr.Error(), ": rule "+v.String()) {
				t.Errorf("check says %q; run:\n%v", v.String(), runErr)
			}
		})
	}
}
