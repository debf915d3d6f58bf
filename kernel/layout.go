package kernel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Placement is where a tensor lives: HBM from Addr (row-major), or SBUF/PSUM partitions
// [Partition, Partition+Partitions) from byte Offset, RowBytes bytes of each (the free part,
// row-major).
type Placement struct {
	Tensor     int
	Space      isa.Space
	Partition  int
	Partitions int
	Offset     uint64 // on-chip: byte offset in each partition
	Addr       uint64 // HBM: device address
	RowBytes   uint64 // on-chip: bytes per partition; HBM: all bytes
	DType      isa.DType
	ES         int // element size in bytes
	FreeElems  int64
	First      int // first call using it (-1: the whole kernel)
	Last       int
	partition0 bool // a staging tile that must start at partition 0 (index vectors)
}

// String is the placement in the user's address syntax.
func (p *Placement) String() string {
	if p.Space == isa.SpaceHBM {
		return fmt.Sprintf("hbm:0x%x (%d bytes)", p.Addr, p.RowBytes)
	}
	return fmt.Sprintf("%s:%d:0x%x (%d partitions x %d bytes)", p.Space, p.Partition, p.Offset, p.Partitions, p.RowBytes)
}

// startPartitions is the start-partition rule of every engine (NKI.md §4): P > 64 starts at 0;
// 32 < P <= 64 at 0 or 64; P <= 32 at 0, 32, 64 or 96.
func startPartitions(P int) []int {
	switch {
	case P > 64:
		return []int{0}
	case P > 32:
		return []int{0, 64}
	}
	return []int{0, 32, 64, 96}
}

// chipAllocator places on-chip tiles first-fit over (partition range x byte range) rectangles,
// reusing the bytes of tiles no later call uses (Provenance kernel.allocation).
type chipAllocator struct {
	space    isa.Space
	limit    uint64 // usable bytes per partition
	align    uint64
	bank     uint64 // PSUM: a tile that fits a bank does not cross one
	live     []*Placement
	tensors  []Tensor
	highMark uint64
}

func (a *chipAllocator) free(call int) {
	out := a.live[:0]
	for _, p := range a.live {
		if p.Last >= call {
			out = append(out, p)
		}
	}
	a.live = out
}

func overlapsRange(a0, a1, b0, b1 uint64) bool { return a0 < b1 && b0 < a1 }

// place finds a spot for P partitions x size bytes, or says what is left.
func (a *chipAllocator) place(pl *Placement, size uint64) error {
	size = (size + a.align - 1) / a.align * a.align
	best := struct {
		ok     bool
		start  int
		offset uint64
	}{}
	starts := startPartitions(pl.Partitions)
	if pl.partition0 {
		starts = []int{0}
	}
	for _, s := range starts {
		if s+pl.Partitions > 128 {
			continue
		}
		cands := []uint64{0}
		for _, q := range a.live {
			if overlapsRange(uint64(s), uint64(s+pl.Partitions), uint64(q.Partition), uint64(q.Partition+q.Partitions)) {
				cands = append(cands, (q.Offset+q.RowBytes+a.align-1)/a.align*a.align)
			}
		}
		slices.Sort(cands)
		for _, off := range cands {
			if a.bank > 0 && size <= a.bank && off/a.bank != (off+size-1)/a.bank {
				off = (off/a.bank + 1) * a.bank
			}
			if off+size > a.limit {
				continue
			}
			clash := false
			for _, q := range a.live {
				if overlapsRange(uint64(s), uint64(s+pl.Partitions), uint64(q.Partition), uint64(q.Partition+q.Partitions)) &&
					overlapsRange(off, off+size, q.Offset, q.Offset+q.RowBytes) {
					clash = true
					break
				}
			}
			if !clash {
				if !best.ok || off < best.offset {
					best.ok, best.start, best.offset = true, s, off
				}
				break
			}
		}
	}
	if !best.ok {
		return a.capacityError(pl, size)
	}
	pl.Partition, pl.Offset = best.start, best.offset
	a.live = append(a.live, pl)
	a.highMark = max(a.highMark, best.offset+size)
	return nil
}

func (a *chipAllocator) capacityError(pl *Placement, size uint64) error {
	t := &a.tensors[pl.Tensor]
	var used uint64
	var names []string
	for _, q := range a.live {
		if overlapsRange(0, uint64(pl.Partitions), uint64(q.Partition), uint64(q.Partition+q.Partitions)) || pl.Partitions > 64 {
			used += q.RowBytes
		}
		names = append(names, fmt.Sprintf("%s %s", a.tensors[q.Tensor].Name, fmtBytes(q.RowBytes)))
	}
	left := uint64(0)
	if used < a.limit {
		left = a.limit - used
	}
	beside := "with no other tile live: the tile alone is larger"
	if len(a.live) > 0 {
		beside = fmt.Sprintf("about %s left beside the %d live tiles (%s)", fmtBytes(left), len(a.live), strings.Join(names, ", "))
	}
	msg := fmt.Sprintf("tensor %q %v %s needs %d partitions x %s; %s has %s per partition, %s",
		t.Name, t.Shape, t.DType, pl.Partitions, fmtBytes(size), a.space, fmtBytes(a.limit), beside)
	return &Error{Kind: fault.ErrCapacity, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.capacity", Msg: msg,
		Legal: fmt.Sprintf("at most %s per partition in all live %s tiles", fmtBytes(a.limit), a.space)}
}

func fmtBytes(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
