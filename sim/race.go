package sim

import (
	"cmp"
	"fmt"
	mbits "math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// Data races (Provenance sim.race_model, sim.race_semaphore_counts). Every run
// tracks happens-before between the memory accesses of its instructions and DMA descriptors:
//
//   - program order per queue: a compute instruction's accesses happen before everything its
//     queue issues after it (the queue issues the next instruction when it completes); a DMA
//     instruction's accesses, made by its descriptors on the DMA engines, are ordered after its
//     issue (and everything before that) but not before its queue's later instructions;
//   - a semaphore update happens before the wait it satisfies, counts respected: the wait is
//     ordered after the shortest prefix, in the order the updates were applied, of the updates
//     whose effect satisfies its compare from then on (from the last SEM_WR_IMM in it): a wait
//     for >= 1 of two increments is ordered after the first one only;
//   - an update on reads (UPDATE_MODE bit 0x10 clear: SEM_INC_READ ...) orders the instruction's
//     reads, not its writes; one on completion orders both;
//   - a DMA instruction's EVENTS update (at its last descriptor's completion) orders all its
//     descriptors; the increments of the DMA struct's own semaphore order the descriptors of the
//     engine that made each, except a single increment for the whole job, which orders them all.
//
// Two accesses to a common byte, at least one a write, by different instructions (the
// descriptors of one DMA are one instruction: the DMA model serialises those that overlap), with
// no happens-before either way, are a race. Config.Races says what a race does to the run.

// RaceMode says what a run does about data races.
type RaceMode uint8

const (
	// RacesError (the zero value) detects races; a racy run that otherwise finished returns its
	// Result with a *RaceError (fault.ErrRace).
	RacesError RaceMode = iota
	// RacesWarn detects races and lists them in Result.Races; the run's error does not change.
	RacesWarn
	// RacesOff detects nothing (Result.Races stays empty).
	RacesOff
)

func (m RaceMode) String() string {
	switch m {
	case RacesError:
		return "error"
	case RacesWarn:
		return "warn"
	case RacesOff:
		return "off"
	}
	return fmt.Sprintf("RaceMode(%d)", uint8(m))
}

// ParseRaceMode reads "error", "warn" or "off".
func ParseRaceMode(s string) (RaceMode, error) {
	for _, m := range []RaceMode{RacesError, RacesWarn, RacesOff} {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("races mode %q: want error, warn or off", s)
}

// RaceError is the error of a run that finished with data races under RacesError.
type RaceError struct {
	Races []Race
	// More counts the pairs found past the first maxRaces (1000), not listed.
	More int
}

func (e *RaceError) Error() string {
	more := ""
	if e.More > 0 {
		more = fmt.Sprintf(" (and %d more pair(s) not listed)", e.More)
	}
	return headedList(fmt.Sprintf("%d data race(s)%s: accesses to common bytes, at least one a write, that nothing orders (tpbsim explain sim.race_model)", len(e.Races), more), e.Races)
}

func (e *RaceError) Unwrap() error { return fault.ErrRace }

// RuleID names the model the races break (fault.Ruled).
func (e *RaceError) RuleID() string { return RuleRace }

// RaceSide is one access of a race: the instruction (for a DMA, its descriptors on one DMA
// engine) and whether it wrote.
type RaceSide struct {
	Engine string // queue engine that issued the instruction
	Index  int    // instruction index in its queue
	Line   int    // source line, 0 unknown
	File   string
	Origin string // the Instr's Origin, e.g. the NKI call it was lowered from
	Opcode isa.Opcode
	// DMAEngines: for a DMA instruction, the DMA engines whose descriptors made the racing
	// accesses (ascending); nil for a compute instruction's own accesses.
	DMAEngines []int
	Write      bool
	StartPS    int64 // when the access began (the instruction's issue, the descriptors' start)
}

func (s RaceSide) String() string {
	var b strings.Builder
	for i, e := range s.DMAEngines {
		if i == 0 {
			b.WriteString("descriptors on ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "DMA%d", e)
		if i == len(s.DMAEngines)-1 {
			b.WriteString(" of ")
		}
	}
	fmt.Fprintf(&b, "%s instruction %d", s.Engine, s.Index)
	switch {
	case s.File != "" && s.Line > 0:
		fmt.Fprintf(&b, " (%s:%d)", s.File, s.Line)
	case s.Line > 0:
		fmt.Fprintf(&b, " (line %d)", s.Line)
	}
	if s.Origin != "" {
		fmt.Fprintf(&b, " from %s", s.Origin)
	}
	fmt.Fprintf(&b, " %v", s.Opcode)
	if s.Write {
		b.WriteString(" writes")
	} else {
		b.WriteString(" reads")
	}
	return b.String()
}

// RaceRange is a box of overlapping bytes: partitions [FirstPartition, LastPartition] x bytes
// [Lo, Hi) of each (HBM: addresses [Lo, Hi), partition 0).
type RaceRange struct {
	Region                        mem.Region
	FirstPartition, LastPartition int
	Lo, Hi                        uint64
}

// String writes the range in the address syntax of the command line, inclusive:
// sbuf:P:0xLO..0xHI, sbuf:P0..P1:0xLO..0xHI, psum:..., hbm:0xLO..0xHI.
func (r RaceRange) String() string {
	if r.Region == mem.HBM {
		return fmt.Sprintf("hbm:0x%x..0x%x", r.Lo, r.Hi-1)
	}
	p := fmt.Sprint(r.FirstPartition)
	if r.LastPartition != r.FirstPartition {
		p = fmt.Sprintf("%d..%d", r.FirstPartition, r.LastPartition)
	}
	return fmt.Sprintf("%s:%s:0x%x..0x%x", r.Region, p, r.Lo, r.Hi-1)
}

// maxRaceRanges is how many ranges of one pair a Race keeps (the byte count counts them all).
const maxRaceRanges = 4

// maxRaces bounds the pairs one run reports (the count says how many there were).
const maxRaces = 1000

// Race is one pair of instructions whose accesses race.
type Race struct {
	First, Second RaceSide // First made its access first in this run
	Ranges        []RaceRange
	Bytes         uint64 // overlapping bytes in all
	// Approximate: a side's bytes are the extent of a walk too long to enumerate (a superset).
	Approximate bool
	// Hint names the semaphore that could order the pair.
	Hint string
}

// Kind is "write-write", "write-read" (the first access wrote) or "read-write".
func (r Race) Kind() string {
	k := func(w bool) string {
		if w {
			return "write"
		}
		return "read"
	}
	return k(r.First.Write) + "-" + k(r.Second.Write)
}

func (r Race) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "race (%s) on ", r.Kind())
	for i, x := range r.Ranges {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x.String())
	}
	if extra := r.Bytes - r.rangeBytes(); extra > 0 {
		fmt.Fprintf(&b, " and %d more byte(s)", extra)
	}
	if r.Approximate {
		b.WriteString(" (approximate: a walk too long to enumerate)")
	}
	fmt.Fprintf(&b, ": %v, then %v; %s", r.First, r.Second, r.Hint)
	return b.String()
}

func (r Race) rangeBytes() uint64 {
	var n uint64
	for _, x := range r.Ranges {
		n += uint64(x.LastPartition-x.FirstPartition+1) * (x.Hi - x.Lo)
	}
	return n
}

// actor is what made an access: a compute instruction, or one DMA instruction's descriptors on
// one DMA engine (a task).
type actor struct {
	slot   int8  // queue slot of the issuing engine
	dmaEng int16 // -1: a compute instruction
	epoch  uint32
	task   uint32
	inst   int32 // issued-instruction number: the same for all tasks of one DMA
	in     *Instr
	t0, t1 int64 // the access's time span, for the trace
	approx bool
	jobSem int     // the DMA struct's semaphore, -1 none
	self   []int32 // []int32{this actor}, shared by the cells it alone read
}

// semSrc is one semaphore update's origin: its release clock and, for the trace, the slice it
// came from.
type semSrc struct {
	rel      *vclock
	actor    int32 // an actor of the updating instruction (noActor: none known)
	all      bool  // the update orders all of that instruction's accesses (else actor's only)
	pid, tid int
	ts       int64
}

type semEntry struct {
	v     uint32
	pre   *vclock // the clocks of the updates from entry start through this one, joined
	start int     // first entry of this entry's prefix (after the last write)
	src   *semSrc
}

// semHist is the history of one semaphore during a run: h[0] is its value at the start.
type semHist struct {
	h         []semEntry
	lastBreak int // last entry that was a write or lowered the value (0: none)
	drawn     [numQueues]int
}

// raceDetector is the happens-before state of one run.
type raceDetector struct {
	r      *run
	on     bool
	actors []actor
	clocks [numQueues]vclock
	epochs [numQueues]uint32
	tasks  uint32
	insts  int32
	shadow [numShadow]shadowMap
	// sems[i] is set up by sem(i) when the run first uses semaphore i (semUsed's bit i), from
	// semStart, the values at the start: a run uses a few of the 256, and setting up and clearing
	// all of them was a quarter of a short run.
	sems     [NumSemaphores]semHist
	semUsed  [NumSemaphores / 64]uint64
	semStart [NumSemaphores]uint32

	races   []Race
	pairs   map[[2]int32]int // instruction pair -> races index
	sides   [][2][]int32     // the actors of each race's sides
	dropped int

	// the access being applied
	issueClock vclock
	boxes      []box
	cur        int32
	curInst    int32
	curWrite   bool
	curClock   *vclock
	curBox     box
	// release clocks of the instruction just issued
	relRead, relDone *vclock
	relActor         int32
}

func newRaceDetector(r *run) *raceDetector {
	d := &raceDetector{}
	d.reset(r)
	return d
}

// raceDetector returns the machine's race detector set up for run r: the one its last run
// used, its buffers kept (the shadow segments, the actors, the semaphore histories: about 26 KB
// a run allocated afresh), its state as newRaceDetector leaves it. What a run hands out (its
// Races) is never reused.
func (m *Machine) raceDetector(r *run) *raceDetector {
	if m.hb == nil {
		m.hb = newRaceDetector(r)
		return m.hb
	}
	m.hb.reset(r)
	return m.hb
}

// reset makes d the detector of a new run r, as a fresh one is: no actor, no access, no race,
// every semaphore's history its value at the start.
func (d *raceDetector) reset(r *run) {
	d.release()
	d.r, d.on = r, r.m.cfg.Races != RacesOff
	d.semStart = r.m.sems
	if d.pairs == nil {
		d.pairs = map[[2]int32]int{}
	}
}

// release empties d when its run is over (the run's Races are in its Result, which keeps
// them): every buffer truncated and cleared of what it pointed to, so that a machine holds
// nothing of its last run's program, trace or clocks, and the next run starts from the state
// of a fresh detector. The backing arrays are kept.
func (d *raceDetector) release() {
	clear(d.actors)
	for i := range d.shadow {
		m := &d.shadow[i]
		clear(m.segs[:m.hw])
		m.segs, m.hw = m.segs[:0], 0
	}
	for w, bits := range d.semUsed {
		for ; bits != 0; bits &= bits - 1 {
			s := &d.sems[w*64+mbits.TrailingZeros64(bits)]
			clear(s.h)
			*s = semHist{h: s.h[:0]}
		}
	}
	d.semUsed, d.semStart = [NumSemaphores / 64]uint64{}, [NumSemaphores]uint32{}
	clear(d.sides)
	clear(d.pairs)
	d.r, d.on = nil, false
	d.actors, d.sides, d.boxes = d.actors[:0], d.sides[:0], d.boxes[:0]
	d.clocks, d.epochs, d.tasks, d.insts = [numQueues]vclock{}, [numQueues]uint32{}, 0, 0
	d.races, d.dropped = nil, 0
	d.issueClock, d.cur, d.curInst, d.curWrite, d.curClock, d.curBox = vclock{}, 0, 0, false, nil, box{}
	d.relRead, d.relDone, d.relActor = nil, nil, 0
}

// sem is the history of semaphore i, started (its value at the start of the run) on first use.
func (d *raceDetector) sem(i uint8) *semHist {
	s := &d.sems[i]
	if w, b := i/64, uint64(1)<<(i%64); d.semUsed[w]&b == 0 {
		d.semUsed[w] |= b
		s.h = append(s.h, semEntry{v: d.semStart[i]})
	}
	return s
}

// hb reports whether actor a's access (a read, or a write) happened before clock c.
func (d *raceDetector) hb(a int32, write bool, c *vclock) bool {
	x := &d.actors[a]
	if x.dmaEng < 0 {
		q := c.q[x.slot]
		if write {
			return q.w >= x.epoch
		}
		return q.r >= x.epoch
	}
	if write {
		return c.dw.has(x.task)
	}
	return c.dr.has(x.task)
}

// acquire orders engine slot's next instruction after the updates its satisfied wait needed,
// and returns them (for the trace's flows), oldest first.
func (d *raceDetector) acquire(slot int, ev isa.Events) []*semSrc {
	if ev.WaitMode == isa.WaitNone || ev.WaitMode == isa.WaitUnordered {
		return nil
	}
	s := d.sem(ev.WaitIdx)
	n := len(s.h) - 1
	holds := func(i int) bool { return ev.WaitMode.Satisfied(s.h[i].v, ev.SemaphoreValue) }
	j := n
	lb := s.lastBreak
	switch ev.WaitMode {
	case isa.WaitForSemGEImm, isa.WaitForSemGTImm, isa.WaitForSemEQImm:
		// the values of [lb, n] do not decrease: the entries that satisfy a GE/GT compare are a
		// suffix of them, those equal to the value a run ending at n
		k := lb + sort.Search(n-lb+1, func(i int) bool { return s.h[lb+i].v >= ev.SemaphoreValue+b2u(ev.WaitMode == isa.WaitForSemGTImm) })
		if k <= n && holds(k) {
			j = k
		}
	case isa.WaitForSemLTImm, isa.WaitForSemLEImm:
		j = lb // holds at n, so at every smaller value since lb
	}
	for j > 0 && holds(j-1) {
		j--
	}
	if d.on && s.h[j].pre != nil {
		d.clocks[slot].join(s.h[j].pre)
	}
	var out []*semSrc
	from := max(s.h[j].start, s.drawn[slot]+1)
	if j-from > 15 {
		from = j - 15
	}
	for i := max(from, 1); i <= j; i++ {
		if s.h[i].src != nil {
			out = append(out, s.h[i].src)
		}
	}
	s.drawn[slot] = max(s.drawn[slot], j)
	return out
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// applied records a semaphore update that set sem[idx] to v.
func (d *raceDetector) applied(idx uint8, mode isa.UpdateMode, v uint32, src *semSrc) {
	s := d.sem(idx)
	n := len(s.h) - 1
	e := semEntry{v: v, src: src}
	write := mode&^0x10 == isa.SemWrImmRead
	var rel *vclock
	if src != nil {
		rel = src.rel
	}
	if write {
		e.pre, e.start = rel, n+1
	} else {
		e.start = s.h[n].start
		switch {
		case rel == nil:
			e.pre = s.h[n].pre
		case s.h[n].pre == nil:
			e.pre = rel
		default:
			e.pre = joined(s.h[n].pre, rel)
		}
	}
	if write || v < s.h[n].v {
		s.lastBreak = n + 1
	}
	s.h = append(s.h, e)
}

// alone is the read list holding actor a only.
func (d *raceDetector) alone(a int32) []int32 {
	x := &d.actors[a]
	if x.self == nil {
		x.self = []int32{a}
	}
	return x.self
}

func (d *raceDetector) newActor(a actor) int32 {
	d.actors = append(d.actors, a)
	return int32(len(d.actors) - 1)
}

// compute records the accesses of compute instruction in on engine slot, issued now, and
// prepares its release clocks.
func (d *raceDetector) compute(slot int, in *Instr, eff *Effect, t0, t1 int64) {
	d.epochs[slot]++
	n := d.epochs[slot]
	d.insts++
	id := d.newActor(actor{slot: int8(slot), dmaEng: -1, epoch: n, inst: d.insts, in: in, t0: t0, t1: t1, jobSem: -1})
	if d.on {
		d.issueClock = d.clocks[slot]
		d.curClock = &d.issueClock
		for _, s := range eff.reads {
			d.boxes = spanBoxes(d.boxes[:0], s, in.Inst, false)
			d.access(id, false, d.boxes)
		}
		for _, s := range eff.writes {
			d.boxes = spanBoxes(d.boxes[:0], s, in.Inst, true)
			d.access(id, true, d.boxes)
		}
	}
	d.relRead, d.relDone, d.relActor = nil, nil, id
	if in.Inst.Evt().UpdateMode != isa.UpdateNone && d.on {
		rr := d.clocks[slot]
		rr.q[slot].r = n
		d.relRead = &rr
	}
	d.clocks[slot].q[slot] = qclock{n, n}
	if d.relRead != nil {
		rd := d.clocks[slot]
		d.relDone = &rd
	}
}

// dmaTasks is a DMA instruction's actors, one per DMA engine that has descriptors.
type dmaTasks struct {
	byEngine map[int]int32
	lo, hi   uint32 // task ids
	issue    vclock
	lastEnd  int64 // when the last descriptor completes, and its engine
	lastEng  int
}

// dma records the accesses of DMA instruction in on engine slot, whose descriptors' footprints
// are fps (Queues order; nil when detection is off), and prepares its release clocks.
func (d *raceDetector) dma(slot int, in *Instr, job *dma.Job, res *dma.Result, fps [][]dma.DescFootprint, jobSem int) *dmaTasks {
	d.epochs[slot]++
	n := d.epochs[slot]
	d.insts++
	t := &dmaTasks{byEngine: map[int]int32{}, issue: d.clocks[slot]}
	t.lo = d.tasks
	for _, rec := range res.Records {
		s, e := rec.Start*1000, rec.End*1000
		id, ok := t.byEngine[rec.Engine]
		if !ok {
			id = d.newActor(actor{slot: int8(slot), dmaEng: int16(rec.Engine), task: d.tasks, inst: d.insts, in: in, t0: s, t1: e, jobSem: jobSem})
			d.tasks++
			t.byEngine[rec.Engine] = id
		}
		a := &d.actors[id]
		a.t0, a.t1 = min(a.t0, s), max(a.t1, e)
		if e >= t.lastEnd {
			t.lastEnd, t.lastEng = e, rec.Engine
		}
	}
	t.hi = d.tasks
	if d.on && fps != nil {
		d.curClock = &t.issue
		for q := range job.Queues {
			id, ok := t.byEngine[q]
			if !ok {
				continue
			}
			for i := range job.Queues[q] {
				f := fps[q][i]
				if !f.Exact {
					d.actors[id].approx = true
				}
				d.boxes = d.devBoxes(d.boxes[:0], f.Reads)
				d.access(id, false, d.boxes)
				d.boxes = d.devBoxes(d.boxes[:0], f.Writes)
				d.access(id, true, d.boxes)
			}
		}
	}
	d.clocks[slot].q[slot] = qclock{n, n}
	if !d.on {
		d.relRead, d.relDone, d.relActor = nil, nil, noActor
		if t.hi > t.lo {
			d.relActor = t.byEngine[t.lastEng]
		}
		return t
	}
	rr := joined(&t.issue, nil)
	rr.dr = rr.dr.withRange(t.lo, t.hi)
	rd := joined(rr, nil)
	rd.dw = rd.dw.withRange(t.lo, t.hi)
	rd.q[slot] = qclock{n, n}
	d.relRead, d.relDone, d.relActor = rr, rd, noActor
	if t.hi > t.lo {
		d.relActor = t.byEngine[t.lastEng]
	}
	return t
}

// engineRelease is the release clock of a DMA engine's completion increment: engine's tasks of
// the job (all of them when all is set).
func (d *raceDetector) engineRelease(t *dmaTasks, engine int, all bool) (*vclock, int32) {
	c := joined(&t.issue, nil)
	id, ok := t.byEngine[engine]
	switch {
	case all:
		c.dr, c.dw = c.dr.withRange(t.lo, t.hi), c.dw.withRange(t.lo, t.hi)
	case ok:
		k := d.actors[id].task
		c.dr, c.dw = c.dr.withRange(k, k+1), c.dw.withRange(k, k+1)
	}
	if !ok {
		id = noActor
	}
	return c, id
}

// access checks one access of actor id against the shadow and records it.
func (d *raceDetector) access(id int32, write bool, boxes []box) {
	d.cur, d.curInst, d.curWrite = id, d.actors[id].inst, write
	for _, b := range boxes {
		d.curBox = b
		d.shadow[b.region].apply(b, d.visit)
	}
}

func (d *raceDetector) visit(c *cell, lo, hi uint64) {
	b := box{region: d.curBox.region, p0: c.p0, p1: c.p1, lo: lo, hi: hi}
	if c.w != noActor && c.w != d.cur && d.actors[c.w].inst != d.curInst && !d.hb(c.w, true, d.curClock) {
		d.report(c.w, true, b)
	}
	if d.curWrite {
		for _, r := range c.reads {
			if r != d.cur && d.actors[r].inst != d.curInst && !d.hb(r, false, d.curClock) {
				d.report(r, false, b)
			}
		}
		c.w, c.reads = d.cur, nil
		return
	}
	keep := 0
	for _, r := range c.reads {
		if r != d.cur && !d.hb(r, false, d.curClock) {
			keep++
		}
	}
	if keep == len(c.reads)-1 && len(c.reads) > 0 && c.reads[len(c.reads)-1] == d.cur {
		return // this actor already read here
	}
	if keep == 0 {
		c.reads = d.alone(d.cur) // the common case: one reader, its slice shared by every cell
		return
	}
	rs := make([]int32, 0, keep+1)
	for _, r := range c.reads {
		if r != d.cur && !d.hb(r, false, d.curClock) {
			rs = append(rs, r)
		}
	}
	c.reads = append(rs, d.cur)
}

func (d *raceDetector) report(prev int32, prevWrite bool, b box) {
	key := [2]int32{d.actors[prev].inst, d.curInst}
	i, ok := d.pairs[key]
	if !ok {
		if len(d.races) >= maxRaces {
			d.dropped++
			return
		}
		i = len(d.races)
		d.pairs[key] = i
		d.races = append(d.races, Race{First: d.side(prev, prevWrite), Second: d.side(d.cur, d.curWrite)})
		d.sides = append(d.sides, [2][]int32{})
		d.r.markRace(&d.actors[prev], &d.actors[d.cur], &d.races[i])
	}
	rc := &d.races[i]
	rc.First.Write = rc.First.Write || prevWrite
	rc.Second.Write = rc.Second.Write || d.curWrite
	rc.Approximate = rc.Approximate || d.actors[prev].approx || d.actors[d.cur].approx
	for k, a := range [2]int32{prev, d.cur} {
		if sd := &d.sides[i][k]; !containsActor(*sd, a) {
			*sd = append(*sd, a)
			if e := d.actors[a].dmaEng; e >= 0 {
				side := &rc.First
				if k == 1 {
					side = &rc.Second
				}
				side.DMAEngines = insertSorted(side.DMAEngines, int(e))
			}
		}
	}
	rc.Bytes += uint64(b.p1-b.p0) * (b.hi - b.lo)
	if len(rc.Ranges) < maxRaceRanges {
		rg := RaceRange{Region: [...]mem.Region{mem.SBUF, mem.PSUM, mem.HBM}[b.region], FirstPartition: int(b.p0), LastPartition: int(b.p1 - 1), Lo: b.lo, Hi: b.hi}
		if n := len(rc.Ranges); n > 0 {
			// join a range that continues the last one
			l := &rc.Ranges[n-1]
			if l.Region == rg.Region && l.Lo == rg.Lo && l.Hi == rg.Hi && l.LastPartition+1 == rg.FirstPartition {
				l.LastPartition = rg.LastPartition
				return
			}
			if l.Region == rg.Region && l.FirstPartition == rg.FirstPartition && l.LastPartition == rg.LastPartition && l.Hi == rg.Lo {
				l.Hi = rg.Hi
				return
			}
		}
		rc.Ranges = append(rc.Ranges, rg)
	}
}

func (d *raceDetector) side(a int32, write bool) RaceSide {
	x := &d.actors[a]
	return RaceSide{Engine: queueEngines[x.slot].String(), Index: x.in.Index, Line: x.in.Line, File: d.r.prog.File, Origin: x.in.Origin,
		Opcode: opcodeOf(x.in.Inst), Write: write, StartPS: x.t0}
}

func containsActor(s []int32, a int32) bool {
	for _, x := range s {
		if x == a {
			return true
		}
	}
	return false
}

func insertSorted(s []int, v int) []int {
	i := sort.SearchInts(s, v)
	if i < len(s) && s[i] == v {
		return s
	}
	s = append(s, 0)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

// finish completes the hints of the races found.
func (d *raceDetector) finish() []Race {
	if len(d.races) == 0 {
		return nil
	}
	used := map[int]bool{}
	for _, q := range d.r.prog.Queues {
		for _, in := range q.Insts {
			ev := in.Inst.Evt()
			if ev.WaitMode != isa.WaitNone {
				used[int(ev.WaitIdx)] = true
			}
			if ev.UpdateMode != isa.UpdateNone {
				used[int(ev.UpdateIdx)] = true
			}
		}
	}
	for _, a := range d.actors {
		used[a.jobSem] = true
	}
	free := -1
	for i := 1; i < NumSemaphores; i++ {
		if !used[i] {
			free = i
			break
		}
	}
	for i := range d.races {
		d.races[i].Hint = d.hint(d.sides[i][0], d.sides[i][1][0], &d.races[i], free)
	}
	return d.races
}

// hint says which semaphore could order the accesses of actors as (one instruction) before
// actor b's.
func (d *raceDetector) hint(as []int32, b int32, rc *Race, free int) string {
	a := as[0]
	x, y := &d.actors[a], &d.actors[b]
	first := rc.First
	name := fmt.Sprintf("%s instruction %d", first.Engine, first.Index)
	bw := y.in.Inst.Evt()
	// the updates a makes that order its access, with the value each left
	type upd struct {
		idx  int
		what string
		inc  bool // the update adds to the semaphore: a GE wait for the value after it orders it
	}
	var ups []upd
	ev := x.in.Inst.Evt()
	if ev.UpdateMode != isa.UpdateNone {
		if !ev.UpdateMode.OnComplete() && first.Write {
			return fmt.Sprintf("%s's %v on sem[%d] fires after its reads, before its writes: make it %v so that %s's wait orders the write",
				name, ev.UpdateMode, ev.UpdateIdx, ev.UpdateMode|0x10, rc.Second.Engine)
		}
		m := ev.UpdateMode &^ 0x10
		ups = append(ups, upd{int(ev.UpdateIdx), fmt.Sprintf("its %v on sem[%d]", ev.UpdateMode, ev.UpdateIdx), m == isa.SemIncRead || m == isa.SemAddImmRead})
	}
	if x.jobSem >= 0 {
		ups = append(ups, upd{x.jobSem, fmt.Sprintf("the DMA's completion semaphore sem[%d]", x.jobSem), true})
	}
	for _, u := range ups {
		if bw.WaitMode != isa.WaitNone && int(bw.WaitIdx) == u.idx {
			if v, ok := d.valueAfter(uint8(u.idx), as); ok && u.inc {
				return fmt.Sprintf("%s waits %s, which does not need %s: wait for sem[%d] >= %d, the value after it",
					rc.Second.Engine, d.r.m.waitText(bw), u.what+" from "+name, u.idx, v)
			}
			return fmt.Sprintf("%s waits %s, which does not need %s from %s", rc.Second.Engine, d.r.m.waitText(bw), u.what, name)
		}
	}
	if len(ups) > 0 {
		v, ok := d.valueAfter(uint8(ups[0].idx), as)
		if ok && ups[0].inc {
			return fmt.Sprintf("nothing orders them: make %s instruction %d wait for sem[%d] >= %d (%s from %s)", rc.Second.Engine, rc.Second.Index, ups[0].idx, v, ups[0].what, name)
		}
		return fmt.Sprintf("nothing orders them: make %s instruction %d wait on %s from %s", rc.Second.Engine, rc.Second.Index, ups[0].what, name)
	}
	s := "a free semaphore"
	if free >= 0 {
		s = fmt.Sprintf("a free semaphore (sem[%d] is unused)", free)
	}
	return fmt.Sprintf("nothing orders them: give %s an update on completion (SEM_INC_COMPLETE) of %s and make %s instruction %d wait for it",
		name, s, rc.Second.Engine, rc.Second.Index)
}

// valueAfter is the value sem[idx] had after the last update that orders the accesses of
// actors xs (of one instruction).
func (d *raceDetector) valueAfter(idx uint8, xs []int32) (uint32, bool) {
	h := d.sem(idx).h
	for i := len(h) - 1; i > 0; i-- {
		if s := h[i].src; s != nil && s.actor != noActor && d.actors[s.actor].inst == d.actors[xs[0]].inst && (s.all || containsActor(xs, s.actor)) {
			return h[i].v, true
		}
	}
	return 0, false
}

// spanBoxes is the bytes of one access of a compute instruction: span is its bounding box; the
// walk of its pattern, the same in every partition, gives the byte runs inside it.
func spanBoxes(out []box, s mem.Span, in isa.Inst, write bool) []box {
	if s.Empty() {
		return out
	}
	reg := shadowSBUF
	if s.Region == mem.PSUM {
		reg = shadowPSUM
	}
	p0, p1 := int32(s.FirstPartition), int32(s.FirstPartition+s.NumPartitions)
	whole := append(out, box{region: reg, p0: p0, p1: p1, lo: uint64(s.Lo), hi: uint64(s.Hi)})
	var (
		t  isa.Tensor4D
		es int
	)
	switch x := in.(type) {
	case *isa.S4D4TR:
		t, es = x.SrcMemPattern, x.InDtype.Size()
		if write {
			t, es = x.DstMemPattern, x.OutDtype.Size()
		}
	case *isa.Memset:
		t, es = x.DstMemPattern, x.Dtype.Size()
	default:
		return whole
	}
	runs, ok := patternRuns(t, es, maxPatternRuns)
	if !ok || len(runs) <= 1 {
		return whole
	}
	n := len(out)
	for _, r := range runs {
		out = append(out, box{region: reg, p0: p0, p1: p1, lo: uint64(s.Lo) + r[0], hi: uint64(s.Lo) + r[1]})
	}
	if out[len(out)-1].hi != uint64(s.Hi) {
		return append(out[:n], whole[n]) // not the walk the executor made
	}
	return out
}

// maxPatternRuns bounds the runs one partition's walk is split into; a walk of more runs is
// taken whole (its bounding box: may report a race between interleaved walks that share no byte).
const maxPatternRuns = 1024

// patternRuns returns the byte runs [lo, hi) of a TENSOR4D walk relative to its lowest byte,
// sorted and merged, or ok false for more than budget runs.
func patternRuns(t isa.Tensor4D, es, budget int) ([][2]uint64, bool) {
	if es <= 0 {
		return nil, false
	}
	type lvl struct{ n, b uint64 }
	var arr [4]lvl
	ls := arr[:0]
	for k := 0; k < 4; k++ {
		n, st := uint64(t.NumElem[k]), int64(t.StepElem[k])*int64(es)
		if n == 0 {
			return nil, true
		}
		if n == 1 || st == 0 {
			continue
		}
		if st < 0 {
			st = -st
		}
		ls = append(ls, lvl{n, uint64(st)})
	}
	for i := 1; i < len(ls); i++ { // by step, at most four levels
		for j := i; j > 0 && ls[j].b < ls[j-1].b; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
	run := uint64(es)
	for len(ls) > 0 && ls[0].b <= run {
		run += (ls[0].n - 1) * ls[0].b
		ls = ls[1:]
	}
	count := uint64(1)
	for _, l := range ls {
		count *= l.n
		if count > uint64(budget) {
			return nil, false
		}
	}
	if count == 1 {
		return nil, true // one run: the bounding box
	}
	offs := make([]uint64, 1, count)
	for _, l := range ls {
		m := len(offs)
		for j := uint64(1); j < l.n; j++ {
			for _, o := range offs[:m] {
				offs = append(offs, o+j*l.b)
			}
		}
	}
	slices.Sort(offs)
	out := make([][2]uint64, 0, len(offs))
	for _, o := range offs {
		if n := len(out); n > 0 && o <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], o+run)
			continue
		}
		out = append(out, [2]uint64{o, o + run})
	}
	return out, true
}

// devBoxes turns DMA device-address runs into boxes: HBM as one partition, on-chip runs split
// per partition and those of consecutive partitions at the same offsets joined, appended to out
// (the detector's reused d.boxes[:0]).
func (d *raceDetector) devBoxes(out []box, runs []dma.Run) []box {
	if len(runs) == 0 {
		return out
	}
	geo := d.r.m.geo
	for _, r := range runs {
		if r.Lo < isa.DMALocalBase {
			out = append(out, box{region: shadowHBM, p0: 0, p1: 1, lo: r.Lo, hi: min(r.Hi, isa.DMALocalBase)})
			if r.Hi <= isa.DMALocalBase {
				continue
			}
			r.Lo = isa.DMALocalBase
		}
		lo, hi := r.Lo-isa.DMALocalBase, r.Hi-isa.DMALocalBase
		for _, b := range []struct {
			reg          int
			base, stride uint64
			size         uint64
		}{{shadowSBUF, uint64(geo.StateBufOffset), uint64(geo.StateBufPartitionSize), uint64(geo.StateBufSize)},
			{shadowPSUM, uint64(geo.PSUMOffset), uint64(geo.PSUMPartitionSize), uint64(geo.PSUMSize)}} {
			if b.stride == 0 || b.size == 0 {
				continue
			}
			a, e := max(lo, b.base), min(hi, b.base+b.size)
			for a < e {
				p := (a - b.base) / b.stride
				off := (a - b.base) % b.stride
				n := min(e-a, b.stride-off)
				if k := len(out) - 1; k >= 0 && out[k].region == b.reg && out[k].lo == off && out[k].hi == off+n && out[k].p1 == int32(p) {
					out[k].p1++ // the same bytes of the next partition: a tile's rows, in address order
				} else {
					out = append(out, box{region: b.reg, p0: int32(p), p1: int32(p + 1), lo: off, hi: off + n})
				}
				a += n
			}
		}
	}
	// A total order (the runs are disjoint, so no two boxes share region, lo and p0), so any
	// sort gives these boxes; slices.SortFunc allocates nothing (sort.Slice's swapper did, 1.5%
	// of a FuzzRandomKernel exec's bytes). Rows merged above leave it little to sort.
	slices.SortFunc(out, func(a, b box) int {
		if c := cmp.Compare(a.region, b.region); c != 0 {
			return c
		}
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		if c := cmp.Compare(a.hi, b.hi); c != 0 {
			return c
		}
		return cmp.Compare(a.p0, b.p0)
	})
	n := 0
	for k := 1; k < len(out); k++ {
		if p := &out[n]; p.region == out[k].region && p.lo == out[k].lo && p.hi == out[k].hi && p.p1 >= out[k].p0 {
			p.p1 = max(p.p1, out[k].p1)
			continue
		}
		n++
		out[n] = out[k]
	}
	return out[:n+1]
}

// raceProvenance is the registry of the race detector's choices.
func raceProvenance() []isa.Provenance {
	return []isa.Provenance{
		{ID: "sim.race_model", Kind: "behaviour",
			Text: "Happens-before of a run: on a queue, a compute instruction's reads and writes happen before everything the queue " +
				"issues after it (it issues the next instruction when one completes); a DMA instruction's accesses are its descriptors', " +
				"ordered after its issue and what came before it, not before its queue's later instructions. A semaphore update happens " +
				"before a wait it satisfies (counts: sim.race_semaphore_counts); an update on reads (SEM_*_READ, bit 0x10 clear) orders " +
				"the instruction's reads only, also on a DMA; one on completion its reads and writes. DMA ordering: sim.race_dma_order. " +
				"Two accesses to a common byte, at least one a write, by different instructions, unordered either way, are a race. The " +
				"descriptors of one DMA instruction are one instruction: the DMA model runs those that overlap in order (sim.dma_dst_overlap).",
			Source: "DESIGN.md §9 (races); FACTS §B.2 (wait before issue, update after the reads or on completion)", Confidence: isa.Invented,
			Reason: "the orders the hardware guarantees whatever the timing; tpbsim's own timing (sim.cost_model) is invented, so a " +
				"result that depends on more than these orders is not a result"},
		{ID: "sim.race_semaphore_counts", Kind: "behaviour",
			Text: "A satisfied wait is ordered after the shortest prefix, in the order the updates were applied, of the semaphore's " +
				"updates after which its compare held continuously up to the wait, taken from the last SEM_WR_IMM within it (or the " +
				"run's start): a wait for >= 1 of two increments is ordered after the first only, one for >= 2 after both; an EQ or " +
				"LT/LE wait after the update that last made its compare true and those before it; decrements count against the prefix " +
				"(after +1, +1, -1 a wait for >= 1 held from the first increment on: it is ordered after that one only); a value set before the run " +
				"(Machine.SetSemaphore) that satisfies the wait orders nothing. Updates after that prefix are not ordered before the wait.",
			Source: "DESIGN.md §9 (semaphore updates, with counts)", Confidence: isa.Invented,
			Reason: "a counting wait could have been released by the first updates alone, whichever ran first; ordering it after " +
				"every update so far would hide races that another timing shows"},
		{ID: "sim.race_dma_order", Kind: "behaviour",
			Text: "A DMA instruction's EVENTS update (at its last descriptor's completion) orders all its descriptors. The DMA struct's " +
				"own semaphore increments (dma.sem_increment) order the descriptors of the engine that made each; a job with more " +
				"engines than its sem_increment gets one increment when all have finished, which orders them all. Descriptors of " +
				"different DMA instructions are not ordered by their DMA engine's queue order, even on one engine.",
			Source: "DESIGN.md §9; dma.sem_increment", Confidence: isa.Invented,
			Reason: "a waiter can rely only on the completions it counted; an engine's queue order is tpbsim's model (several " +
				"hardware queues share an engine), not a promise a program may lean on"},
		{ID: "sim.race_report", Kind: "behaviour",
			Text: "Races are reported once per pair of instructions (for a DMA, with the DMA engines whose descriptors raced), with the " +
				"overlapping bytes (up to 4 ranges and the total) and the semaphore that could order them, at most 1000 pairs. Each " +
				"byte range keeps its last writer and the readers since that are not ordered before a later read (a vector-clock " +
				"detector in the manner of FastTrack): an access is compared with those, so of several earlier accesses in queue " +
				"order the latest is named. An instruction's walk is split into byte runs per partition up to 1024 runs (a DMA " +
				"descriptor's up to dma.MaxOverlapRuns), else taken as its bounding range (reported approximate). The index table " +
				"an indirect DMA reads is not tracked.",
			Source: "DESIGN.md §9 (races: reported with both sides and the bytes)", Confidence: isa.Invented,
			Reason: "one line per pair is what a user fixes; byte intervals keep the cost within 2x of a run (BENCHMARKS.md)"},
	}
}
