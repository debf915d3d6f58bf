package mem

import (
	"fmt"
	"math"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Pattern is a resolved TENSOR4D access over num_active_channels partitions (DESIGN.md §1,
// FACTS §B.4): for channel c it walks partition Start.Partition + c, dim 0 innermost, element
// strides signed. Built by Memory.Pattern, which has checked the whole footprint; walking it
// cannot go out of bounds.
type Pattern struct {
	Start    Loc
	Addr     uint32 // on-chip start address
	ElemSize int
	Channels int
	StepElem [4]int64
	NumElem  [4]int
	Write    bool

	lo, hi int64 // byte footprint in each partition, [lo, hi)
	// merged loop nest, innermost first: nd dims with counts and byte strides
	nd     int
	num    [4]int
	stride [4]int64
}

// Span is the bounding box of an access: bytes [Lo, Hi) of partitions
// [FirstPartition, FirstPartition+NumPartitions) of Region. Traces report it.
type Span struct {
	Region         Region
	FirstPartition int
	NumPartitions  int
	Lo, Hi         uint32
}

// Empty reports a span that touches nothing.
func (s Span) Empty() bool { return s.NumPartitions == 0 || s.Hi <= s.Lo }

// Overlaps reports whether two spans share a byte.
func (s Span) Overlaps(t Span) bool {
	if s.Empty() || t.Empty() || s.Region != t.Region {
		return false
	}
	return s.FirstPartition < t.FirstPartition+t.NumPartitions && t.FirstPartition < s.FirstPartition+s.NumPartitions &&
		s.Lo < t.Hi && t.Lo < s.Hi
}

func (s Span) String() string {
	return fmt.Sprintf("%s[p%d..%d][0x%x..0x%x)", s.Region, s.FirstPartition, s.FirstPartition+s.NumPartitions-1, s.Lo, s.Hi)
}

// MaxPatternBytes bounds the bytes one pattern walks over all its channels (1 TiB, or the
// largest int on a 32-bit host): below Go's largest allocation, so a buffer of the whole walk
// can be asked for without a panic. Bounding real work is the caller's (sim.Config.MaxElements).
const MaxPatternBytes = min(1<<40, math.MaxInt)

// Pattern resolves t for elements of elemSize bytes over channels partitions and checks its
// whole footprint: the start address is immediate and in SBUF or PSUM, start partition +
// channels fits, every byte of every walked element of every channel is in the active area, and
// a PSUM write uses 4-byte elements. The error (*Error) names the first offending address.
func (m *Memory) Pattern(t isa.Tensor4D, elemSize, channels int, write bool) (*Pattern, error) {
	if elemSize <= 0 || elemSize > 8 {
		return nil, errf(fault.ErrBounds, RulePatternElemSize, uint64(t.StartAddr), "element size %d bytes is not modelled", elemSize)
	}
	loc, err := m.Resolve(t.StartAddr)
	if err != nil {
		return nil, err
	}
	p := &Pattern{Start: loc, Addr: t.StartAddr.ByteAddr(), ElemSize: elemSize, Channels: channels, Write: write}
	for d := 0; d < 4; d++ {
		p.StepElem[d] = int64(t.StepElem[d])
		p.NumElem[d] = int(t.NumElem[d])
	}
	b := m.bank(loc.Region)
	if channels < 0 || loc.Partition+channels > b.n {
		return nil, errf(fault.ErrBounds, RuleStartAddrActiveChannels, uint64(p.Addr),
			"start partition %d + %d channels passes the %d partitions of %v", loc.Partition, channels, b.n, loc.Region)
	}
	if write && loc.Region == PSUM && elemSize != 4 {
		return nil, errf(ErrPSUMWrite, RulePSUMWrite4ByteDtype, uint64(p.Addr),
			"PSUM writes need a 4-byte dtype, element size is %d", elemSize)
	}
	// Elements, Bytes and the executors' channel-major buffers are ints and Go slices: refuse a
	// walk (all-zero steps fit any count in bounds) whose bytes over all channels pass
	// MaxPatternBytes, before a count wraps or an allocation panics.
	if n := t.ElementCount(); n > MaxPatternBytes/uint64(elemSize)/uint64(max(channels, 1)) {
		return nil, errf(fault.ErrBounds, RulePatternSizeModelled, uint64(t.StartAddr),
			"pattern walks %d elements of %d bytes on %d channels: more than tpbsim's %d-byte limit", n, elemSize, channels, uint64(MaxPatternBytes))
	}
	es := int64(elemSize)
	off := int64(loc.Offset)
	p.lo, p.hi = off, off+es
	if p.Elements() == 0 {
		p.lo, p.hi = off, off
		return p, nil
	}
	for d := 0; d < 4; d++ {
		ext := int64(p.NumElem[d]-1) * p.StepElem[d] * es
		if ext < 0 {
			p.lo += ext
		} else {
			p.hi += ext
		}
	}
	if p.lo < 0 || p.hi > int64(b.active) {
		bad := p.lo
		if p.lo >= 0 {
			bad = p.hi - 1
		}
		return nil, errf(fault.ErrBounds, RulePatternInActiveArea, uint64(int64(b.base)+int64(loc.Partition)*int64(b.stride)+bad),
			"%v pattern (step %v num %v, %d-byte elements) reaches partition offset %d; the active area is [0, 0x%x)",
			loc.Region, t.StepElem, t.NumElem, elemSize, bad, b.active)
	}
	// Merged loop nest: drop count-1 dims; fold dim d+1 into d when it continues it.
	for d := 0; d < 4; d++ {
		n, s := p.NumElem[d], p.StepElem[d]*es
		if n == 1 {
			continue
		}
		if p.nd > 0 && p.stride[p.nd-1]*int64(p.num[p.nd-1]) == s {
			p.num[p.nd-1] *= n
			continue
		}
		p.num[p.nd], p.stride[p.nd] = n, s
		p.nd++
	}
	if p.nd == 0 {
		p.nd, p.num[0], p.stride[0] = 1, 1, es
	}
	return p, nil
}

// Elements is the element count of one channel's walk (t4d_element_count).
func (p *Pattern) Elements() int {
	return p.NumElem[0] * p.NumElem[1] * p.NumElem[2] * p.NumElem[3]
}

// Bytes is the byte count of one channel's walk.
func (p *Pattern) Bytes() int { return p.Elements() * p.ElemSize }

// Span is the access's bounding box.
func (p *Pattern) Span() Span {
	if p.Elements() == 0 {
		return Span{Region: p.Start.Region, FirstPartition: p.Start.Partition}
	}
	return Span{Region: p.Start.Region, FirstPartition: p.Start.Partition, NumPartitions: p.Channels,
		Lo: uint32(p.lo), Hi: uint32(p.hi)}
}

// Contiguous reports a walk that is one forward run of Elements()*ElemSize bytes; then
// Offset() is its first byte.
func (p *Pattern) Contiguous() bool {
	return p.nd == 1 && p.stride[0] == int64(p.ElemSize)
}

// Offset is the byte offset of the first walked element inside each partition.
func (p *Pattern) Offset() int { return int(p.Start.Offset) }

// Partition is the partition channel c walks.
func (p *Pattern) Partition(c int) int { return p.Start.Partition + c }

// Lines calls fn for each innermost line of the merged loop nest, in walk order: n elements
// starting at byte offset off, stride bytes apart (stride == ElemSize means one contiguous run).
// Run-wise walking keeps the cost per line, not per element.
func (p *Pattern) Lines(fn func(off int64, n int, stride int64)) {
	if p.Elements() == 0 {
		return
	}
	base := int64(p.Start.Offset)
	n0, s0 := p.num[0], p.stride[0]
	switch p.nd {
	case 1:
		fn(base, n0, s0)
	case 2:
		for i := 0; i < p.num[1]; i++ {
			fn(base+int64(i)*p.stride[1], n0, s0)
		}
	case 3:
		for k := 0; k < p.num[2]; k++ {
			for i := 0; i < p.num[1]; i++ {
				fn(base+int64(k)*p.stride[2]+int64(i)*p.stride[1], n0, s0)
			}
		}
	default:
		for l := 0; l < p.num[3]; l++ {
			for k := 0; k < p.num[2]; k++ {
				for i := 0; i < p.num[1]; i++ {
					fn(base+int64(l)*p.stride[3]+int64(k)*p.stride[2]+int64(i)*p.stride[1], n0, s0)
				}
			}
		}
	}
}

// Gather copies channel c's walk, in walk order, into buf (Bytes() long), run by run. With
// TrackUninit it first checks that every byte read was written.
func (m *Memory) Gather(p *Pattern, c int, buf []byte) error {
	part := m.Partition(p.Start.Region, p.Partition(c))
	if m.opts.TrackUninit {
		var err error
		p.Lines(func(off int64, n int, stride int64) {
			if err != nil {
				return
			}
			if stride == int64(p.ElemSize) {
				err = m.CheckInit(p.Start.Region, p.Partition(c), int(off), n*p.ElemSize)
				return
			}
			for i := 0; i < n && err == nil; i++ {
				err = m.CheckInit(p.Start.Region, p.Partition(c), int(off+int64(i)*stride), p.ElemSize)
			}
		})
		if err != nil {
			return err
		}
	}
	es := p.ElemSize
	pos := 0
	p.Lines(func(off int64, n int, stride int64) {
		if stride == int64(es) {
			pos += copy(buf[pos:pos+n*es], part[off:off+int64(n*es)])
			return
		}
		gatherStrided(buf[pos:pos+n*es], part, off, stride, es, n)
		pos += n * es
	})
	return nil
}

// Scatter writes buf (Bytes() long, walk order) to channel c's walk, run by run, marking the
// bytes initialised. The pattern was checked when built, so Scatter cannot fail.
func (m *Memory) Scatter(p *Pattern, c int, buf []byte) {
	m.ScatterN(p, c, buf, p.Elements())
}

// ScatterN writes the first n elements of the walk from buf; the rest of the walk is left alone.
func (m *Memory) ScatterN(p *Pattern, c int, buf []byte, n int) {
	r, pn := p.Start.Region, p.Partition(c)
	part := m.Partition(r, pn)
	if n > 0 {
		m.bank(r).markDirty(pn, int(p.lo), int(p.hi-p.lo)) // the walk's bounding box, once
	}
	es := p.ElemSize
	track := m.opts.TrackUninit
	pos, left := 0, n
	p.Lines(func(off int64, k int, stride int64) {
		if left <= 0 {
			return
		}
		k = min(k, left)
		left -= k
		if stride == int64(es) {
			pos += copy(part[off:off+int64(k*es)], buf[pos:pos+k*es])
			if track {
				m.bank(r).setInit(pn, int(off), k*es)
			}
			return
		}
		scatterStrided(part, off, stride, buf[pos:pos+k*es], es, k)
		if track {
			b := m.bank(r)
			for i := 0; i < k; i++ {
				b.setInit(pn, int(off+int64(i)*stride), es)
			}
		}
		pos += k * es
	})
}

func gatherStrided(dst, part []byte, off, stride int64, es, n int) {
	switch es {
	case 1:
		for i := 0; i < n; i++ {
			dst[i] = part[off]
			off += stride
		}
	case 2:
		for i := 0; i < n; i++ {
			dst[2*i], dst[2*i+1] = part[off], part[off+1]
			off += stride
		}
	case 4:
		for i := 0; i < n; i++ {
			copy(dst[4*i:4*i+4], part[off:off+4])
			off += stride
		}
	default:
		for i := 0; i < n; i++ {
			copy(dst[i*es:(i+1)*es], part[off:off+int64(es)])
			off += stride
		}
	}
}

func scatterStrided(part []byte, off, stride int64, src []byte, es, n int) {
	switch es {
	case 1:
		for i := 0; i < n; i++ {
			part[off] = src[i]
			off += stride
		}
	case 2:
		for i := 0; i < n; i++ {
			part[off], part[off+1] = src[2*i], src[2*i+1]
			off += stride
		}
	default:
		for i := 0; i < n; i++ {
			copy(part[off:off+int64(es)], src[i*es:(i+1)*es])
			off += stride
		}
	}
}
