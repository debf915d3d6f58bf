// Package sim is the NeuronCore machine of tpbsim (DESIGN.md §1): memory,
// 256 semaphores, the engine queues DVE, POOL, ACT and SP, and the DMA engines, run
// concurrently by a deterministic discrete-event scheduler. Engines synchronise through the
// EVENTS band of each instruction (FACTS §B.2): wait before issue, update after the reads or on
// completion. A run that can no longer make progress stops with a DeadlockError listing every
// engine's state; an instruction that fails validation or a bounds check changes no memory and
// no semaphore, and its error names the engine, instruction, opcode, rule and fields.
//
// The machine is a value built by New; there is no package-level mutable state. Reset returns a
// machine to New's state for another run, clearing only the memory the last runs wrote.
package sim

import (
	"container/heap"
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/trace"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/timing"
)

// NumSemaphores is the size of the EVT_SEM array (FACTS §B.2).
const NumSemaphores = 256

// DefaultMaxElements bounds the elements per channel one instruction may stream. A pattern with
// step 0 can name 65535^4 elements inside a few bytes; the bound keeps a crafted program from
// running for years (INVENTED, Provenance sim.max_elements).
const DefaultMaxElements = 1 << 26

// StreamBytesPerElement derives the stream-bytes limit from the element limit when
// Config.MaxStreamBytes is 0: MaxStreamBytes = StreamBytesPerElement x MaxElements, 1 GiB by
// default (INVENTED, Provenance sim.max_stream_bytes). Raising --max-elements raises both.
const StreamBytesPerElement = 16

// DefaultMaxStreamBytes is the stream-bytes limit with the default element limit (1 GiB).
const DefaultMaxStreamBytes = StreamBytesPerElement * DefaultMaxElements

// Annotation is what a microcode table set says about a DVE opcode: its
// control rows, datapath block class and pipeline depth. Fields are free-form key/values so the
// ucode package's vocabulary reaches the trace unchanged.
type Annotation map[string]any

// AnnotationClassKey is the Annotation key whose values the summary counts per engine.
const AnnotationClassKey = "ucode_block_class"

// Config configures a Machine.
type Config struct {
	Gen isa.Generation
	// HBMCapBytes caps the HBM bytes the run may allocate (0: mem.DefaultHBMCapBytes).
	HBMCapBytes uint64
	// CheckUninit reports reads of never-written bytes as errors (fault.ErrUninit).
	CheckUninit bool
	// MaxElements bounds the elements per channel of one DVE-family instruction, and the
	// elements all the DMA descriptors of one DMA instruction move (0: DefaultMaxElements).
	MaxElements uint64
	// MaxStreamBytes bounds the bytes one instruction reads plus writes: over all channels for a
	// DVE-family instruction (the host buffers its executor materialises stay below about twice
	// this), over all its descriptors for a DMA instruction. 0: StreamBytesPerElement x
	// MaxElements (saturating), 1 GiB by default.
	MaxStreamBytes uint64
	// Trace records a trace event per instruction and per DMA descriptor.
	Trace bool
	// Butterfly runs StreamTranspose and TransposeTensorReduce on the faithful 5-stage dsel
	// butterfly model instead of the fast tiled kernels (the two agree byte for byte).
	Butterfly bool
	// HugePages backs SBUF and PSUM with 2 MiB host pages where the OS allows it
	// (mem.Options.HugePages): faster large transposes, a slower start.
	HugePages bool
	// Annotate, when set, is asked about every instruction the DVE executes; its answer is added
	// to the instruction's trace args, and the AnnotationClassKey values are counted in the
	// DVE's summary row. ok false: nothing to add (see Program.Opcodes for the missing-opcode
	// check).
	Annotate func(op isa.Opcode) (a Annotation, ok bool)
	// Timing is the timing model the run's times come from (nil: timing.Default(Gen)); a table
	// of another generation is allowed (it changes the times, never the results). Result.Summary
	// explains the end time with it.
	Timing *timing.Table
	// Races says what the run does about data races between engines and DMA descriptors
	// (race.go): RacesError (the zero value) lists them in Result.Races and makes a racy run
	// that otherwise finished return a *RaceError; RacesWarn lists them only; RacesOff skips
	// the detection.
	Races RaceMode
}

// Effect is what one instruction did to memory, for the trace and the summary.
type Effect struct {
	BytesRead, BytesWritten int64
	Src, Dst                string         // what was read and written, e.g. "sbuf[p0..31][0x0..0x80)" (a DMA's, traced runs only; else see src, dst)
	Notes                   map[string]any // extra trace args
	reads, writes           []mem.Span     // bounding boxes of the bytes read and written (race detection)
}

// src is what the instruction read, for the trace: Src, or its first read box.
func (e *Effect) src() string {
	if e.Src == "" && len(e.reads) > 0 && !e.reads[0].Empty() {
		return e.reads[0].String()
	}
	return e.Src
}

// dst is what it wrote: Dst, or its first write box.
func (e *Effect) dst() string {
	if e.Dst == "" && len(e.writes) > 0 && !e.writes[0].Empty() {
		return e.writes[0].String()
	}
	return e.Dst
}

// dmaEngineNames are the DMA engines' names in statistics and the trace.
var dmaEngineNames = func() (n [32]string) {
	for i := range n {
		n[i] = fmt.Sprintf("DMA%d", i)
	}
	return n
}()

// semNames are the semaphores' names in the trace ("sem[3]"), opcodeLabels the opcodes' in its
// args ("COPY (0x..)"): a traced run names them for every update and every instruction.
var (
	semNames = func() (n [NumSemaphores]string) {
		for i := range n {
			n[i] = fmt.Sprintf("sem[%d]", i)
		}
		return n
	}()
	opcodeLabels = func() (l [256]string) {
		for i := range l {
			l[i] = fmt.Sprintf("%v (0x%02x)", isa.Opcode(i), uint8(i))
		}
		return l
	}()
)

// dmaEngineName names DMA engine i.
func dmaEngineName(i int) string {
	if i >= 0 && i < len(dmaEngineNames) {
		return dmaEngineNames[i]
	}
	return fmt.Sprintf("DMA%d", i)
}

// unit executes the compute instructions of one engine queue.
type unit interface {
	exec(m *Machine, in isa.Inst) (Effect, error)
}

// Machine is one NeuronCore of one generation.
type Machine struct {
	cfg  Config
	gen  isa.Generation
	geo  isa.Geometry
	mem  *mem.Memory
	sems [NumSemaphores]uint32

	newUnit func(eng isa.Engine) unit // the DVE-family executor of each queue; tests may replace it
	// units holds each queue's unit (made by newUnit) from run to run, Reset included: a run
	// starts each one with reset (the DVE's mask register cleared), so what it keeps is only
	// the executor's host buffers, which a new DVE would allocate again (its 16 KiB lanes, the
	// row tables: 8% of a FuzzRandomKernel exec's allocation).
	units [len(queueEngines)]unit

	dma *dmaState
	tt  timing.Table // cfg.Timing, or the generation's default
	// timelineOff (benchmarks only) records no timeline: the run the timing model's
	// bookkeeping (the summary's critical path) is measured against, with the same schedule.
	timelineOff bool
	// perturb, when set (tests), replaces a compute instruction's cost: the property test of
	// race-free programs runs them under random costs.
	perturb func(in isa.Inst, readPS, totalPS int64) (int64, int64)

	chk checker // the check pipeline of the configuration (report.go)

	addrRegs addrRegFile // the address registers (regs.go)

	hb *raceDetector // the race detector of the last run, reused by the next (Machine.raceDetector)
}

// Limits returns the work limits of the configuration, New's defaults applied: the element
// limit (MaxElements, or DefaultMaxElements) and the stream-bytes limit (MaxStreamBytes, or
// StreamBytesPerElement x the element limit, saturating).
func (c Config) Limits() (maxElements, maxStreamBytes uint64) {
	maxElements, maxStreamBytes = c.MaxElements, c.MaxStreamBytes
	if maxElements == 0 {
		maxElements = DefaultMaxElements
	}
	if maxStreamBytes == 0 {
		maxStreamBytes = satMul(StreamBytesPerElement, maxElements)
	}
	return maxElements, maxStreamBytes
}

// New builds a machine with zeroed memory and semaphores.
func New(cfg Config) (*Machine, error) {
	chk, err := newChecker(cfg)
	if err != nil {
		return nil, err
	}
	cfg = chk.cfg
	mm, err := mem.New(cfg.Gen, mem.Options{HBMCapBytes: cfg.HBMCapBytes, TrackUninit: cfg.CheckUninit, HugePages: cfg.HugePages})
	if err != nil {
		return nil, err
	}
	tt, err := timing.For(cfg.Gen)
	if err != nil {
		return nil, err
	}
	if cfg.Timing != nil {
		tt = *cfg.Timing
	}
	m := &Machine{cfg: cfg, gen: cfg.Gen, geo: chk.geo, mem: mm, chk: chk, tt: tt}
	m.initState()
	return m, nil
}

// unit returns the unit of queue slot (engine kind) for a run: the one of the last run, reset,
// or a new one from newUnit.
func (m *Machine) unit(slot int, kind isa.Engine) unit {
	u := m.units[slot]
	if u == nil {
		u = m.newUnit(kind)
		m.units[slot] = u
	} else if r, ok := u.(interface{ reset() }); ok {
		r.reset()
	}
	return u
}

// initState sets everything but memory as New leaves it: semaphores 0, no address register
// set, the default executors (each Run resets its queues' units, so no DVE mask register
// outlives a run), DMA engines never used (Free times 0, no counters).
func (m *Machine) initState() {
	m.sems = [NumSemaphores]uint32{}
	m.addrRegs = addrRegFile{}
	for i, u := range m.units { // keep the default executors only (a test may have replaced newUnit)
		if _, ok := u.(*dveUnit); !ok {
			m.units[i] = nil
		}
	}
	butterfly, maxStream := m.cfg.Butterfly, m.cfg.MaxStreamBytes
	m.newUnit = func(eng isa.Engine) unit { return newComputeUnit(eng, butterfly, maxStream) }
	m.dma = newDMAState(m.gen, &m.tt)
	// The check before the run bounds every DMA by MaxStreamBytes; the engines' own job cap is
	// the same figure (a job's bytes are its destination bytes, at most its stream bytes).
	m.dma.engines.MaxJobBytes = maxStream
	// A DMA whose descriptors share a byte that one of them writes (a destination that overlaps
	// itself, a source another descriptor writes) runs in job order, deterministically
	// (Provenance sim.dma_dst_overlap); others run on parallel host workers.
	m.dma.engines.SerialSharedDst = true
}

// Reset returns the machine to the state New left it in with the same Config: memory zero and
// never written with no HBM page allocated (mem.Memory.Reset), semaphores 0, DMA engines and
// executors as new. A run on a Reset machine is the run on a new one, byte for byte, at the
// cost of clearing only the memory the machine recorded as written: the bytes its instructions
// and the memory's write paths reached, and those reported with mem.Memory.MarkInit or
// MarkWritten after a write through mem.Memory.Partition (an unreported one survives Reset).
func (m *Machine) Reset() {
	m.mem.Reset()
	m.initState()
}

// Gen is the machine's generation.
func (m *Machine) Gen() isa.Generation { return m.gen }

// Memory is the machine's memory (SBUF, PSUM, HBM), for loading inputs and reading results.
func (m *Machine) Memory() *mem.Memory { return m.mem }

// Semaphore returns sem[i].
func (m *Machine) Semaphore(i int) uint32 { return m.sems[i] }

// SetSemaphore sets sem[i] before a run.
func (m *Machine) SetSemaphore(i int, v uint32) { m.sems[i] = v }

// Semaphores returns a copy of all 256 semaphores.
func (m *Machine) Semaphores() [NumSemaphores]uint32 { return m.sems }

// NumDMAEngines is DMA_ENGINE_COUNT_PER_TPB of the generation (16; 8 on MAVERICK).
func (m *Machine) NumDMAEngines() int { return m.geo.DMAEngineCount }

// EngineStats is one row of the end-of-run summary.
type EngineStats struct {
	Engine       string
	Instructions int   // instructions issued (descriptors for a DMA engine)
	BusyPS       int64 // time spent executing
	WaitPS       int64 // time spent blocked on semaphore waits (to the stop, for a wait never satisfied)
	Waits        int   // instructions that had to wait, including one still waiting when the run stopped
	BytesRead    int64
	BytesWritten int64
	Notes        map[string]int // e.g. ucode block classes seen
}

// Result is the outcome of a run that finished.
type Result struct {
	EndPS      int64
	Engines    []EngineStats // queue engines in scheduling order, then the DMA engines that worked
	Semaphores [NumSemaphores]uint32
	Trace      *trace.Trace // nil unless Config.Trace
	// Annotated lists, in issue order, the instructions Config.Annotate described.
	Annotated []AnnotatedInst

	timeline *runTiming // what Summary explains the end time with
	gen      isa.Generation
	// Races lists the data races found (Config.Races), one per pair of instructions, in the
	// order they were found.
	Races []Race
	// RacesDropped counts the racing pairs found past the first 1000, not listed in Races.
	RacesDropped int
	// State is every queue engine's state where the run ended, in scheduling order (what
	// `tpbsim run --state` writes): its next instruction and status.
	State []EngineState
}

// AnnotatedInst is one instruction with its microcode annotation.
type AnnotatedInst struct {
	Engine     string
	Index      int
	Opcode     isa.Opcode
	Annotation Annotation
}

// engine is the run-time state of one queue.
type engine struct {
	name      string
	kind      isa.Engine
	tid       int
	queue     []Instr
	plans     []*dge.Plan // the check pipeline's DGE plan of each DMA instruction of queue (nil for others)
	pc        int
	blocked   bool
	waitStart int64 // -1 when not waiting
	unit      unit
	stats     EngineStats
	last      int // its last timeline node, -1 none
}

// event kinds, in the order they are processed when they share a time (Provenance
// sim.schedule_order): semaphore updates, then instruction issues.
const (
	evSem = iota
	evIssue
)

type event struct {
	t    int64
	kind int
	ord  int    // engine slot for evIssue
	seq  uint64 // FIFO among equals
	// evSem
	idx   uint8
	mode  isa.UpdateMode
	value uint32
	src   int32   // timeline node of the update's producer (-1 none)
	lat   int64   // the latency included in t (ps), for the critical path
	hb    *semSrc // the update's origin, for the race detector and the trace's flows (race.go)
}

type eventQueue []*event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	if a.ord != b.ord {
		return a.ord < b.ord
	}
	return a.seq < b.seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(*event)) }
func (q *eventQueue) Pop() any {
	old := *q
	n := len(old)
	e := old[n-1]
	*q = old[:n-1]
	return e
}

// run is the state of one Run call.
type run struct {
	m       *Machine
	prog    *Program
	engines []*engine
	q       eventQueue
	seq     uint64
	tr      *trace.Trace
	now     int64
	end     int64
	dmaSt   []EngineStats
	res     *Result
	// semSeen marks the semaphores whose counter track has its initial sample in the trace.
	semSeen [NumSemaphores]bool
	tm      *runTiming
	hb      *raceDetector
	failed  *engine // the engine whose instruction stopped the run
}

func (r *run) push(e *event) {
	r.seq++
	e.seq = r.seq
	heap.Push(&r.q, e)
}

// Trace process ids: one process for the queue engines, one for the DMA engines.
const (
	pidEngines = 1
	pidDMA     = 2
)

// Run runs a program to completion. Every instruction is checked before anything executes by
// the check pipeline (Machine.Report: engine, isa.Validate on the machine's generation,
// executable event modes and forms, the DGE's lowering, work limits); a program whose Report is
// not OK returns its Report.Err, a *ProgramError listing every refused instruction. During the run the first
// failing instruction stops it with an *InstError: that instruction changes no memory and no
// semaphore, no engine issues another, and the instructions already issued complete (their
// pending semaphore updates are applied; Provenance sim.stop_on_error). A deadlock stops it with
// a *DeadlockError. When the run stopped on an error the Result of the run so far (trace,
// statistics) comes with it.
func (m *Machine) Run(p *Program) (*Result, error) {
	rep := m.chk.report(p)
	if err := rep.Err(); err != nil {
		return nil, err
	}
	r := &run{m: m, prog: p, res: &Result{}, tm: newRunTiming(&m.tt, m.geo.DMAEngineCount)}
	r.tm.off = m.timelineOff
	if !r.tm.off {
		r.tm.nodes = make([]node, 0, timelineCap(p))
	}
	m.applyRegs(p) // indices checked by the report
	r.hb = m.raceDetector(r)
	if m.cfg.Trace {
		r.tr = trace.New()
		r.tr.Process(pidEngines, fmt.Sprintf("NeuronCore %v engine queues", m.gen))
		r.tr.Process(pidDMA, "DMA engines")
		for i := 0; i < m.geo.DMAEngineCount; i++ {
			r.tr.AddTrack(trace.Track{Pid: pidDMA, Tid: i, Name: dmaEngineName(i), Sort: i})
		}
	}
	for i := range m.dma.engines.Free {
		m.dma.engines.Free[i] = 0
	}
	r.dmaSt = make([]EngineStats, m.geo.DMAEngineCount)
	for i := range r.dmaSt {
		r.dmaSt[i].Engine = dmaEngineName(i)
	}
	if r.tr != nil {
		for _, q := range p.Queues {
			for _, in := range q.Insts {
				ev := in.Inst.Evt()
				for _, i := range []struct {
					use bool
					idx uint8
				}{{ev.WaitMode != isa.WaitNone, ev.WaitIdx}, {ev.UpdateMode != isa.UpdateNone, ev.UpdateIdx}} {
					if i.use && !r.semSeen[i.idx] {
						r.semSeen[i.idx] = true
						r.tr.AddCounter(trace.Counter{Name: semNames[i.idx], Pid: pidEngines, Value: int64(m.sems[i.idx])})
					}
				}
			}
		}
	}
	starts := make([]int, len(p.Queues)) // each queue's first entry in rep.Insts
	for i, at := 0, 0; i < len(p.Queues); i++ {
		starts[i], at = at, at+len(p.Queues[i].Insts)
	}
	for slot, kind := range queueEngines {
		e := &engine{name: kind.String(), kind: kind, tid: slot + 1, waitStart: -1, unit: m.unit(slot, kind), last: -1}
		e.stats.Engine = e.name
		for qi, q := range p.Queues {
			if q.Engine == kind {
				e.queue = append(e.queue, q.Insts...)
				for i := range q.Insts {
					e.plans = append(e.plans, rep.Insts[starts[qi]+i].plan)
				}
			}
		}
		for i := range e.queue { // the run's copy: errors, races and the trace name the position
			e.queue[i].Index = i
		}
		r.engines = append(r.engines, e)
		if r.tr != nil {
			r.tr.AddTrack(trace.Track{Pid: pidEngines, Tid: e.tid, Name: e.name, Sort: slot})
		}
		if len(e.queue) > 0 {
			r.push(&event{t: 0, kind: evIssue, ord: slot})
		}
	}
	for r.q.Len() > 0 {
		ev := heap.Pop(&r.q).(*event)
		r.now = ev.t
		switch ev.kind {
		case evSem:
			r.applySem(ev)
		case evIssue:
			if err := r.issue(r.engines[ev.ord], ev.ord); err != nil {
				r.failed = r.engines[ev.ord]
				r.traceFailure(r.failed, err)
				r.drain()
				return r.finish(), err
			}
		}
	}
	for _, e := range r.engines {
		if e.pc < len(e.queue) {
			// The deadlock is certain only when the last issued instruction completes: the
			// final instruction of a queue schedules no event, so the queue can run out while
			// it is still in flight. The stop, the waits counted to it and the report are at
			// that completion, where the trace's last slice ends.
			r.now = max(r.now, r.end)
			r.traceDeadlock()
			res := r.finish()
			all := make([]EngineState, 0, len(r.engines))
			for _, e := range r.engines {
				if len(e.queue) > 0 {
					all = append(all, r.state(e))
				}
			}
			return res, &DeadlockError{TimePS: r.now, Engines: all}
		}
	}
	// Every queue finished: the run ends when the last instruction or descriptor completes.
	// Events after that are semaphore updates still on their way (dma.sem_to_start_ns) to a
	// waiter that no longer exists: applied, but not time the run took.
	r.now = min(r.now, r.end)
	res := r.finish()
	if len(res.Races) > 0 && m.cfg.Races == RacesError {
		return res, &RaceError{Races: res.Races, More: res.RacesDropped}
	}
	return res, nil
}

// drain ends a run an instruction failed at r.now (Provenance sim.stop_on_error): no engine
// issues again, and the pending semaphore updates, all of instructions that already issued and
// made their memory effect, are applied at their times, so the semaphores agree with memory and
// with the trace, which draws those instructions to their end.
func (r *run) drain() {
	for r.q.Len() > 0 {
		if ev := heap.Pop(&r.q).(*event); ev.kind == evSem {
			r.setSem(ev)
		}
	}
}

// finish assembles the Result of the run so far. An engine still waiting when the run stopped
// (deadlock, failure) has that wait counted up to r.now.
func (r *run) finish() *Result {
	res := r.res
	for _, e := range r.engines {
		if e.waitStart >= 0 {
			e.stats.Waits++
			e.stats.WaitPS += r.now - e.waitStart
			e.waitStart = -1
		}
	}
	res.EndPS = max(r.end, r.now)
	res.timeline = r.tm
	res.gen = r.m.gen
	res.Semaphores = r.m.sems
	res.Races, res.RacesDropped = r.hb.finish(), r.hb.dropped
	r.hb.release() // the machine's next run reuses it
	for _, e := range r.engines {
		res.State = append(res.State, r.state(e))
	}
	res.Trace = r.tr
	for _, e := range r.engines {
		if len(e.queue) > 0 {
			res.Engines = append(res.Engines, e.stats)
		}
	}
	for _, s := range r.dmaSt {
		if s.Instructions > 0 {
			res.Engines = append(res.Engines, s)
		}
	}
	return res
}

func (r *run) state(e *engine) EngineState {
	s := EngineState{Engine: e.name, Total: len(e.queue), Index: e.pc, PC: e.pc * isa.InstNBytes}
	if e.pc >= len(e.queue) {
		s.Done, s.Status = true, StatusFinished
		return s
	}
	switch {
	case e == r.failed:
		s.Status = StatusFailed
	case e.blocked:
		s.Status = StatusWaiting
	default:
		s.Status = StatusStopped
	}
	in := e.queue[e.pc]
	ev := in.Inst.Evt()
	s.Opcode, s.Line = opcodeOf(in.Inst), in.Line
	s.WaitMode, s.WaitIdx = ev.WaitMode, ev.WaitIdx
	s.WaitValue, s.WaitReg = r.m.waitOperand(ev)
	s.SemValue = r.m.sems[ev.WaitIdx]
	return s
}

// setSem applies a semaphore update at its time ev.t. A semaphore whose counter track has no
// sample yet (a DMA's completion semaphore, which no EVENTS band names) gets its value at the
// start of the run first: only setSem changes a semaphore during a run.
func (r *run) setSem(ev *event) {
	old := r.m.sems[ev.idx]
	v, ok := ev.mode.Apply(old, ev.value)
	if !ok {
		return
	}
	r.m.sems[ev.idx] = v
	r.tm.semSrc[ev.idx], r.tm.semLat[ev.idx] = ev.src, ev.lat
	r.hb.applied(ev.idx, ev.mode, v, ev.hb)
	if r.tr != nil {
		name := semNames[ev.idx]
		if !r.semSeen[ev.idx] {
			r.semSeen[ev.idx] = true
			r.tr.AddCounter(trace.Counter{Name: name, Pid: pidEngines, Value: int64(old)})
		}
		r.tr.AddCounter(trace.Counter{Name: name, Pid: pidEngines, TsPS: ev.t, Value: int64(v)})
	}
}

// applySem applies a semaphore update and wakes the blocked engines to check their waits.
func (r *run) applySem(ev *event) {
	r.setSem(ev)
	for slot, e := range r.engines {
		if e.blocked {
			e.blocked = false
			r.push(&event{t: r.now, kind: evIssue, ord: slot})
		}
	}
}

// scheduleUpdate queues the semaphore update of an instruction's EVENTS band; it reaches the
// waiters lat after the instruction's reads or completion. src is the producer's timeline node.
func (r *run) scheduleUpdate(ev isa.Events, readAt, doneAt int64, src int, lat int64) {
	if ev.UpdateMode == isa.UpdateNone {
		return
	}
	t := readAt
	if ev.UpdateMode.OnComplete() {
		t = doneAt
	}
	r.push(&event{t: t + lat, kind: evSem, idx: ev.UpdateIdx, mode: ev.UpdateMode, value: ev.SemaphoreValue, src: int32(src), lat: lat,
		hb: r.hb.updateSrc(ev.UpdateMode.OnComplete(), t)})
}

// instErr is the error of engine e's instruction in, which broke v (quiet: v says what cause says).
func (r *run) instErr(e *engine, in Instr, kind error, v fault.Violation, cause error, quiet bool) *InstError {
	return &InstError{Kind: kind, Engine: e.name, Index: in.Index, Offset: in.Offset, Line: in.Line, File: r.prog.File, Origin: in.Origin,
		Opcode: opcodeOf(in.Inst), Rule: v.Rule, Violations: []fault.Violation{v}, Err: cause, TimePS: r.now, quiet: quiet}
}

// issue tries to issue engine e's next instruction at r.now.
func (r *run) issue(e *engine, slot int) error {
	in := e.queue[e.pc]
	ev := in.Inst.Evt()
	waitEv, updateEv, err := r.eventRegs(e, in, ev) // the register EVENTS forms as their immediate ones
	if err != nil {
		return err
	}
	if !waitEv.WaitMode.Satisfied(r.m.sems[ev.WaitIdx], waitEv.SemaphoreValue) {
		e.blocked = true
		if e.waitStart < 0 {
			e.waitStart = r.now
		}
		return nil
	}
	// An address register operand is resolved now, and the resolved word checked (regs.go).
	inst, reads := in.Inst, []regRead(nil)
	if c, ops := addrRegOperands(inst); len(ops) > 0 {
		rep, rr, err := r.resolveAddrRegs(e, in, c, ops)
		if err != nil {
			return err
		}
		inst, reads = c, rr
		if rep.plan != nil {
			e.plans[e.pc] = rep.plan
		}
	}
	r.traceWait(e, ev, r.hb.acquire(slot, waitEv))
	waited := int64(0)
	if e.waitStart >= 0 {
		waited = r.now - e.waitStart
		e.stats.Waits++
		e.stats.WaitPS += waited
		e.waitStart = -1
	}
	op := opcodeOf(in.Inst)
	var (
		eff             Effect
		readPS, totalPS int64          // from the issue: reads done, complete
		occPS           int64          // how long the queue is held
		src             int            // the timeline node the semaphore update comes from
		lat             int64          // and the latency it takes to reach a waiter
		args            map[string]any // the trace slice's args (traced runs only)
	)
	if r.tr != nil {
		args = map[string]any{}
	}
	start := r.now
	pred, via, vlat := r.tm.predOf(start, e.last, waited > 0, ev.WaitIdx)
	self := len(r.tm.nodes)
	if op.IsDMA() {
		occPS = dmaIssuePS(&r.m.tt, e.kind)
		r.tm.add(node{kind: nodeDMAIssue, queue: e.kind, index: int32(in.Index), op: op, start: start, occEnd: start + occPS, end: start + occPS, pred: int32(pred), via: via, sem: ev.WaitIdx, viaLatency: vlat})
		d, err := r.issueDMA(e, in, occPS, self)
		if err != nil {
			r.tm.nodes = r.tm.nodes[:self]
			return withRegReads(err, reads)
		}
		eff, readPS, totalPS = d.eff, d.readPS, d.totalPS
		if args != nil {
			args["descriptors"] = d.n
		}
		src, lat = d.last, r.tm.semLatencyPS(true)
	} else {
		var err error
		eff, err = e.unit.exec(r.m, inst)
		if err != nil {
			return withRegReads(r.execErr(e, in, err), reads)
		}
		readPS, totalPS = r.tm.cost(e.kind, inst, ev.WaitMode != isa.WaitNone)
		if r.m.perturb != nil {
			readPS, totalPS = r.m.perturb(inst, readPS, totalPS)
		}
		occPS = readPS
		r.hb.compute(slot, &e.queue[e.pc], &eff, start, start+occPS)
		src, lat = r.tm.add(node{kind: nodeCompute, queue: e.kind, index: int32(in.Index), op: op, start: start, occEnd: start + occPS, end: start + totalPS, pred: int32(pred), via: via, sem: ev.WaitIdx, viaLatency: vlat}), r.tm.semLatencyPS(false)
		r.annotate(e, op, args)
		if args != nil {
			for k, v := range eff.Notes {
				args[k] = v
			}
		}
	}
	e.last = self
	r.scheduleUpdate(updateEv, start+readPS, start+totalPS, src, lat)
	e.stats.Instructions++
	e.stats.BusyPS += occPS
	e.stats.BytesRead += eff.BytesRead
	e.stats.BytesWritten += eff.BytesWritten
	r.end = max(r.end, start+occPS, start+totalPS)
	if r.tr != nil {
		args["opcode"] = opcodeLabels[op]
		args["index"] = in.Index
		if in.Line > 0 {
			args["line"] = in.Line
		}
		if in.Offset >= 0 {
			args["byte_offset"] = in.Offset
		}
		name := op.String()
		if in.Origin != "" {
			args["origin"] = in.Origin
			name += " " + in.Origin
		}
		args["bytes_read"] = eff.BytesRead
		args["bytes_written"] = eff.BytesWritten
		if src := eff.src(); src != "" {
			args["src"] = src
		}
		if dst := eff.dst(); dst != "" {
			args["dst"] = dst
		}
		if ev.WaitMode != isa.WaitNone {
			args["wait"] = r.m.waitText(ev)
			args["waited_ns"] = float64(waited) / 1000
		}
		for _, rd := range reads {
			args[rd.path] = fmt.Sprintf("addr_reg[%d] = 0x%08x", rd.reg, rd.v)
		}
		if ev.UpdateMode != isa.UpdateNone {
			args["update"] = fmt.Sprintf("sem[%d] %v", ev.UpdateIdx, ev.UpdateMode)
			if ev.UpdateMode == isa.SemWrRegComplete {
				args["update"] = fmt.Sprintf("sem[%d] %v addr_reg[%d] = %d", ev.UpdateIdx, ev.UpdateMode, ev.SemaphoreValue, updateEv.SemaphoreValue)
			} else if m := ev.UpdateMode &^ 0x10; m != isa.SemIncRead && m != isa.SemDecRead {
				// SEM_INC / SEM_DEC step by 1: semaphore_value is their wait's, not their operand
				args["update"] = fmt.Sprintf("sem[%d] %v %d", ev.UpdateIdx, ev.UpdateMode, ev.SemaphoreValue)
			}
		}
		r.tr.Add(trace.Event{Name: name, Cat: e.name, Pid: pidEngines, Tid: e.tid, TsPS: start, DurPS: occPS, Args: args})
	}
	e.pc++
	if e.pc < len(e.queue) {
		r.push(&event{t: start + occPS, kind: evIssue, ord: slot})
	}
	return nil
}

func (r *run) annotate(e *engine, op isa.Opcode, args map[string]any) {
	if r.m.cfg.Annotate == nil || e.kind != isa.EngineDVE {
		return
	}
	a, ok := r.m.cfg.Annotate(op)
	if !ok {
		return
	}
	r.res.Annotated = append(r.res.Annotated, AnnotatedInst{Engine: e.name, Index: e.pc, Opcode: op, Annotation: a})
	for k, v := range a {
		if args != nil {
			args[k] = v
		}
		if k == AnnotationClassKey {
			if e.stats.Notes == nil {
				e.stats.Notes = map[string]int{}
			}
			e.stats.Notes[fmt.Sprint(v)]++
		}
	}
}

// execErr turns an executor error into an *InstError with its category, rule and field.
func (r *run) execErr(e *engine, in Instr, err error) error {
	var ie *InstError
	if errors.As(err, &ie) {
		return err
	}
	v, quiet := causeViolation(err, "")
	return r.instErr(e, in, categoryOf(err), v, err, quiet)
}
