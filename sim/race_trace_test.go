package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/trace"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// instSlices is the trace's instruction and descriptor slices (without wait and failure slices).
func instSlices(tr *trace.Trace) []trace.Event {
	var out []trace.Event
	for _, e := range tr.Events() {
		if e.Cat != TraceCatWait && e.Cat != TraceCatFailure {
			out = append(out, e)
		}
	}
	return out
}

func traceOf(t *testing.T, cfg Config, p *Program, init func(m *Machine)) (*Result, error) {
	t.Helper()
	cfg.Gen, cfg.Trace = isa.CAYMAN, true
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if init != nil {
		init(m)
	}
	res, err := m.Run(p)
	if res == nil {
		t.Fatalf("no result: %v", err)
	}
	return res, err
}

// TestTraceWaitsAndFlows: a blocked wait is a slice from the attempt to the release naming the
// semaphore and value, with a flow from the update that released it; a DMA instruction has a
// flow to each of its descriptors.
func TestTraceWaitsAndFlows(t *testing.T) {
	g := isa.CAYMAN
	d := dmaLoad(g, 0x10000, 64, 64, 7, none)
	d.DstStartAddr = isa.LocalAddr8(0x4000)
	p := prog(q(isa.EngineDVE, cp(0, 0x100, incC(1))), q(isa.EngineACT, cp(0x100, 0x200, ge(1, 1))), q(isa.EngineTPB_SP, d))
	res, err := traceOf(t, Config{}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wait *trace.Event
	var actStart int64 = -1
	for i, e := range res.Trace.Events() {
		if e.Cat == TraceCatWait {
			wait = &res.Trace.Events()[i]
		}
		if e.Cat == "ACT" {
			actStart = e.TsPS
		}
	}
	if wait == nil || wait.Tid != queueSlot(isa.EngineACT)+1 || wait.TsPS != 0 || wait.TsPS+wait.DurPS != actStart ||
		wait.Args["semaphore"] != 1 || wait.Args["value"] != uint32(1) || !strings.Contains(wait.Name, "sem[1]") {
		t.Fatalf("wait slice %+v, want ACT's from 0 to its COPY at %d on sem[1] >= 1", wait, actStart)
	}
	var semFlows, dmaFlows int
	for _, f := range res.Trace.Flows() {
		switch f.Cat {
		case TraceCatSem:
			semFlows++
			if f.FromPid != pidEngines || f.FromTid != queueSlot(isa.EngineDVE)+1 || f.ToTid != wait.Tid || f.ToTsPS != actStart {
				t.Errorf("semaphore flow %+v, want DVE -> ACT at %d", f, actStart)
			}
		case TraceCatDMA:
			dmaFlows++
			if f.FromTid != queueSlot(isa.EngineTPB_SP)+1 || f.ToPid != pidDMA {
				t.Errorf("DMA flow %+v, want SP -> a DMA engine", f)
			}
		}
	}
	descs := 0
	for _, e := range res.Trace.Events() {
		if e.Pid == pidDMA {
			descs++
		}
	}
	if semFlows != 1 || dmaFlows != descs || descs == 0 {
		t.Errorf("%d semaphore flows (want 1), %d DMA flows for %d descriptors", semFlows, dmaFlows, descs)
	}
	// the JSON form: s/f pairs sharing an id, f bound to its enclosing slice
	var b bytes.Buffer
	if err := res.Trace.Write(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	starts, ends := map[float64]bool{}, map[float64]bool{}
	for _, e := range doc.TraceEvents {
		switch e["ph"] {
		case "s":
			starts[e["id"].(float64)] = true
		case "f":
			ends[e["id"].(float64)] = true
			if e["bp"] != "e" {
				t.Errorf("flow end without bp e: %v", e)
			}
		}
	}
	if len(starts) != semFlows+dmaFlows || len(ends) != len(starts) {
		t.Errorf("%d flow starts, %d ends, want %d each", len(starts), len(ends), semFlows+dmaFlows)
	}
	for id := range starts {
		if !ends[id] {
			t.Errorf("flow %v has no end", id)
		}
	}
}

// TestTraceFailureAndDeadlock: a failure is the failing instruction's slice with its error and a
// marker; a deadlock draws each blocked wait to the stop and a "deadlock" marker.
func TestTraceFailureAndDeadlock(t *testing.T) {
	t.Run("failure", func(t *testing.T) {
		// the DVE's second COPY reads never-written bytes under CheckUninit
		p := prog(q(isa.EngineDVE, cp(0x4000, 0x100, none), cp(0x8000, 0x200, none)))
		res, err := traceOf(t, Config{CheckUninit: true}, p, func(m *Machine) {
			for c := 0; c < 32; c++ {
				m.Memory().Write(mem.Loc{Region: mem.SBUF, Partition: c, Offset: 0x4000}, make([]byte, 128))
			}
		})
		var ie *InstError
		if !errors.As(err, &ie) || !errors.Is(err, fault.ErrUninit) {
			t.Fatalf("err = %v, want an uninitialised read", err)
		}
		var slice *trace.Event
		for i, e := range res.Trace.Events() {
			if e.Cat == TraceCatFailure {
				slice = &res.Trace.Events()[i]
			}
		}
		if slice == nil || slice.Args["index"] != 1 || slice.Args["error"] != err.Error() || slice.Args["rule"] != ie.Rule || slice.TsPS != ie.TimePS {
			t.Errorf("failure slice %+v, want instruction 1 at %d with the error", slice, ie.TimePS)
		}
		var marks int
		for _, m := range res.Trace.Instants() {
			if m.Cat == TraceCatFailure && m.TsPS == ie.TimePS && m.Name == "failed: COPY" {
				marks++
			}
		}
		if marks != 1 {
			t.Errorf("%d failure markers: %+v", marks, res.Trace.Instants())
		}
		if st := res.State[queueSlot(isa.EngineDVE)]; st.Status != StatusFailed || st.Index != 1 {
			t.Errorf("DVE state %+v, want failed at instruction 1", st)
		}
	})
	t.Run("deadlock", func(t *testing.T) {
		p := prog(q(isa.EngineDVE, cp(0, 0x100, ge(1, 1))), q(isa.EnginePOOL, cp(0, 0x200, none), cp(0, 0x300, ge(2, 1))))
		res, err := traceOf(t, Config{}, p, nil)
		var de *DeadlockError
		if !errors.As(err, &de) {
			t.Fatalf("err = %v, want a deadlock", err)
		}
		waits := map[int]trace.Event{}
		for _, e := range res.Trace.Events() {
			if e.Cat == TraceCatWait {
				waits[e.Tid] = e
			}
		}
		for _, eng := range []isa.Engine{isa.EngineDVE, isa.EnginePOOL} {
			w, ok := waits[queueSlot(eng)+1]
			if !ok || w.TsPS+w.DurPS != de.TimePS || !strings.Contains(w.Name, "never released") {
				t.Errorf("%v: wait slice %+v, want one to the stop at %d", eng, w, de.TimePS)
			}
		}
		var dl []trace.Instant
		for _, m := range res.Trace.Instants() {
			if m.Cat == TraceCatDeadlock {
				dl = append(dl, m)
			}
		}
		if len(dl) != 1 || dl[0].Name != "deadlock" || dl[0].TsPS != de.TimePS || dl[0].Scope != "g" {
			t.Errorf("deadlock markers %+v", dl)
		}
		for _, st := range res.State[:2] {
			if st.Status != StatusWaiting {
				t.Errorf("%s status %q, want waiting", st.Engine, st.Status)
			}
		}
	})
}

// TestTraceRaceMarked: each race pair is a marker on the second access's track and a flow from
// the first.
func TestTraceRaceMarked(t *testing.T) {
	p := prog(q(isa.EngineDVE, cp(0, 0x100, none)), q(isa.EnginePOOL, cp(0x800, 0x100, none)))
	res, err := traceOf(t, Config{}, p, nil)
	if !errors.Is(err, fault.ErrRace) {
		t.Fatalf("err = %v, want a race", err)
	}
	var marks, flows int
	for _, m := range res.Trace.Instants() {
		if m.Cat == TraceCatRace && m.Tid == queueSlot(isa.EnginePOOL)+1 && m.Args["kind"] == "write-write" {
			marks++
		}
	}
	for _, f := range res.Trace.Flows() {
		if f.Cat == TraceCatRace && f.FromTid == queueSlot(isa.EngineDVE)+1 && f.ToTid == queueSlot(isa.EnginePOOL)+1 {
			flows++
		}
	}
	if marks != 1 || flows != 1 {
		t.Errorf("%d race markers, %d race flows; want 1 each", marks, flows)
	}
}
