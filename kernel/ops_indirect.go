package kernel

import (
	"fmt"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Indirect DMA (NKI.md §2, 0xBB): a gather (src indexed by an index tile) or a scatter (dst
// indexed) becomes DMA_INDIRECT (INDIRECT1D) on the software DGE (POOL queue). The machine reads
// the index vector as consecutive uint32 in SBUF partition 0 (has_dma_indirect_idx_addr_in_sbuf_
// partition0), so an index tile laid out one index per partition is first staged into one row by
// an SBUF-to-SBUF DMA (Provenance kernel.indirect_index_staging). The index bound is the
// indirected axis' extent in its tensor; oob_mode error sets idx_bound_is_err, skip leaves it
// clear so out-of-bound rows are skipped.

// indexVector returns the on-chip address of the n uint32 indices of view iv, staging them
// into partition 0 when they are not already there, contiguous.
func (l *lowerer) indexVector(c *Call, iv *View, n int64, eng isa.Engine) (uint32, box, error) {
	is, err := l.resolve(c, "index", iv)
	if err != nil {
		return 0, box{}, err
	}
	if !is.onchip || is.pl.Space != isa.SpaceSBUF {
		return 0, box{}, callErr(c, fault.ErrInvalid, "index", "nki.indirect.index_in_sbuf", "an index tile in SBUF", "the index tile %q is in %s", is.t.Name, is.t.Buffer)
	}
	if is.dtype != isa.DTypeUINT32 && is.dtype != isa.DTypeINT32 {
		return 0, box{}, callErr(c, fault.ErrInvalid, "index", "nki.indirect.index_dtype", "uint32 (or int32)", "the index tile %q is %s", is.t.Name, is.t.DType)
	}
	if is.elems() != n {
		return 0, box{}, callErr(c, fault.ErrInvalid, "index", "nki.indirect.index_count", fmt.Sprintf("%d indices, one per position of the indexed axis", n),
			"the index view %v has %d elements", is.shape, is.elems())
	}
	contiguous := is.part0 == 0 && is.nparts == 1
	if contiguous {
		step := int64(4)
		for i := len(is.free) - 1; i >= 0; i-- {
			if is.free[i].n > 1 && is.free[i].step != step {
				contiguous = false
			}
			step *= is.free[i].n
		}
	}
	if contiguous {
		a := l.chipAddr(is, is.part0, is.off0)
		return a, l.devBox(is.base, 4, is.dims), nil
	}
	st, err := l.stage("idx", 1, n, isa.DTypeUINT32, true)
	if err != nil {
		return 0, box{}, err
	}
	sv := &View{Tensor: st, Offset: 0, Pattern: [][2]int64{{n, 1}, {1, n}}}
	ss, err := l.resolve(c, "index staging", sv)
	if err != nil {
		return 0, box{}, err
	}
	if err := l.dmaMove(c, ss, is, dmaOpts{in: is.dtype, out: is.dtype, eng: eng, note: "index staging into partition 0"}); err != nil {
		return 0, box{}, err
	}
	return l.chipAddr(ss, 0, ss.off0), l.devBox(ss.base, 4, ss.dims), nil
}

// rowsOf is the number of positions along axis d of view v that stay inside the tensor: the
// bound of an index along that axis.
func rowsOf(t *Tensor, v *View, d int) int64 {
	rest := int64(0)
	for i, p := range v.Pattern {
		if i != d && p[1] > 1 && p[0] > 0 {
			rest += p[0] * (p[1] - 1)
		}
	}
	step := v.Pattern[d][0]
	if step <= 0 {
		return 1
	}
	return (t.Elements()-1-(v.Offset+rest))/step + 1
}

// rowRun checks that the axes of s other than d form one contiguous run and returns its
// element count.
func rowRun(s *side, d int) (int64, bool) {
	F := int64(1)
	step := int64(s.es)
	for i := len(s.v.Pattern) - 1; i >= 0; i-- {
		if i == d || s.v.Pattern[i][1] == 1 {
			continue
		}
		if s.v.Pattern[i][0]*int64(s.es) != step {
			return 0, false
		}
		F *= s.v.Pattern[i][1]
		step *= s.v.Pattern[i][1]
	}
	return F, true
}

func (l *lowerer) dmaIndirect(c *Call, dst, src *side, compute isa.DGEComputeOp) error {
	if c.Src.Indirect != nil && c.Dst.Indirect != nil {
		return callErr(c, fault.ErrUnsupported, "dst", "kernel.indirect_both", "an indirect src or an indirect dst", "both sides are indirect")
	}
	if dst.dtype != src.dtype {
		return callErr(c, fault.ErrUnsupported, "dst", "kernel.indirect_cast", src.dtype.String(), "an indirect DMA with a cast (%v -> %v)", src.dtype, dst.dtype)
	}
	gather := c.Src.Indirect != nil
	ind, iside, oside := c.Src.Indirect, src, dst
	mode := isa.SrcIndirection
	if !gather {
		ind, iside, oside = c.Dst.Indirect, dst, src
		mode = isa.DstIndirection
	}
	d := ind.Dim
	n := iside.v.Pattern[d][1]
	F, ok := rowRun(iside, d)
	if !ok {
		return callErr(c, fault.ErrUnsupported, "src", "kernel.indirect_row", "indexed rows whose other axes are one contiguous run",
			"the axes of %v other than the indexed axis %d are not contiguous", iside.shape, d)
	}
	es := int64(src.es)
	rowBytes := F * es
	if rowBytes > 65536 {
		return callErr(c, fault.ErrInvalid, "src", "kernel.indirect_row_bytes", "rows of at most 64 KiB", "rows of %d bytes", rowBytes)
	}
	istep := iside.v.Pattern[d][0] * es
	if istep <= 0 || istep%rowBytes != 0 {
		return callErr(c, fault.ErrUnsupported, "src", "kernel.indirect_row_step", "an indexed axis whose step is a whole number of rows",
			"the indexed axis steps %d bytes over rows of %d bytes", istep, rowBytes)
	}
	bound := rowsOf(iside.t, iside.v, d)
	if bound > 4096 {
		return callErr(c, fault.ErrUnsupported, "src", isa.RuleHasDMAIndirectValidIndexCount, "an indexed tensor of at most 4096 rows (INDIRECT1D bounds an index by its num_elem, <= 4096)",
			"the indexed tensor %q has %d rows along the indexed axis", iside.t.Name, bound)
	}
	if n > 4096 {
		return callErr(c, fault.ErrUnsupported, "index", isa.RuleHasDMAIndirectValidIndexCount, "at most 4096 indices", "%d indices", n)
	}
	// the other side: n rows of F contiguous elements
	js, ok2 := joint([]dim{{n: n, step: istep}, {n: F, step: es}}, oside.dims)
	if !ok2 || len(js) > 2 || (len(js) == 2 && js[0].sa != es) || (len(js) >= 1 && F > 1 && js[0].sb != es) {
		return callErr(c, fault.ErrUnsupported, "dst", "kernel.indirect_rows", "the other side as rows of the indexed row length, each contiguous",
			"%v cannot be walked as %d rows of %d elements", oside.shape, n, F)
	}
	orow := rowBytes
	if len(js) > 0 && js[len(js)-1].n == n && (len(js) == 2 || F == 1) {
		orow = js[len(js)-1].sb
	}
	wstep := orow // the step of the written rows
	if !gather {
		wstep = istep
	}
	if err := psumWords(c, dst, rowBytes, wstep); err != nil {
		return err
	}
	eng, err := l.dmaQueue(c, true)
	if err != nil {
		return err
	}
	var idxAddr uint32
	var ibox box
	if l.staged != nil {
		idxAddr, ibox = l.staged.addr, l.staged.b
		l.staged = nil
	} else if idxAddr, ibox, err = l.indexVector(c, &ind.Index, n, eng); err != nil {
		return err
	}
	perWord := n
	if orow%rowBytes != 0 {
		perWord = 1 // rows not a whole number of row-sized elements apart: one word per row
	}
	tb := l.tensorBox(iside.pl)
	for first := int64(0); first < n; first += perWord {
		in := &isa.DMAIndirect1D{Header: isa.Header{Opcode: isa.OpDMA_INDIRECT, InstWordLen: isa.InstWordLen}, IdxNumActiveChannels: 128,
			Flags:   isa.MakeDMAIndirectFlags(mode, c.OOBMode != "skip", false, isa.IndirectDimX, isa.IndirectDimX),
			InDtype: src.dtype, OutDtype: dst.dtype, ComputeOp: compute,
			SrcElemSize: uint16(rowBytes & 0xffff), DstElemSize: uint16(rowBytes & 0xffff)}
		ostep := int64(1)
		if perWord > 1 {
			ostep = orow / rowBytes
		}
		obase := uint64(int64(oside.base) + first*orow)
		ia := isa.Addr4(idxAddr + uint32(4*first))
		if gather {
			in.SrcStartAddr, in.SrcStepElem, in.SrcNumElem = isa.Addr8(src.base), int32(istep/rowBytes), uint16(bound)
			in.DstStartAddr, in.DstStepElem, in.DstNumElem = isa.Addr8(obase), int32(ostep), uint16(perWord)
			in.SrcIdxStartAddr = ia
		} else {
			in.DstStartAddr, in.DstStepElem, in.DstNumElem = isa.Addr8(dst.base), int32(istep/rowBytes), uint16(bound)
			in.SrcStartAddr, in.SrcStepElem, in.SrcNumElem = isa.Addr8(obase), int32(ostep), uint16(perWord)
			in.DstIdxStartAddr = ia
		}
		obox := l.devBox(obase, rowBytes, []dim{{n: perWord, step: orow}})
		acc := []access{{b: ibox}}
		if gather {
			acc = append(acc, access{b: tb}, access{b: obox, write: true})
		} else {
			acc = append(acc, access{b: obox}, access{b: tb, write: true})
			if compute != isa.DGEComputeNONE {
				acc = append(acc, access{b: tb})
			}
		}
		l.emit(eng, in, acc, indirectNote(gather, src, dst, l.tensors[ind.Index.Tensor].Name, first, first+perWord))
	}
	return nil
}

// tensorBox is the box of a whole tensor.
func (l *lowerer) tensorBox(pl *Placement) box {
	if pl.Space == isa.SpaceHBM {
		return box{space: 0, p0: 0, p1: 1, lo: pl.Addr, hi: pl.Addr + pl.RowBytes}
	}
	sp := 1
	if pl.Space == isa.SpacePSUM {
		sp = 2
	}
	return box{space: sp, p0: pl.Partition, p1: pl.Partition + pl.Partitions, lo: pl.Offset, hi: pl.Offset + pl.RowBytes}
}

// stagedIndex is an index vector already in partition 0 for the next dmaIndirect.
type stagedIndex struct {
	addr uint32
	b    box
}

// gatherTranspose lowers dma_transpose with an indirect src (NKI.md §2, 0xF1's semantics:
// flat = indices.T.flatten()[:n]; dst = src[flat, :].T) in two DMAs on the software DGE: an
// INDIRECT1D gather of the n rows into an HBM scratch tensor, then the transposing walk into
// dst (Provenance kernel.gather_transpose_lowering). DMA_GATHER_XPOSE bounds its indices only
// through the bound-check register file, which a program cannot set yet; this route keeps
// NKI's oob_mode error / skip exact.
func (l *lowerer) gatherTranspose(c *Call) error {
	sv := *c.Src
	ind := sv.Indirect
	// squeeze 1-extents, keeping the indexed axis
	var pat [][2]int64
	dimIdx := -1
	for i, p := range sv.Pattern {
		if p[1] == 1 && i != ind.Dim {
			continue
		}
		if i == ind.Dim {
			dimIdx = len(pat)
		}
		pat = append(pat, p)
	}
	if len(pat) < 2 || len(pat) > 3 || dimIdx != 0 {
		return callErr(c, fault.ErrUnsupported, "src", "kernel.gather_transpose_shape", "an indirect src of [rows, row] or [rows, a, b] (other axes of size 1), indexed on its first axis",
			"src %v indexed on axis %d", sv.Shape(), ind.Dim)
	}
	n, F := pat[0][1], int64(1)
	rest := []int{}
	for _, p := range pat[1:] {
		F *= p[1]
		rest = append(rest, int(p[1]))
	}
	iv := ind.Index
	if len(iv.Pattern) != 2 {
		return callErr(c, fault.ErrInvalid, "src.vector_offset", "nki.dma_transpose.indices_2d", "a 2-D index tile [P, N]", "an index view %v", iv.Shape())
	}
	Pi, N := iv.Pattern[0][1], iv.Pattern[1][1]
	if Pi*N < n {
		return callErr(c, fault.ErrInvalid, "src.vector_offset", "nki.dma_transpose.index_count", fmt.Sprintf("at least %d indices (indices.shape[0] * indices.shape[1] >= src.shape[0])", n),
			"[%d, %d] indices", Pi, N)
	}
	st := &l.tensors[sv.Tensor]
	// the flat order k = j*P + p: the index view walked free axis outside, partitions inside
	kv := View{Tensor: iv.Tensor, Offset: iv.Offset, Pattern: [][2]int64{iv.Pattern[1], iv.Pattern[0]}}
	addr, ib, err := l.indexVector(c, &kv, Pi*N, isa.EnginePOOL)
	if err != nil {
		return err
	}
	// the HBM scratch of the gathered rows
	d, _ := dtypeOf(st, l.g)
	sid := len(l.tensors)
	l.tensors = append(l.tensors, Tensor{Name: fmt.Sprintf("tpbsim.gathered%d", sid), Shape: append([]int{int(n)}, rest...), DType: st.DType, Buffer: BufHBM, Loc: l.origin})
	l.hbmNext = (l.hbmNext + 0xfff) &^ 0xfff
	l.pls = append(l.pls, &Placement{Tensor: sid, Space: isa.SpaceHBM, Addr: l.hbmNext, RowBytes: uint64(n * F * int64(d.Size())), DType: d, ES: d.Size(),
		FreeElems: n * F, First: l.call, Last: l.call})
	l.hbmNext += uint64(n * F * int64(d.Size()))
	l.sbuf.tensors, l.psum.tensors = l.tensors, l.tensors
	g := *c
	g.Src = &View{Tensor: sv.Tensor, Offset: sv.Offset, Pattern: pat, Indirect: &Indirect{Index: kv, Dim: 0}}
	g.Dst = full(sid, l.tensors[sid].Shape)
	dst, err := l.resolve(&g, "dst", g.Dst)
	if err != nil {
		return err
	}
	src, err := l.resolve(&g, "src", g.Src)
	if err != nil {
		return err
	}
	perm := transposePerm(len(pat))
	if c.OOBMode == "skip" {
		// A skipped row leaves its dst column as it was: the scratch starts as dst walked back
		// (these permutations are their own inverses).
		dd, err := l.resolve(c, "dst", c.Dst)
		if err != nil {
			return err
		}
		if !sameInts(squeeze(dd.shape), squeeze(permShape(dst.shape, perm))) {
			return callErr(c, fault.ErrInvalid, "dst", "nki.dma_transpose.dst_shape", fmt.Sprintf("%v (the gathered rows transposed)", permShape(dst.shape, perm)), "%s", dd.about())
		}
		back := *dd
		back.dims = nil
		ddims := nonUnit(dd.dims, dd.shape)
		for _, p := range perm {
			back.dims = append(back.dims, ddims[p])
		}
		if err := l.dmaMove(c, dst, &back, dmaOpts{in: dd.dtype, out: d, eng: isa.EnginePOOL, note: "oob_mode=skip: the scratch starts as dst"}); err != nil {
			return err
		}
	}
	l.staged = &stagedIndex{addr: addr, b: ib}
	if err := l.dmaIndirect(&g, dst, src, isa.DGEComputeNONE); err != nil {
		return err
	}
	// the transpose of the scratch into dst
	t := *c
	t.Src = full(sid, l.tensors[sid].Shape)
	t.Axes = perm
	t.Engine, t.DGEMode = nil, nil
	sw := "swdge"
	t.DGEMode = &sw
	ts, err := l.resolve(&t, "src", t.Src)
	if err != nil {
		return err
	}
	dd, err := l.resolve(c, "dst", c.Dst)
	if err != nil {
		return err
	}
	ps := *ts
	ps.dims, ps.shape = nil, nil
	for _, p := range perm {
		ps.dims = append(ps.dims, ts.dims[p])
		ps.shape = append(ps.shape, ts.shape[p])
	}
	if !sameInts(squeeze(dd.shape), squeeze(ps.shape)) {
		return callErr(c, fault.ErrInvalid, "dst", "nki.dma_transpose.dst_shape", fmt.Sprintf("%v (the gathered rows transposed)", ps.shape), "%s", dd.about())
	}
	if words, accs := l.xbarWords(isa.EnginePOOL, ts, dd); words != nil {
		for i, w := range words {
			l.emit(isa.EnginePOOL, w, accs[i], "crossbar transpose of the gathered rows")
		}
		return nil
	}
	return l.dmaMove(c, dd, &ps, dmaOpts{in: d, out: dd.dtype, eng: isa.EnginePOOL, note: "transpose of the gathered rows"})
}

// squeeze drops the 1-extents of a shape.
func squeeze(s []int) []int {
	var out []int
	for _, d := range s {
		if d != 1 {
			out = append(out, d)
		}
	}
	return out
}

// full is the row-major view of a whole tensor of the given shape.
func full(t int, shape []int) *View {
	v := &View{Tensor: t, Pattern: make([][2]int64, len(shape))}
	step := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		v.Pattern[i] = [2]int64{step, int64(shape[i])}
		step *= int64(shape[i])
	}
	return v
}

func permShape(s []int, perm []int) []int {
	out := make([]int, len(perm))
	for i, p := range perm {
		out[i] = s[p]
	}
	return out
}

// nonUnit returns the dims of a side that resolve kept: one per axis of more than one position
// (resolve drops 1-extents), padded so that axes line up with the squeezed shape.
func nonUnit(dims []dim, shape []int) []dim {
	var out []dim
	k := 0
	for _, n := range shape {
		if n == 1 {
			continue
		}
		out = append(out, dims[k])
		k++
	}
	return out
}

// indirectNote says what one INDIRECT1D word of a gather or scatter does, in the kernel's names,
// so a run's error for it (an index out of bounds) names the tensors and the index positions:
// the word's src_idx[i] is position first+i of the index view.
func indirectNote(gather bool, src, dst *side, index string, first, end int64) string {
	if gather {
		return fmt.Sprintf("gather of %s rows by index %q, positions %d..%d", src.name(), index, first, end-1)
	}
	return fmt.Sprintf("scatter into %s rows by index %q, positions %d..%d", dst.name(), index, first, end-1)
}
