package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/timing"
)

// What a run records for its summary's critical path: one node per instruction and per DMA
// descriptor, each with the node that set its start (its queue predecessor, the semaphore
// update that released it, or the DMA instruction that issued it).

// nodeKind says what a timeline node is.
type nodeKind uint8

const (
	nodeCompute nodeKind = iota
	nodeDMAIssue
	nodeDescriptor
)

// viaKind is how a node's start was set.
type viaKind uint8

const (
	viaStart viaKind = iota // the run's start (or nothing recorded)
	viaQueue                // its queue or engine freed
	viaIssue                // its DMA instruction issued it
	viaSem                  // a semaphore update released it
)

func (n *node) viaString() string {
	switch n.via {
	case viaQueue:
		return "queue"
	case viaIssue:
		return "issue"
	case viaSem:
		return fmt.Sprintf("sem[%d]", n.sem)
	}
	return "start"
}

// node is one instruction or descriptor on the timeline, times in ps. Names are made only
// when the summary asks (name, label): a run records a node per instruction and descriptor.
type node struct {
	kind       nodeKind
	via        viaKind
	sem        uint8      // the semaphore of viaSem
	op         isa.Opcode // compute, DMA issue
	queue      isa.Engine // the engine queue (compute, DMA issue)
	dkind      dma.Kind   // descriptor
	dmaEng     int32      // the DMA engine (descriptor)
	index      int32      // instruction index in its queue, or descriptor index in its DMA engine's queue
	pred       int32      // node that set the start, -1 none
	bytes      uint64
	start      int64
	occEnd     int64 // the queue or engine is free again
	end        int64 // complete (its semaphore update leaves)
	viaLatency int64 // the semaphore latency between pred's end and this start, ps
}

func (n *node) name() string {
	if n.kind == nodeDescriptor {
		return fmt.Sprintf("DMA%d", n.dmaEng)
	}
	return n.queue.String()
}

func (n *node) label() string {
	if n.kind == nodeDescriptor {
		return fmt.Sprintf("%v %d B", n.dkind, n.bytes)
	}
	return n.op.String()
}

// runTiming is the timing state of one run.
type runTiming struct {
	t       *timing.Table
	nodes   []node
	semSrc  [NumSemaphores]int32 // node of the last update applied to each semaphore, -1 none
	semLat  [NumSemaphores]int64 // the latency that update carried
	dmaLast []int                // last descriptor node on each DMA engine, -1 none
	off     bool                 // Machine.timelineOff: no nodes
}

// timelineCap is the node count a run of p starts with room for: one per instruction, and a
// DMA instruction's usual few descriptors (more grow the slice; the room is allocated and
// zeroed on every run, which for a short run was more than the rest of its timeline).
func timelineCap(p *Program) int {
	n := 8
	for _, q := range p.Queues {
		for _, in := range q.Insts {
			n++
			if opcodeOf(in.Inst).IsDMA() {
				n += 2
			}
		}
	}
	return n
}

func newRunTiming(t *timing.Table, dmaEngines int) *runTiming {
	rt := &runTiming{t: t, dmaLast: make([]int, dmaEngines)}
	for i := range rt.semSrc {
		rt.semSrc[i] = -1
	}
	for i := range rt.dmaLast {
		rt.dmaLast[i] = -1
	}
	return rt
}

func (rt *runTiming) add(n node) int {
	if rt.off {
		return -1
	}
	rt.nodes = append(rt.nodes, n)
	return len(rt.nodes) - 1
}

// cost is computeCost on the run's table.
func (rt *runTiming) cost(eng isa.Engine, in isa.Inst, waited bool) (readPS, totalPS int64) {
	return computeCost(rt.t, eng, in, waited)
}

// predOf is the node that set the start of an instruction issued at start on a queue whose last
// node was prev: the releasing semaphore update's producer when it waited, else prev when it
// issued as prev freed the queue.
func (rt *runTiming) predOf(start int64, prev int, waited bool, idx uint8) (int, viaKind, int64) {
	if waited {
		if s := rt.semSrc[idx]; s >= 0 {
			return int(s), viaSem, rt.semLat[idx]
		}
	}
	if prev >= 0 && prev < len(rt.nodes) && rt.nodes[prev].occEnd == start {
		return prev, viaQueue, 0
	}
	return -1, viaStart, 0
}

// semLatencyPS is how long a semaphore update takes to reach a waiting engine: from a DMA's
// completion dma.sem_to_start_ns, from a compute instruction sync.engine_sem_ns.
func (rt *runTiming) semLatencyPS(fromDMA bool) int64 {
	if fromDMA {
		return timing.NsPS(rt.t.DMASemToStartNs)
	}
	return timing.NsPS(rt.t.EngineSemNs)
}

// placeByPartition returns job with each copy descriptor whose SBUF (or PSUM) side lies within
// one group of per partitions moved to the engine serving that group, as the DMA guide
// describes transfers spread over the engines by partition (Provenance
// sim.dma_partition_spread); the engines are those the DGE could use (mask), at most
// sem_increment of them ("bounds # DMAs used", FACTS §C.2). Other descriptors keep their
// engine. The result shares no queue with job; nil when nothing moves.
func (m *Machine) placeByPartition(job *dma.Job, mask uint32, per int) *dma.Job {
	if per <= 0 {
		return nil
	}
	var engines []int
	for e := 0; e < len(job.Queues); e++ {
		if mask&(1<<e) != 0 {
			engines = append(engines, e)
		}
	}
	if job.SemIncrement > 0 && job.SemIncrement < len(engines) {
		engines = engines[:job.SemIncrement]
	}
	if len(engines) == 0 {
		return nil
	}
	order := job.Order
	if order == nil {
		order = dma.RoundRobin(job.Queues)
	}
	target := make([]int, len(order))
	moved := false
	for i, ref := range order {
		d := &job.Queues[ref.Engine][ref.Index]
		target[i] = ref.Engine
		if d.Kind != dma.KindCopy {
			continue
		}
		side := d.Dst
		num := d.Num
		if d.DstNum != ([dma.MaxLevels]uint32{}) {
			num = d.DstNum
		}
		if side.Addr < isa.DMALocalBase {
			side, num = d.Src, d.Num
		}
		if side.Addr < isa.DMALocalBase {
			continue
		}
		lo, hi, ok := m.partitionRange(side, num)
		if !ok || lo/per != hi/per {
			continue
		}
		if e := engines[(lo/per)%len(engines)]; e != ref.Engine {
			target[i], moved = e, true
		}
	}
	if !moved {
		return nil
	}
	out := *job
	out.Queues = make([][]dma.Descriptor, len(job.Queues))
	out.Order = make([]dma.Ref, len(order))
	for i, ref := range order {
		e := target[i]
		d := job.Queues[ref.Engine][ref.Index]
		d.Sem = -1
		out.Order[i] = dma.Ref{Engine: e, Index: len(out.Queues[e])}
		out.Queues[e] = append(out.Queues[e], d)
	}
	if job.Sem >= 0 && job.SemIncrement > 0 {
		for e := range out.Queues {
			if n := len(out.Queues[e]); n > 0 {
				out.Queues[e][n-1].Sem = job.Sem
			}
		}
	}
	return &out
}

// reporters are the engines that report a DMA's completion (dma.Job.Reporters): the first
// sem_increment of those the DGE could use (mask), as the DMA guide has every engine of a
// transfer write its completion update, 4 bytes when it carried no data.
func reporters(job *dma.Job, mask uint32) []int {
	if job.Sem < 0 || job.SemIncrement <= 0 {
		return nil
	}
	var out []int
	for e := 0; e < len(job.Queues) && len(out) < job.SemIncrement; e++ {
		if mask&(1<<e) != 0 {
			out = append(out, e)
		}
	}
	return out
}

// partitionRange is the first and last on-chip partition a descriptor side touches.
func (m *Machine) partitionRange(s dma.Side, num [dma.MaxLevels]uint32) (lo, hi int, ok bool) {
	var minOff, maxOff int64
	for k := 0; k < dma.MaxLevels; k++ {
		if num[k] > 1 {
			span := s.Step[k] * int64(num[k]-1) * int64(s.ElemSize)
			if span < 0 {
				minOff += span
			} else {
				maxOff += span
			}
		}
	}
	a := int64(s.Addr-isa.DMALocalBase) + minOff
	b := int64(s.Addr-isa.DMALocalBase) + maxOff + int64(s.ElemSize) - 1
	if a < 0 || b >= 1<<32 {
		return 0, 0, false
	}
	la, err1 := m.mem.ResolveAddr(uint32(a))
	lb, err2 := m.mem.ResolveAddr(uint32(b))
	if err1 != nil || err2 != nil || la.Region != lb.Region {
		return 0, 0, false
	}
	return la.Partition, lb.Partition, true
}
