package kernel

import (
	"fmt"
	"strconv"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// dim is one axis of a resolved walk: n positions, step bytes apart (device or partition bytes).
type dim struct {
	n    int64
	step int64
}

// side is a view resolved against its tensor's placement.
// about names the view for messages: its tensor's name and the view's shape, e.g. "out" [64 64].
func (s *side) about() string {
	if s.t == nil {
		return fmt.Sprint(s.shape)
	}
	return fmt.Sprintf("%s %v", s.name(), s.shape)
}

// name is the view's tensor's name, quoted, for messages.
func (s *side) name() string {
	if s.t == nil {
		return "?"
	}
	return strconv.Quote(s.t.Name)
}

// dtypeName is the view's dtype as the kernel names it (float16), for messages.
func (s *side) dtypeName() string {
	if s.t == nil || s.t.DType == "" {
		return s.dtype.String()
	}
	return s.t.DType
}

type side struct {
	v      *View
	t      *Tensor
	pl     *Placement
	dtype  isa.DType
	es     int
	onchip bool
	// on-chip: element 0 is at partition part0, byte off0 of the partition; the view's partition
	// axis walks nparts partitions pstep apart (nparts 1 when it has none); free holds the other
	// axes (steps in bytes inside the partition row), outermost first.
	part0  int
	off0   uint64
	nparts int
	pstep  int
	free   []dim
	// every axis, outermost first, steps in device bytes (for DMA), and element 0's device
	// address.
	dims []dim
	base uint64
	// shape is the view's shape (nums), for messages and NKI shape rules.
	shape []int
}

// elems is the number of elements the side walks.
func (s *side) elems() int64 {
	n := int64(1)
	for _, d := range s.dims {
		n *= d.n
	}
	return n
}

// freeElems is the number of elements per partition.
func (s *side) freeElems() int64 {
	n := int64(1)
	for _, d := range s.free {
		n *= d.n
	}
	return n
}

// where names the view's start in the user's address syntax.
func (s *side) where() string {
	if !s.onchip {
		return fmt.Sprintf("hbm:0x%x", s.base)
	}
	return fmt.Sprintf("%s:%d:0x%x", s.pl.Space, s.part0, s.off0)
}

// resolve maps view v (operand arg of call c) onto memory.
func (l *lowerer) resolve(c *Call, arg string, v *View) (*side, error) {
	t := &l.tensors[v.Tensor]
	pl := l.placement(v.Tensor)
	if pl == nil {
		return nil, callErr(c, fault.ErrInvalid, arg, "kernel.tensor_placed", "", "tensor %q is not placed", t.Name)
	}
	s := &side{v: v, t: t, pl: pl, dtype: pl.DType, es: pl.ES, onchip: pl.Space != isa.SpaceHBM, shape: v.Shape()}
	total := t.Elements()
	// The whole walk must stay inside the tensor: the flat index range of the view.
	lo, hi := v.Offset, v.Offset
	for _, p := range v.Pattern {
		if p[1] > 1 {
			if p[0] < 0 {
				lo += p[0] * (p[1] - 1)
			} else {
				hi += p[0] * (p[1] - 1)
			}
		}
	}
	if v.Indirect == nil && (lo < 0 || hi >= total) {
		return nil, callErr(c, fault.ErrInvalid, arg, "kernel.view_in_tensor", fmt.Sprintf("flat elements 0..%d of %v", total-1, t.Shape),
			"the view of %q %v walks flat elements %d..%d", t.Name, t.Shape, lo, hi)
	}
	es := int64(s.es)
	if !s.onchip {
		s.base = pl.Addr + uint64(v.Offset*es)
		for _, p := range v.Pattern {
			s.dims = append(s.dims, dim{n: p[1], step: p[0] * es})
		}
		return s, nil
	}
	F := pl.FreeElems
	stride := int64(l.geo.StateBufPartitionSize)
	if pl.Space == isa.SpacePSUM {
		stride = int64(l.geo.PSUMPartitionSize)
	}
	p0, f0 := v.Offset/F, v.Offset%F
	s.part0 = pl.Partition + int(p0)
	s.off0 = pl.Offset + uint64(f0*es)
	s.nparts, s.pstep = 1, 1
	flo, fhi := f0, f0
	for i, p := range v.Pattern {
		step, n := p[0], p[1]
		if n == 1 {
			continue
		}
		if step != 0 && step%F == 0 {
			if s.nparts > 1 {
				return nil, callErr(c, fault.ErrInvalid, arg, "kernel.view_one_partition_axis", "one axis that walks partitions",
					"axes walk partitions twice (axis %d of %v)", i, s.shape)
			}
			s.nparts, s.pstep = int(n), int(step/F)
			s.dims = append(s.dims, dim{n: n, step: step / F * stride})
			continue
		}
		if step < 0 {
			flo += step * (n - 1)
		} else {
			fhi += step * (n - 1)
		}
		s.free = append(s.free, dim{n: n, step: step * es})
		s.dims = append(s.dims, dim{n: n, step: step * es})
	}
	if flo < 0 || fhi >= F {
		return nil, callErr(c, fault.ErrInvalid, arg, "kernel.view_inside_partition", "free axes that stay inside one partition row",
			"a free axis of the view of %q %v crosses a partition boundary (row elements %d..%d of %d)", t.Name, s.shape, flo, fhi, F)
	}
	if lastP := s.part0 + (s.nparts-1)*s.pstep; min(s.part0, lastP) < pl.Partition || max(s.part0, lastP) >= pl.Partition+pl.Partitions {
		return nil, callErr(c, fault.ErrInvalid, arg, "kernel.view_in_tensor", fmt.Sprintf("partitions 0..%d of %q", pl.Partitions-1, t.Name),
			"the view walks partitions %d..%d of the tensor", min(s.part0, lastP)-pl.Partition, max(s.part0, lastP)-pl.Partition)
	}
	s.base = isa.DMALocalBase + uint64(stride)*uint64(s.part0) + s.off0
	if pl.Space == isa.SpacePSUM {
		s.base += uint64(l.geo.PSUMOffset)
	}
	return s, nil
}

// chipAddr is the on-chip byte address (ADDR4) of partition p, byte off of the side's region.
func (l *lowerer) chipAddr(s *side, p int, off uint64) uint32 {
	if s.pl.Space == isa.SpacePSUM {
		return l.geo.PSUMOffset + uint32(p)*l.geo.PSUMPartitionSize + uint32(off)
	}
	return uint32(p)*l.geo.StateBufPartitionSize + uint32(off)
}
