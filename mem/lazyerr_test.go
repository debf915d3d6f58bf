package mem

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// TestLazyErrorsMatchEager: the refusals of ResolveAddr and CheckInit, formatted on demand, say
// exactly what the *Error built at once said (the texts below are that one's formats), by
// themselves and through Resolve, Pattern, Read, ReadAt and CheckRange (device addresses);
// they name the same rule, category and path, answer OutOfBounds alike (directly and through
// a wrap, as the DMA engines ask), errors.As gives that *Error, and a Field set on it shows in
// its message and path as before. Two refusals of one access stay deeply equal when one was
// printed (sim's Reset test compares a reset machine's errors with a new one's so).
func TestLazyErrorsMatchEager(t *testing.T) {
	for _, g := range isa.Generations {
		m := newMem(t, g, Options{TrackUninit: true})
		geo := m.Geometry()
		type refusal struct {
			name string
			err  error
			want *Error
		}
		var cases []refusal
		// past the active size of partition 3 of SBUF, and of PSUM where there is a gap
		for _, b := range []*bank{&m.sbuf, &m.psum} {
			if b.n == 0 || b.active == b.stride {
				continue
			}
			a := b.base + 3*b.stride + b.active
			want := &Error{Rule: RuleAddrInActiveArea, Addr: uint64(a), Err: fault.ErrBounds,
				Detail: fmt.Sprintf("%s partition %d offset 0x%x is past the active size 0x%x", b.region, 3, b.active, b.active)}
			_, err := m.ResolveAddr(a)
			cases = append(cases, refusal{fmt.Sprintf("ResolveAddr %v", b.region), err, want})
			_, err = m.Resolve(isa.Addr4(a))
			cases = append(cases, refusal{fmt.Sprintf("Resolve %v", b.region), err, want})
			_, err = m.Pattern(isa.Tensor4D{StartAddr: isa.Addr4(a), StepElem: [4]int16{1, 1, 1, 1}, NumElem: [4]uint16{1, 1, 1, 1}}, 4, 1, false)
			cases = append(cases, refusal{fmt.Sprintf("Pattern %v", b.region), err, want})
			dev := *want
			dev.Addr += isa.DMALocalBase
			cases = append(cases, refusal{fmt.Sprintf("ReadAt %v", b.region), m.ReadAt(isa.DMALocalBase+uint64(a), make([]byte, 4)), &dev})
			cases = append(cases, refusal{fmt.Sprintf("CheckRange %v", b.region), m.CheckRange(isa.DMALocalBase+uint64(a), 4, true), &dev})
		}
		// in neither region: just past the end of SBUF (unless PSUM starts there)
		if a := geo.StateBufOffset + geo.StateBufSize; a != geo.PSUMOffset {
			want := &Error{Rule: RuleAddrInSBUFOrPSUM, Addr: uint64(a), Err: fault.ErrBounds,
				Detail: fmt.Sprintf("address is in neither SBUF nor PSUM on %v", g)}
			_, err := m.ResolveAddr(a)
			cases = append(cases, refusal{"ResolveAddr neither", err, want})
			dev := *want
			dev.Addr += isa.DMALocalBase
			cases = append(cases, refusal{"CheckRange neither", m.CheckRange(isa.DMALocalBase+uint64(a), 4, false), &dev})
		}
		// never written: byte 6 of partition 2 of SBUF, after bytes 0-5
		m.MarkInit(SBUF, 2, 0, 6)
		l := Loc{Region: SBUF, Partition: 2, Offset: 6}
		want := &Error{Rule: RuleReadInitialised, Addr: uint64(m.OnChipAddr(l)), Err: fault.ErrUninit, Detail: fmt.Sprintf("%v was never written", l)}
		cases = append(cases, refusal{"CheckInit", m.CheckInit(SBUF, 2, 0, 10), want})
		cases = append(cases, refusal{"Read", m.Read(Loc{Region: SBUF, Partition: 2}, make([]byte, 10)), want})
		dev := *want
		dev.Addr += isa.DMALocalBase
		cases = append(cases, refusal{"ReadAt uninit", m.ReadAt(isa.DMALocalBase+uint64(m.OnChipAddr(Loc{Region: SBUF, Partition: 2})), make([]byte, 10)), &dev})
		cases = append(cases, refusal{"CheckRange uninit", m.CheckRange(isa.DMALocalBase+uint64(m.OnChipAddr(Loc{Region: SBUF, Partition: 2})), 10, false), &dev})

		for _, c := range cases {
			t.Run(fmt.Sprintf("%v/%s", g, c.name), func(t *testing.T) {
				err, want := c.err, *c.want
				w := &want
				if err == nil {
					t.Fatal("no error")
				}
				if _, ok := err.(*lazyError); !ok {
					t.Fatalf("a %T, want the lazy error", err)
				}
				if err.Error() != w.Error() || fault.Rule(err) != w.Rule || fault.Category(err) != fault.Category(w) ||
					fault.Path(err) != "" || err.(*lazyError).OutOfBounds() != w.OutOfBounds() || !errors.Is(err, w.Err) {
					t.Fatalf("%q rule %q category %v path %q, want %q rule %q category %v", err, fault.Rule(err), fault.Category(err), fault.Path(err),
						w, w.Rule, fault.Category(w))
				}
				var me *Error
				if !errors.As(err, &me) || *me != want {
					t.Fatalf("errors.As gives %+v, want %+v", me, w)
				}
				var dm interface{ OutOfBounds() bool } // the DMA engines' view (dma.MemoryError)
				if !errors.As(fmt.Errorf("wrapped: %w", err), &dm) || dm.OutOfBounds() != w.OutOfBounds() {
					t.Fatal("errors.As to an OutOfBounds interface through a wrap")
				}
				me.Field = "src_mem_pattern"
				want.Field = me.Field
				if me.Error() != w.Error() || fault.Path(me) != me.Field {
					t.Fatalf("with the field set: %q path %q, want %q", me, fault.Path(me), w)
				}
				if twin := *err.(*lazyError); !reflect.DeepEqual(err, &twin) {
					t.Fatal("a printed refusal is not deeply equal to its twin")
				}
			})
		}
	}
}
