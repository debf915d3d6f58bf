package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/tpbsim/tpbsim/dge"
	"github.com/tpbsim/tpbsim/dma"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/mem"
	"github.com/tpbsim/tpbsim/sim"
)

// DMA calls: nl.load / nl.store / nisa.dma_copy become DMAMEMCPY (DIRECT2D) words, one per
// two-level nest of the walk both sides take together; indirect views become DMA_INDIRECT
// (INDIRECT1D) gathers or scatters; dma_transpose an element-strided DIRECT2D walk
// (Provenance kernel.dma_lowering, kernel.dma_transpose_lowering).

// jdim is one level of a walk two sides take together: n positions, sa / sb bytes apart.
type jdim struct{ n, sa, sb int64 }

// joint refines two walks of the same element count into common levels, innermost first.
func joint(a, b []dim) ([]jdim, bool) {
	rev := func(ds []dim) []dim {
		var out []dim
		for i := len(ds) - 1; i >= 0; i-- {
			if ds[i].n > 1 {
				out = append(out, ds[i])
			}
		}
		return out
	}
	A, B := rev(a), rev(b)
	var out []jdim
	i, j := 0, 0
	var ra, sa, rb, sb int64
	if len(A) > 0 {
		ra, sa = A[0].n, A[0].step
	}
	if len(B) > 0 {
		rb, sb = B[0].n, B[0].step
	}
	for i < len(A) && j < len(B) {
		k := min(ra, rb)
		if max(ra, rb)%k != 0 {
			return nil, false
		}
		out = append(out, jdim{n: k, sa: sa, sb: sb})
		if ra == k {
			i++
			if i < len(A) {
				ra, sa = A[i].n, A[i].step
			}
		} else {
			ra, sa = ra/k, sa*k
		}
		if rb == k {
			j++
			if j < len(B) {
				rb, sb = B[j].n, B[j].step
			}
		} else {
			rb, sb = rb/k, sb*k
		}
	}
	if i != len(A) || j != len(B) {
		return nil, false
	}
	// merge levels contiguous on both sides
	var m []jdim
	for _, d := range out {
		if n := len(m); n > 0 && d.sa == m[n-1].sa*m[n-1].n && d.sb == m[n-1].sb*m[n-1].n {
			m[n-1].n *= d.n
			continue
		}
		m = append(m, d)
	}
	return m, true
}

// splitBig splits levels of more than 65535 positions (DIRECT2D counts are uint16).
func splitBig(ds []jdim) ([]jdim, bool) {
	var out []jdim
	for _, d := range ds {
		for d.n > 65535 {
			f := int64(0)
			for c := int64(65535); c >= 2; c-- {
				if d.n%c == 0 && d.n/c >= 1 {
					f = c
					break
				}
			}
			if f == 0 {
				return nil, false
			}
			out = append(out, jdim{n: f, sa: d.sa, sb: d.sb})
			d = jdim{n: d.n / f, sa: d.sa * f, sb: d.sb * f}
		}
		out = append(out, d)
	}
	return out, true
}

type dmaOpts struct {
	in, out isa.DType
	compute isa.DGEComputeOp
	eng     isa.Engine
	note    string
}

// maxInstsPerCall bounds the words one call may lower to (INVENTED, Provenance kernel.dma_lowering).
const maxInstsPerCall = 1 << 14

// dmaMove emits the DIRECT2D words that move src to dst (equal element counts).
func (l *lowerer) dmaMove(c *Call, dst, src *side, o dmaOpts) error {
	ds, ok := joint(src.dims, dst.dims)
	if !ok {
		return callErr(c, fault.ErrInvalid, "dst", "nki.dma_shapes", "views whose shapes refine to common levels (equal shapes, or one a reshape of the other)",
			"%s and %s cannot be walked together", dst.about(), src.about())
	}
	esIn, esOut := int64(o.in.Size()), int64(o.out.Size())
	cast := o.in != o.out || o.compute != isa.DGEComputeNONE
	unitIn, unitOut := esIn, esOut
	if !cast && len(ds) > 0 && ds[0].sa == esIn && ds[0].sb == esOut {
		// Fold the contiguous run into the element size (up to 64 KiB) when every other
		// level's steps stay whole elements of it.
		n0 := ds[0].n
		for f := min(n0, 65536/esIn); f >= 2; f-- {
			if n0%f != 0 {
				continue
			}
			u := f * esIn
			good := true
			rest := ds[1:]
			if f != n0 {
				rest = append([]jdim{{n: n0 / f, sa: u, sb: u}}, ds[1:]...)
			}
			for _, d := range rest {
				if d.sa%u != 0 || d.sb%u != 0 {
					good = false
					break
				}
			}
			if good {
				unitIn, unitOut = u, u
				ds = rest
				break
			}
		}
	}
	steps := make([]int64, len(ds))
	for i, d := range ds {
		steps[i] = d.sb
	}
	if err := psumWords(c, dst, unitOut, steps...); err != nil {
		return err
	}
	ds, ok = splitBig(ds)
	if !ok {
		return callErr(c, fault.ErrInvalid, "src", "kernel.dma_level_size", "levels of at most 65535 positions or a product of such",
			"a level of the walk has a prime count above 65535")
	}
	for _, d := range ds {
		if d.sa%unitIn != 0 || d.sb%unitOut != 0 {
			return callErr(c, fault.ErrInvalid, "src", "kernel.dma_step_whole", "steps that are whole elements",
				"a step of %d / %d bytes is not a whole %d / %d-byte element", d.sa, d.sb, unitIn, unitOut)
		}
		if d.sa/unitIn > 1<<31-1 || d.sa/unitIn < -(1<<31) || d.sb/unitOut > 1<<31-1 || d.sb/unitOut < -(1<<31) {
			return callErr(c, fault.ErrInvalid, "src", "kernel.dma_step_range", "steps within int32 elements", "a step of %d bytes", d.sa)
		}
	}
	inner := ds
	var outer []jdim
	if len(ds) > 2 {
		inner, outer = ds[:2], ds[2:]
	}
	count := int64(1)
	for _, d := range outer {
		count *= d.n
	}
	if count > maxInstsPerCall {
		return callErr(c, fault.ErrInvalid, "src", "kernel.dma_instruction_count", fmt.Sprintf("at most %d DMA instructions per call", maxInstsPerCall),
			"the walk needs %d two-level DMA instructions", count)
	}
	idx := make([]int64, len(outer))
	for k := int64(0); k < count; k++ {
		offA, offB := int64(0), int64(0)
		for i, d := range outer {
			offA += idx[i] * d.sa
			offB += idx[i] * d.sb
		}
		in := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: isa.InstWordLen},
			ComputeOp: o.compute, InDtype: o.in, OutDtype: o.out,
			SrcStartAddr: isa.Addr8(uint64(int64(src.base) + offA)), DstStartAddr: isa.Addr8(uint64(int64(dst.base) + offB)),
			SrcElemSize: uint16(unitIn & 0xffff), DstElemSize: uint16(unitOut & 0xffff),
			SrcNumElem: [2]uint16{1, 1}, DstNumElem: [2]uint16{1, 1}}
		var sd, dd []dim
		for i, d := range inner {
			in.SrcNumElem[i], in.DstNumElem[i] = uint16(d.n), uint16(d.n)
			in.SrcStepElem[i], in.DstStepElem[i] = int32(d.sa/unitIn), int32(d.sb/unitOut)
			sd = append(sd, dim{n: d.n, step: d.sa})
			dd = append(dd, dim{n: d.n, step: d.sb})
		}
		acc := []access{{b: l.devBox(uint64(in.SrcStartAddr), unitIn, sd)}, {b: l.devBox(uint64(in.DstStartAddr), unitOut, dd), write: true}}
		if o.compute != isa.DGEComputeNONE {
			acc = append(acc, access{b: acc[1].b})
		}
		l.emit(o.eng, in, acc, o.note)
		for i := range idx {
			idx[i]++
			if idx[i] < outer[i].n {
				break
			}
			idx[i] = 0
		}
	}
	return nil
}

// psumWords refuses a DMA whose writes into PSUM would not be whole 4-byte words (the machine's
// rule psum_write_4byte, Provenance mem.psum_write_4byte): every unit-byte element it writes
// there must start 4-byte aligned, so the destination's start, its steps and the unit are
// multiples of 4 bytes.
func psumWords(c *Call, dst *side, unit int64, steps ...int64) error {
	if dst.pl.Space != isa.SpacePSUM {
		return nil
	}
	bad := dst.base%4 != 0 || unit%4 != 0
	for _, s := range steps {
		bad = bad || s%4 != 0
	}
	if !bad {
		return nil
	}
	return callErr(c, fault.ErrInvalid, "dst", mem.RulePSUMWrite4Byte, "a DMA into PSUM writes whole 4-byte words (4-byte aligned elements of a multiple of 4 bytes)",
		"the DMA writes %d-byte elements into %q (%s) at %s with steps %v bytes", unit, dst.t.Name, dst.t.DType, dst.where(), steps)
}

// dmaQueue is the queue that issues a DMA call: the engine the call names, else SP for the
// hardware DGE and POOL for the software DGE (Provenance kernel.queue_assignment).
func (l *lowerer) dmaQueue(c *Call, swdge bool) (isa.Engine, error) {
	if c.Engine != nil {
		switch *c.Engine {
		case "sync", "sp":
			return isa.EngineTPB_SP, nil
		case "scalar", "act", "activation":
			return isa.EngineACT, nil
		case "gpsimd", "pool":
			return isa.EnginePOOL, nil
		case "unknown", "dma", "":
		default:
			return 0, callErr(c, fault.ErrInvalid, "engine", "nki.dma_engine", "sync, scalar (act), gpsimd or unknown", "engine %q cannot issue a DMA", *c.Engine)
		}
	}
	if c.DGEMode != nil && *c.DGEMode == "swdge" {
		swdge = true
	}
	if swdge {
		return isa.EnginePOOL, nil
	}
	if c.Op == OpDMACopy && c.Call == "nl.store" {
		return isa.EngineACT, nil
	}
	return isa.EngineTPB_SP, nil
}

func (l *lowerer) dmaCopy(c *Call) error {
	if err := l.rules.check(l, c); err != nil {
		return err
	}
	dst, err := l.resolve(c, "dst", c.Dst)
	if err != nil {
		return err
	}
	src, err := l.resolve(c, "src", c.Src)
	if err != nil {
		return err
	}
	compute := isa.DGEComputeNONE
	if c.DstRMWOp != nil {
		switch *c.DstRMWOp {
		case "add", "np.add", "nl.add":
			compute = isa.DGEComputeADD
		default:
			return callErr(c, fault.ErrInvalid, "dst_rmw_op", "nki.dma_copy.dst_rmw_op", "add (np.add / nl.add) or None", "%q", *c.DstRMWOp)
		}
	}
	if c.Src.Indirect != nil || c.Dst.Indirect != nil {
		return l.dmaIndirect(c, dst, src, compute)
	}
	if dst.elems() != src.elems() {
		return callErr(c, fault.ErrInvalid, "dst", "nki.dma_copy.same_elements", fmt.Sprintf("%d elements, as src %s", src.elems(), src.about()),
			"%s has %d elements", dst.about(), dst.elems())
	}
	eng, err := l.dmaQueue(c, false)
	if err != nil {
		return err
	}
	return l.dmaMove(c, dst, src, dmaOpts{in: src.dtype, out: dst.dtype, compute: compute, eng: eng})
}

// dmaTranspose lowers dma_transpose / load_transpose2d: dst = src with its axes permuted by
// the rank's fixed permutation (NKI.md §2), as an element-strided DIRECT2D walk.
func (l *lowerer) dmaTranspose(c *Call) error {
	if err := l.rules.check(l, c); err != nil {
		return err
	}
	if c.Src.Indirect != nil {
		return l.gatherTranspose(c)
	}
	dst, err := l.resolve(c, "dst", c.Dst)
	if err != nil {
		return err
	}
	src, err := l.resolve(c, "src", c.Src)
	if err != nil {
		return err
	}
	perm := transposePerm(len(src.shape))
	if c.Axes != nil {
		perm = c.Axes
	}
	if len(perm) != len(src.dims) || len(src.dims) < 2 {
		return callErr(c, fault.ErrInvalid, "src", "nki.dma_transpose.rank", "a 2-D, 3-D or 4-D src", "%s", src.about())
	}
	pd := make([]dim, len(perm))
	want := make([]int, len(perm))
	for i, p := range perm {
		if p < 0 || p >= len(src.dims) {
			return callErr(c, fault.ErrInvalid, "axes", "nki.dma_transpose.axes", "a permutation of the src axes", "%v", perm)
		}
		pd[i] = src.dims[p]
		want[i] = src.shape[p]
	}
	if !sameInts(want, dst.shape) {
		return callErr(c, fault.ErrInvalid, "dst", "nki.dma_transpose.dst_shape", fmt.Sprintf("%v (src %v with axes %v)", want, src.about(), perm), "%s", dst.about())
	}
	if dst.dtype != src.dtype {
		return callErr(c, fault.ErrInvalid, "dst", "nki.dma_transpose.same_dtype", src.dtype.String(), "dst dtype %v", dst.dtype)
	}
	ps := *src
	ps.dims = pd
	eng, err := l.dmaQueue(c, false)
	if err != nil {
		return err
	}
	if words, accs := l.xbarWords(eng, src, dst); words != nil {
		for i, w := range words {
			l.emit(eng, w, accs[i], "crossbar transpose")
		}
		return nil
	}
	return l.dmaMove(c, dst, &ps, dmaOpts{in: src.dtype, out: dst.dtype, eng: eng, note: "element-strided transpose"})
}

// xbarWords lowers a transpose by the rank's fixed permutation onto DMA_TRANSPOSE (0xBD) words,
// one per 16-row x (128 / 64)-column crossbar tile of each 2-D slice [rows, cols] -> [cols,
// rows] (the middle axes stay in place in (2,1,0) and (3,1,2,0)), issued by queue eng, when the
// dtype, the generation and the placement let the crossbar run them: every word goes through
// the machine's check pipeline first (the instruction rules, the DGE's plan), and nil means "use
// the element-strided walk" (Provenance kernel.dma_transpose_lowering).
func (l *lowerer) xbarWords(eng isa.Engine, src, dst *side) ([]isa.Inst, [][]access) {
	es := int64(src.es)
	cols := dma.XbarColsFor(src.es)
	rank := len(src.dims)
	if f, err := dge.FeaturesOf(l.g); err != nil || !f.DMATranspose {
		return nil, nil // the generation has no DMA_TRANSPOSE (SUNDA)
	}
	if cols == 0 || src.dtype != dst.dtype || dst.pl.Space != isa.SpaceSBUF || rank < 2 || len(dst.dims) != rank {
		return nil, nil
	}
	if src.dims[rank-1].step != es && src.dims[rank-1].n > 1 || dst.dims[rank-1].step != es && dst.dims[rank-1].n > 1 {
		return nil, nil
	}
	stride := int64(l.geo.StateBufPartitionSize)
	if dst.nparts != int(src.dims[rank-1].n) || (dst.nparts > 1 && dst.dims[0].step != stride) {
		return nil, nil
	}
	rows, ncols := src.dims[0].n, src.dims[rank-1].n
	rs := src.dims[0].step / es
	if src.dims[0].step%es != 0 || rs < 0 || rs > 1<<31-1 {
		return nil, nil
	}
	mid := src.dims[1 : rank-1]
	dmid := dst.dims[1 : rank-1]
	count := int64(1)
	for i, d := range mid {
		if dmid[i].n != d.n {
			return nil, nil
		}
		count *= d.n
	}
	var words []isa.Inst
	var accs [][]access
	idx := make([]int64, len(mid))
	for k := int64(0); k < count; k++ {
		so, do := int64(0), int64(0)
		for i := range mid {
			so += idx[i] * mid[i].step
			do += idx[i] * dmid[i].step
		}
		for r0 := int64(0); r0 < rows; r0 += dma.XbarRows {
			nr := min(int64(dma.XbarRows), rows-r0)
			for c0 := int64(0); c0 < ncols; c0 += int64(cols) {
				nc := min(int64(cols), ncols-c0)
				sa := uint64(int64(src.base) + so + r0*src.dims[0].step + c0*es)
				da := uint64(int64(dst.base) + do + c0*stride + r0*es)
				w := &isa.DMADirect2DXpose{Header: isa.Header{Opcode: isa.OpDMA_TRANSPOSE, InstWordLen: isa.InstWordLen},
					InDtype: src.dtype, OutDtype: dst.dtype, TileSrcRowStep: int32(rs), TileSrcRows: uint8(nr), TileSrcCols: uint8(nc)}
				binary.LittleEndian.PutUint64(w.Raw[xposeSrcOff:], sa)
				binary.LittleEndian.PutUint64(w.Raw[xposeDstOff:], da)
				if r, err := sim.CheckInst(sim.Config{Gen: l.g}, eng, w); err != nil || !r.Executable() {
					return nil, nil
				}
				words = append(words, w)
				accs = append(accs, []access{
					{b: l.devBox(sa, es, []dim{{n: nr, step: src.dims[0].step}, {n: nc, step: es}})},
					{b: l.devBox(da, es, []dim{{n: nc, step: stride}, {n: nr, step: es}}), write: true}})
				if len(words) > maxInstsPerCall {
					return nil, nil
				}
			}
		}
		for i := range idx {
			idx[i]++
			if idx[i] < mid[i].n {
				break
			}
			idx[i] = 0
		}
	}
	return words, accs
}

// The DMA_TRANSPOSE (0xBD) layout is partial (FACTS §C.5): tpbsim reads the source and
// destination ADDR8s at bytes 16 and 40 (dge.direct2d_xpose_layout); the destination row step at
// byte 48 is left 0, the partition stride.
const (
	xposeSrcOff = 16
	xposeDstOff = 40
)

// transposePerm is the permutation NKI's dma_transpose applies by rank: 2-D (1,0), 3-D
// (2,1,0), 4-D (3,1,2,0).
func transposePerm(rank int) []int {
	switch rank {
	case 2:
		return []int{1, 0}
	case 3:
		return []int{2, 1, 0}
	case 4:
		return []int{3, 1, 2, 0}
	}
	return nil
}

func sameInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
