package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// logUnit is a scheduler-test executor: it records which instruction ran, in global order, and
// touches no memory. The executors themselves are tested through the real dve binding.
type logUnit struct {
	name string
	log  *[]string
}

func (u logUnit) exec(m *Machine, in isa.Inst) (Effect, error) {
	*u.log = append(*u.log, fmt.Sprintf("%s:%v:%d", u.name, in.Hdr().Opcode, in.Hdr().DebugHint))
	return Effect{BytesRead: 8, BytesWritten: 4}, nil
}

func newLogMachine(t *testing.T, log *[]string) *Machine {
	t.Helper()
	m, err := New(Config{Gen: isa.CAYMAN, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	m.newUnit = func(e isa.Engine) unit { return logUnit{e.String(), log} }
	return m
}

// copyInst is a COPY with the given events; tag goes in debug_hint so the log can tell
// instructions apart. n is elements per channel (sets the cost).
func copyInst(tag uint8, n uint16, ev isa.Events) *isa.S4D4TR {
	t := isa.Tensor4D{StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{n, 1, 1, 1}}
	return &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpCOPY, InstWordLen: 16, DebugHint: tag}, Events: ev,
		SrcMemPattern: t, DstMemPattern: t, InDtype: isa.DTypeFP32, OutDtype: isa.DTypeFP32, NumActiveChannels: 1}
}

func prog(qs ...Queue) *Program {
	for qi := range qs {
		for i := range qs[qi].Insts {
			qs[qi].Insts[i].Index = i
			qs[qi].Insts[i].Offset = int64(i * 64)
		}
	}
	return &Program{File: "t.s", Queues: qs}
}

func q(e isa.Engine, insts ...isa.Inst) Queue {
	out := Queue{Engine: e}
	for _, in := range insts {
		out.Insts = append(out.Insts, Instr{Inst: in})
	}
	return out
}

func waitGE(idx uint8, v uint32) isa.Events {
	return isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: idx, SemaphoreValue: v}
}

func incOn(idx uint8, complete bool) isa.Events {
	m := isa.SemIncRead
	if complete {
		m = isa.SemIncComplete
	}
	return isa.Events{UpdateMode: m, UpdateIdx: idx}
}

func TestSemaphoreOrderingAcrossEngines(t *testing.T) {
	var log []string
	m := newLogMachine(t, &log)
	// POOL's first instruction waits for sem[3] >= 1, which the DVE's long COPY bumps on
	// completion; the DVE's second instruction waits for POOL's bump of sem[4].
	p := prog(
		q(isa.EngineDVE, copyInst(1, 4096, incOn(3, true)), copyInst(2, 32, waitGE(4, 1))),
		q(isa.EnginePOOL, copyInst(3, 32, waitGE(3, 1)), copyInst(4, 32, incOn(4, false))),
	)
	res, err := m.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"DVE:COPY:1", "POOL:COPY:3", "POOL:COPY:4", "DVE:COPY:2"}
	if strings.Join(log, " ") != strings.Join(want, " ") {
		t.Fatalf("order %v, want %v", log, want)
	}
	if m.Semaphore(3) != 1 || m.Semaphore(4) != 1 {
		t.Errorf("sems %d %d", m.Semaphore(3), m.Semaphore(4))
	}
	// Timing: POOL's first slice starts exactly when the DVE's first completes: its slice
	// (the queue's occupancy) ends ve.access_cycles before its completion update.
	_, donePS := testCost(isa.EngineDVE, copyInst(1, 4096, isa.Events{}), false)
	starts := map[string]int64{}
	ends := map[string]int64{}
	for _, e := range res.Trace.Events() {
		k := fmt.Sprintf("%s:%v", e.Cat, e.Args["index"])
		starts[k], ends[k] = e.TsPS, e.TsPS+e.DurPS
	}
	if starts["DVE:0"] != 0 || starts["POOL:0"] != donePS || ends["DVE:0"] >= donePS {
		t.Errorf("POOL:0 starts at %d, DVE:0 runs %d..%d, completes at %d", starts["POOL:0"], starts["DVE:0"], ends["DVE:0"], donePS)
	}
	if starts["DVE:1"] < starts["POOL:1"] {
		t.Errorf("DVE:1 at %d before POOL:1 at %d", starts["DVE:1"], starts["POOL:1"])
	}
	var pool EngineStats
	for _, s := range res.Engines {
		if s.Engine == "POOL" {
			pool = s
		}
	}
	if pool.Waits != 1 || pool.WaitPS != donePS || pool.Instructions != 2 {
		t.Errorf("POOL stats %+v", pool)
	}
	var sum bytes.Buffer
	res.WriteSummary(&sum)
	if !strings.Contains(sum.String(), "POOL") || !strings.Contains(sum.String(), "bytes read") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

func TestReadVersusCompleteUpdate(t *testing.T) {
	for _, complete := range []bool{false, true} {
		t.Run(fmt.Sprintf("complete=%v", complete), func(t *testing.T) {
			var log []string
			m := newLogMachine(t, &log)
			p := prog(q(isa.EngineDVE, copyInst(1, 1000, incOn(0, complete))), q(isa.EngineACT, copyInst(2, 1, waitGE(0, 1))))
			res, err := m.Run(p)
			if err != nil {
				t.Fatal(err)
			}
			readPS, totalPS := testCost(isa.EngineDVE, copyInst(1, 1000, isa.Events{}), false)
			var actStart int64 = -1
			for _, e := range res.Trace.Events() {
				if e.Cat == "ACT" {
					actStart = e.TsPS
				}
			}
			want := readPS
			if complete {
				want = totalPS
			}
			if actStart != want {
				t.Errorf("complete=%v: ACT starts at %d, want %d", complete, actStart, want)
			}
		})
	}
}

func TestEqualityWaitSeesEveryUpdate(t *testing.T) {
	// sem[7] goes 0 -> 1 -> 2 at different times; a waiter for == 1 must catch the first value.
	var log []string
	m := newLogMachine(t, &log)
	eq1 := isa.Events{WaitMode: isa.WaitForSemEQImm, WaitIdx: 7, SemaphoreValue: 1}
	p := prog(
		q(isa.EngineDVE, copyInst(1, 100, incOn(7, true)), copyInst(2, 100, incOn(7, true))),
		q(isa.EnginePOOL, copyInst(3, 1, eq1)),
	)
	if _, err := m.Run(p); err != nil {
		t.Fatal(err)
	}
	if strings.Join(log, " ") != "DVE:COPY:1 DVE:COPY:2 POOL:COPY:3" && strings.Join(log, " ") != "DVE:COPY:1 POOL:COPY:3 DVE:COPY:2" {
		t.Errorf("order %v", log)
	}
}

func TestDeadlockReport(t *testing.T) {
	var log []string
	m := newLogMachine(t, &log)
	m.SetSemaphore(9, 5)
	p := prog(
		q(isa.EngineDVE, copyInst(1, 8, isa.Events{}), copyInst(2, 8, waitGE(1, 1)), copyInst(3, 8, incOn(2, true))),
		q(isa.EnginePOOL, copyInst(4, 8, waitGE(2, 1)), copyInst(5, 8, incOn(1, true))),
		q(isa.EngineACT, copyInst(6, 8, isa.Events{WaitMode: isa.WaitForSemLTImm, WaitIdx: 9, SemaphoreValue: 5})),
		q(isa.EngineTPB_SP),
	)
	res, err := m.Run(p)
	if !errors.Is(err, fault.ErrDeadlock) {
		t.Fatalf("err = %v, want deadlock", err)
	}
	if res == nil || len(instSlices(res.Trace)) != 1 || res.Engines[0].Instructions != 1 {
		t.Errorf("partial result of the deadlocked run: %+v", res)
	}
	// every engine left waiting counts that wait, to the deadlock, in its summary row
	dvePS, _ := testCost(isa.EngineDVE, copyInst(1, 8, isa.Events{}), false) // the queue is free, the wait starts, at its occupancy end
	for i, want := range []int64{res.EndPS - dvePS, res.EndPS, res.EndPS} {
		if s := res.Engines[i]; s.Waits != 1 || s.WaitPS != want {
			t.Errorf("%s: %d waits, %d ps waited; want 1, %d", s.Engine, s.Waits, s.WaitPS, want)
		}
	}
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatal("not a *DeadlockError")
	}
	if len(de.Engines) != 3 {
		t.Fatalf("engines %+v", de.Engines)
	}
	dve := de.Engines[0]
	if dve.Engine != "DVE" || dve.Index != 1 || dve.PC != 64 || dve.WaitIdx != 1 || dve.WaitMode != isa.WaitForSemGEImm || dve.WaitValue != 1 || dve.SemValue != 0 {
		t.Errorf("DVE state %+v", dve)
	}
	act := de.Engines[2]
	if act.WaitIdx != 9 || act.SemValue != 5 || act.WaitMode != isa.WaitForSemLTImm {
		t.Errorf("ACT state %+v", act)
	}
	msg := err.Error()
	for _, s := range []string{"deadlock", "DVE   pc 0x40, instruction 1 of 3 (COPY): waits sem[1] WAIT_FOR_SEM_GE_IMM 1; sem[1] = 0",
		"POOL  pc 0x0, instruction 0 of 2", "sem[9] WAIT_FOR_SEM_LT_IMM 5; sem[9] = 5"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message lacks %q:\n%s", s, msg)
		}
	}
	if strings.Join(log, " ") != "DVE:COPY:1" {
		t.Errorf("ran %v", log)
	}
}

func TestCheckBeforeRun(t *testing.T) {
	var log []string
	m := newLogMachine(t, &log)
	lms := &isa.LoadMaskSelect{Header: isa.Header{Opcode: isa.OpLOAD_MASK_SELECT, InstWordLen: 16}}
	evtWait := copyInst(2, 1, isa.Events{WaitMode: isa.WaitForEvt6})
	badWait := copyInst(3, 1, isa.Events{WaitMode: 0x33})
	huge := copyInst(4, 1, isa.Events{})
	huge.SrcMemPattern.NumElem = [4]uint16{65535, 65535, 65535, 65535}
	huge.SrcMemPattern.StepElem = [4]int16{}
	huge.DstMemPattern = huge.SrcMemPattern
	psum := copyInst(5, 1, isa.Events{})
	psum.DstMemPattern.StartAddr = 0x2000000
	p := prog(
		q(isa.EngineDVE, copyInst(1, 1, isa.Events{}), evtWait, badWait, huge),
		q(isa.EngineTPB_SP, lms),
		q(isa.EnginePOOL, psum),
		q(isa.EnginePE, copyInst(6, 1, isa.Events{})),
	)
	_, err := m.Run(p)
	var pe *ProgramError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v", err)
	}
	rules := map[string]error{}
	for _, ie := range pe.Errs {
		rules[ie.Rule] = ie.Kind
	}
	for rule, kind := range map[string]error{
		"sim.executable_wait_mode": fault.ErrUnsupported, "has_valid_neuron_events": fault.ErrInvalid, "sim.max_elements": fault.ErrLimit,
		"opcode_legal_on_engine": fault.ErrInvalid, "gpsimd_cannot_access_psum": fault.ErrInvalid, "engine_modelled": fault.ErrUnsupported,
	} {
		if rules[rule] != kind {
			t.Errorf("rule %s: kind %v, want %v (all: %v)", rule, rules[rule], kind, err)
		}
	}
	if len(log) != 0 {
		t.Errorf("instructions ran: %v", log)
	}
	if !errors.Is(err, fault.ErrInvalid) || !errors.Is(err, fault.ErrLimit) {
		t.Errorf("errors.Is through ProgramError failed")
	}
	if !strings.Contains(err.Error(), "SP instruction 0 (t.s, byte offset 0): LOAD_MASK_SELECT: invalid instruction: rule opcode_legal_on_engine: opcode = LOAD_MASK_SELECT on the SP queue, legal: on DVE") {
		t.Errorf("message:\n%v", err)
	}
}

func TestTraceJSON(t *testing.T) {
	var log []string
	m := newLogMachine(t, &log)
	p := prog(q(isa.EngineDVE, copyInst(1, 64, incOn(0, true))), q(isa.EngineACT, copyInst(2, 64, waitGE(0, 1))))
	res, err := m.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.Trace.Write(&b); err != nil {
		t.Fatal(err)
	}
	checkTraceJSON(t, b.Bytes(), []string{"DVE", "ACT", "DMA0"})
}

// checkTraceJSON asserts the trace is a {"traceEvents": [...]} object whose X events have
// ts/dur/pid/tid and whose named tracks include names.
func checkTraceJSON(t *testing.T, data []byte, names []string) {
	t.Helper()
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	tracks := map[string]bool{}
	nx := 0
	for _, e := range doc.TraceEvents {
		switch e["ph"] {
		case "M":
			if e["name"] == "thread_name" {
				tracks[e["args"].(map[string]any)["name"].(string)] = true
			}
		case "X":
			nx++
			for _, k := range []string{"ts", "dur", "pid", "tid", "name"} {
				if _, ok := e[k]; !ok {
					t.Errorf("X event lacks %q: %v", k, e)
				}
			}
			if d, _ := e["dur"].(float64); d < 0 {
				t.Errorf("negative dur: %v", e)
			}
		case "C":
			if _, ok := e["args"].(map[string]any)["value"]; !ok {
				t.Errorf("counter without a value: %v", e)
			}
		case "s", "f", "i": // flows and markers: traceformat_test.go
		default:
			t.Errorf("unexpected phase %v", e["ph"])
		}
	}
	if nx == 0 {
		t.Error("no X events")
	}
	for _, n := range names {
		if !tracks[n] {
			t.Errorf("no track %q (have %v)", n, tracks)
		}
	}
}

// A deadlock whose last issued instruction is still running when the event queue empties (the
// final instruction of a queue schedules no event) stops when that instruction completes: the
// report, the end of the run, the trace's last slice and the waiting engine's wait all end
// there, not at the last event.
func TestDeadlockAfterLastInstructionCompletes(t *testing.T) {
	var log []string
	m := newLogMachine(t, &log)
	long := copyInst(2, 4096, isa.Events{})
	p := prog(q(isa.EngineDVE, copyInst(1, 8, waitGE(7, 1))), q(isa.EnginePOOL, long))
	res, err := m.Run(p)
	var de *DeadlockError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a deadlock", err)
	}
	occPS, longPS := testCost(isa.EnginePOOL, long, false)
	if de.TimePS != longPS || res.EndPS != longPS {
		t.Errorf("deadlock at %d ps, end of run %d ps; want both %d (POOL's COPY completes)", de.TimePS, res.EndPS, longPS)
	}
	var last int64
	for _, e := range instSlices(res.Trace) {
		last = max(last, e.TsPS+e.DurPS)
	}
	// the last instruction slice is the COPY's occupancy of its queue; it completes (the run
	// ends) ve.access_cycles later; the DVE's wait slice runs to that stop
	if last != occPS {
		t.Errorf("trace ends at %d ps, want %d (run ends at %d ps)", last, occPS, res.EndPS)
	}
	if s := res.Engines[0]; s.Engine != "DVE" || s.Waits != 1 || s.WaitPS != longPS {
		t.Errorf("DVE, waiting all run: %+v, want 1 wait of %d ps", s, longPS)
	}
}

// The trace's update arg shows semaphore_value only for the modes that use it: SEM_INC and
// SEM_DEC step by 1 whatever the shared field holds (it may be the instruction's wait target).
func TestTraceUpdateArg(t *testing.T) {
	var log []string
	m := newLogMachine(t, &log)
	dec := isa.Events{WaitMode: isa.WaitForSemGEImm, WaitIdx: 1, UpdateMode: isa.SemDecRead, UpdateIdx: 2, SemaphoreValue: 0}
	add := isa.Events{UpdateMode: isa.SemAddImmComplete, UpdateIdx: 3, SemaphoreValue: 5}
	res, err := m.Run(prog(q(isa.EngineDVE, copyInst(1, 8, dec), copyInst(2, 8, add))))
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, e := range res.Trace.Events() {
		got = append(got, e.Args["update"])
	}
	if len(got) != 2 || got[0] != "sem[2] SEM_DEC_READ" || got[1] != "sem[3] SEM_ADD_IMM_COMPLETE 5" {
		t.Errorf("update args %q", got)
	}
}
