package sim

import (
	"errors"
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/internal/trace"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
)

// DMA in the machine (issue 4 item 5): a DMA instruction on the SP, ACT or POOL queue is lowered
// by the DGE (dge.PlanInst) to per-DMA-engine descriptor queues, which the DMA engines
// (dma.Engines) check whole and then execute. The issuing queue is busy for DMAIssuePS; the
// descriptors start after that, FIFO on each engine, contending with earlier jobs. The data moves
// at the instruction's issue (all descriptors were bounds-checked first, so a failing DMA changes
// nothing); its timeline is the DMA engines' schedule. The struct's own completion semaphore
// (semaphore / sem_increment) is bumped as the engines report; the instruction's EVENTS update
// fires when its last descriptor completes (Provenance sim.dma_queue_mapping).

// dmaState is the machine's DGE configuration and DMA engines.
type dmaState struct {
	cfg     dge.Config
	engines *dma.Engines
}

func newDMAState(g isa.Generation) *dmaState {
	return &dmaState{engines: dma.New(g)}
}

// plan lowers a DMA instruction (quietly: no firmware log).
func (d *dmaState) plan(g isa.Generation, in isa.Inst) (*dge.Plan, error) {
	return dge.PlanInst(g, in, d.cfg, dge.Options{Quiet: true})
}

// dmaIssue is what issuing one DMA instruction produced.
type dmaIssue struct {
	n               int
	eff             Effect
	readPS, totalPS int64
}

func dmaErrKind(err error) error {
	var be *dma.BoundsError
	if errors.As(err, &be) && be.Err != nil && errors.Is(be.Err, mem.ErrUninit) {
		return ErrUninit // the pre-flight check refused a never-written source byte
	}
	switch {
	case errors.Is(err, dma.ErrBounds), errors.Is(err, dma.ErrIndex), errors.Is(err, mem.ErrBounds),
		errors.Is(err, mem.ErrHBMCap), errors.Is(err, mem.ErrPSUMWrite):
		return ErrBounds
	case errors.Is(err, mem.ErrUninit):
		return ErrUninit
	case errors.Is(err, dge.ErrUnsupported), errors.Is(err, mem.ErrUnsupported):
		return ErrUnsupported
	}
	return ErrInvalid
}

func (r *run) issueDMA(e *engine, in Instr) (*dmaIssue, error) {
	m := r.m
	plan, err := m.dma.plan(m.gen, in.Inst)
	if err != nil {
		return nil, r.instErr(e, in, dmaErrKind(err), "dge_plan", "", err)
	}
	job := plan.Job
	startPS := r.now + DMAIssuePS
	job.Start = (startPS + 999) / 1000 // the engines count in ns
	res, err := m.dma.engines.Run(m.newDMAMem(), &job)
	if err != nil {
		return nil, r.instErr(e, in, dmaErrKind(err), "dma_bounds_check", "", err)
	}
	end := startPS
	for _, rec := range res.Records {
		s, t := rec.Start*1000, rec.End*1000
		end = max(end, t)
		st := &r.dmaSt[rec.Engine]
		st.Instructions++
		st.BusyPS += t - s
		st.BytesRead += int64(rec.Bytes)
		st.BytesWritten += int64(rec.Bytes)
		if r.tr != nil {
			r.tr.Add(trace.Event{Name: fmt.Sprintf("%v %d B", rec.Kind, rec.Bytes), Cat: "DMA", Pid: pidDMA, Tid: rec.Engine, TsPS: s, DurPS: t - s,
				Args: map[string]any{"engine": rec.Engine, "queue": rec.Queue, "descriptor": rec.Index, "kind": rec.Kind.String(),
					"bytes": rec.Bytes, "src": m.devAddr(rec.Src), "dst": m.devAddr(rec.Dst), "start_ns": rec.Start, "end_ns": rec.End,
					"issued_by": fmt.Sprintf("%s instruction %d (%v)", e.name, in.Index, opcodeOf(in.Inst))}})
		}
	}
	for _, su := range res.Sems {
		r.push(&event{t: max(su.Time*1000, r.now), kind: evSem, idx: uint8(su.Sem), mode: isa.SemAddImmComplete, value: su.Delta})
	}
	r.end = max(r.end, end)
	out := &dmaIssue{n: len(res.Records), readPS: end - r.now, totalPS: end - r.now}
	out.eff.BytesRead, out.eff.BytesWritten = int64(res.Bytes), int64(res.Bytes)
	if len(res.Records) > 0 {
		out.eff.Src, out.eff.Dst = m.devAddr(res.Records[0].Src), m.devAddr(res.Records[0].Dst)
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

// dmaMem gives the DMA engines' pre-flight check an exact answer (dma.RangeChecker): without it
// the engines probe with ReadAt, which with --check-uninit also refuses never-written bytes the
// DMA is about to write. Reads check bounds and (when tracking) initialisation; writes check
// bounds, PSUM's 4-byte rule and the HBM cap: the machine knows which HBM pages exist (every
// HBM write goes through it), so a job that would pass the cap is refused before any byte moves.
type dmaMem struct {
	*mem.Memory
	m       *Machine
	pending map[uint64]bool // HBM pages this job would allocate
}

func (m *Machine) newDMAMem() dmaMem { return dmaMem{Memory: m.mem, m: m, pending: map[uint64]bool{}} }

// WriteAt records the HBM pages it allocates.
func (d dmaMem) WriteAt(a uint64, p []byte) error {
	if err := d.Memory.WriteAt(a, p); err != nil {
		return err
	}
	d.m.notePages(a, uint64(len(p)))
	return nil
}

// notePages records that HBM pages of [a, a+n) now exist.
func (m *Machine) notePages(a, n uint64) {
	if a >= isa.DMALocalBase || n == 0 {
		return
	}
	for pg := a / mem.HBMPageSize; pg <= (a+n-1)/mem.HBMPageSize; pg++ {
		m.hbmPages[pg] = true
	}
}

func (d dmaMem) CheckRange(a, n uint64, write bool) error {
	if n == 0 {
		return nil
	}
	if a < isa.DMALocalBase {
		if a+n > isa.DMALocalBase || a+n < a {
			return &mem.Error{Rule: "hbm_addr_in_range", Addr: a, Detail: fmt.Sprintf("%d bytes pass the HBM window", n), Err: mem.ErrBounds}
		}
		if write {
			for pg := a / mem.HBMPageSize; pg <= (a+n-1)/mem.HBMPageSize; pg++ {
				if !d.m.hbmPages[pg] {
					d.pending[pg] = true
				}
			}
			if capB := d.Options().HBMCapBytes; d.HBMBytesAllocated()+uint64(len(d.pending))*mem.HBMPageSize > capB {
				return &mem.Error{Rule: "hbm_cap", Addr: a, Err: mem.ErrHBMCap,
					Detail: fmt.Sprintf("the DMA would allocate %d new HBM pages; %d of %d bytes already allocated", len(d.pending), d.HBMBytesAllocated(), capB)}
			}
			return nil
		}
		var buf [64 << 10]byte
		for n > 0 {
			c := min(n, uint64(len(buf)))
			if err := d.ReadAt(a, buf[:c]); err != nil {
				return err
			}
			a, n = a+c, n-c
		}
		return nil
	}
	local := a - isa.DMALocalBase
	if local > isa.TPBPartitionAddrMask || local+n-1 > isa.TPBPartitionAddrMask {
		return &mem.Error{Rule: "dma_addr_in_range", Addr: a, Detail: fmt.Sprintf("%d bytes pass the on-chip window", n), Err: mem.ErrBounds}
	}
	for n > 0 {
		l, err := d.ResolveAddr(uint32(local))
		if err != nil {
			return err
		}
		c := min(n, uint64(d.PartitionActive(l.Region))-uint64(l.Offset))
		if write && l.Region == mem.PSUM && (l.Offset%4 != 0 || c%4 != 0) {
			return &mem.Error{Rule: "psum_write_4byte", Addr: isa.DMALocalBase + local, Detail: "PSUM writes must be whole 4-byte words", Err: mem.ErrPSUMWrite}
		}
		if !write {
			if err := d.CheckInit(l.Region, l.Partition, int(l.Offset), int(c)); err != nil {
				return err
			}
		}
		local, n = local+c, n-c
	}
	return nil
}
