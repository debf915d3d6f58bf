package dma

import (
	"cmp"
	"runtime"
	"slices"
	"sync"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/timing"
)

// Timing is the cost model of the engines, in nanoseconds: the DMA part of a timing.Table
// (Provenance timing.model; each constant's own entry is timing.dma.*).
type Timing struct {
	// BytesPerNs is one engine's peak copy bandwidth (timing dma.bytes_per_ns).
	BytesPerNs float64
	// RowOverheadBytes is the fixed cost of each contiguous run of a descriptor, as bytes at
	// peak: a run of b bytes moves at b/(b+RowOverheadBytes) of peak (dma.row_overhead_bytes).
	RowOverheadBytes float64
	// DescNs is the fixed cost of one descriptor on an engine (dma.descriptor_ns).
	DescNs float64
	// XbarHBMFactor and XbarSBUFFactor scale the copy throughput for crossbar transposes from
	// HBM and from SBUF (dma.xbar_hbm_factor, dma.xbar_sbuf_factor).
	XbarHBMFactor, XbarSBUFFactor float64
	// ComputeFactor scales it for reduce-on-copy (dma.compute_factor).
	ComputeFactor float64
}

// TimingOf is the DMA part of a timing table.
func TimingOf(t *timing.Table) Timing {
	return Timing{BytesPerNs: t.DMABytesPerNs, RowOverheadBytes: t.DMARowOverheadBytes, DescNs: t.DMADescriptorNs,
		XbarHBMFactor: t.DMAXbarHBMFactor, XbarSBUFFactor: t.DMAXbarSBUFFactor, ComputeFactor: t.DMAComputeFactor}
}

// DefaultTiming returns the cost model of generation g's default timing table; the zero Timing
// for an invalid generation (whose engines run nothing: checkGen).
func DefaultTiming(g isa.Generation) Timing {
	t, err := timing.For(g)
	if err != nil {
		return Timing{}
	}
	return TimingOf(&t)
}

// Cost is the modelled duration of one descriptor on one engine: DescNs + (bytes + runs x
// RowOverheadBytes) / bandwidth, the bandwidth scaled for a transpose or a compute_op. A
// crossbar transpose writes whole [partitions, 16] tiles and pays no per-run overhead; its
// factor is against the copy throughput of the same bytes.
func (t Timing) Cost(d *Descriptor) int64 {
	bw := t.BytesPerNs
	b := float64(d.Bytes())
	work := b
	switch d.Kind {
	case KindXbar, KindGatherXpose:
		if d.Src.Addr >= isa.DMALocalBase {
			bw *= t.XbarSBUFFactor
		} else {
			bw *= t.XbarHBMFactor
		}
	case KindGather:
		work += float64(d.Elements()) * t.RowOverheadBytes // one run per row
	default:
		if run := d.RunBytes(); run > 0 {
			work += float64((d.Bytes()+run-1)/run) * t.RowOverheadBytes
		}
	}
	if d.ComputeOp != 0 {
		bw *= t.ComputeFactor
	}
	bw = max(bw, 1e-3)
	return int64(t.DescNs + work/bw + 0.5)
}

// RunBytes is the length in destination bytes of the descriptor's contiguous runs: the
// shorter of the two sides' (inner levels whose step continues the level below merge).
func (d *Descriptor) RunBytes() uint64 {
	if d.Dst.ElemSize == 0 || d.Src.ElemSize == 0 {
		return 0
	}
	s := sideRun(d.Src, d.Num) * uint64(d.Dst.ElemSize) / uint64(d.Src.ElemSize)
	return max(1, min(s, sideRun(d.Dst, d.dstNum())))
}

func sideRun(s Side, num [MaxLevels]uint32) uint64 {
	acc := uint64(1)
	for k := 0; k < MaxLevels; k++ {
		if num[k] <= 1 {
			continue
		}
		if s.Step[k] != int64(acc) {
			break
		}
		acc *= uint64(num[k])
	}
	return acc * uint64(s.ElemSize)
}

// Job is one DMA request lowered to per-engine descriptor queues (what dge.Plan produces).
type Job struct {
	Name string
	// Queues[e] is engine e's descriptor queue, in order.
	Queues [][]Descriptor
	// Order is the producer's emission order (the DGE pushes descriptors in this order); nil
	// means round robin over the engines.
	Order []Ref
	// RingDepth is each engine's descriptor ring depth (MEMCOPY_CARVEOUT_CFG high 16 bits); the
	// producer waits for credit when a ring is full. 0 means unlimited.
	RingDepth int
	// GenNs is the producer's cost to generate one descriptor.
	GenNs int64
	// Start is the time the producer starts.
	Start int64
	// Sem is the completion semaphore (-1 for none) and SemIncrement its total bump.
	Sem          int
	SemIncrement int
	// Reporters are the engines that report the job's completion: those among them that carry
	// no data write only their update, at the start (nil: only the engines with data report).
	Reporters []int
}

// Ref names one descriptor of a job: engine and position in that engine's queue.
type Ref struct{ Engine, Index int }

// Record is one trace slice: one descriptor on one engine, in the vocabulary of the hardware
// profiler's DMA packet table (NKI.md): engine, queue, bytes, src, dst, start/end.
type Record struct {
	Engine, Queue, Index int
	Kind                 Kind
	Bytes                uint64
	Src, Dst             uint64
	Ready                int64 // when the producer had pushed it (ns)
	Start, End           int64 // on the engine (ns)
	CreditWait           int64 // how long the producer waited for ring credit before pushing it
	Credits              int   // free ring slots on this engine right after the push (-1 = unlimited)
}

// SemUpdate is a semaphore bump the engines deliver on completion; the caller applies it.
type SemUpdate struct {
	Sem    int
	Delta  uint32
	Time   int64
	Engine int
}

// Result is what running a job produced.
type Result struct {
	Records     []Record // sorted by start time, then engine
	Sems        []SemUpdate
	End         int64 // completion time of the last descriptor
	CreditWaits int   // number of pushes that had to wait for credit
	Bytes       uint64
	// Workers is the number of host goroutines that moved the job's bytes (1: in job order on
	// the caller's; 0: Schedule only).
	Workers int
}

// Engines is the set of DMA engines of one NeuronCore.
type Engines struct {
	Gen     isa.Generation
	Count   int       // DMA_ENGINE_COUNT_PER_TPB: 16, 8 on MAVERICK
	Regs    BoundRegs // the bound-check register file
	Timing  Timing
	Workers int // goroutines executing engines concurrently; 0 = GOMAXPROCS
	// ParallelBytes is the job size from which engines run in goroutines.
	ParallelBytes uint64
	// MaxJobBytes caps the bytes one job may move (0: no cap), so a crafted request cannot
	// exhaust the host. New sets DefaultMaxJobBytes.
	MaxJobBytes uint64
	// SerialSharedDst runs a job on one worker, in job order (engine by engine, each queue in
	// order), when two of its descriptors touch a common byte that one of them writes (the exact
	// test of Job.Conflicts, with gathered and scattered rows resolved), so a destination that
	// overlaps itself across descriptors, or a source another descriptor writes, gets a
	// deterministic result instead of a race between workers. Jobs whose descriptors' bytes
	// interleave without sharing one (a crossbar transpose's row tiles, which every engine
	// writes in every partition) still run in parallel. Off, a conflicting job's result depends
	// on the workers' timing.
	SerialSharedDst bool
	// Free[e] is the time engine e finishes its last scheduled descriptor.
	Free []int64
}

// DefaultMaxJobBytes is the job size cap of New (INVENTED: 4 GiB, mem's default HBM cap).
const DefaultMaxJobBytes = 4 << 30

// New returns the engines of generation g. The engines of an invalid generation have none: their
// Check and Run refuse every job (an *isa.GenerationError).
func New(g isa.Generation) *Engines {
	n := 0
	if g.Valid() {
		n = g.Geometry().DMAEngineCount
	}
	return &Engines{Gen: g, Count: n, Timing: DefaultTiming(g), ParallelBytes: 1 << 20, MaxJobBytes: DefaultMaxJobBytes, Free: make([]int64, n)}
}

// Check runs the pre-flight checks of every descriptor of the job (Validate, bound registers,
// memory active areas, indices) without moving a byte.
func (e *Engines) Check(mem Memory, job *Job) error {
	_, err := e.checkAll(newRunner(mem, &e.Regs), job)
	return err
}

func (e *Engines) checkAll(r *runner, job *Job) ([][]*prepared, error) {
	if err := checkGen(e.Gen); err != nil {
		return nil, err
	}
	if len(job.Queues) > e.Count {
		return nil, jobErr(RuleJobEngines, "job uses %d engines, %v has %d", len(job.Queues), e.Gen, e.Count)
	}
	var total uint64
	for q := range job.Queues {
		for i := range job.Queues[q] {
			total += job.Queues[q][i].Bytes()
		}
	}
	if max := e.MaxJobBytes; max > 0 && total > max {
		return nil, jobErr(RuleJobBytesCap, "job moves %d bytes, more than the model's cap of %d (Engines.MaxJobBytes)", total, max)
	}
	prep := make([][]*prepared, len(job.Queues))
	for q := range job.Queues {
		prep[q] = make([]*prepared, len(job.Queues[q]))
		for i := range job.Queues[q] {
			p, err := r.check(&job.Queues[q][i], q, i, job.Sem, job.SemIncrement)
			if err != nil {
				return nil, err
			}
			prep[q][i] = p
		}
	}
	return prep, nil
}

// Run checks the whole job, then executes it: engines concurrently, each engine's queue in
// order. If any check fails nothing is written. It returns the trace, the semaphore updates and
// the completion time, and advances the engines' busy times.
func (e *Engines) Run(mem Memory, job *Job) (*Result, error) { return e.RunPlaced(mem, job, job) }

// RunPlaced is Run with the timing of placed: the same descriptors as job on other engines
// (the machine's placement by SBUF partition, Provenance sim.dma_partition_spread). The bytes
// move as job says, so what a job computes never depends on the placement; the Result's
// records and semaphore updates are placed's.
func (e *Engines) RunPlaced(mem Memory, job, placed *Job) (*Result, error) {
	r := newRunner(mem, &e.Regs)
	prep, err := e.checkAll(r, job)
	if err != nil {
		return nil, err
	}
	res := e.Schedule(placed)
	var total uint64
	active := 0
	for _, q := range job.Queues {
		for i := range q {
			total += q[i].Bytes()
		}
		if len(q) > 0 {
			active++
		}
	}
	workers := e.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if total < e.ParallelBytes || workers <= 1 || active <= 1 || (e.SerialSharedDst && job.conflicts(prep)) {
		res.Workers = 1
		for q := range job.Queues {
			for i := range job.Queues[q] {
				if err := r.exec(&job.Queues[q][i], prep[q][i]); err != nil {
					return nil, &ExecError{Engine: q, Desc: i, Err: err}
				}
			}
		}
		return res, nil
	}
	// Split work into (engine, descriptor) items so two cores share even a single big queue.
	type item struct{ q, i int }
	items := make(chan item, 64)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	res.Workers = min(workers, active)
	for w := 0; w < res.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := r.fork()
			for it := range items {
				if err := r.exec(&job.Queues[it.q][it.i], prep[it.q][it.i]); err != nil {
					once.Do(func() { firstErr = &ExecError{Engine: it.q, Desc: it.i, Err: err} })
				}
			}
		}()
	}
	// Descriptors of a job run in any order across the workers: a job's descriptors must not
	// write bytes another of its descriptors reads or writes (dge plans of requests that do not
	// overlap themselves never do). Callers with such jobs set SerialSharedDst or Workers = 1.
	for q := range job.Queues {
		for i := range job.Queues[q] {
			items <- item{q, i}
		}
	}
	close(items)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return res, nil
}

// Schedule computes the timing of a job without moving data: the producer pushes descriptors in
// job.Order, waiting for ring credit (wait_for_credit) when an engine's ring holds RingDepth
// descriptors not yet completed; each engine runs its queue in order. It advances e.Free.
func (e *Engines) Schedule(job *Job) *Result {
	if len(e.Free) < len(job.Queues) {
		e.Free = append(e.Free, make([]int64, len(job.Queues)-len(e.Free))...)
	}
	order := job.Order
	if order == nil {
		order = RoundRobin(job.Queues)
	}
	res := &Result{}
	ring := make([][]int64, len(job.Queues)) // completion times of descriptors in each ring
	tp := job.Start
	last := make([]int64, len(job.Queues))
	used := make([]bool, len(job.Queues))
	for _, ref := range order {
		d := &job.Queues[ref.Engine][ref.Index]
		q := ref.Engine
		var wait int64
		// credits come back as the engine completes descriptors
		for len(ring[q]) > 0 && ring[q][0] <= tp {
			ring[q] = ring[q][1:]
		}
		if job.RingDepth > 0 && len(ring[q]) >= job.RingDepth {
			if ring[q][0] > tp {
				wait = ring[q][0] - tp
				tp = ring[q][0]
				res.CreditWaits++
			}
			ring[q] = ring[q][1:]
		}
		tp += job.GenNs
		start := max(e.Free[q], tp)
		end := start + e.Timing.Cost(d)
		e.Free[q] = end
		ring[q] = append(ring[q], end)
		credits := -1
		if job.RingDepth > 0 {
			credits = job.RingDepth - len(ring[q])
		}
		res.Records = append(res.Records, Record{Engine: q, Queue: d.Queue, Index: ref.Index, Kind: d.Kind, Bytes: d.Bytes(),
			Src: d.Src.Addr, Dst: d.Dst.Addr, Ready: tp, Start: start, End: end, CreditWait: wait, Credits: credits})
		res.Bytes += d.Bytes()
		last[q] = max(last[q], end)
		used[q] = true
		res.End = max(res.End, end)
	}
	slices.SortStableFunc(res.Records, func(a, b Record) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.Engine, b.Engine)
	})
	res.Sems = semUpdates(job, last, used)
	return res
}

// semUpdates delivers the job's completion increment: each Reporter without data adds 1 at the
// job's start (its 4-byte update), each engine that worked adds 1 when its last descriptor
// completes, and the last engine to finish adds the rest, so the total is always SemIncrement
// (Provenance "dma.sem_increment").
func semUpdates(job *Job, last []int64, used []bool) []SemUpdate {
	if job.Sem < 0 || job.SemIncrement <= 0 {
		return nil
	}
	var engs []int
	for q, u := range used {
		if u {
			engs = append(engs, q)
		}
	}
	if len(engs) == 0 {
		return []SemUpdate{{Sem: job.Sem, Delta: uint32(job.SemIncrement), Time: job.Start, Engine: -1}}
	}
	slices.SortStableFunc(engs, func(a, b int) int { return cmp.Compare(last[a], last[b]) })
	var ups []SemUpdate
	left := job.SemIncrement
	seen := map[int]bool{}
	for _, q := range job.Reporters {
		if q < 0 || q >= len(used) || used[q] || seen[q] || left <= len(engs) {
			continue
		}
		seen[q] = true
		ups = append(ups, SemUpdate{Sem: job.Sem, Delta: 1, Time: job.Start, Engine: q})
		left--
	}
	if len(engs) > left { // more engines than the increment: one bump at the end
		q := engs[len(engs)-1]
		return append(ups, SemUpdate{Sem: job.Sem, Delta: uint32(left), Time: last[q], Engine: q})
	}
	for i, q := range engs {
		dlt := 1
		if i == len(engs)-1 {
			dlt = left
		}
		left -= dlt
		ups = append(ups, SemUpdate{Sem: job.Sem, Delta: uint32(dlt), Time: last[q], Engine: q})
	}
	return ups
}

// RoundRobin is the default producer order: descriptor 0 of every engine, then descriptor 1, ...
func RoundRobin(queues [][]Descriptor) []Ref {
	var out []Ref
	for i := 0; ; i++ {
		any := false
		for q := range queues {
			if i < len(queues[q]) {
				out = append(out, Ref{q, i})
				any = true
			}
		}
		if !any {
			return out
		}
	}
}

// Engine is one DMA engine with its own descriptor queue, for callers (the machine) that push
// descriptors one at a time and step engines individually.
type Engine struct {
	ID     int
	Gen    isa.Generation
	Timing Timing
	Now    int64 // time the engine finishes its last descriptor
	queue  []pending
	done   int
}

type pending struct {
	d     Descriptor
	ready int64
	sem   int // semaphore to bump when this descriptor completes (-1 none)
	inc   uint32
}

// NewEngine returns engine id of generation g (of an invalid generation: an engine whose Step
// refuses every descriptor).
func NewEngine(g isa.Generation, id int) *Engine {
	return &Engine{ID: id, Gen: g, Timing: DefaultTiming(g)}
}

// checkGen refuses an invalid generation: the engines' count, geometry and timing come from it.
func checkGen(g isa.Generation) error {
	return g.Check() // an *isa.GenerationError (rule isa.generation)
}

// Push appends a descriptor that becomes ready at time ready; when it completes the engine
// reports SemUpdate{sem, inc} (sem < 0: none).
func (e *Engine) Push(d Descriptor, ready int64, sem int, inc uint32) {
	e.queue = append(e.queue, pending{d, ready, sem, inc})
}

// Pending is the number of queued descriptors not yet executed.
func (e *Engine) Pending() int { return len(e.queue) - e.done }

// Step checks and executes the next queued descriptor (atomically: a failing check moves no
// byte) and returns its trace record and semaphore update, if any. ok is false when the queue
// is empty.
func (e *Engine) Step(mem Memory, regs *BoundRegs) (rec Record, ups []SemUpdate, ok bool, err error) {
	if e.done >= len(e.queue) {
		return Record{}, nil, false, nil
	}
	if err := checkGen(e.Gen); err != nil {
		return Record{}, nil, true, err
	}
	p := &e.queue[e.done]
	r := newRunner(mem, regs)
	pr, err := r.check(&p.d, e.ID, e.done, p.sem, int(p.inc))
	if err != nil {
		return Record{}, nil, true, err
	}
	if err := r.exec(&p.d, pr); err != nil {
		return Record{}, nil, true, err
	}
	start := max(e.Now, p.ready)
	end := start + e.Timing.Cost(&p.d)
	e.Now = end
	rec = Record{Engine: e.ID, Queue: p.d.Queue, Index: e.done, Kind: p.d.Kind, Bytes: p.d.Bytes(), Src: p.d.Src.Addr, Dst: p.d.Dst.Addr,
		Ready: p.ready, Start: start, End: end, Credits: -1}
	if p.sem >= 0 && p.inc > 0 {
		ups = []SemUpdate{{Sem: p.sem, Delta: p.inc, Time: end, Engine: e.ID}}
	}
	e.done++
	if e.done == len(e.queue) {
		e.queue, e.done = e.queue[:0], 0
	}
	return rec, ups, true, nil
}
