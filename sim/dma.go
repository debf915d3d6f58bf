package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/trace"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/timing"
)

// DMA in the machine: a DMA instruction on the SP, ACT or POOL queue is lowered
// by the DGE (dge.PlanInst) to per-DMA-engine descriptor queues, which the DMA engines
// (dma.Engines) check whole and then execute. The issuing queue is busy for the timing table's
// dge.issue_ns; the descriptors start after that, FIFO on each engine, contending with earlier
// jobs, each on the engine serving its SBUF partitions where it lies within one engine's group
// (placeByPartition, Provenance sim.dma_partition_spread). Completion semaphore updates reach
// waiters dma.sem_to_start_ns after the descriptors end. The data moves
// at the instruction's issue (all descriptors were bounds-checked first, so a failing DMA changes
// nothing); its timeline is the DMA engines' schedule. The struct's own completion semaphore
// (semaphore / sem_increment) is bumped as the engines report; the instruction's EVENTS update
// fires when its last descriptor completes (Provenance sim.dma_queue_mapping).

// dmaState is the machine's DGE configuration and DMA engines.
type dmaState struct {
	cfg     dge.Config
	engines *dma.Engines
	// parallelJobs counts the DMA jobs whose bytes moved on more than one host worker (tests).
	parallelJobs int
}

func newDMAState(g isa.Generation, t *timing.Table) *dmaState {
	d := &dmaState{engines: dma.New(g)}
	d.engines.Timing = dma.TimingOf(t)
	return d
}

// dmaIssue is what issuing one DMA instruction produced.
type dmaIssue struct {
	n               int
	eff             Effect
	readPS, totalPS int64
	last            int // the timeline node of the descriptor that ends last (the issue's when none)
}

// dmaErrKind is the category of a DGE or DMA error.
func dmaErrKind(err error) error { return categoryOf(err) }

func (r *run) issueDMA(e *engine, in Instr, issuePS int64, self int) (*dmaIssue, error) {
	m := r.m
	plan := e.plans[e.pc] // made by the check pipeline before the run
	if plan == nil {
		return nil, r.instErr(e, in, fault.ErrInvalid, fault.Violation{Rule: dma.RuleDescriptorValid, Offset: -1,
			Msg: "the check pipeline made no DGE plan for this DMA instruction"}, nil, false)
	}
	job := plan.Job
	startPS := r.now + issuePS
	job.Start = (startPS + 999) / 1000 // the engines count in ns
	if job.RingDepth == 0 {
		job.GenNs = int64(m.tt.DMADescriptorGenNs + 0.5)
	}
	placed := m.placeByPartition(&job, plan.EngMask, int(m.tt.DMAPartitionsPerEng))
	if placed == nil {
		placed = &job
	}
	placed.Reporters = reporters(placed, plan.EngMask)
	fps := r.hb.footprints(placed)
	res, err := m.dma.engines.RunPlaced(m.newDMAMem(), &job, placed)
	if err != nil {
		return nil, r.instErr(e, in, dmaErrKind(err), fault.Violation{Rule: ruleOf(err, dma.RuleRangeInMemory), Offset: -1}, err, false)
	}
	if res.Workers > 1 {
		m.dma.parallelJobs++
	}
	end := startPS
	last := self
	var read int64
	for _, rec := range res.Records {
		s, t := rec.Start*1000, rec.End*1000
		pred, via := self, viaIssue
		if p := r.tm.dmaLast[rec.Engine]; p >= 0 && rec.Start > rec.Ready {
			pred, via = p, viaQueue
		}
		nd := r.tm.add(node{kind: nodeDescriptor, dmaEng: int32(rec.Engine), index: int32(rec.Index), dkind: rec.Kind, bytes: rec.Bytes,
			start: s, occEnd: t, end: t, pred: int32(pred), via: via})
		r.tm.dmaLast[rec.Engine] = nd
		if t > end || last == self {
			last = nd
		}
		end = max(end, t)
		// rec.Bytes is what the descriptor writes; a casting DMA (FP32 -> BF16) reads more.
		d := &placed.Queues[rec.Engine][rec.Index]
		rd := int64(satMul(d.Elements(), uint64(d.Src.ElemSize)))
		read += rd
		st := &r.dmaSt[rec.Engine]
		st.Instructions++
		st.BusyPS += t - s
		st.BytesRead += rd
		st.BytesWritten += int64(rec.Bytes)
		if r.tr != nil {
			r.tr.Add(trace.Event{Name: fmt.Sprintf("%v %d B", rec.Kind, rec.Bytes), Cat: "DMA", Pid: pidDMA, Tid: rec.Engine, TsPS: s, DurPS: t - s,
				Args: map[string]any{"engine": rec.Engine, "queue": rec.Queue, "descriptor": rec.Index, "kind": rec.Kind.String(),
					"bytes": rec.Bytes, "bytes_read": rd, "bytes_written": rec.Bytes, "src": m.devAddr(rec.Src), "dst": m.devAddr(rec.Dst),
					"start_ns": rec.Start, "end_ns": rec.End, "issued_by": fmt.Sprintf("%s instruction %d (%v)", e.name, in.Index, opcodeOf(in.Inst))}})
		}
	}
	jobSem := -1
	if job.Sem >= 0 && job.SemIncrement > 0 {
		jobSem = job.Sem
	}
	tasks := r.hb.dma(e.tid-1, &e.queue[e.pc], placed, res, fps, jobSem)
	lat := r.tm.semLatencyPS(true)
	for _, su := range res.Sems {
		src := self
		if su.Engine >= 0 && su.Engine < len(r.tm.dmaLast) && r.tm.dmaLast[su.Engine] >= 0 {
			src = r.tm.dmaLast[su.Engine]
		}
		t := max(su.Time*1000, r.now)
		r.push(&event{t: t + lat, kind: evSem, idx: uint8(su.Sem), mode: isa.SemAddImmComplete, value: su.Delta, src: int32(src), lat: lat,
			hb: r.hb.engineSrc(tasks, su.Engine, len(res.Sems) == 1, t)})
	}
	r.traceDMAFlows(e, res)
	r.end = max(r.end, end)
	out := &dmaIssue{n: len(res.Records), readPS: end - r.now, totalPS: end - r.now, last: last}
	out.eff.BytesRead, out.eff.BytesWritten = read, int64(res.Bytes)
	// The instruction's addresses are those of the descriptor the DGE pushes first (the start
	// of its walk), not of the descriptor that happened to start first (res.Records is in start
	// order, so an engine left busy by an earlier DMA moved another descriptor ahead).
	order := job.Order
	if order == nil {
		order = dma.RoundRobin(job.Queues)
	}
	if len(order) > 0 && r.tr != nil {
		d := &job.Queues[order[0].Engine][order[0].Index]
		out.eff.Src, out.eff.Dst = m.devAddr(d.Src.Addr), m.devAddr(d.Dst.Addr)
	}
	return out, nil
}

// devAddr prints a DMA device address as hbm:0x... or sbuf:P:0xOFF / psum:P:0xOFF.
func (m *Machine) devAddr(a uint64) string {
	if a < isa.DMALocalBase {
		return fmt.Sprintf("hbm:0x%x", a)
	}
	if l, err := m.mem.ResolveAddr(uint32(a - isa.DMALocalBase)); err == nil {
		return l.String()
	}
	return fmt.Sprintf("0x%x", a)
}

// dmaMem is the machine's memory as the DMA engines see it for one job. The memory answers the
// pre-flight check itself (mem.Memory.CheckRange, dma.RangeChecker): bounds, active areas, PSUM's
// 4-byte rule, never-written sources with --check-uninit (never-written destinations are fine),
// and the HBM cap for one range. The job adds what one range cannot know: the HBM pages all of
// its destination ranges would allocate together, so a job that passes the cap only in total is
// refused before any byte moves. The engines' fast path (dma.Slicer) may allocate HBM only among
// those pages, so a read of never-written HBM through it cannot use up cap the job's writes
// were checked against.
type dmaMem struct {
	*mem.Memory
	pending map[uint64]bool // unallocated HBM pages this job's destinations would allocate
}

func (m *Machine) newDMAMem() *dmaMem { return &dmaMem{Memory: m.mem, pending: map[uint64]bool{}} }

func (d *dmaMem) CheckRange(a, n uint64, write bool) error {
	if err := d.Memory.CheckRange(a, n, write); err != nil || !write || n == 0 || a >= isa.DMALocalBase {
		return err
	}
	var fresh []uint64
	for pg := a / mem.HBMPageSize; pg <= (a+n-1)/mem.HBMPageSize; pg++ {
		if !d.pending[pg] && !d.HBMPageAllocated(pg) {
			fresh = append(fresh, pg)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	total := uint64(len(d.pending) + len(fresh))
	if alloc, capB := d.HBMBytesAllocated(), d.Options().HBMCapBytes; alloc+total*mem.HBMPageSize > capB {
		return &mem.Error{Rule: mem.RuleHBMCap, Addr: a, Err: mem.ErrHBMCap,
			Detail: fmt.Sprintf("the DMA needs %d new HBM pages of %d bytes; %s", total, mem.HBMPageSize, mem.CapState(alloc, capB))}
	}
	for _, pg := range fresh {
		d.pending[pg] = true
	}
	return nil
}

// Slice is mem's, except that it refuses a range that would allocate an HBM page no checked
// destination of the job reserved.
func (d *dmaMem) Slice(a uint64, n int) ([]byte, bool) {
	if a < isa.DMALocalBase && n > 0 && a+uint64(n) <= isa.DMALocalBase {
		for pg := a / mem.HBMPageSize; pg <= (a+uint64(n)-1)/mem.HBMPageSize; pg++ {
			if !d.pending[pg] && !d.HBMPageAllocated(pg) {
				return nil, false
			}
		}
	}
	return d.Memory.Slice(a, n)
}
