package dge

import (
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
	"sync"
)

// Config is the DGE local register state the lowering reads (FACTS §C.7).
type Config struct {
	DMACfg      uint32 // MEMCOPY_DMA_CFG (register 40)
	CarveoutCfg uint32 // MEMCOPY_CARVEOUT_CFG (register 39)
}

func immAddr8(a isa.Addr8, field string) (uint64, error) {
	if a.RawMarker() != isa.Addr8MarkerIMM {
		return 0, unsupErr(RuleAddrImmediate, fieldName(field), "%s marker 0x%02x: register / table ADDR8 forms are resolved by the machine, not the DGE model", field, a.RawMarker())
	}
	return a.Address(), nil
}

func immAddr4(a isa.Addr4, field string) (uint64, error) {
	if a.Marker()&0xE0 != 0 {
		return 0, unsupErr(RuleAddrImmediate, field, "%s marker 0x%02x: only immediate ADDR4 index addresses are modelled", field, a.Marker())
	}
	return isa.DMALocalBase + uint64(a.ByteAddr()), nil
}

func elemSize(v uint16) uint32 {
	if v == 0 {
		return 64 << 10 // "0 means 64 KiB" (FACTS §C.2)
	}
	return uint32(v)
}

func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// view2 is the view of a 2-D DIRECT2D side, re-expressed in units of u bytes.
func view2(base uint64, es uint32, num [2]uint16, step [2]int32, u uint32) View {
	k := es / u
	v := View{Base: base, ElemSize: u, NumElem: [4]uint32{uint32(num[0]), uint32(num[1]), 1, 1}, StepElem: [4]int64{int64(step[0]), int64(step[1]), 0, 0}}
	if k > 1 {
		v.NumElem = [4]uint32{k, uint32(num[0]), uint32(num[1]), 1}
		v.StepElem = [4]int64{1, int64(step[0]) * int64(k), int64(step[1]) * int64(k), 0}
	}
	return v
}

// PlanInst lowers one ISA DMA instruction (DIRECT2D 0xB8, INDIRECT1D 0xBB, GATHER_XPOSE 0xF1,
// DIRECT2D_XPOSE 0xBD) on generation g to the same descriptor streams as a reshape request.
func PlanInst(g isa.Generation, inst isa.Inst, cfg Config, opt Options) (*Plan, error) {
	f, err := FeaturesOf(g)
	if err != nil {
		return nil, err
	}
	var p *Plan
	switch in := inst.(type) {
	case *isa.DMADirect2D:
		p, err = planDirect2D(g, in, cfg, opt)
	case *isa.DMAIndirect1D:
		p, err = planIndirect1D(&f, in, cfg, opt)
	case *isa.DMAGatherXpose:
		p, err = planGatherXpose(&f, in, cfg, opt)
	case *isa.DMADirect2DXpose:
		p, err = planDirect2DXpose(&f, in, cfg, opt)
	default:
		return nil, unsupErr(RuleDMAInstruction, "header.opcode", "%T is not a DGE DMA instruction", inst)
	}
	if err != nil {
		return nil, isaRefusal(inst, g, err)
	}
	return p, nil
}

// isaRefusal is the error of a word the planner refuses as invalid. When the planner's guard
// names an ISA rule (the DGE applies some for callers that skip validation) or the validator
// finds a violation on the field the guard names, the error is the validator's own violation
// (its rule, field and legal values: what `tpbsim check` reports), so an ISA rule is never worded
// twice; a refusal of the planner's own (dge_xpose_placement, ...) stays as it is. The validator
// runs only on this failure path.
func isaRefusal(inst isa.Inst, g isa.Generation, err error) error {
	if fault.Category(err) != fault.ErrInvalid {
		return err
	}
	vs := isa.Validate(inst, g)
	v, ok := isa.PickViolation(vs, fault.Rule(err), fault.Path(err))
	if !ok && isISARule(fault.Rule(err)) && len(vs) > 0 {
		v, ok = vs[0], true
	}
	if !ok {
		return err
	}
	return isaError(v, v.Field)
}

// isaError is the ISA validator's violation v as the DGE's error, at path (the word's field, or
// the request's field that carries it).
func isaError(v isa.Violation, path string) *Error {
	if path == "" {
		path = v.Field
	}
	return &Error{Rule: v.Rule, Err: fault.ErrInvalid, Path: path, Value: v.Value, Legal: v.Legal}
}

// isISARule reports whether id is a rule of the ISA validator (isa.Registry).
func isISARule(id string) bool {
	isaRulesOnce.Do(func() {
		isaRules = map[string]bool{}
		for _, p := range isa.Registry() {
			if p.Kind == "rule" {
				isaRules[p.ID] = true
			}
		}
	})
	return isaRules[id]
}

var (
	isaRulesOnce sync.Once
	isaRules     map[string]bool
)

func planDirect2D(g isa.Generation, in *isa.DMADirect2D, cfg Config, opt Options) (*Plan, error) {
	src, err := immAddr8(in.SrcStartAddr, "src_start_addr")
	if err != nil {
		return nil, err
	}
	dst, err := immAddr8(in.DstStartAddr, "dst_start_addr")
	if err != nil {
		return nil, err
	}
	ses, des := elemSize(in.SrcElemSize), elemSize(in.DstElemSize)
	r := Request{Gen: g, ComputeOp: in.ComputeOp, Semaphore: int(in.Semaphore), SemIncrement: int(in.SemIncrement),
		SrcBound: in.SrcBoundReg, DstBound: in.DstBoundReg, DMACfg: cfg.DMACfg, CarveoutCfg: cfg.CarveoutCfg, linear: true}
	if in.InDtype != in.OutDtype || in.ComputeOp != isa.DGEComputeNONE {
		r.In, r.Out = in.InDtype, in.OutDtype
		r.Src = view2(src, ses, in.SrcNumElem, in.SrcStepElem, ses)
		r.Dst = view2(dst, des, in.DstNumElem, in.DstStepElem, des)
	} else {
		u := gcd(ses, des)
		r.Src = view2(src, ses, in.SrcNumElem, in.SrcStepElem, u)
		r.Dst = view2(dst, des, in.DstNumElem, in.DstStepElem, u)
	}
	p, err := PlanRequest(r, opt)
	if err != nil {
		return nil, fmt.Errorf("DIRECT2D: %w", err)
	}
	p.prepend(logQ7Direct2D.line(logQ7Core))
	return p, nil
}

func (p *Plan) prepend(line string) {
	if p.Log != nil || p.Streams != nil {
		p.Log = append([]string{line}, p.Log...)
	}
}

func planIndirect1D(f *Features, in *isa.DMAIndirect1D, cfg Config, opt Options) (*Plan, error) {
	g := f.Gen
	src, err := immAddr8(in.SrcStartAddr, "src_start_addr")
	if err != nil {
		return nil, err
	}
	dst, err := immAddr8(in.DstStartAddr, "dst_start_addr")
	if err != nil {
		return nil, err
	}
	mode := in.Flags.IndirectMode()
	if mode > isa.SrcDstIndirection {
		return nil, reqErr(RuleIndirectMode, "flags.indirect_mode", "INDIRECT1D indirect_mode %v", mode)
	}
	var sidx, didx uint64
	if mode != isa.DstIndirection {
		if sidx, err = immAddr4(in.SrcIdxStartAddr, "src_idx_start_addr"); err != nil {
			return nil, err
		}
	}
	if mode != isa.SrcIndirection {
		if didx, err = immAddr4(in.DstIdxStartAddr, "dst_idx_start_addr"); err != nil {
			return nil, err
		}
	}
	count := int(in.DstNumElem)
	switch mode {
	case isa.DstIndirection:
		count = int(in.SrcNumElem)
	case isa.SrcDstIndirection:
		count = int(min(in.SrcNumElem, in.DstNumElem))
	}
	ses, des := elemSize(in.SrcElemSize), elemSize(in.DstElemSize)
	var ik, ok num.Kind
	if in.InDtype != in.OutDtype || in.ComputeOp != isa.DGEComputeNONE {
		ik, ok = num.Kind(in.InDtype), num.Kind(in.OutDtype)
	}
	// Each side's extent (num_elem rows of its step) stays in its region's partitions, as a
	// request's views do (RulePartitionInRange): an index can reach any row of the extent.
	for _, sd := range []struct {
		name string
		base uint64
		n    uint16
		step int32
		es   uint32
	}{{"src", src, in.SrcNumElem, in.SrcStepElem, elemSize(in.SrcElemSize)}, {"dst", dst, in.DstNumElem, in.DstStepElem, elemSize(in.DstElemSize)}} {
		if sd.n == 0 || sd.es == 0 {
			continue
		}
		if err := partitionsInRegion(sd.name, View{Base: sd.base, ElemSize: sd.es, NumElem: [4]uint32{uint32(sd.n), 1, 1, 1}, StepElem: [4]int64{int64(sd.step), 0, 0, 0}}, g); err != nil {
			return nil, err
		}
	}
	lg := &logger{quiet: opt.Quiet}
	if lg.logging() {
		lg.add(logQ7Indirect.line(logQ7Core))
	}
	backend := selectBackend(f, lg)
	if err := checkDMACfg(cfg.DMACfg, g); err != nil {
		return nil, err
	}
	engines := engineList(cfg.DMACfg, g)
	n := 1
	if mode == isa.SrcIndirection && in.ComputeOp == isa.DGEComputeNONE {
		n = max(1, min(len(engines), count))
		if in.SemIncrement > 0 {
			n = min(n, int(in.SemIncrement))
		}
	} else {
		lg.note("scatter rows run on one engine, in index order, so duplicate indices apply deterministically")
	}
	p := &Plan{Gen: g, Kind: KindIndirect, Requested: KindIndirect, DMAAvail: len(engines), Groups: 1, Units: count, Backend: backend}
	for _, e := range engines {
		p.EngMask |= 1 << e
	}
	job := dma.Job{Queues: make([][]dma.Descriptor, g.Geometry().DMAEngineCount), Sem: int(in.Semaphore), SemIncrement: int(in.SemIncrement), GenNs: 100}
	queues := queueList(cfg.DMACfg)
	for k := 0; k < n; k++ {
		a, b := count*k/n, count*(k+1)/n
		if b == a && count > 0 {
			continue
		}
		d := dma.Descriptor{Kind: dma.KindGather, In: ik, Out: ok, ComputeOp: in.ComputeOp, Sem: int(in.Semaphore), Queue: queues[0]}
		d.Num = [4]uint32{1, 1, 1, 1}
		d.Src = dma.Side{Addr: src, ElemSize: ses, Step: [4]int64{int64(in.SrcStepElem)}, BoundBase: src}
		d.Dst = dma.Side{Addr: dst, ElemSize: des, Step: [4]int64{int64(in.DstStepElem)}, BoundBase: dst}
		ind := &dma.Indirect{Mode: mode, Count: b - a, SrcExtent: uint32(in.SrcNumElem), DstExtent: uint32(in.DstNumElem),
			SrcIdxBound: in.SrcIdxBoundReg, DstIdxBound: in.DstIdxBoundReg, IdxBoundIsErr: in.Flags.IdxBoundIsErr()}
		if mode == isa.SrcIndirection {
			ind.SrcIdx, ind.First = sidx+4*uint64(a), a
			d.Dst.Addr = offsetAddr(dst, int64(a)*int64(in.DstStepElem)*int64(des))
		} else {
			ind.SrcIdx, ind.DstIdx = sidx, didx
		}
		d.Indirect = ind
		e := engines[k%len(engines)]
		job.Queues[e] = append(job.Queues[e], d)
	}
	p.setJob(job)
	p.LowerBound = p.NumDMA
	if !opt.Quiet {
		p.Streams = emit(p, f, lg, true)
	}
	p.Log, p.Notes = lg.lines, lg.notes
	return p, nil
}

func planGatherXpose(feat *Features, in *isa.DMAGatherXpose, cfg Config, opt Options) (*Plan, error) {
	g := feat.Gen
	if !feat.GatherXpose {
		return nil, unsupErr(RuleOpcodeOnGeneration, "header.opcode", "DmaGatherTranspose is only available in Neuron+ (V3+), not on %v (seed 003 §3.3)", g)
	}
	src, err := immAddr8(in.SrcStartAddr, "src_start_addr")
	if err != nil {
		return nil, err
	}
	dst, err := immAddr8(in.DstStartAddr, "dst_start_addr")
	if err != nil {
		return nil, err
	}
	idx, err := immAddr4(in.SrcIdxStartAddr, "src_idx_start_addr")
	if err != nil {
		return nil, err
	}
	lo, hi := in.Dtype.Lo(), in.Dtype.Hi()
	n, f := int(in.SrcNumElem[1]), int(in.SrcNumElem[0])
	P := int(in.IdxNumActiveChannels)
	switch {
	case lo != hi || lo.Size() != 2:
		return nil, reqErr(RuleGatherXposeShape, "dtype", "GATHER_XPOSE dtype %v/%v: the xbar takes one 2-byte dtype (has_valid_gather_transpose_dtype)", lo, hi)
	case in.Flags.GatherDim() != isa.IndirectDimY:
		return nil, reqErr(RuleGatherXposeShape, "flags.gather_dim", "GATHER_XPOSE gather_dim %v: must be Y", in.Flags.GatherDim())
	case n%16 != 0 || n == 0:
		return nil, reqErr(RuleGatherXposeShape, "src_num_elem[1]", "GATHER_XPOSE src_num_elem[1] = %d: must be a non-zero multiple of 16", n)
	case n != int(in.DstNumElem[0]):
		return nil, reqErr(RuleGatherXposeShape, "dst_num_elem[0]", "GATHER_XPOSE src_num_elem[1] = %d != dst_num_elem[0] = %d", n, in.DstNumElem[0])
	case f < 1 || f > dma.XbarCols:
		return nil, reqErr(RuleGatherXposeShape, "src_num_elem[0]", "GATHER_XPOSE src_num_elem[0] = %d: the row must be 1..128 elements", f)
	case int(in.ElemSize) != 2*f:
		return nil, reqErr(RuleGatherXposeShape, "elem_size", "GATHER_XPOSE elem_size = %d: tpbsim reads elem_size as the gathered row's bytes, 2*src_num_elem[0] = %d (INFERRED)", in.ElemSize, 2*f)
	case int(in.DstNumElem[1]) != f:
		return nil, reqErr(RuleGatherXposeShape, "dst_num_elem[1]", "GATHER_XPOSE dst_num_elem[1] = %d != src_num_elem[0] = %d", in.DstNumElem[1], f)
	case P < 16 || P > 128 || P%16 != 0:
		return nil, reqErr(RuleGatherXposeShape, "idx_num_active_channels", "GATHER_XPOSE idx_num_active_channels = %d: the index tensor needs 16..128 partitions, a multiple of 16", P)
	case !regionOf(dst, g).sbuf:
		return nil, reqErr(RuleGatherXposeDstInSBUF, "dst_start_addr", "GATHER_XPOSE dst_start_addr 0x%x: the crossbar writes SBUF only (DmaGatherTranspose \"writes the result to SBUF\", seed 003 §2)", dst)
	case dst%dma.XbarDstAlign != 0:
		return nil, reqErr(RuleGatherXposeDstAligned, "dst_start_addr", "GATHER_XPOSE dst_start_addr 0x%x: the crossbar writes 32-byte aligned destinations (seed 003 §3.3)", dst)
	case f > 1 && !dma.XbarRowAligned(int64(in.DstStepElem1), 2):
		return nil, reqErr(RuleGatherXposeDstStep, "dst_step_elem_1", "GATHER_XPOSE dst_step_elem_1 = %d elements (%d bytes): the crossbar starts every destination row 32-byte aligned (seed 003 §3.3; legal: a multiple of %d elements of 2 bytes, or dst_num_elem[1] == 1)",
			in.DstStepElem1, 2*int64(in.DstStepElem1), dma.XbarDstAlign/2)
	}
	// The destination block (f rows of n elements) stays in its region's partitions, as a
	// request's views do (RulePartitionInRange).
	if err := partitionsInRegion("dst", View{Base: dst, ElemSize: 2, NumElem: [4]uint32{uint32(n), uint32(f), 1, 1}, StepElem: [4]int64{1, int64(in.DstStepElem1), 0, 0}}, g); err != nil {
		return nil, err
	}
	lg := &logger{quiet: opt.Quiet}
	if lg.logging() {
		lg.add(logQ7GatherXpose.line(logQ7Core))
		lg.add(logTransposeTile.line(dma.XbarRows, f, 2))
	}
	backend := selectBackend(feat, lg) // after the transpose's line (seed 003 §7)
	if err := checkDMACfg(cfg.DMACfg, g); err != nil {
		return nil, err
	}
	engines := engineList(cfg.DMACfg, g)
	tiles := n / 16
	nd := min(len(engines), tiles)
	p := &Plan{Gen: g, Kind: KindGatherTranspose, Requested: KindGatherTranspose, DMAAvail: len(engines), TileRows: dma.XbarRows, TileCols: f, Groups: 1, Units: tiles, Backend: backend}
	for _, e := range engines {
		p.EngMask |= 1 << e
	}
	job := dma.Job{Queues: make([][]dma.Descriptor, g.Geometry().DMAEngineCount), Sem: int(in.Semaphore), SemIncrement: 1, GenNs: 100}
	queues := queueList(cfg.DMACfg)
	pstride := uint64(g.Geometry().StateBufPartitionSize)
	for k := 0; k < nd; k++ {
		a, b := tiles*k/nd, tiles*(k+1)/nd
		if a == b {
			continue
		}
		d := dma.Descriptor{Kind: dma.KindGatherXpose, Sem: -1, Queue: queues[0]}
		d.Num = [4]uint32{1, 1, 1, 1}
		d.Src = dma.Side{Addr: src, ElemSize: 2, Step: [4]int64{int64(in.SrcStepElem[0]), int64(in.SrcStepElem[1])}, BoundBase: src}
		d.Dst = dma.Side{Addr: dst, ElemSize: 2, Step: [4]int64{1, int64(in.DstStepElem1)}, Bound: in.DstBoundReg, BoundBase: dst}
		d.GatherXpose = &dma.GatherXpose{Idx: idx, IdxPartitions: P, PartitionStride: pstride, First: 16 * a, Count: 16 * (b - a), Cols: f,
			IdxBound: in.SrcIdxBoundReg, SkipOOB: in.SrcIdxBoundReg.DisableOOBErrorNotif()}
		e := engines[k]
		job.Queues[e] = append(job.Queues[e], d)
	}
	p.setJob(job)
	p.LowerBound = nd
	if !opt.Quiet {
		p.Streams = emit(p, feat, lg, true)
	}
	p.Log, p.Notes = lg.lines, lg.notes
	return p, nil
}

// DIRECT2D_XPOSE (0xBD) is only partly known (FACTS §C.5). tpbsim reads the source and
// destination ADDR8s at bytes 16 and 40 and the destination row step (int32, elements) at byte 48:
// the isa struct's SrcStartAddr, DstStartAddr and DstRowStep, INFERRED offsets (Provenance
// "dge.direct2d_xpose_layout"). The byte offsets, for callers that fill the struct's Raw:
const (
	xposeSrcOff     = 16
	xposeDstOff     = 40
	xposeDstStepOff = 48
)

func planDirect2DXpose(f *Features, in *isa.DMADirect2DXpose, cfg Config, opt Options) (*Plan, error) {
	g := f.Gen
	if !f.DMATranspose {
		return nil, unsupErr(RuleOpcodeOnGeneration, "header.opcode", "DMA_TRANSPOSE (0xBD) is not in the %v ISA: %v has no transpose descriptor (seed 003 §3.4, §6.1; Provenance dge.dma_transpose_generations)", g, g)
	}
	src, err := immAddr8(in.Src(), "src_start_addr (INFERRED offset 16)")
	if err != nil {
		return nil, err
	}
	dst, err := immAddr8(in.Dst(), "dst_start_addr (INFERRED offset 40)")
	if err != nil {
		return nil, err
	}
	es := in.InDtype.Size()
	if in.InDtype != in.OutDtype || dma.XbarColsFor(es) == 0 {
		return nil, reqErr(RuleXposeDtype, "out_dtype", "DMA_TRANSPOSE dtypes %v -> %v: the xbar takes one 2- or 4-byte dtype", in.InDtype, in.OutDtype)
	}
	rows, cols := int(in.TileSrcRows), int(in.TileSrcCols)
	if rows != dma.XbarRows || cols < 1 || cols > dma.XbarColsFor(es) {
		tileField := "tile_src_cols"
		if rows != dma.XbarRows {
			tileField = "tile_src_rows"
		}
		return nil, reqErr(RuleXposeTile, tileField, "DMA_TRANSPOSE tile %dx%d: rows 16, cols 1..%d", rows, cols, dma.XbarColsFor(es))
	}
	dstStep := int64(in.RowStep())
	if dstStep == 0 {
		dstStep = int64(g.Geometry().StateBufPartitionSize) / int64(es)
	}
	r := Request{Gen: g, In: in.InDtype, Out: in.OutDtype, Semaphore: int(in.Semaphore), SemIncrement: 1, DMACfg: cfg.DMACfg, CarveoutCfg: cfg.CarveoutCfg, linear: true,
		Src:  View{Base: src, ElemSize: uint32(es), NumElem: [4]uint32{uint32(cols), uint32(rows), 1, 1}, StepElem: [4]int64{1, int64(in.TileSrcRowStep), 0, 0}},
		Dst:  View{Base: dst, ElemSize: uint32(es), NumElem: [4]uint32{uint32(rows), uint32(cols), 1, 1}, StepElem: [4]int64{1, dstStep, 0, 0}},
		Perm: []int{1, 0}}
	p, err := PlanRequest(r, opt)
	if err != nil {
		return nil, fmt.Errorf("DMA_TRANSPOSE: %w", err)
	}
	if p.Kind == KindElementStrided {
		// The instruction names the crossbar; the planner's element-strided fallback is not what
		// it asks for (a request may fall back, an instruction the crossbar cannot run is invalid).
		return nil, reqErr(RuleXposePlacement, "dst_start_addr", "DMA_TRANSPOSE: %s", strings.TrimSuffix(p.Fallback, ": element-strided DIRECT2D fallback"))
	}
	p.Notes = append(p.Notes, "DMA_TRANSPOSE (0xBD) layout is partial: src_start_addr (16), dst_start_addr (40) and dst_row_step (48) are tpbsim's INFERRED offsets (dge.direct2d_xpose_layout)")
	return p, nil
}
