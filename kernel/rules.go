package kernel

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// NKI-level constraint checks per release (NKI.md §2-§3). The public rules
// changed between releases; a ruleSet holds those of one release. Every violation names the
// call's file:line, the argument, the rule and what would be legal, and the release.

// NKIVersions lists the releases tpbsim knows, oldest first; NewestNKIVersion is the default.
var NKIVersions = []string{"2.21", "2.22", "2.23", "2.24", "2.25", "2.26", "2.27", "2.28", "2.29", "2.30", "2.31", "2.32"}

// NewestNKIVersion is the release whose rules apply when none is named.
const NewestNKIVersion = "2.32"

type ruleSet struct {
	version string
	minor   int // 2.x
}

// CheckNKIVersion reports whether tpbsim knows release v ("" = the newest).
func CheckNKIVersion(v string) error {
	_, err := rulesFor(v)
	return err
}

func rulesFor(v string) (*ruleSet, error) {
	if v == "" {
		v = NewestNKIVersion
	}
	for _, k := range NKIVersions {
		if k == v {
			m, _ := strconv.Atoi(strings.TrimPrefix(k, "2."))
			return &ruleSet{version: k, minor: m}, nil
		}
	}
	return nil, &Error{Kind: fault.ErrInvalid, Malformed: true, Arg: "nki_version", Rule: "kernel.nki_version", Msg: fmt.Sprintf("%q", v), Legal: strings.Join(NKIVersions, ", ")}
}

func (r *ruleSet) at(lo, hi int) bool { return r.minor >= lo && (hi == 0 || r.minor <= hi) }

// tag names the releases a rule holds in, for messages.
func tag(lo, hi int) string {
	switch {
	case hi == 0:
		return fmt.Sprintf("NKI 2.%d and later", lo)
	case lo == hi:
		return fmt.Sprintf("NKI 2.%d", lo)
	}
	return fmt.Sprintf("NKI 2.%d-2.%d", lo, hi)
}

func (r *ruleSet) fail(c *Call, arg, rule string, lo, hi int, legal, format string, a ...any) error {
	if lo > 0 || hi > 0 {
		legal += " (" + tag(lo, hi) + ")"
	}
	return callErr(c, fault.ErrInvalid, arg, rule, legal, format, a...)
}

// check applies the release's rules for call c.
func (r *ruleSet) check(l *lowerer, c *Call) error {
	switch c.Op {
	case OpDMACopy:
		return r.checkDMACopy(l, c)
	case OpDMATranspose:
		return r.checkDMATranspose(l, c)
	case OpStreamShuffle:
		return r.checkShuffle(l, c)
	case OpTensorReduce:
		return r.checkReduce(l, c)
	}
	return nil
}

func viewBuffer(l *lowerer, v *View) string { return l.tensors[v.Tensor].Buffer }

func onChipBuf(b string) bool { return b == BufSBUF || b == BufPSUM }

func (r *ruleSet) checkDMACopy(l *lowerer, c *Call) error {
	indirect := c.Src.Indirect != nil || c.Dst.Indirect != nil
	if c.OOBMode == "skip" && !indirect {
		return r.fail(c, "oob_mode", "nki.dma_copy.oob_skip_indirect", 0, 0, "oob_mode=error without an indirect index", "oob_mode=skip on a direct DMA")
	}
	if c.DstRMWOp != nil && c.OOBMode == "skip" {
		return r.fail(c, "oob_mode", "nki.dma_copy.rmw_oob_error", 0, 0, "oob_mode=error with dst_rmw_op", "dst_rmw_op with oob_mode=skip")
	}
	switch c.OOBMode {
	case "", "error", "skip":
	default:
		return r.fail(c, "oob_mode", "nki.oob_mode", 0, 0, "error or skip", "%q", c.OOBMode)
	}
	if indirect && c.DGEMode != nil && *c.DGEMode == "hwdge" {
		return r.fail(c, "dge_mode", "nki.dma_copy.indirect_swdge", 0, 0, "swdge (or unknown) for an indirect DMA", "dge_mode=hwdge")
	}
	return nil
}

func (r *ruleSet) checkDMATranspose(l *lowerer, c *Call) error {
	src, dst := c.Src, c.Dst
	shape := src.Shape()
	t := &l.tensors[src.Tensor]
	d, _ := dtypeOf(t, l.g)
	rank := len(shape)
	if c.Axes != nil {
		if want := transposePerm(rank); want == nil || !sameInts(want, c.Axes) {
			return r.fail(c, "axes", "nki.dma_transpose.axes", 0, 0, fmt.Sprintf("the fixed permutation of a %d-D src: %v", rank, transposePerm(rank)), "axes %v", c.Axes)
		}
	}
	if viewBuffer(l, dst) != BufSBUF {
		return r.fail(c, "dst", "nki.dma_transpose.dst_sbuf", 0, 0, "a dst in SBUF", "dst in %s", viewBuffer(l, dst))
	}
	if c.OOBMode == "skip" && src.Indirect == nil {
		return r.fail(c, "oob_mode", "nki.dma_transpose.oob_skip_indirect", 32, 0, "oob_mode=skip only with indirect indexing", "oob_mode=skip on a direct transpose")
	}
	mode := ""
	if c.DGEMode != nil {
		mode = *c.DGEMode
	}
	if src.Indirect != nil {
		if f, _ := l.g.Features(); !f.GatherTranspose { // the lowering checked l.g
			return r.fail(c, "src", "nki.dma_transpose.indirect_gen", 0, 0, "TRN2 (CAYMAN) or newer", "an indirect dma_transpose on %v", l.g)
		}
		if mode == "hwdge" {
			return r.fail(c, "dge_mode", "nki.dma_transpose.indirect_swdge", 0, 0, "swdge or unknown for an indirect src", "dge_mode=hwdge")
		}
		if !r.at(28, 0) {
			return r.fail(c, "src", "nki.dma_transpose.indirect_release", 28, 0, "an indirect src", "NKI %s has no indirect dma_transpose", r.version)
		}
		if viewBuffer(l, src) != BufHBM && viewBuffer(l, src) != BufSharedHBM && viewBuffer(l, src) != BufPrivateHBM {
			return r.fail(c, "src", "nki.dma_transpose.indirect_src_hbm", 28, 0, "a src in HBM", "src in %s", viewBuffer(l, src))
		}
		if d.Size() != 2 {
			return r.fail(c, "src", "nki.dma_transpose.dtype_2byte", 28, 0, "a 2-byte dtype", "%s", t.DType)
		}
		iv := &src.Indirect.Index
		it := &l.tensors[iv.Tensor]
		ish := iv.Shape()
		if len(ish) != 2 || it.DType != "uint32" || it.Buffer != BufSBUF {
			return r.fail(c, "src.vector_offset", "nki.dma_transpose.indices", 28, 0, "2-D uint32 indices in SBUF", "indices %v %s in %s", ish, it.DType, it.Buffer)
		}
		if r.at(28, 28) {
			if rank != 3 || shape[rank-1] != 128 || ish[1] != 1 {
				return r.fail(c, "src", "nki.dma_transpose.indirect_2_28", 28, 28, "a 3-D src whose last axis is 128, one index column", "%q %v, indices %v", t.Name, shape, ish)
			}
		} else {
			if rank == 4 && shape[1] != 1 && shape[2] != 1 {
				return r.fail(c, "src", "nki.dma_transpose.indirect_4d", 29, 0, "a 4-D src with dim 1 or dim 2 equal to 1", "%q %v", t.Name, shape)
			}
			if shape[rank-1] > 128 {
				return r.fail(c, "src", "nki.dma_transpose.indirect_row", 29, 0, "src.shape[-1] <= 128", "%q %v", t.Name, shape)
			}
		}
		if ish[0]*ish[1] < shape[0] {
			return r.fail(c, "src.vector_offset", "nki.dma_transpose.index_count", 28, 0, fmt.Sprintf("indices.shape[0] * indices.shape[1] >= src.shape[0] = %d", shape[0]), "indices %v", ish)
		}
		if shape[0]%16 != 0 {
			return r.fail(c, "src", "nki.dma_transpose.indirect_rows16", 28, 0, "src.shape[0] a multiple of 16", "%q %v", t.Name, shape)
		}
		if ish[0] < 16 || ish[0] > 128 || ish[0]%16 != 0 {
			return r.fail(c, "src.vector_offset", "nki.dma_transpose.index_partitions", 28, 0, "indices.shape[0] in [16, 128], a multiple of 16", "indices %v", ish)
		}
		if ish[1] > 1 && ish[0] != 128 {
			return r.fail(c, "src.vector_offset", "nki.dma_transpose.index_columns", 28, 0, "indices.shape[0] == 128 when indices.shape[1] > 1", "indices %v", ish)
		}
		return nil
	}
	if mode != "hwdge" {
		// The published shape and dtype rules are the hardware DGE's; with dge_mode unknown the
		// compiler picks the path, and the SDK's own test transposes an fp32 [2048, 128] tensor
		// there (NKI.md §3; Provenance kernel.dma_transpose_default_path).
		return nil
	}
	switch {
	case r.at(27, 31):
		if shape[0] != 16 {
			return r.fail(c, "src", "nki.dma_transpose.src_rows", 27, 31, "src.shape[0] == 16", "%q %v", t.Name, shape)
		}
		if shape[rank-1]%128 != 0 {
			return r.fail(c, "src", "nki.dma_transpose.src_cols", 27, 31, "src.shape[-1] a multiple of 128", "%q %v", t.Name, shape)
		}
		if d.Size() != 2 {
			return r.fail(c, "src", "nki.dma_transpose.dtype_2byte", 27, 31, "a 2-byte dtype", "%s", t.DType)
		}
	case r.at(32, 0):
		if rank == 2 && shape[0] != 16 {
			return r.fail(c, "src", "nki.dma_transpose.src_rows", 32, 0, "src.shape[0] == 16 for a 2-D src", "%q %v", t.Name, shape)
		}
		if rank >= 3 {
			ok := false
			for _, k := range []int{1, 2, 4, 8, 16} {
				ok = ok || shape[0] == k
			}
			if !ok || (shape[0]*shape[rank-2])%16 != 0 {
				return r.fail(c, "src", "nki.dma_transpose.src_rows", 32, 0, "src.shape[0] in {1, 2, 4, 8, 16} and src.shape[0] * src.shape[-2] a multiple of 16", "%q %v", t.Name, shape)
			}
		}
		if shape[rank-1] > 128 {
			return r.fail(c, "src", "nki.dma_transpose.src_cols", 32, 0, "src.shape[-1] <= 128", "%q %v", t.Name, shape)
		}
		if d.Size() != 2 {
			return r.fail(c, "src", "nki.dma_transpose.dtype_2byte", 32, 0, "a 2-byte dtype", "%s", t.DType)
		}
	}
	return nil
}

func (r *ruleSet) checkShuffle(l *lowerer, c *Call) error {
	sp, dp := c.Src.Shape()[0], c.Dst.Shape()[0]
	sPart := partitionOf(l, c.Src)
	dPart := partitionOf(l, c.Dst)
	if r.at(0, 22) {
		if sp != dp || (sp != 32 && sp != 64 && sp != 96 && sp != 128) {
			return r.fail(c, "src", "nki.nc_stream_shuffle.partitions", 0, 22, "src and dst with the same 32, 64, 96 or 128 partitions", "src %d, dst %d partitions", sp, dp)
		}
		return nil
	}
	num := (max(sp, dp) + 31) / 32 * 32
	var legal []int
	switch {
	case num >= 96:
		legal = []int{0}
	case num == 64:
		legal = []int{0, 64}
	default:
		legal = []int{0, 32, 64, 96}
	}
	for _, x := range []struct {
		arg string
		p   int
	}{{"src", sPart}, {"dst", dPart}} {
		ok := false
		for _, s := range legal {
			ok = ok || s == x.p
		}
		if !ok {
			return r.fail(c, x.arg, "nki.nc_stream_shuffle.start_partition", 23, 0, fmt.Sprintf("a start partition in %v for %d active partitions", legal, num), "%s starts at partition %d", x.arg, x.p)
		}
	}
	return nil
}

// partitionOf is the absolute start partition of an on-chip view (-1 for HBM or unplaced).
func partitionOf(l *lowerer, v *View) int {
	pl := l.placement(v.Tensor)
	if pl == nil || pl.Space == isa.SpaceHBM {
		return -1
	}
	return pl.Partition + int(v.Offset/pl.FreeElems)
}

func (r *ruleSet) checkReduce(l *lowerer, c *Call) error {
	rank := len(c.Data.Pattern)
	var axes []int
	for _, a := range c.Axis {
		if a < 0 {
			a += rank
		}
		axes = append(axes, a)
	}
	sorted := append([]int(nil), axes...)
	for i := range sorted {
		for j := i + 1; j < len(sorted); j++ {
			if sorted[j] < sorted[i] {
				sorted[i], sorted[j] = sorted[j], sorted[i]
			}
		}
	}
	consecutive := true
	for i := 1; i < len(sorted); i++ {
		consecutive = consecutive && sorted[i] == sorted[i-1]+1
	}
	if len(sorted) == 0 {
		return nil // the lowering names it
	}
	if r.at(29, 0) {
		if !consecutive || sorted[len(sorted)-1] != rank-1 {
			var want []string
			for k := rank - 1; k >= 1; k-- {
				var s []string
				for a := k; a < rank; a++ {
					s = append(s, strconv.Itoa(a))
				}
				want = append(want, "("+strings.Join(s, ", ")+")")
			}
			return r.fail(c, "axis", "nki.tensor_reduce.axes_last", 29, 0, "the last contiguous free axes ending at the final one: "+strings.Join(want, ", "), "axis %v of a %d-D tile", c.Axis, rank)
		}
		return nil
	}
	if !consecutive || sorted[0] != 1 {
		return r.fail(c, "axis", "nki.tensor_reduce.axes_from_1", 0, 28, "consecutive axes that contain axis 1: [1], [1, 2], ...", "axis %v", c.Axis)
	}
	return nil
}
