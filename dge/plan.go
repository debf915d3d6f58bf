package dge

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// MinShareBytes is the smallest share of a request the planner gives one engine: a request of
// B bytes uses at most max(1, B/MinShareBytes) engines (INVENTED: below ~512 B per engine the
// descriptor overhead dominates; Provenance "dge.min_share").
const MinShareBytes = 512

// Options tune planning.
type Options struct {
	// Quiet skips rendering the firmware log and the micro-op streams (planning-rate runs).
	Quiet bool
}

// Plan is a lowered request: the final kind, the fan-out, the per-engine descriptor queues (a
// dma.Job ready to run), the micro-op stream per engine and the firmware log.
type Plan struct {
	Gen       isa.Generation
	Kind      Kind // final Reshape Kind
	Requested Kind // the Requested Reshape Kind the pair assessment started from
	Src, Dst  Analysis
	Simple    bool // resolved by the simple (HBM-only / no partition remap) pair assessment
	HBMOnly   bool
	FastPath  bool // MARIANA_PLUS dge_reshape_memcopy_transpose_fast
	DMAAvail  int
	NumDMA    int    // engines that received work
	EngMask   uint32 // engines available (MEMCOPY_DMA_CFG low 16 bits, clipped to the generation)
	TileRows  int    // crossbar tile, when the kind uses it
	TileCols  int
	ElemSize  [2]uint32 // GENERATE elem_size after folding, src and dst
	Groups    int       // distinct nests the plan emits (G of the lower bound, plus the 16-bit splits' peeled nests)
	Units     int       // splittable units
	// BoundNests is G of the lower bound: the distinct nests the common nest needs with four
	// levels a descriptor, before levels of more than MaxLoopCount are split (splitting only adds).
	BoundNests int
	// BoundEngines is E of the lower bound: min(D, U, max(1, B/MinShareBytes)), with the
	// sem_increment cap.
	BoundEngines int
	// Factored16 and Peeled16 count the levels of more than MaxLoopCount iterations split into
	// two 16-bit levels, and peeled into a full part and a remainder nest (split16).
	Factored16, Peeled16 int
	// Backend is the DGE backend the selector chose (BackendPool; BackendNone on SUNDA, which
	// has no DGE emitter).
	Backend Backend
	// SemCap is sem_increment when it caps the engines below D (0: no cap); ShareCap is
	// max(1, B/MinShareBytes).
	SemCap   int
	ShareCap uint64
	// SplitLevel is the nest level (0 innermost) the spray cuts into units across the engines
	// in the largest group, SplitCount its count; -1 when nothing is split.
	SplitLevel, SplitCount int
	// LowerBound is max(BoundNests, BoundEngines) (package doc); Descriptors is what the plan emits.
	LowerBound  int
	Descriptors int
	Bytes       uint64
	// MaxUnitBytes is the largest splittable unit's bytes: engines' bytes differ by at most this.
	MaxUnitBytes uint64
	Job          dma.Job
	Streams      [][]MicroOp // per engine (index = engine id)
	Log          []string    // firmware log lines ("S: ..."), plus tpbsim notes prefixed "tpbsim: "
	Notes        []string
	// Fallback is why a transpose is not on the crossbar (the reason of an element-strided
	// plan of a transpose; also one of Notes), "" otherwise: a caller that refuses the
	// fallback (DMA_TRANSPOSE) names this reason, not every note of the plan.
	Fallback string
}

// level is one loop level of the common nest: count and the element steps on each side.
type level struct {
	n      uint64
	ss, ds int64
}

// refine builds the common refinement of two nests (both inner first): the coarsest nest whose
// levels each lie within one dim of each view. ok is false when the views' dims do not nest.
func refine(a, b View) ([]level, bool) {
	da, db := dimsOf(a), dimsOf(b)
	var out []level
	i, j := 0, 0
	for i < len(da) && j < len(db) {
		x, y := &da[i], &db[j]
		t := min(x.n, y.n)
		if x.n%t != 0 || y.n%t != 0 {
			return nil, false
		}
		out = append(out, level{t, x.step, y.step})
		x.n /= t
		x.step *= int64(t)
		y.n /= t
		y.step *= int64(t)
		if x.n == 1 {
			i++
		}
		if y.n == 1 {
			j++
		}
	}
	return out, i == len(da) && j == len(db)
}

func dimsOf(v View) []dim {
	var ds []dim
	for k := 0; k < 4; k++ {
		if v.NumElem[k] > 1 {
			ds = append(ds, dim{uint64(v.NumElem[k]), v.StepElem[k]})
		}
	}
	return ds
}

// coalesce merges levels whose steps chain on both sides (level order is free for a copy), as
// long as the merged count fits a descriptor's 32-bit loop count (dma.Descriptor.Num): a request
// may hold 2^40 elements, and a wider level would wrap when it becomes a descriptor.
func coalesce(ls []level) []level {
	var out []level
	for _, l := range ls {
		if l.n > 1 {
			out = append(out, l)
		}
	}
	for {
		merged := false
	search:
		for i := range out {
			for j := range out {
				if i == j {
					continue
				}
				li, lj := out[i], out[j]
				if lj.ss == li.ss*int64(li.n) && lj.ds == li.ds*int64(li.n) && li.n <= math.MaxUint32/lj.n {
					out[i] = level{li.n * lj.n, li.ss, li.ds}
					out = append(out[:j], out[j+1:]...)
					merged = true
					break search
				}
			}
		}
		if !merged {
			return out
		}
	}
}

// fold folds (part of) the contiguous level into the element size: it returns the factor f and
// the new levels. wantUnits asks that a lone contiguous level keep at least that many elements.
func fold(ls []level, ess, esd uint32, wantUnits int) (uint64, []level) {
	c := -1
	for i, l := range ls {
		if l.ss == 1 && l.ds == 1 {
			c = i
			break
		}
	}
	if c < 0 {
		return 1, ls
	}
	n := ls[c].n
	maxF := uint64(dma.MaxElemSize / max(ess, esd))
	best := uint64(1)
	for f := min(n, maxF); f > 1; f-- {
		if n%f != 0 {
			continue
		}
		ok := true
		for i, l := range ls {
			if i != c && (l.ss%int64(f) != 0 || l.ds%int64(f) != 0) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if len(ls) == 1 && n/f < uint64(wantUnits) && n >= uint64(wantUnits) {
			continue
		}
		best = f
		break
	}
	out := make([]level, 0, len(ls))
	for i, l := range ls {
		if i == c {
			if l.n/best > 1 {
				out = append(out, level{l.n / best, 1, 1})
			}
			continue
		}
		out = append(out, level{l.n, l.ss / int64(best), l.ds / int64(best)})
	}
	return best, out
}

// group is one uniform nest (<= 4 levels, inner first) at element offsets from the bases.
type group struct {
	lv             []level
	srcOff, dstOff int64
	split          int // level index split across engines (-1: none)
}

func (g *group) units() uint64 {
	if g.split < 0 {
		return 1
	}
	return g.lv[g.split].n
}

func (g *group) elements() uint64 {
	n := uint64(1)
	for _, l := range g.lv {
		n *= l.n
	}
	return n
}

// MaxPlanNests bounds the distinct descriptor nests of a plan (G of the lower bound; rule
// dge_plan_nests, INVENTED): unrolling the levels of a common nest beyond four makes one nest per
// position, which two 4-dim views can push past 2^17 (seconds and gigabytes to plan and print).
const MaxPlanNests = 1 << 16

// unrolledCount is the number of groups unroll(gs, keep) makes: per group, the product of the
// len-4 smallest counts among its levels from keep on (saturating).
func unrolledCount(gs []group, keep int) uint64 {
	var total uint64
	for _, g := range gs {
		n := uint64(1)
		if extra := len(g.lv) - dma.MaxLevels; extra > 0 {
			var cs []uint64
			for _, l := range g.lv[keep:] {
				cs = append(cs, l.n)
			}
			slices.Sort(cs)
			for _, c := range cs[:extra] {
				if hi, lo := bits.Mul64(n, c); hi == 0 {
					n = lo
				} else {
					n = math.MaxUint64
				}
			}
		}
		total += min(n, math.MaxUint64-total)
	}
	return total
}

// unrollChecked is unroll, refusing (rule dge_plan_nests) a plan of more than MaxPlanNests
// groups before it builds them.
func unrollChecked(gs []group, keep int) ([]group, error) {
	if n := unrolledCount(gs, keep); n > MaxPlanNests {
		levels := 0
		for _, g := range gs {
			levels = max(levels, len(g.lv))
		}
		return nil, unsupErr(RulePlanNests, "num_elem", "the common nest of src and dst has %d levels: unrolling those beyond four needs %d descriptor nests, "+
			"more than tpbsim plans (%d); split the request", levels, n, MaxPlanNests)
	}
	return unroll(gs, keep), nil
}

// limitCounts makes the groups' nests fit a descriptor: it records G of the lower bound
// (unrolledCount of the unsplit groups), splits levels of more than MaxLoopCount iterations
// (split16) and unrolls levels beyond four, noting what it split.
func (p *Plan) limitCounts(gs []group, keep int, lg *logger) ([]group, error) {
	p.BoundNests = int(min(unrolledCount(gs, keep), MaxPlanNests+1))
	gs, p.Factored16, p.Peeled16 = split16(gs)
	if p.Factored16+p.Peeled16 > 0 {
		lg.note(fmt.Sprintf("a DIMPUSH level counts at most %d (uint16 num_elem, seed 003 §4.5): %d level(s) factored into two 16-bit levels, %d peeled into a full nest and a remainder nest",
			MaxLoopCount, p.Factored16, p.Peeled16))
	}
	return unrollChecked(gs, keep)
}

// unroll keeps at most 4 levels per group by unrolling the smallest levels at or above keep.
func unroll(gs []group, keep int) []group {
	var out []group
	for _, g := range gs {
		if len(g.lv) <= dma.MaxLevels {
			out = append(out, g)
			continue
		}
		// pick the smallest level among indices >= keep
		k := -1
		for i := keep; i < len(g.lv); i++ {
			if k < 0 || g.lv[i].n < g.lv[k].n {
				k = i
			}
		}
		l := g.lv[k]
		rest := append(append([]level{}, g.lv[:k]...), g.lv[k+1:]...)
		var sub []group
		for i := uint64(0); i < l.n; i++ {
			sub = append(sub, group{lv: rest, srcOff: g.srcOff + int64(i)*l.ss, dstOff: g.dstOff + int64(i)*l.ds})
		}
		out = append(out, unroll(sub, keep)...)
	}
	return out
}

// engineList returns the engine ids enabled by a MEMCOPY_DMA_CFG DMA bitfield on generation g.
func engineList(cfg uint32, g isa.Generation) []int {
	n := g.Geometry().DMAEngineCount
	mask := cfg & 0xFFFF
	if mask == 0 {
		mask = 1<<n - 1
	}
	var out []int
	for e := 0; e < n; e++ {
		if mask&(1<<e) != 0 {
			out = append(out, e)
		}
	}
	return out
}

// queueList returns the queue numbers enabled by the high 16 bits of MEMCOPY_DMA_CFG (queue 0
// when none is set).
func queueList(cfg uint32) []int {
	var out []int
	for q := 0; q < 16; q++ {
		if cfg>>16&(1<<q) != 0 {
			out = append(out, q)
		}
	}
	if len(out) == 0 {
		out = []int{0}
	}
	return out
}

// PlanRequest lowers a request through the DGE pipeline of its generation.
func PlanRequest(r Request, opt Options) (*Plan, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	feat, err := FeaturesOf(r.Gen)
	if err != nil {
		return nil, err
	}
	gf := &feat
	p := &Plan{Gen: r.Gen}
	lg := &logger{quiet: opt.Quiet}
	g := r.Gen
	reshapeLogs := gf.ReshapeLogs
	if !reshapeLogs {
		lg.note(fmt.Sprintf("%v firmware has no DGE Reshape logs and no DGE emitter (seed 003 §6.1): this plan's descriptors are tpbsim's own lowering, and no firmware lines are printed for them", g))
	}
	perm := len(r.Perm) > 0 && !isIdentity(r.Perm)
	src := permuted(r.Src, r.Perm)

	// The common nest, walked in destination row-major order.
	ls, common := refine(src, r.Dst)
	ess, esd := r.Src.ElemSize, r.Dst.ElemSize
	rgS, rgD := regionOf(r.Src.Base, g), regionOf(r.Dst.Base, g)
	if err := checkDMACfg(r.DMACfg, g); err != nil {
		return nil, err
	}
	engines := engineList(r.DMACfg, g)
	cfgNotes(r.DMACfg, r.CarveoutCfg, gf, lg)
	avail := len(engines)
	p.DMAAvail = avail
	for _, e := range engines {
		p.EngMask |= 1 << e
	}
	maxDMA := avail
	if r.SemIncrement > 0 {
		maxDMA = min(maxDMA, r.SemIncrement)
	}

	// Minimum share: no engine gets less than MinShareBytes (unless the whole request is smaller).
	total := r.Src.Elements() * uint64(r.Dst.ElemSize)
	p.SemCap = 0
	if r.SemIncrement > 0 && r.SemIncrement < avail {
		p.SemCap = r.SemIncrement
	}
	p.ShareCap = max(1, total/MinShareBytes)
	maxDMA = int(min(uint64(maxDMA), p.ShareCap))

	var groups []group
	kind := KindDirect
	var why string
	if common {
		ls = coalesce(ls)
		hadContig := false
		for _, l := range ls {
			hadContig = hadContig || (l.ss == 1 && l.ds == 1)
		}
		var f uint64
		f, ls = fold(ls, ess, esd, maxDMA)
		ess, esd = ess*uint32(f), esd*uint32(f)
		contig, row, col := -1, -1, -1
		for i, l := range ls {
			switch {
			case l.ss == 1 && l.ds == 1:
				contig = i
			case l.ds == 1 && row < 0:
				row = i
			case l.ss == 1 && col < 0:
				col = i
			}
		}
		transpose := !hadContig && contig < 0 && row >= 0 && col >= 0
		if transpose {
			kind, why = xbarKind(r, gf, ess, rgS, rgD)
			if kind != KindElementStrided {
				if w := xbarDstMisaligned(r.Dst.Base, ls, row, esd); w != "" {
					kind, why = KindElementStrided, w
				}
			}
		}
		switch kind {
		case KindXbarTranspose, KindSB2SBTranspose:
			p.TileRows, p.TileCols = dma.XbarRows, dma.XbarColsFor(int(ess))
			if groups, err = p.limitCounts(xbarGroups(ls, row, col, p.TileRows, p.TileCols), 2, lg); err != nil {
				return nil, err
			}
		default:
			// inner level: the contiguous one, else the one with the smallest dst step
			inner := contig
			if inner < 0 {
				for i, l := range ls {
					if inner < 0 || abs64(l.ds) < abs64(ls[inner].ds) {
						inner = i
					}
				}
			}
			lv := []level{}
			if inner >= 0 {
				lv = append(lv, ls[inner])
			}
			for i, l := range ls {
				if i != inner {
					lv = append(lv, l)
				}
			}
			if len(lv) == 0 {
				lv = []level{{1, 1, 1}}
			}
			if groups, err = p.limitCounts([]group{{lv: lv}}, 1, lg); err != nil {
				return nil, err
			}
		}
	} else {
		if wide16(src) || wide16(r.Dst) {
			return nil, unsupErr(RuleLoopCount16, "num_elem", "src num_elem %v / dst num_elem %v: the nests have no common refinement, so one descriptor walks each view's own nest, "+
				"and a level of more than %d iterations does not fit the DGE's uint16 num_elem (seed 003 §4.5); split the request so the views share their dims", src.NumElem, r.Dst.NumElem, MaxLoopCount)
		}
		lg.note("src and dst nests have no common refinement: one descriptor walks each nest independently")
	}
	if perm && kind == KindDirect && !common {
		kind = KindElementStrided
		p.Fallback = "the source and destination nests have no common refinement"
	}
	if why != "" {
		lg.note(why)
		p.Fallback = why
	}
	p.ElemSize = [2]uint32{ess, esd}

	// Per-tensor analysis.
	stS, stD := StrategyIdentity, StrategyIdentity
	cs, cd := len(coalesceView(src)), len(coalesceView(r.Dst))
	switch {
	case perm:
		stS = StrategyTranspose
	case cs < cd:
		stS = StrategyDimMerge
	case cs > cd:
		stS = StrategyDimSplit
	}
	switch {
	case cd < cs:
		stD = StrategyDimMerge
	case cd > cs:
		stD = StrategyDimSplit
	}
	reqS, reqD := KindDirect, KindDirect
	if perm {
		reqS = kind
		if kind == KindDirect {
			reqS = KindDirect
		}
	}
	p.Src = analyze(r.Src, true, g, stS, reqS)
	p.Dst = analyze(r.Dst, false, g, stD, reqD)
	p.Requested = max(reqS, reqD)
	if reshapeLogs && lg.logging() {
		lg.add(p.Src.logLine())
		lg.add(p.Dst.logLine())
	}

	// Split units.
	for i := range groups {
		gr := &groups[i]
		gr.split = -1
		lo := 1
		if kind == KindXbarTranspose || kind == KindSB2SBTranspose {
			lo = 2
		} else if len(gr.lv) == 1 {
			lo = 0
		}
		for k := lo; k < len(gr.lv); k++ {
			if gr.lv[k].n > 1 && (gr.split < 0 || gr.lv[k].n > gr.lv[gr.split].n) {
				gr.split = k
			}
		}
	}
	var units uint64
	for i := range groups {
		units += groups[i].units()
	}
	if !common {
		units = 1
	}
	ndma := int(min(uint64(maxDMA), max(units, 1)))
	p.Units = int(min(units, 1<<31))

	// Pair assessment (seed 003 §4.2 / §4.3).
	p.HBMOnly = !p.Src.OnChip && !p.Dst.OnChip
	p.Simple = (kind == KindDirect) && (p.HBMOnly || p.Src.NumPartitions == p.Dst.NumPartitions)
	p.Kind = kind
	if reshapeLogs && lg.logging() {
		if p.Simple {
			lg.add(logAssessedSimplePair.line(p.Src.NumPartitions, p.Dst.NumPartitions, avail, b2i(p.HBMOnly), int(kind), ndma))
		} else {
			minP := 0
			for _, a := range []Analysis{p.Src, p.Dst} {
				if a.OnChip && (minP == 0 || a.NumPartitions < minP) {
					minP = a.NumPartitions
				}
			}
			lg.add(logAssessedPair.line(int(p.Requested), minP, avail, int(kind), ndma))
		}
	}
	if perm && reshapeLogs {
		// tensor_reshape_indirect_transpose runs after the pair assessment (seed 003 §4: analyze ->
		// assess -> transpose); its working state holds uint16 counts, so a wider dim is shown
		// split as the planner splits it.
		bs, okB := split16View(r.Src)
		as, okA := split16View(src)
		if !okB || !okA {
			lg.note(fmt.Sprintf("the source view has a dim of more than %d elements with no 16-bit factorisation that fits four dims: the BEFORE/AFTER lines print it unsplit, which the firmware's uint16 num_elem cannot hold", MaxLoopCount))
			bs, as = r.Src, src
		} else if wide16(r.Src) {
			lg.note(fmt.Sprintf("the BEFORE/AFTER lines show the source's dims of more than %d elements split in two (uint16 num_elem)", MaxLoopCount))
		}
		if lg.logging() {
			lg.add(stateLine(true, bs, true))
			lg.add(stateLine(false, as, true))
		}
	}
	if p.TileRows > 0 && reshapeLogs && lg.logging() {
		f := logTransposeTile
		if kind == KindSB2SBTranspose {
			f = logTransposeTileSB2SB
		}
		lg.add(f.line(p.TileRows, p.TileCols, ess))
	}

	// MARIANA_PLUS fast path: fused memcopy + transpose, spray inlined, credits.
	p.FastPath = gf.FastPath && kind != KindElementStrided && common
	ring := 0
	if gf.Credits {
		ring = int(r.CarveoutCfg >> 16)
		if ring == 0 {
			ring = DefaultRingDepth
		}
	}

	// The backend selector runs once Kind and #DMA are resolved (seed 003 §7).
	p.Backend = selectBackend(gf, lg)

	// Spray: assign units to engines.
	used := engines[:ndma]
	pieces := spray(groups, ndma)
	if !common {
		pieces = [][]piece{{{g: -1}}}
	}
	ourSrc := p.Src.OnChip && !p.Dst.OnChip
	if reshapeLogs && !p.FastPath && lg.logging() {
		stepPort, stepHalf := int(units)/max(ndma, 1), int(units)%max(ndma, 1)
		for _, isSrc := range []bool{true, false} {
			ours := isSrc == ourSrc
			lg.add(logSprayInfo.line(int(kind), 0, b2i(ours), b2i(p.HBMOnly), ndma))
			if ours {
				lg.add(logSprayTensorReshape.line())
				lg.add(logSprayTensorResult.line(stepPort, stepHalf))
			} else {
				lg.add(logSpraySkip.line())
			}
		}
		var pattern uint32
		for _, e := range used {
			pattern |= 1 << e
		}
		lg.add(logGatherPatternStart.line(int(kind), stepPort, stepHalf, p.EngMask))
		lg.add(logGatherPatternEnd.line(pattern, p.EngMask))
	}
	if p.FastPath {
		lg.note(fmt.Sprintf("dge_reshape_memcopy_transpose_fast: fused memcopy+transpose pass, spray inlined, no REGWRITE, wait_for_credit against a %d-descriptor ring", ring))
	}

	// Build descriptors.
	job := dma.Job{Queues: make([][]dma.Descriptor, g.Geometry().DMAEngineCount), Sem: r.Semaphore, SemIncrement: r.SemIncrement, RingDepth: ring, GenNs: 100}
	if r.SemIncrement == 0 {
		job.Sem = -1 // no completion semaphore (dma's spelling)
	}
	if p.FastPath {
		job.GenNs = 25
	}
	queues := queueList(r.DMACfg)
	dk := dma.KindCopy
	if kind == KindXbarTranspose || kind == KindSB2SBTranspose {
		dk = dma.KindXbar
	}
	in, out := num.Kind(r.In), num.Kind(r.Out)
	for ei, ps := range pieces {
		e := used[ei]
		for _, pc := range ps {
			var d dma.Descriptor
			if pc.g < 0 {
				d = independent(r, src)
			} else {
				d = descriptorFor(&groups[pc.g], pc, r, ess, esd, dk)
			}
			d.In, d.Out, d.ComputeOp = in, out, r.ComputeOp
			d.Queue = queues[len(job.Queues[e])%len(queues)]
			d.Sem = -1
			job.Queues[e] = append(job.Queues[e], d)
		}
		if n := len(job.Queues[e]); n > 0 && r.SemIncrement > 0 {
			job.Queues[e][n-1].Sem = r.Semaphore
		}
	}
	p.setJob(job)
	p.Groups = len(groups)
	if !common {
		p.Groups, p.BoundNests = 1, 1
	}
	p.BoundEngines = int(min(uint64(maxDMA), max(units, 1)))
	for i := range groups {
		if l := groups[i].split; l >= 0 && groups[i].lv[l].n > uint64(p.SplitCount) {
			p.SplitLevel, p.SplitCount = l, int(min(groups[i].lv[l].n, 1<<31))
		}
	}
	if len(groups) == 0 || p.SplitCount == 0 {
		p.SplitLevel = -1
	}
	p.LowerBound = max(p.BoundNests, p.BoundEngines)
	p.MaxUnitBytes = p.Bytes
	if common {
		var tot, mx uint64
		for i := range groups {
			tot += groups[i].elements()
			mx = max(mx, groups[i].elements()/groups[i].units())
		}
		if tot > 0 {
			hi, lo := bits.Mul64(mx, p.Bytes)
			p.MaxUnitBytes, _ = bits.Div64(hi, lo, tot)
		}
	}

	if !opt.Quiet {
		p.Streams = emit(p, gf, lg, reshapeLogs)
	}
	p.Log, p.Notes = lg.lines, lg.notes
	return p, nil
}

// xbarKind decides whether a transpose can use the crossbar on this generation, and says why not.
func xbarKind(r Request, f *Features, es uint32, rgS, rgD region) (Kind, string) {
	switch {
	case !f.Xbar:
		return KindElementStrided, fmt.Sprintf("%v has no transpose descriptor (no gather_xpose.h, seed 003 §3.4): element-strided DIRECT2D fallback, one element per beat", f.Gen)
	case dma.XbarColsFor(int(es)) == 0:
		return KindElementStrided, fmt.Sprintf("the crossbar takes 2- and 4-byte elements, not %d: element-strided DIRECT2D fallback", es)
	case r.In != r.Out:
		return KindElementStrided, "the crossbar does not cast (dtype_lo == dtype_hi): element-strided DIRECT2D fallback"
	case r.ComputeOp != isa.DGEComputeNONE:
		return KindElementStrided, "the crossbar has no compute_op: element-strided DIRECT2D fallback"
	case !rgD.onChip || !rgD.sbuf:
		return KindElementStrided, "the crossbar writes SBUF only (DmaGatherTranspose \"writes the result to SBUF\"): element-strided DIRECT2D fallback"
	case rgS.onChip && !rgS.sbuf:
		return KindElementStrided, "the crossbar reads HBM or SBUF, not PSUM (DmaGatherTranspose \"performs a gather operation from HBM or SBUF\"): element-strided DIRECT2D fallback"
	case rgS.onChip && f.SB2SB:
		return KindSB2SBTranspose, ""
	}
	return KindXbarTranspose, ""
}

// xbarDstMisaligned says why the crossbar cannot write the destination of a transpose whose
// common nest is ls (row = the destination-contiguous level, tiled by 16), or "" when it can.
// Every tile, and every destination row a tile writes, must start 32-byte aligned: the base and
// the byte step of every level but the row level (whose tiles of 16 elements of 2 or 4 bytes
// keep the alignment) are multiples of 32 (Provenance dge.xbar_eligibility).
func xbarDstMisaligned(base uint64, ls []level, row int, esd uint32) string {
	if base%dma.XbarDstAlign != 0 {
		return fmt.Sprintf("the crossbar writes 32-byte aligned destinations (dst_start_addr %% 32 == 0, seed 003 §3.3) and dst 0x%x is not: element-strided DIRECT2D fallback", base)
	}
	for i, l := range ls {
		if i == row || l.n <= 1 {
			continue
		}
		if !dma.XbarRowAligned(l.ds, esd) {
			return fmt.Sprintf("the crossbar starts every destination row 32-byte aligned (dst_step_elem[1] %% 32 == 0, seed 003 §3.3) and a destination step of %d bytes is not a multiple of 32: element-strided DIRECT2D fallback", l.ds*int64(esd))
		}
	}
	return ""
}

// xbarGroups tiles the row level (dst-contiguous) by rows and the column level (src-contiguous)
// by cols: one group per tile shape (full, row edge, column edge, corner). Each group's nest is
// [rows][cols][column tiles][row tiles][other levels...].
func xbarGroups(ls []level, row, col, tr, tc int) []group {
	R, C := ls[row], ls[col]
	var others []level
	for i, l := range ls {
		if i != row && i != col {
			others = append(others, l)
		}
	}
	type part struct {
		size, count uint64
		off         uint64
	}
	parts := func(n uint64, t int) []part {
		var ps []part
		if full := n / uint64(t); full > 0 {
			ps = append(ps, part{uint64(t), full, 0})
		}
		if rem := n % uint64(t); rem > 0 {
			ps = append(ps, part{rem, 1, n - rem})
		}
		return ps
	}
	var gs []group
	for _, pr := range parts(R.n, tr) {
		for _, pc := range parts(C.n, tc) {
			lv := []level{{pr.size, R.ss, R.ds}, {pc.size, C.ss, C.ds}}
			if pc.count > 1 {
				lv = append(lv, level{pc.count, C.ss * int64(tc), C.ds * int64(tc)})
			}
			if pr.count > 1 {
				lv = append(lv, level{pr.count, R.ss * int64(tr), R.ds * int64(tr)})
			}
			lv = append(lv, others...)
			gs = append(gs, group{lv: lv,
				srcOff: int64(pr.off)*R.ss + int64(pc.off)*C.ss,
				dstOff: int64(pr.off)*R.ds + int64(pc.off)*C.ds})
		}
	}
	return gs
}

// piece is a run of units [a, b) of group g given to one engine.
type piece struct {
	g    int
	a, b uint64
}

// spray distributes the units of all groups over n engines as n contiguous runs of the unit
// sequence (so an engine's share is one descriptor per group it touches and the plan has at most
// groups + n - 1 descriptors). Engine e takes units while the midpoint of the next unit lies within
// the fair share of what is left, remaining/(n-e), and always at least one unit while units remain,
// leaving one for each engine after it, so no engine is idle while another has two units. Among
// that run and the plain midpoint rule over total/n the one with the smaller spread of bytes per
// engine wins (Provenance "dge.spray").
func spray(gs []group, n int) [][]piece {
	if n == 0 {
		return make([][]piece, 0)
	}
	var total, units uint64
	for i := range gs {
		total += gs[i].elements()
		units += gs[i].units()
	}
	if total == 0 {
		return make([][]piece, n)
	}
	a := sprayRefill(gs, n, total, units)
	b := sprayMidpoint(gs, n, total)
	if spread(gs, b) < spread(gs, a) && idle(b, units) <= idle(a, units) {
		return b
	}
	return a
}

// spread is the difference between the most and the least elements an engine receives.
func spread(gs []group, out [][]piece) uint64 {
	lo, hi := ^uint64(0), uint64(0)
	for _, ps := range out {
		var s uint64
		for _, p := range ps {
			s += (p.b - p.a) * (gs[p.g].elements() / gs[p.g].units())
		}
		lo, hi = min(lo, s), max(hi, s)
	}
	return hi - lo
}

// idle counts the engines without work beyond those that must be idle (fewer units than engines).
func idle(out [][]piece, units uint64) int {
	n := 0
	for _, ps := range out {
		if len(ps) == 0 {
			n++
		}
	}
	if units < uint64(len(out)) {
		n -= len(out) - int(units)
	}
	return n
}

// sprayRefill is the run-by-run split: each engine aims at the fair share of what is left.
func sprayRefill(gs []group, n int, total, units uint64) [][]piece {
	out := make([][]piece, n)
	gi, a := 0, uint64(0)
	rem, urem := total, units
	for e := 0; e < n && urem > 0; e++ {
		m := uint64(n - e)
		maxTake := urem
		if urem >= m {
			maxTake = urem - (m - 1)
		} else {
			maxTake = 1
		}
		var acc, took uint64
		for gi < len(gs) && took < maxTake {
			g := &gs[gi]
			u := g.units()
			if a >= u {
				gi, a = gi+1, 0
				continue
			}
			per := g.elements() / u
			avail := u - a
			var k uint64
			if e == n-1 {
				k = avail
			} else {
				// largest k with acc + k*per - per/2 <= rem/m, i.e. m*(2*acc + 2*k*per - per) <= 2*rem
				num := 2 * rem
				base := m * (2 * acc)
				if num+m*per >= base {
					k = (num + m*per - base) / (2 * m * per)
				}
			}
			if k == 0 && took == 0 {
				k = 1
			}
			k = min(k, avail, maxTake-took)
			if k == 0 {
				break
			}
			out[e] = append(out[e], piece{gi, a, a + k})
			a += k
			took += k
			acc += k * per
			if a < u {
				break // this engine's share ends inside the group
			}
			gi, a = gi+1, 0
		}
		rem -= acc
		urem -= took
	}
	return out
}

// sprayMidpoint sends unit i to the engine whose fair-share interval of total/n holds the unit's
// midpoint byte; each engine takes a contiguous run.
func sprayMidpoint(gs []group, n int, total uint64) [][]piece {
	out := make([][]piece, n)
	var cum uint64 // elements before the current unit
	for gi := range gs {
		g := &gs[gi]
		u := g.units()
		per := g.elements() / u
		a := uint64(0)
		for a < u {
			mid := cum + a*per + per/2
			e := engineOf(mid, total, n)
			limit := ceilMulDiv(uint64(e+1), total, uint64(n)) // first element of engine e+1
			b := u
			if e+1 < n && limit > cum+per/2 {
				k := (limit - cum - per/2 + per - 1) / per
				b = min(u, max(k, a+1))
			}
			out[e] = append(out[e], piece{gi, a, b})
			a = b
		}
		cum += g.elements()
	}
	return out
}

func engineOf(pos, total uint64, n int) int {
	hi, lo := bits.Mul64(pos, uint64(n))
	q, _ := bits.Div64(hi, lo, total)
	return min(int(q), n-1)
}

func ceilMulDiv(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	q, r := bits.Div64(hi, lo, c)
	if r != 0 {
		q++
	}
	return q
}

// descriptorFor makes the descriptor of units [a, b) of a group; the split level moves to the
// top of the nest (level order is free for a copy).
func descriptorFor(g *group, pc piece, r Request, ess, esd uint32, kind dma.Kind) dma.Descriptor {
	lv := append([]level{}, g.lv...)
	so, do := g.srcOff, g.dstOff
	if g.split >= 0 {
		l := lv[g.split]
		so += int64(pc.a) * l.ss
		do += int64(pc.a) * l.ds
		l.n = pc.b - pc.a
		lv = append(lv[:g.split], lv[g.split+1:]...)
		lv = append(lv, l)
	}
	d := dma.Descriptor{Kind: kind}
	d.Num = [4]uint32{1, 1, 1, 1}
	for k, l := range lv {
		d.Num[k] = uint32(l.n)
		d.Src.Step[k] = l.ss
		d.Dst.Step[k] = l.ds
	}
	d.Src.ElemSize, d.Dst.ElemSize = ess, esd
	d.Src.Addr = offsetAddr(r.Src.Base, so*int64(ess))
	d.Dst.Addr = offsetAddr(r.Dst.Base, do*int64(esd))
	d.Src.Bound, d.Src.BoundBase = r.SrcBound, r.Src.Base
	d.Dst.Bound, d.Dst.BoundBase = r.DstBound, r.Dst.Base
	return d
}

// independent is the one descriptor of a request whose nests do not refine: each side walks its
// own (permuted) view.
func independent(r Request, src View) dma.Descriptor {
	d := dma.Descriptor{Kind: dma.KindCopy}
	for k := 0; k < 4; k++ {
		d.Num[k] = src.NumElem[k]
		d.Src.Step[k] = src.StepElem[k]
		d.DstNum[k] = r.Dst.NumElem[k]
		d.Dst.Step[k] = r.Dst.StepElem[k]
	}
	d.Src.ElemSize, d.Dst.ElemSize = r.Src.ElemSize, r.Dst.ElemSize
	d.Src.Addr, d.Dst.Addr = r.Src.Base, r.Dst.Base
	d.Src.Bound, d.Src.BoundBase = r.SrcBound, r.Src.Base
	d.Dst.Bound, d.Dst.BoundBase = r.DstBound, r.Dst.Base
	return d
}

func offsetAddr(base uint64, off int64) uint64 {
	if off < 0 {
		return base - uint64(-off)
	}
	return base + uint64(off)
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// sortedEngines is a helper for callers that want a stable engine order.
func sortedEngines(m map[int]bool) []int {
	var out []int
	for e := range m {
		out = append(out, e)
	}
	sort.Ints(out)
	return out
}

// setJob orders job's queues round-robin, makes it the plan's job and counts what it moves:
// the engines with work, the descriptors and the destination bytes.
func (p *Plan) setJob(job dma.Job) {
	job.Order = dma.RoundRobin(job.Queues)
	p.Job = job
	p.NumDMA, p.Descriptors, p.Bytes = 0, 0, 0
	for _, q := range job.Queues {
		if len(q) > 0 {
			p.NumDMA++
		}
		p.Descriptors += len(q)
		for i := range q {
			p.Bytes += q[i].Bytes()
		}
	}
}
