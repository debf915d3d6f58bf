package dge

import (
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
)

// OpKind is a DGE micro-op pushed to a DMA engine (seed 003 §4.6, FACTS §C.7).
type OpKind uint8

const (
	OpRegwrite   OpKind = iota + 1 // push REGWRITE (CAYMAN / MARIANA only)
	OpGenerate                     // push GENERATE: RD or WR, addr, elem_size, sem_num
	OpDimpush                      // push DIMPUSH: [src_num,dst_num][src_step,dst_step], one per level, outer to inner
	OpWaitCredit                   // wait_for_credit (MARIANA_PLUS): the engine's ring is full
)

func (k OpKind) String() string {
	switch k {
	case OpRegwrite:
		return "REGWRITE"
	case OpGenerate:
		return "GENERATE"
	case OpDimpush:
		return "DIMPUSH"
	case OpWaitCredit:
		return "WAIT_CREDIT"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// MicroOp is one push to a DMA engine.
type MicroOp struct {
	Op       OpKind
	Engine   int
	Desc     int    // descriptor index in the engine's queue
	Dir      string // GENERATE: "RD" or "WR"
	Addr     uint64
	ElemSize uint32
	Sem      int       // GENERATE sem_num (-1: none)
	Num      [2]uint32 // DIMPUSH [src_num, dst_num]
	Step     [2]int64  // DIMPUSH [src_step, dst_step] in elements
	Ring     int       // WAIT_CREDIT: ring depth
}

// String renders the op as the firmware's push log line (FACTS §C.7 formats); WAIT_CREDIT has
// no recovered format and prints tpbsim's own (Provenance "dge.wait_for_credit_log").
func (m MicroOp) String() string {
	switch m.Op {
	case OpRegwrite:
		return fmt.Sprintf("S: push REGWRITE to DMA[%d]", m.Engine)
	case OpGenerate:
		return fmt.Sprintf("S: push GENERATE to DMA[%d]: %s : addr=0x%x, elem_size=%d, sem_num=%d", m.Engine, m.Dir, m.Addr, m.ElemSize, m.Sem)
	case OpDimpush:
		return fmt.Sprintf("S: push DIMPUSH to DMA[%d]: [%d,%d][%d,%d]", m.Engine, m.Num[0], m.Num[1], m.Step[0], m.Step[1])
	case OpWaitCredit:
		return fmt.Sprintf("S: wait_for_credit: DMA[%d] ring full (%d descriptors in flight), waiting for credit", m.Engine, m.Ring)
	}
	return m.Op.String()
}

// MicroOps renders one descriptor as its push sequence on generation g: [REGWRITE] GENERATE RD,
// GENERATE WR, one DIMPUSH per level, outer to inner.
func MicroOps(d *dma.Descriptor, g isa.Generation, engine, idx int) []MicroOp {
	var ops []MicroOp
	if g == isa.CAYMAN || g == isa.MARIANA {
		ops = append(ops, MicroOp{Op: OpRegwrite, Engine: engine, Desc: idx})
	}
	ops = append(ops,
		MicroOp{Op: OpGenerate, Engine: engine, Desc: idx, Dir: "RD", Addr: d.Src.Addr, ElemSize: d.Src.ElemSize, Sem: -1},
		MicroOp{Op: OpGenerate, Engine: engine, Desc: idx, Dir: "WR", Addr: d.Dst.Addr, ElemSize: d.Dst.ElemSize, Sem: d.Sem})
	switch d.Kind {
	case dma.KindGather:
		in := d.Indirect
		n := [2]uint32{d.Indirect.SrcExtent, d.Indirect.DstExtent}
		_ = in
		ops = append(ops, MicroOp{Op: OpDimpush, Engine: engine, Desc: idx, Num: n, Step: [2]int64{d.Src.Step[0], d.Dst.Step[0]}})
		return ops
	case dma.KindGatherXpose:
		gx := d.GatherXpose
		ops = append(ops,
			MicroOp{Op: OpDimpush, Engine: engine, Desc: idx, Num: [2]uint32{uint32(gx.Count), uint32(gx.Cols)}, Step: [2]int64{d.Src.Step[1], d.Dst.Step[1]}},
			MicroOp{Op: OpDimpush, Engine: engine, Desc: idx, Num: [2]uint32{uint32(gx.Cols), uint32(gx.Count)}, Step: [2]int64{d.Src.Step[0], 1}})
		return ops
	}
	dn := d.DstNum
	if dn == ([4]uint32{}) {
		dn = d.Num
	}
	for k := d.Levels() - 1; k >= 0; k-- {
		ops = append(ops, MicroOp{Op: OpDimpush, Engine: engine, Desc: idx, Num: [2]uint32{d.Num[k], dn[k]}, Step: [2]int64{d.Src.Step[k], d.Dst.Step[k]}})
	}
	return ops
}

// logger collects the firmware log and tpbsim's notes.
type logger struct {
	quiet bool
	lines []string
	notes []string
}

func (l *logger) add(s string) {
	if !l.quiet {
		l.lines = append(l.lines, s)
	}
}

// note records a tpbsim remark: in the notes and, prefixed "tpbsim: ", in the log.
func (l *logger) note(s string) {
	l.notes = append(l.notes, s)
	if !l.quiet {
		l.lines = append(l.lines, "tpbsim: "+s)
	}
}

// emit renders the micro-op streams in the producer's order (round robin over the engines),
// with wait_for_credit where an engine's ring is full, and logs every push.
func emit(p *Plan, lg *logger, logs bool) [][]MicroOp {
	job := &p.Job
	streams := make([][]MicroOp, len(job.Queues))
	if logs {
		for e, q := range job.Queues {
			if len(q) > 0 {
				ring := job.RingDepth
				if ring == 0 {
					ring = len(q)
				}
				lg.add(fmt.Sprintf("Generating %d descriptors; ring_ndesc = %d", len(q), ring))
				_ = e
			}
		}
	}
	for _, ref := range job.Order {
		d := &job.Queues[ref.Engine][ref.Index]
		var ops []MicroOp
		if job.RingDepth > 0 && ref.Index >= job.RingDepth {
			ops = append(ops, MicroOp{Op: OpWaitCredit, Engine: ref.Engine, Desc: ref.Index, Ring: job.RingDepth})
		}
		ops = append(ops, MicroOps(d, p.Gen, ref.Engine, ref.Index)...)
		streams[ref.Engine] = append(streams[ref.Engine], ops...)
		if logs {
			for _, op := range ops {
				lg.add(op.String())
			}
		}
	}
	return streams
}

// Text renders the plan for people: the kind, the fan-out, each engine's micro-op stream, and
// the firmware log.
func (p *Plan) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "generation:   %v\n", p.Gen)
	fmt.Fprintf(&b, "reshape kind: %d %v (requested %d %v)", int(p.Kind), p.Kind, int(p.Requested), p.Requested)
	if p.FastPath {
		b.WriteString(", MARIANA_PLUS fast path")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "strategy:     src %v, dst %v\n", p.Src.Strategy, p.Dst.Strategy)
	if p.TileRows > 0 {
		fmt.Fprintf(&b, "xbar tile:    %dx%d\n", p.TileRows, p.TileCols)
	}
	fmt.Fprintf(&b, "fan-out:      %d of %d DMA engines (mask 0x%x), %d descriptors (lower bound %d), %d bytes\n",
		p.NumDMA, p.DMAAvail, p.EngMask, p.Descriptors, p.LowerBound, p.Bytes)
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "note:         %s\n", n)
	}
	for e, q := range p.Job.Queues {
		if len(q) == 0 {
			continue
		}
		var by uint64
		for i := range q {
			by += q[i].Bytes()
		}
		fmt.Fprintf(&b, "\nDMA[%d]: %d descriptors, %d bytes\n", e, len(q), by)
		if p.Streams != nil {
			for _, op := range p.Streams[e] {
				fmt.Fprintf(&b, "  %s\n", opText(op))
			}
		}
	}
	if len(p.Log) > 0 {
		b.WriteString("\nfirmware log:\n")
		for _, l := range p.Log {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	return b.String()
}

func opText(m MicroOp) string {
	switch m.Op {
	case OpRegwrite:
		return fmt.Sprintf("#%d REGWRITE", m.Desc)
	case OpGenerate:
		return fmt.Sprintf("#%d GENERATE %s addr=0x%x elem_size=%d sem_num=%d", m.Desc, m.Dir, m.Addr, m.ElemSize, m.Sem)
	case OpDimpush:
		return fmt.Sprintf("#%d DIMPUSH [%d,%d][%d,%d]", m.Desc, m.Num[0], m.Num[1], m.Step[0], m.Step[1])
	case OpWaitCredit:
		return fmt.Sprintf("#%d WAIT_CREDIT ring=%d", m.Desc, m.Ring)
	}
	return m.Op.String()
}
