package sim

import (
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
)

// RunDMAPlan executes a DGE plan on the machine's DMA engines at time 0, timed as a DMA
// instruction's descriptors are in a run (the timing table, the placement by partition,
// Provenance sim.dma_partition_spread), and returns the engines' result (its records are the
// placed descriptors) and the timing summary of the transfer. The plan's job is not changed.
// `tpbsim dge run` is this call.
func (m *Machine) RunDMAPlan(p *dge.Plan) (*dma.Result, *Summary, error) {
	job := p.Job
	if job.RingDepth == 0 {
		job.GenNs = int64(m.tt.DMADescriptorGenNs + 0.5)
	}
	placed := m.placeByPartition(&job, p.EngMask, int(m.tt.DMAPartitionsPerEng))
	if placed == nil {
		placed = &job
	}
	placed.Reporters = reporters(placed, p.EngMask)
	for i := range m.dma.engines.Free {
		m.dma.engines.Free[i] = 0
	}
	res, err := m.dma.engines.RunPlaced(m.newDMAMem(), &job, placed)
	if err != nil {
		return nil, nil, err
	}
	rt := newRunTiming(&m.tt, m.geo.DMAEngineCount)
	st := make([]EngineStats, m.geo.DMAEngineCount)
	var end int64
	for _, rec := range res.Records {
		s, t := rec.Start*1000, rec.End*1000
		pred, via := -1, viaStart
		if p := rt.dmaLast[rec.Engine]; p >= 0 && rec.Start > rec.Ready {
			pred, via = p, viaQueue
		}
		rt.dmaLast[rec.Engine] = rt.add(node{kind: nodeDescriptor, dmaEng: int32(rec.Engine), index: int32(rec.Index), dkind: rec.Kind, bytes: rec.Bytes, start: s, occEnd: t, end: t, pred: int32(pred), via: via})
		d := &placed.Queues[rec.Engine][rec.Index]
		e := &st[rec.Engine]
		e.Engine = fmt.Sprintf("DMA%d", rec.Engine)
		e.Instructions++
		e.BusyPS += t - s
		e.BytesRead += int64(satMul(d.Elements(), uint64(d.Src.ElemSize)))
		e.BytesWritten += int64(rec.Bytes)
		end = max(end, t)
	}
	r := &Result{EndPS: end, timeline: rt, gen: m.gen}
	for _, e := range st {
		if e.Instructions > 0 {
			r.Engines = append(r.Engines, e)
		}
	}
	return res, r.Summary(), nil
}
