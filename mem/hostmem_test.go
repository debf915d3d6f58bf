package mem

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/tpbsim/tpbsim/isa"
)

func TestHostAlloc(t *testing.T) {
	for _, c := range []struct {
		n    int
		huge bool
	}{{100, false}, {100, true}, {3 << 20, false}, {3<<20 + 5, true}} {
		t.Run(fmt.Sprintf("%d bytes huge=%v", c.n, c.huge), func(t *testing.T) {
			b := hostAlloc(c.n, c.huge)
			if len(b) != c.n || cap(b) != c.n {
				t.Fatalf("hostAlloc(%d, %v): len %d cap %d", c.n, c.huge, len(b), cap(b))
			}
			for i, v := range b {
				if v != 0 {
					t.Fatalf("hostAlloc(%d, %v): byte %d is %d, not zero", c.n, c.huge, i, v)
				}
			}
			if c.huge && c.n >= 2<<20 && hugeAligned && uintptr(unsafe.Pointer(&b[0]))%(2<<20) != 0 {
				t.Errorf("hostAlloc(%d, true) at %p: not on a 2 MiB boundary", c.n, &b[0])
			}
		})
	}
}

// A memory with HugePages behaves exactly as one without: same partitions, same bounds.
func TestHugePagesSameMemory(t *testing.T) {
	for _, g := range []isa.Generation{isa.SUNDA, isa.CAYMAN, isa.MAVERICK} {
		t.Run(g.String(), func(t *testing.T) {
			a, err := New(g, Options{})
			if err != nil {
				t.Fatal(err)
			}
			h, err := New(g, Options{HugePages: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []Region{SBUF, PSUM} {
				if a.NumPartitions(r) != h.NumPartitions(r) || a.PartitionActive(r) != h.PartitionActive(r) {
					t.Fatalf("%v %v: geometry differs with HugePages", g, r)
				}
				for p := 0; p < a.NumPartitions(r); p++ {
					pa, ph := a.Partition(r, p), h.Partition(r, p)
					if len(pa) != len(ph) || cap(ph) != len(ph) {
						t.Fatalf("%v %v p%d: len %d/%d cap %d", g, r, p, len(pa), len(ph), cap(ph))
					}
				}
			}
		})
	}
}
