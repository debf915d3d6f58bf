package sim

import (
	"errors"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/internal/trace"
	"github.com/tpbsim/tpbsim/isa"
)

// The trace's account of synchronisation: a wait slice on the blocked engine
// from its attempt to issue to its release, naming the semaphore and the value; a flow from each
// semaphore update to the wait it released and from each DMA instruction to its descriptors; a
// marker and the failing instruction's slice with its error; each blocked engine's wait up to a
// deadlock and a "deadlock" marker; a marker and a flow for each race pair.

// Trace categories of the markers and flows, for trace tests and for filtering in Perfetto.
const (
	TraceCatWait     = "wait"
	TraceCatSem      = "semaphore"
	TraceCatDMA      = "dma_issue"
	TraceCatFailure  = "failure"
	TraceCatDeadlock = "deadlock"
	TraceCatRace     = "race"
)

// failureSlicePS is the length of the failing instruction's slice: it did nothing, but a slice
// of no length would not show.
const failureSlicePS = 10_000

// maxDMAFlows bounds the instruction-to-descriptor flows of one DMA instruction.
const maxDMAFlows = 64

// inSlice is ts clamped into the slice [start, end) (a flow binds to the slice enclosing it).
func inSlice(ts, start, end int64) int64 {
	if ts >= end {
		ts = end - 1
	}
	return max(ts, start)
}

// footprints computes the bytes each descriptor of job writes and reads (nil when detection is
// off), before the job runs: an indirect transfer's rows come from memory.
func (d *raceDetector) footprints(job *dma.Job) [][]dma.DescFootprint {
	if !d.on {
		return nil
	}
	out, err := d.r.m.dma.engines.JobFootprints(d.r.m.newDMAMem(), job, dma.MaxOverlapRuns)
	if err != nil {
		return nil // the job fails its own check the same way
	}
	return out
}

// updateSrc is the origin of the EVENTS update of the instruction just issued, applied at t.
func (d *raceDetector) updateSrc(onComplete bool, t int64) *semSrc {
	rel := d.relRead
	if onComplete {
		rel = d.relDone
	}
	s := &semSrc{rel: rel, actor: d.relActor, all: true}
	if d.relActor != noActor {
		a := &d.actors[d.relActor]
		if a.dmaEng >= 0 {
			s.pid, s.tid, s.ts = pidDMA, int(a.dmaEng), inSlice(t, a.t0, a.t1)
		} else {
			s.pid, s.tid, s.ts = pidEngines, int(a.slot)+1, inSlice(t, a.t0, a.t1)
		}
	}
	return s
}

// engineSrc is the origin of a DMA engine's completion increment at t.
func (d *raceDetector) engineSrc(t *dmaTasks, engine int, all bool, at int64) *semSrc {
	rel, id := d.engineRelease(t, engine, all)
	if !d.on {
		rel = nil
	}
	s := &semSrc{rel: rel, actor: id, all: all, pid: pidDMA, tid: max(engine, 0), ts: at}
	if id != noActor {
		a := &d.actors[id]
		s.ts = inSlice(at, a.t0, a.t1)
	}
	return s
}

// traceWait draws engine e's wait, just satisfied at r.now, and the flows from the updates that
// released it.
func (r *run) traceWait(e *engine, ev isa.Events, srcs []*semSrc) {
	if r.tr == nil || ev.WaitMode == isa.WaitNone || e.waitStart < 0 {
		return // a wait satisfied at the first attempt shows in the instruction's args
	}
	start := e.waitStart
	name := "wait " + r.m.waitText(ev)
	v, _ := r.m.waitOperand(ev)
	r.tr.Add(trace.Event{Name: name, Cat: TraceCatWait, Pid: pidEngines, Tid: e.tid, TsPS: start, DurPS: r.now - start,
		Args: map[string]any{"semaphore": int(ev.WaitIdx), "wait_mode": ev.WaitMode.String(), "value": v,
			"released_at": r.m.sems[ev.WaitIdx], "index": e.pc}})
	for _, s := range srcs {
		r.tr.AddFlow(trace.Flow{Name: semNames[ev.WaitIdx], Cat: TraceCatSem, FromPid: s.pid, FromTid: s.tid, FromTsPS: s.ts,
			ToPid: pidEngines, ToTid: e.tid, ToTsPS: r.now})
	}
}

// traceDMAFlows draws the flows from DMA instruction (on e, issued at r.now) to its descriptors.
func (r *run) traceDMAFlows(e *engine, res *dma.Result) {
	if r.tr == nil {
		return
	}
	for i, rec := range res.Records {
		if i == maxDMAFlows {
			break
		}
		r.tr.AddFlow(trace.Flow{Name: "descriptor", Cat: TraceCatDMA, FromPid: pidEngines, FromTid: e.tid, FromTsPS: r.now,
			ToPid: pidDMA, ToTid: rec.Engine, ToTsPS: rec.Start * 1000})
	}
}

// traceFailure marks the instruction of e that failed at r.now with err: a slice with the error
// and an instant marker.
func (r *run) traceFailure(e *engine, err error) {
	if r.tr == nil || e.pc >= len(e.queue) {
		return
	}
	in := e.queue[e.pc]
	op := opcodeOf(in.Inst)
	args := map[string]any{"opcode": opcodeLabels[op], "index": in.Index, "error": err.Error()}
	if in.Line > 0 {
		args["line"] = in.Line
	}
	var ie *InstError
	if errors.As(err, &ie) && ie.Rule != "" {
		args["rule"] = ie.Rule
	}
	r.tr.Add(trace.Event{Name: op.String() + " (failed)", Cat: TraceCatFailure, Pid: pidEngines, Tid: e.tid, TsPS: r.now,
		DurPS: failureSlicePS, Args: args})
	r.tr.AddInstant(trace.Instant{Name: "failed: " + op.String(), Cat: TraceCatFailure, Pid: pidEngines, Tid: e.tid, TsPS: r.now, Scope: "p", Args: args})
}

// traceDeadlock draws each blocked engine's wait up to the stop at r.now and a deadlock marker.
func (r *run) traceDeadlock() {
	if r.tr == nil {
		return
	}
	var blocked []string
	for _, e := range r.engines {
		if e.pc >= len(e.queue) || e.waitStart < 0 {
			continue
		}
		ev := e.queue[e.pc].Inst.Evt()
		v, _ := r.m.waitOperand(ev)
		r.tr.Add(trace.Event{Name: "wait " + r.m.waitText(ev) + " (never released)",
			Cat: TraceCatWait, Pid: pidEngines, Tid: e.tid, TsPS: e.waitStart, DurPS: r.now - e.waitStart,
			Args: map[string]any{"semaphore": int(ev.WaitIdx), "wait_mode": ev.WaitMode.String(), "value": v,
				"semaphore_at_stop": r.m.sems[ev.WaitIdx], "index": e.pc}})
		blocked = append(blocked, e.name)
	}
	r.tr.AddInstant(trace.Instant{Name: "deadlock", Cat: TraceCatDeadlock, Pid: pidEngines, TsPS: r.now, Scope: "g",
		Args: map[string]any{"blocked": blocked}})
}

// markRace marks a race pair: a marker on the second access's track and a flow from the first.
func (r *run) markRace(a, b *actor, rc *Race) {
	if r.tr == nil {
		return
	}
	track := func(x *actor) (int, int) {
		if x.dmaEng >= 0 {
			return pidDMA, int(x.dmaEng)
		}
		return pidEngines, int(x.slot) + 1
	}
	ap, at := track(a)
	bp, bt := track(b)
	args := map[string]any{"first": rc.First.String(), "second": rc.Second.String(), "kind": rc.Kind()}
	r.tr.AddInstant(trace.Instant{Name: "race", Cat: TraceCatRace, Pid: bp, Tid: bt, TsPS: b.t0, Args: args})
	r.tr.AddFlow(trace.Flow{Name: "race", Cat: TraceCatRace, FromPid: ap, FromTid: at, FromTsPS: a.t0, ToPid: bp, ToTid: bt, ToTsPS: b.t0})
}
