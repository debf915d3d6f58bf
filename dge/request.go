// Package dge models the DGE reshape engine of the NeuronCore POOL/Q7 firmware (seed 003): it
// lowers a reshape or transpose of a tensor — a pair of tensor views with an optional axis
// permutation, or one of the ISA DMA instructions — into per-DMA-engine descriptor streams
// (REGWRITE / GENERATE / DIMPUSH micro-ops), printing the firmware's own debug log lines so a
// model run can be diffed against a device log.
//
// The pipeline follows seed 003 §4: analyze_tensor_reshape per tensor, pair assessment (the simple
// HBM-only path or the full one) resolving the final Reshape Kind and the DMA fan-out from the
// MEMCOPY_DMA_CFG bitmask, tensor_reshape_transpose in 16x128 crossbar tiles for 2-byte dtypes
// (a stride permutation, logged BEFORE/AFTER), the spray over the engines (gen_spray_info /
// make_gather_pattern) and the emission per engine. MARIANA_PLUS adds the fused
// memcopy+transpose fast path, the SBUF-to-SBUF transpose kind and wait_for_credit flow control;
// MAVERICK drops the fast path; SUNDA has no transpose descriptor (element-strided fallback).
//
// The Reshape Strategy and Reshape Kind enum values and the spray algorithms are not recoverable
// from the firmware; tpbsim's own are documented here and listed by Provenance as INFERRED or
// INVENTED.
//
// # Descriptor lower bounds
//
// A descriptor is one loop nest of at most four levels, each of at most MaxLoopCount (65535)
// iterations (uint16_t num_elem[4], seed 003 §4.5), with one element size (<= 64 KiB) per
// side; a crossbar descriptor's two inner levels are one tile (<= 16 rows x 128 columns for 2-byte
// elements, 16 x 64 for 4-byte). For a request whose common nest, after coalescing mergeable dims
// and folding the contiguous run into the element size, has L levels, with D engines available:
//
//   - G, the number of distinct nests the request needs: 1, times the product of the counts of
//     the L-4 smallest levels beyond four (a descriptor has four levels), times, for crossbar
//     transposes, the number of tile shapes (full tiles, a row edge, a column edge, the corner:
//     1 to 4; a descriptor's nest is uniform, so differently shaped tiles cannot share one).
//   - E = min(D, U, max(1, B/512)), the engines that must receive work when the work of B bytes
//     is balanced over U units (the count of the largest splittable level; a contiguous copy can
//     split at any element) and no engine gets less than MinShareBytes = 512 B.
//
// Any plan needs at least max(G, E) descriptors; G is counted before levels of more than 65535
// iterations are split (split16: factored into two levels, or peeled into two nests), which
// only adds nests. The planner emits at most G + E - 1 plus one per peeled level, and exactly
// max(G, E) when G == 1 and nothing was peeled, which covers: a contiguous copy (one descriptor per engine share), an
// N-D copy that keeps its innermost axis with <= 4 levels after coalescing, and a crossbar
// transpose whose tiled axes are multiples of the tile. Each engine's bytes are within one unit
// of the fair share total/E, engines differ by at most the largest unit (one tile), and no engine
// is idle while another has two units.
package dge

import (
	"github.com/tpbsim/tpbsim/isa"
)

// View is one tensor as the DGE sees it: the dge_shape working state {base, elem_size,
// num_elem[4], step_elem[4]} (seed 003 §4.5), dim 0 innermost, steps signed and in elements.
type View struct {
	Base     uint64 // device address (isa.Addr8 map: HBM below isa.DMALocalBase)
	ElemSize uint32 // bytes per element
	NumElem  [4]uint32
	StepElem [4]int64
}

// Elements is num_elem[0]*...*num_elem[3] (modulo 2^64; a validated request's views have at most
// 2^40).
func (v View) Elements() uint64 {
	n := uint64(1)
	for _, x := range v.NumElem {
		n *= uint64(x)
	}
	return n
}

// elementsWithin returns v's element count and whether it is at most max (Elements wraps past
// 2^64 for num_elem of 2^16 in every dim, so the count is bounded as it is multiplied).
func elementsWithin(v View, max uint64) (uint64, bool) {
	n := uint64(1)
	for _, x := range v.NumElem {
		if x != 0 && n > max/uint64(x) {
			return 0, false
		}
		n *= uint64(x)
	}
	return n, n <= max
}

// RowMajor returns the view of a row-major tensor of shape (numpy order, outermost first; at
// most 4 axes) at base.
func RowMajor(base uint64, elemSize uint32, shape []int) View {
	v := View{Base: base, ElemSize: elemSize, NumElem: [4]uint32{1, 1, 1, 1}, StepElem: [4]int64{1, 1, 1, 1}}
	st := int64(1)
	for k := 0; k < len(shape) && k < 4; k++ {
		a := len(shape) - 1 - k
		v.NumElem[k] = uint32(shape[a])
		v.StepElem[k] = st
		st *= int64(shape[a])
	}
	for k := len(shape); k < 4; k++ {
		v.StepElem[k] = st
	}
	return v
}

// Request is one reshape/transpose: the source view read in row-major order of its axes
// permuted by Perm, written in row-major order of the destination view. With Perm nil the
// element streams of Src and Dst simply correspond (a copy or a reshape).
type Request struct {
	Gen isa.Generation
	Src View
	Dst View
	// Perm is a numpy-style axis permutation of the source view's len(Perm) axes (axis 0 is the
	// outermost, view dim len(Perm)-1): destination axis k is source axis Perm[k]. Source dims
	// at and beyond len(Perm) must be 1. nil or empty means no permutation.
	Perm []int
	// In and Out are the element types (0 = raw bytes, no cast). A cast needs both.
	In, Out   isa.DType
	ComputeOp isa.DGEComputeOp
	// Semaphore is the completion semaphore (0..255) and SemIncrement the total the engines add
	// to it. SemIncrement 0, the zero value, is no completion semaphore: Semaphore is then not
	// used (every engine, dma.Job and sim signal only with an increment), so the zero Request
	// names none rather than semaphore 0. A request lowered from a DMA instruction carries the
	// word's semaphore and increment as they are; RequestSpec leaves both 0 when the spec names
	// no semaphore.
	Semaphore    int
	SemIncrement int
	SrcBound     isa.BoundCheckReg
	DstBound     isa.BoundCheckReg
	// DMACfg is the MEMCOPY_DMA_CFG local register (index 40): low 16 bits the DMA bitfield, high
	// 16 the queue bitfield (FACTS §C.7). 0 means every engine of the generation, queue 0.
	DMACfg uint32
	// CarveoutCfg is MEMCOPY_CARVEOUT_CFG (index 39): high 16 bits the max #descriptors per
	// memcopy, the ring depth wait_for_credit works against. 0 means DefaultRingDepth.
	CarveoutCfg uint32

	// linear marks a request lowered from an ISA DMA instruction: its on-chip addresses are
	// linear device addresses (FACTS §B.3), so a walk may run from one partition into the next
	// and RuleRowInPartition does not apply (the dma bounds check still refuses bytes outside
	// the active areas).
	linear bool
}

// DefaultRingDepth is the descriptor ring depth when MEMCOPY_CARVEOUT_CFG is 0 (INVENTED).
const DefaultRingDepth = 64

// Registers of the DGE local register file the planner reads (FACTS §C.7).
const (
	RegMemcopyCarveoutCfg = 39
	RegMemcopyDMACfg      = 40
)

// maxElements bounds a request's element count (2^40) so planning arithmetic stays exact.
const maxElements = 1 << 40

func (r *Request) validate() error {
	if _, err := FeaturesOf(r.Gen); err != nil {
		return err
	}
	for _, side := range []struct {
		name string
		v    View
	}{{"src", r.Src}, {"dst", r.Dst}} {
		if side.v.ElemSize == 0 || side.v.ElemSize > 64<<10 {
			return reqErr(RuleViewValid, side.name+": elem_size", "%s.elem_size = %d (legal 1..65536)", side.name, side.v.ElemSize)
		}
		for k, n := range side.v.NumElem {
			if n == 0 {
				return reqErr(RuleViewValid, side.name+": num_elem["+itoa(k)+"]", "%s.num_elem[%d] = 0", side.name, k)
			}
		}
		// The element count before the steps: a CLI shape's steps are its products, so an
		// oversized shape is named as such, not as a step the user never wrote.
		n, ok := elementsWithin(side.v, maxElements)
		if !ok {
			return reqErr(RuleViewValid, side.name+": num_elem", "%s.num_elem %v: more than 2^40 elements", side.name, side.v.NumElem)
		}
		for k, s := range side.v.StepElem {
			if s > 1<<40 || s < -(1<<40) {
				return reqErr(RuleViewValid, side.name+": step_elem["+itoa(k)+"]", "%s.step_elem[%d] = %d beyond +-2^40", side.name, k, s)
			}
		}
		if side.v.Base < isa.DMALocalBase {
			// An HBM view stays below the on-chip window (isa.Addr8's map) and inside 64 bits.
			if b, ok := bounds(side.v); !ok || b.Hi > isa.DMALocalBase {
				return reqErr(RuleViewValid, side.name+": base", "%s (%d elements from HBM address 0x%x) runs past the HBM window into the on-chip addresses at 0x%x",
					side.name, n, side.v.Base, uint64(isa.DMALocalBase))
			}
		}
	}
	if !r.linear {
		if err := rowInPartition("src", r.Src, r.Gen); err != nil {
			return err
		}
		if err := rowInPartition("dst", r.Dst, r.Gen); err != nil {
			return err
		}
	}
	for _, side := range []struct {
		name string
		v    View
	}{{"src", r.Src}, {"dst", r.Dst}} {
		if err := partitionsInRegion(side.name, side.v, r.Gen); err != nil {
			return err
		}
	}
	if r.Src.Elements() != r.Dst.Elements() {
		return reqErr(RuleElementCounts, "dst: num_elem", "src has %d elements, dst %d", r.Src.Elements(), r.Dst.Elements())
	}
	if len(r.Perm) > 4 {
		return reqErr(RulePermValid, "perm", "perm has %d axes (max 4)", len(r.Perm))
	}
	if len(r.Perm) > 0 {
		seen := [4]bool{}
		for _, p := range r.Perm {
			if p < 0 || p >= len(r.Perm) || seen[p] {
				return reqErr(RulePermValid, "perm", "perm %v is not a permutation of 0..%d", r.Perm, len(r.Perm)-1)
			}
			seen[p] = true
		}
		for k := len(r.Perm); k < 4; k++ {
			if r.Src.NumElem[k] != 1 {
				return reqErr(RulePermValid, "src: num_elem["+itoa(k)+"]", "perm %v has %d axes but src.num_elem[%d] = %d", r.Perm, len(r.Perm), k, r.Src.NumElem[k])
			}
		}
	}
	if (r.In == 0) != (r.Out == 0) {
		return reqErr(RuleDtypes, "out_dtype", "in and out dtypes must both be given or both omitted")
	}
	if r.In != 0 {
		for _, d := range []isa.DType{r.In, r.Out} {
			if !d.InGen(r.Gen) || d.Size() == 0 || d.Bits()%8 != 0 {
				return reqErr(RuleDtypes, dtypeField(d == r.In), "dtype %v is not a whole-byte element type on %v", d, r.Gen)
			}
		}
		if r.Src.ElemSize%uint32(r.In.Size()) != 0 || r.Dst.ElemSize%uint32(r.Out.Size()) != 0 ||
			r.Src.ElemSize/uint32(r.In.Size()) != r.Dst.ElemSize/uint32(r.Out.Size()) {
			return reqErr(RuleDtypes, "dst: elem_size", "src elem_size %d (%v) and dst elem_size %d (%v) hold different value counts", r.Src.ElemSize, r.In, r.Dst.ElemSize, r.Out)
		}
	} else if r.Src.ElemSize != r.Dst.ElemSize {
		return reqErr(RuleDtypes, "dst: elem_size", "src elem_size %d != dst elem_size %d without a cast", r.Src.ElemSize, r.Dst.ElemSize)
	}
	if r.ComputeOp > isa.DGEComputeMIN {
		return reqErr(RuleComputeOp, "compute_op", "compute_op %v", r.ComputeOp)
	}
	if r.ComputeOp != isa.DGEComputeNONE && r.In == 0 {
		return reqErr(RuleComputeOp, "in_dtype", "compute_op %v needs in/out dtypes", r.ComputeOp)
	}
	if r.In != r.Out || r.ComputeOp != isa.DGEComputeNONE {
		if err := r.cceRefusal(); err != nil {
			return err
		}
	}
	if r.Semaphore > 255 || r.Semaphore < 0 || r.SemIncrement < 0 || r.SemIncrement > 255 {
		return reqErr(RuleSemaphore, semField(r.Semaphore), "semaphore %d / sem_increment %d: legal semaphore 0..255, sem_increment 0..255 (0: no completion semaphore)", r.Semaphore, r.SemIncrement)
	}
	return r.checkDisjoint()
}

// cceRefusal applies to a cast or reduce-on-copy request the instruction layer's own
// predicates of the DMAMEMCPY CCE path, are_valid_memcpy_dtypes and is_valid_dma_cce (FACTS
// §C.2): the validator runs on the one-element DMAMEMCPY word with the request's dtypes,
// compute_op, start addresses and element sizes (the element counts are RuleElementCounts'),
// and its first violation of either rule is the refusal, under the ISA's rule, value and legal
// values with the path named as the request's field. So `tpbsim dge run` refuses what `tpbsim
// check` refuses of the word asking for the same copy (a 64-bit dtype, an element size that is
// not the dtype size, a start address off the dtype size), in the same words.
//
// A plain copy (no cast, no compute_op) is not on this path: its dtype only sizes the elements
// (the DGE moves it as raw bytes, planDirect2D drops a plain word's dtypes, and the DMA engine
// copies raw bytes), so a plain copy of 64-bit values is the DMAMEMCPY word that names any
// dtype is_valid_dtype allows with an 8-byte elem_size, not a copy the hardware refuses.
func (r *Request) cceRefusal() error {
	es := func(n uint32) uint16 { return uint16(n) } // 64 KiB (validated maximum) is 0, "0 means 64 KiB"
	w := &isa.DMADirect2D{Header: isa.Header{Opcode: isa.OpDMAMEMCPY, InstWordLen: isa.InstWordLen}, ComputeOp: r.ComputeOp,
		SrcStartAddr: isa.Addr8(r.Src.Base), SrcStepElem: [2]int32{1, 1}, SrcNumElem: [2]uint16{1, 1}, SrcElemSize: es(r.Src.ElemSize),
		DstStartAddr: isa.Addr8(r.Dst.Base), DstStepElem: [2]int32{1, 1}, DstNumElem: [2]uint16{1, 1}, DstElemSize: es(r.Dst.ElemSize),
		InDtype: r.In, OutDtype: r.Out}
	for _, v := range isa.Validate(w, r.Gen) {
		if v.Rule == isa.RuleAreValidMemcpyDtypes || v.Rule == isa.RuleIsValidDMACCE {
			return isaError(v, cceRequestPath[v.Field])
		}
	}
	return nil
}

// cceRequestPath names the request's field for each DMAMEMCPY field cceRefusal's rules check.
var cceRequestPath = map[string]string{
	"in_dtype": "in_dtype", "out_dtype": "out_dtype", "compute_op": "compute_op",
	"src_elem_size": "src: elem_size", "dst_elem_size": "dst: elem_size",
	"src_start_addr": "src: base", "dst_start_addr": "dst: base", "dst_num_elem": "dst: num_elem",
}

// rowInPartition refuses an on-chip view whose row does not fit in its partition's active area
// (RuleRowInPartition). Each dim's byte step is split into whole partitions and a remainder of
// the same sign (|remainder| < the partition stride); the row is what the remainders walk. Every
// element lies in its start partition plus the partition parts at the byte offset plus the
// remainder parts, so the view stays inside partitions when offset + the most negative reach >= 0
// and offset + the most positive reach + elem_size <= the active size.
func rowInPartition(name string, v View, g isa.Generation) error {
	rg := regionOf(v.Base, g)
	if !rg.onChip {
		return nil
	}
	geo := g.Geometry()
	active := geo.StateBufPartitionActive
	what := "SBUF"
	if !rg.sbuf && rg.stride == geo.PSUMPartitionSize && rg.base == geo.PSUMOffset && geo.PSUMSize > 0 {
		active, what = geo.PSUMPartitionActive, "PSUM"
	}
	stride := int64(rg.stride)
	off := int64((rg.local - rg.base) % rg.stride)
	lo, hi := off, off+int64(v.ElemSize)
	for k, n := range v.NumElem {
		if n <= 1 {
			continue
		}
		rem := (v.StepElem[k] * int64(v.ElemSize)) % stride // same sign as the step (Go's %)
		if rem > 0 {
			hi += int64(n-1) * rem
		} else {
			lo += int64(n-1) * rem
		}
	}
	if lo < 0 || hi > int64(active) {
		return reqErr(RuleRowInPartition, name+": step_elem", "%s at %s partition offset 0x%x: its row spans bytes [%d, %d) of the partition, outside the %d-byte active area (a row may not spill into the next partition)",
			name, what, off, lo, hi, active)
	}
	return nil
}

// permuted returns the source view with its dims reordered so that walking it in dim order
// (dim 0 innermost) visits the source elements in row-major order of the destination axes:
// "transpose = permute the strides" (seed 003 §4.5).
func permuted(src View, perm []int) View {
	if len(perm) == 0 {
		return src
	}
	r := len(perm)
	out := src
	for j := 0; j < r; j++ {
		from := r - 1 - perm[r-1-j]
		out.NumElem[j] = src.NumElem[from]
		out.StepElem[j] = src.StepElem[from]
	}
	return out
}

func isIdentity(perm []int) bool {
	for i, p := range perm {
		if p != i {
			return false
		}
	}
	return true
}

// LayoutView is the view of a tensor of shape (numpy order) at base on generation g as the CLI
// and NKI lay it out: row-major in HBM; in SBUF/PSUM the first axis runs over partitions (step =
// the partition stride) and the rest of each row is contiguous from the byte offset.
func LayoutView(base uint64, elemSize uint32, shape []int, g isa.Generation) (View, error) {
	if _, err := FeaturesOf(g); err != nil {
		return View{}, err
	}
	if len(shape) == 0 || len(shape) > 4 {
		return View{}, reqErr(RuleViewValid, "shape", "shape %v: want 1 to 4 axes", shape)
	}
	for _, d := range shape {
		if d <= 0 || uint64(d) > 1<<32-1 {
			return View{}, reqErr(RuleViewValid, "shape", "shape %v: every axis must be 1..2^32-1", shape)
		}
	}
	if elemSize == 0 {
		return View{}, reqErr(RuleViewValid, "elem_size", "elem_size 0")
	}
	v := RowMajor(base, elemSize, shape)
	rg := regionOf(base, g)
	if !rg.onChip {
		return v, nil
	}
	if rg.stride%elemSize != 0 {
		return View{}, reqErr(RuleViewValid, "elem_size", "partition stride %d is not a multiple of elem_size %d", rg.stride, elemSize)
	}
	geo := g.Geometry()
	nparts := geo.StateBufNumPartitions
	if !rg.sbuf {
		nparts = geo.PSUMNumPartitions
	}
	first := int((rg.local - rg.base) / rg.stride)
	if first+shape[0] > nparts {
		return View{}, reqErr(RuleViewValid, "shape[0]", "shape %v at partition %d: the first axis runs over partitions and %d + %d passes the %d partitions", shape, first, first, shape[0], nparts)
	}
	k := len(shape) - 1 // view dim of numpy axis 0
	v.StepElem[k] = int64(rg.stride / elemSize)
	for j := k + 1; j < 4; j++ {
		v.StepElem[j] = v.StepElem[k] * int64(shape[0])
	}
	if err := rowInPartition("tensor", v, g); err != nil {
		return View{}, err
	}
	return v, nil
}

// PermutedShape is shape transposed by perm (numpy: out[k] = shape[perm[k]]).
func PermutedShape(shape, perm []int) []int {
	if len(perm) == 0 {
		return append([]int{}, shape...)
	}
	out := make([]int, len(shape))
	for k, p := range perm {
		out[k] = shape[p]
	}
	return out
}

// TensorRequest builds the request the CLI describes: the row-major tensor of shape at src,
// written permuted by perm (row-major, or partition-major on chip) at dst, dtype d throughout.
func TensorRequest(g isa.Generation, src, dst uint64, shape, perm []int, d isa.DType) (Request, error) {
	if _, err := FeaturesOf(g); err != nil {
		return Request{}, err
	}
	es := uint32(d.Size())
	if es == 0 || d.Bits()%8 != 0 {
		return Request{}, reqErr(RuleDtypes, "dtype", "dtype %v has no whole-byte element", d)
	}
	if len(perm) > 0 && len(perm) != len(shape) {
		return Request{}, reqErr(RulePermValid, "perm", "perm %v has %d axes, shape %v has %d", perm, len(perm), shape, len(shape))
	}
	seen := map[int]bool{}
	for _, p := range perm {
		if p < 0 || p >= len(perm) || seen[p] {
			return Request{}, reqErr(RulePermValid, "perm", "perm %v is not a permutation of 0..%d", perm, len(perm)-1)
		}
		seen[p] = true
	}
	sv, err := LayoutView(src, es, shape, g)
	if err != nil {
		return Request{}, err
	}
	dv, err := LayoutView(dst, es, PermutedShape(shape, perm), g)
	if err != nil {
		return Request{}, err
	}
	req := Request{Gen: g, Src: sv, Dst: dv, Perm: perm, In: d, Out: d}
	if len(perm) == 0 {
		req.Perm = nil
	}
	return req, nil
}
