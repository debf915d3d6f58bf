package dma

import (
	"fmt"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// A job's completion: reporters without data add 1 each at the start, the data engines 1 each
// at their end and the last the rest; the total is SemIncrement.
func TestSemUpdatesReporters(t *testing.T) {
	for _, c := range []struct {
		name      string
		reporters []int
		inc       int
		early     int // updates at the start
	}{
		{"16 reporters, one data engine", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, 16, 15},
		{"no reporters", nil, 16, 0},
		{"fewer increments than reporters", []int{0, 1, 2, 3}, 2, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := &Job{Sem: 3, SemIncrement: c.inc, Start: 100, Reporters: c.reporters}
			used := make([]bool, 16)
			last := make([]int64, 16)
			used[0], last[0] = true, 900
			ups := semUpdates(job, last, used)
			total, early := 0, 0
			for _, u := range ups {
				total += int(u.Delta)
				if u.Time == 100 {
					early++
					if u.Delta != 1 || u.Engine == 0 {
						t.Errorf("early update %+v", u)
					}
				} else if u.Engine != 0 || u.Time != 900 {
					t.Errorf("late update %+v", u)
				}
			}
			if total != c.inc || early != c.early {
				t.Errorf("updates %+v: total %d, %d early; want %d, %d", ups, total, early, c.inc, c.early)
			}
		})
	}
}

// Cost: a run of b bytes moves at b/(b+RowOverheadBytes) of peak; a transpose at its factor.
func TestCostCurve(t *testing.T) {
	tm := DefaultTiming(isa.CAYMAN)
	row := func(b uint32) *Descriptor {
		return &Descriptor{Kind: KindCopy, Num: [MaxLevels]uint32{1, 8, 1, 1},
			Src: Side{Addr: 0, ElemSize: b, Step: [MaxLevels]int64{1, 1, 0, 0}},
			Dst: Side{Addr: isa.DMALocalBase, ElemSize: b, Step: [MaxLevels]int64{1, 65536, 0, 0}}}
	}
	for _, b := range []uint32{64, 256, 4096} {
		t.Run(fmt.Sprint(b), func(t *testing.T) {
			d := row(b)
			want := int64((float64(8*b)+8*tm.RowOverheadBytes)/tm.BytesPerNs + 0.5)
			if got := tm.Cost(d); got != want {
				t.Errorf("%d B rows: %d ns, want ~%d", b, got, want)
			}
		})
	}
	x := row(4096)
	x.Kind = KindXbar
	if got, want := tm.Cost(x), int64(8*4096/(tm.BytesPerNs*tm.XbarHBMFactor)+0.5); got != want {
		t.Errorf("transpose from HBM %d ns, want %d", got, want)
	}
}
