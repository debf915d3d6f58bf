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
// no recovered format and prints tpbsim's own, prefixed "tpbsim:" so a diff against a device log
// shows it as invented (Provenance "dge.wait_for_credit_log").
func (m MicroOp) String() string {
	switch m.Op {
	case OpRegwrite:
		return logPushRegwrite.line(m.Engine)
	case OpGenerate:
		return logPushGenerate.line(m.Engine, m.Dir, m.Addr, m.ElemSize, m.Sem)
	case OpDimpush:
		return logPushDimpush.line(m.Engine, m.Num[0], m.Num[1], m.Step[0], m.Step[1])
	case OpWaitCredit:
		return logWaitForCredit.line(m.Engine, m.Ring)
	}
	return m.Op.String()
}

// MicroOps renders one descriptor as its push sequence on generation g: [REGWRITE] GENERATE RD,
// GENERATE WR, one DIMPUSH per level, outer to inner. An invalid generation is an error.
func MicroOps(d *dma.Descriptor, g isa.Generation, engine, idx int) ([]MicroOp, error) {
	f, err := FeaturesOf(g)
	if err != nil {
		return nil, err
	}
	return microOps(d, &f, engine, idx), nil
}

func microOps(d *dma.Descriptor, f *Features, engine, idx int) []MicroOp {
	var ops []MicroOp
	if f.Regwrite {
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

// logging says whether lines are kept: a caller tests it before formatting a line, so a quiet
// plan formats none.
func (l *logger) logging() bool { return !l.quiet }

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
func emit(p *Plan, f *Features, lg *logger, logs bool) [][]MicroOp {
	job := &p.Job
	streams := make([][]MicroOp, len(job.Queues))
	if logs {
		for e, q := range job.Queues {
			if len(q) > 0 {
				ring := job.RingDepth
				if ring == 0 {
					ring = len(q)
				}
				lg.add(logGenerating.line(len(q), ring))
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
		ops = append(ops, microOps(d, f, ref.Engine, ref.Index)...)
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
	fmt.Fprintf(&b, "backend:      %v\n", p.Backend)
	if p.TileRows > 0 {
		fmt.Fprintf(&b, "xbar tile:    %dx%d\n", p.TileRows, p.TileCols)
	}
	fmt.Fprintf(&b, "fan-out:      %d of %d DMA engines (mask 0x%x), %d descriptors (lower bound %d), %d bytes\n",
		p.NumDMA, p.DMAAvail, p.EngMask, p.Descriptors, p.LowerBound, p.Bytes)
	for _, l := range p.BoundLines() {
		fmt.Fprintf(&b, "%s\n", l)
	}
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

// BoundLines explains the descriptor count: the lower bound's parts (README "Descriptor
// count"), the level the spray splits, what the 16-bit split added, and why engines sit unused.
func (p *Plan) BoundLines() []string {
	if p.Kind == KindIndirect || p.Kind == KindGatherTranspose {
		return []string{fmt.Sprintf("lower bound:  %d = the engines given rows (one descriptor each)", p.LowerBound)}
	}
	d := p.DMAAvail
	dWhy := fmt.Sprintf("D=%d enabled", d)
	if p.SemCap > 0 {
		dWhy = fmt.Sprintf("D=%d (sem_increment %d caps the %d enabled)", p.SemCap, p.SemCap, d)
		d = p.SemCap
	}
	out := []string{fmt.Sprintf("lower bound:  %d = max(G=%d distinct nests, E=%d = min(%s, U=%d units, max(1, B/%d)=%d))",
		p.LowerBound, p.BoundNests, p.BoundEngines, dWhy, p.Units, MinShareBytes, p.ShareCap)}
	if p.SplitLevel >= 0 {
		out = append(out, fmt.Sprintf("split:        the spray cuts nest level %d (0 innermost; %d iterations) into units over the engines", p.SplitLevel, p.SplitCount))
	} else {
		out = append(out, "split:        nothing to split: one unit")
	}
	if extra := p.Descriptors - p.LowerBound; extra > 0 {
		why := []string{}
		if p.Groups > 1 {
			why = append(why, fmt.Sprintf("%d nests, each engine's run of units can touch several (at most G+E-1)", p.Groups))
		}
		if p.Peeled16 > 0 {
			why = append(why, fmt.Sprintf("%d level(s) of more than %d iterations peeled into a remainder nest", p.Peeled16, MaxLoopCount))
		}
		out = append(out, fmt.Sprintf("above bound:  %d more descriptor(s): %s", extra, strings.Join(why, "; ")))
	}
	if idle := p.DMAAvail - p.NumDMA; idle > 0 {
		var why []string
		if p.SemCap > 0 && p.NumDMA == p.SemCap {
			why = append(why, fmt.Sprintf("sem_increment %d bounds the engines that may signal", p.SemCap))
		}
		if uint64(p.NumDMA) == p.ShareCap {
			why = append(why, fmt.Sprintf("no engine gets less than %d bytes (B=%d; dge.min_share)", MinShareBytes, p.Bytes))
		}
		if p.NumDMA == p.Units {
			why = append(why, fmt.Sprintf("only %d splittable units (the split level's count; a unit is never cut)", p.Units))
		}
		if len(why) == 0 {
			why = append(why, "the spray left them without a unit")
		}
		out = append(out, fmt.Sprintf("unused:       %d of %d enabled engines: %s", idle, p.DMAAvail, strings.Join(why, "; ")))
	}
	return out
}
