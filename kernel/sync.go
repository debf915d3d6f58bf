package kernel

import (
	"fmt"

	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// Synchronisation as a compiler inserts it (Provenance kernel.sync). Every
// lowered instruction's memory accesses are tracked as boxes of bytes; an access that conflicts
// with an earlier one (read-after-write, write-after-read, write-after-write) on bytes it
// overlaps needs the earlier instruction complete before it issues. What is already known
// complete at an issue is a vector clock (know): per queue, the prefix of its compute
// instructions known complete (a queue issues the next instruction only when its compute
// instruction completed), and per DMA instruction (DMAs complete out of order) a bit.
//
// Semaphores: each compute queue counts the completions of its signalling instructions on one
// semaphore (DVE 1, POOL 2, ACT 3; an instruction signals, SEM_INC_COMPLETE, only once a later
// one waits for it); every DMA instruction increments a semaphore of the DMA pool (4..255) when
// its last descriptor completes. A pool semaphore is reused only by a DMA whose issue already
// knows the previous user complete, so "sem >= v" names one DMA and everything before it on
// that semaphore. An instruction waits on one semaphore (its EVENTS band); when it needs more,
// wait carriers (a 1-element COPY of the queue's own scratch word) before it on a compute queue
// take the others: on the instruction's own queue, or for SP (which issues only DMAs) on a
// relay compute queue whose last carrier signals for SP to wait on.

const (
	semFirstDMA = 4
	numSem      = sim.NumSemaphores
)

var computeSem = [4]uint8{1, 2, 3, 0} // per queue slot: DVE, POOL, ACT, (SP has none)

// queue slots, in sim.QueueEngines order.
var slotEngines = [4]isa.Engine{isa.EngineDVE, isa.EnginePOOL, isa.EngineACT, isa.EngineTPB_SP}

func slotOf(e isa.Engine) int {
	for i, s := range slotEngines {
		if s == e {
			return i
		}
	}
	return -1
}

// know is what is known complete: compute prefixes per queue slot, DMA instructions by number.
type know struct {
	comp [4]int
	dma  []uint64
}

func (k *know) clone() know {
	return know{comp: k.comp, dma: append([]uint64(nil), k.dma...)}
}

func (k *know) join(o *know) {
	for i := range k.comp {
		k.comp[i] = max(k.comp[i], o.comp[i])
	}
	if len(o.dma) > len(k.dma) {
		k.dma = append(k.dma, make([]uint64, len(o.dma)-len(k.dma))...)
	}
	for i, w := range o.dma {
		k.dma[i] |= w
	}
}

func (k *know) setDMA(d int) {
	for len(k.dma) <= d/64 {
		k.dma = append(k.dma, 0)
	}
	k.dma[d/64] |= 1 << (d % 64)
}

func (k *know) hasDMA(d int) bool { return d/64 < len(k.dma) && k.dma[d/64]&(1<<(d%64)) != 0 }

// has reports whether instruction x is known complete.
func (k *know) has(x *Inst) bool {
	if x.did >= 0 {
		return k.hasDMA(x.did)
	}
	return k.comp[x.slot] >= x.cseq
}

// done is what is known once x completed.
func (x *Inst) done() know {
	d := x.issue.clone()
	if x.did >= 0 {
		d.setDMA(x.did)
	} else {
		d.comp[x.slot] = max(d.comp[x.slot], x.cseq)
	}
	return d
}

// box is a rectangle of bytes: on-chip partitions [p0, p1) x partition offsets [lo, hi), or HBM
// addresses [lo, hi) (space 0). An HBM box may be strided (n > 1): only the n runs
// [lo + k*stride, lo + k*stride + run) of [lo, hi) are touched, so the column blocks of a
// row-major tensor that a tiled kernel stores one by one do not depend on each other.
type box struct {
	space  int
	p0, p1 int
	lo, hi uint64
	run    uint64
	stride uint64
	n      uint64
}

func (a box) overlaps(b box) bool {
	if !(a.space == b.space && a.p0 < b.p1 && b.p0 < a.p1 && a.lo < b.hi && b.lo < a.hi) {
		return false
	}
	switch {
	case a.n <= 1 && b.n <= 1:
		return true
	case a.n <= 1:
		return b.hits(a.lo, a.hi)
	case b.n <= 1:
		return a.hits(b.lo, b.hi)
	}
	if a.n > b.n {
		a, b = b, a
	}
	if a.n > 4096 {
		return true // conservative
	}
	for k := uint64(0); k < a.n; k++ {
		lo := a.lo + k*a.stride
		if b.hits(lo, lo+a.run) {
			return true
		}
	}
	return false
}

// hits reports whether one of the strided box's runs meets [lo, hi).
func (a box) hits(lo, hi uint64) bool {
	if a.n <= 1 {
		return a.lo < hi && lo < a.hi
	}
	// runs k with a.lo + k*stride < hi and lo < a.lo + k*stride + run
	var kmin uint64
	if lo+1 > a.lo+a.run {
		kmin = (lo + 1 - a.lo - a.run + a.stride - 1) / a.stride
	}
	if hi <= a.lo {
		return false
	}
	kmax := (hi - a.lo - 1) / a.stride
	if kmax > a.n-1 {
		kmax = a.n - 1
	}
	return kmin <= kmax
}

// access is one box an instruction reads or writes.
type access struct {
	b     box
	write bool
}

type accRec struct {
	access
	by *Inst
}

type syncState struct {
	l        *lowerer
	cur      [4]know
	ncomp    [4]int
	lastComp [4]*Inst
	sigCount [4]uint32
	ndma     int
	hist     []accRec
	// DMA pool: per semaphore its last user and the count of its increments.
	poolLast  [numSem]*Inst
	poolCount [numSem]uint32
	poolHi    int // poolLast is nil from here on (at least semFirstDMA)
}

func (s *syncState) init(l *lowerer) { s.l = l }

// waitSpec is one semaphore wait: sem >= val, after which gain is known.
type waitSpec struct {
	sem    uint8
	val    uint32
	gain   know
	target *Inst
}

// specFor returns the wait that makes x known complete.
func (s *syncState) specFor(x *Inst) waitSpec {
	if x.did >= 0 {
		return waitSpec{sem: x.Inst.Evt().UpdateIdx, val: x.sigVal, gain: x.done(), target: x}
	}
	// The last compute instruction of x's queue so far: its completion implies x's and gives
	// the most knowledge.
	y := s.lastComp[x.slot]
	s.makeSignal(y)
	return waitSpec{sem: computeSem[y.slot], val: y.sigVal, gain: y.done(), target: y}
}

// makeSignal makes compute instruction y increment its queue's semaphore on completion.
func (s *syncState) makeSignal(y *Inst) {
	if y.signal {
		return
	}
	s.sigCount[y.slot]++
	y.signal, y.sigVal = true, s.sigCount[y.slot]
	setUpdate(y.Inst, isa.SemIncComplete, computeSem[y.slot])
}

func setUpdate(in isa.Inst, mode isa.UpdateMode, idx uint8) {
	ev := eventsOf(in)
	ev.UpdateMode, ev.UpdateIdx = mode, idx
}

func setWait(in isa.Inst, idx uint8, val uint32) {
	ev := eventsOf(in)
	ev.WaitMode, ev.WaitIdx, ev.SemaphoreValue = isa.WaitForSemGEImm, idx, val
}

func eventsOf(in isa.Inst) *isa.Events {
	switch x := in.(type) {
	case *isa.S4D4TR:
		return &x.Events
	case *isa.LoadMaskSelect:
		return &x.Events
	case *isa.Memset:
		return &x.Events
	case *isa.DMADirect2D:
		return &x.Events
	case *isa.DMAIndirect1D:
		return &x.Events
	case *isa.DMAGatherXpose:
		return &x.Events
	case *isa.DMADirect2DXpose:
		return &x.Events
	}
	panic(fmt.Sprintf("kernel: no events in %T", in))
}

// needed lists the earlier instructions that acc conflicts with and k does not know complete.
func (s *syncState) needed(acc []access, k *know) []*Inst {
	var out []*Inst
	seen := map[*Inst]bool{}
	for _, h := range s.hist {
		if seen[h.by] || k.has(h.by) {
			continue
		}
		for _, a := range acc {
			if (a.write || h.write) && a.b.overlaps(h.b) {
				seen[h.by] = true
				out = append(out, h.by)
				break
			}
		}
	}
	return out
}

// emit appends instruction in on queue eng with its accesses, after the waits it needs.
func (l *lowerer) emit(eng isa.Engine, in isa.Inst, acc []access, note string) *Inst {
	s := &l.sy
	q := slotOf(eng)
	x := &Inst{Engine: eng, Inst: in, Call: l.call, Origin: l.origin, Note: note, slot: q, id: len(l.out), did: -1}
	dma := in.Hdr().Opcode.IsDMA()
	k := s.cur[q].clone()
	targets := s.needed(acc, &k)
	specs := s.reduce(targets)
	var pool uint8
	if dma {
		tent := k.clone()
		for i := range specs {
			tent.join(&specs[i].gain)
		}
		var forced *Inst
		pool, forced = s.pickPool(&tent)
		if forced != nil {
			specs = s.reduce(append(targets, forced))
		}
	}
	s.placeWaits(x, q, specs)
	if dma {
		x.did = s.ndma
		s.ndma++
		s.poolCount[pool]++
		x.sigVal = s.poolCount[pool]
		s.poolLast[pool] = x
		s.poolHi = max(s.poolHi, int(pool)+1)
		x.signal = true
		setUpdate(in, isa.SemIncComplete, pool)
	}
	l.push(x, q)
	for _, a := range acc {
		s.hist = append(s.hist, accRec{access: a, by: x})
	}
	return x
}

// push appends x to the program and advances its queue's knowledge.
func (l *lowerer) push(x *Inst, q int) {
	s := &l.sy
	x.id = len(l.out)
	l.out = append(l.out, x)
	if x.did < 0 {
		s.ncomp[q]++
		x.cseq = s.ncomp[q]
		s.lastComp[q] = x
	}
	s.cur[q] = x.issue.clone()
	if x.did < 0 {
		s.cur[q].comp[q] = x.cseq
	}
}

// reduce turns the instructions to wait for into waits, dropping those another wait implies.
func (s *syncState) reduce(targets []*Inst) []waitSpec {
	var specs []waitSpec
	for _, t := range targets {
		sp := s.specFor(t)
		merged := false
		for i := range specs {
			if specs[i].sem == sp.sem {
				if sp.val > specs[i].val {
					specs[i] = sp
				}
				merged = true
			}
		}
		if !merged {
			specs = append(specs, sp)
		}
	}
	var out []waitSpec
	for i := range specs {
		implied := false
		for j := range specs {
			if i != j && specs[j].gain.has(specs[i].target) && !(specs[i].gain.has(specs[j].target) && i < j) {
				implied = true
				break
			}
		}
		if !implied {
			out = append(out, specs[i])
		}
	}
	return out
}

// pickPool chooses the DMA semaphore of a new DMA whose issue knows k: one whose last user k
// knows complete, else a fresh one, else (the pool is all in flight) the one whose last user
// is oldest, which the DMA must then wait for (forced).
func (s *syncState) pickPool(k *know) (uint8, *Inst) {
	var fresh, oldest int = -1, -1
	// Past poolHi every semaphore is fresh: the scan stops there (a kernel uses a few of 252).
	for i := semFirstDMA; i < s.poolHi; i++ {
		u := s.poolLast[i]
		if u == nil {
			if fresh < 0 {
				fresh = i
			}
			continue
		}
		if k.has(u) {
			return uint8(i), nil
		}
		if oldest < 0 || u.did < s.poolLast[oldest].did {
			oldest = i
		}
	}
	if fresh < 0 && max(s.poolHi, semFirstDMA) < numSem {
		fresh = max(s.poolHi, semFirstDMA)
	}
	if fresh >= 0 {
		return uint8(fresh), nil
	}
	return uint8(oldest), s.poolLast[oldest]
}

// placeWaits gives x its waits: the last on x itself, the others on carriers.
func (s *syncState) placeWaits(x *Inst, q int, specs []waitSpec) {
	l := s.l
	x.issue = s.cur[q].clone()
	if len(specs) == 0 {
		return
	}
	if len(specs) > 1 {
		relay := q
		if slotEngines[q] == isa.EngineTPB_SP {
			relay = slotOf(isa.EngineACT)
			for _, sp := range specs {
				if sp.target.did < 0 {
					relay = sp.target.slot
					break
				}
			}
		}
		var lastCarrier *Inst
		for _, sp := range specs[:len(specs)-1] {
			lastCarrier = l.carrier(relay, sp)
		}
		if relay != q {
			// The relay's last carrier signals; x waits for it and for the last spec through it.
			lastCarrier = l.carrier(relay, specs[len(specs)-1])
			s.makeSignal(lastCarrier)
			specs = []waitSpec{{sem: computeSem[relay], val: lastCarrier.sigVal, gain: lastCarrier.done(), target: lastCarrier}}
		} else {
			specs = specs[len(specs)-1:]
		}
		x.issue = s.cur[q].clone()
	}
	sp := specs[0]
	setWait(x.Inst, sp.sem, sp.val)
	x.issue.join(&sp.gain)
}

// carrier emits a wait carrier on queue slot q that waits sp: a 1-element UINT32 COPY between
// the queue's two scratch words (Provenance kernel.sync_carrier).
func (l *lowerer) carrier(q int, sp waitSpec) *Inst {
	s := &l.sy
	a := l.scratch[q]
	in := &isa.S4D4TR{Header: isa.Header{Opcode: isa.OpCOPY, InstWordLen: isa.InstWordLen}, InDtype: isa.DTypeUINT32, OutDtype: isa.DTypeUINT32,
		NumActiveChannels: 1,
		SrcMemPattern:     isa.Tensor4D{StartAddr: isa.Addr4(a), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{1, 1, 1, 1}},
		DstMemPattern:     isa.Tensor4D{StartAddr: isa.Addr4(a + 4), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{1, 1, 1, 1}}}
	x := &Inst{Engine: slotEngines[q], Inst: in, Call: l.call, Origin: l.origin, Note: "sync: wait carrier", slot: q, did: -1}
	x.issue = s.cur[q].clone()
	setWait(in, sp.sem, sp.val)
	x.issue.join(&sp.gain)
	l.push(x, q)
	return x
}

// ---- access boxes of the words the lowering emits ----

// t4dBox is the box a TENSOR4D walk of nac channels of es-byte elements touches.
func (l *lowerer) t4dBox(t isa.Tensor4D, es, nac int) box {
	lo, hi := int64(0), int64(0)
	for d := 0; d < 4; d++ {
		if n := int64(t.NumElem[d]); n > 1 {
			st := int64(t.StepElem[d]) * (n - 1)
			if st < 0 {
				lo += st
			} else {
				hi += st
			}
		}
	}
	loc := l.chipLoc(t.StartAddr.ByteAddr())
	return box{space: loc.space, p0: loc.p, p1: loc.p + nac, lo: uint64(int64(loc.off) + lo*int64(es)), hi: uint64(int64(loc.off) + (hi+1)*int64(es))}
}

type chipLoc struct {
	space int
	p     int
	off   uint64
}

func (l *lowerer) chipLoc(a uint32) chipLoc {
	if l.geo.PSUMSize > 0 && a >= l.geo.PSUMOffset {
		r := a - l.geo.PSUMOffset
		return chipLoc{space: 2, p: int(r / l.geo.PSUMPartitionSize), off: uint64(r % l.geo.PSUMPartitionSize)}
	}
	return chipLoc{space: 1, p: int(a / l.geo.StateBufPartitionSize), off: uint64(a % l.geo.StateBufPartitionSize)}
}

// devBoxes is the box of a DMA side: device address base, element size es, dims.
func (l *lowerer) devBox(base uint64, es int64, dims []dim) box {
	lo, hi := int64(0), int64(0)
	for _, d := range dims {
		if d.n > 1 {
			st := d.step * (d.n - 1)
			if st < 0 {
				lo += st
			} else {
				hi += st
			}
		}
	}
	if base < isa.DMALocalBase {
		b := box{space: 0, p0: 0, p1: 1, lo: uint64(int64(base) + lo), hi: uint64(int64(base) + hi + es)}
		// a contiguous run repeated at a positive stride that leaves gaps: keep the runs
		var inner, outer []dim
		for _, d := range dims {
			if d.n > 1 {
				if len(inner) == 0 && (d.step == es) {
					inner = append(inner, d)
				} else {
					outer = append(outer, d)
				}
			}
		}
		run := es
		if len(inner) == 1 {
			run = inner[0].n * es
		}
		if len(outer) == 1 && outer[0].step > run && lo == 0 {
			b.run, b.stride, b.n = uint64(run), uint64(outer[0].step), uint64(outer[0].n)
		}
		return b
	}
	// On chip: split the byte span into partitions.
	a0 := int64(base-isa.DMALocalBase) + lo
	a1 := int64(base-isa.DMALocalBase) + hi + es
	s0, s1 := l.chipLoc(uint32(a0)), l.chipLoc(uint32(a1-1))
	if s0.p == s1.p {
		return box{space: s0.space, p0: s0.p, p1: s0.p + 1, lo: s0.off, hi: s1.off + 1}
	}
	// Several partitions: the offsets inside them, conservatively their union.
	lo2, hi2 := min(s0.off, s1.off), max(s0.off, s1.off)+1
	return box{space: s0.space, p0: s0.p, p1: s1.p + 1, lo: lo2, hi: hi2}
}
