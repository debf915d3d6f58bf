package isa

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// The fmt-free text builders of vtext.go must print exactly what fmt printed.
func TestViolationTextMatchesFmt(t *testing.T) {
	t.Run("numbers and locations", func(t *testing.T) {
		r := rand.New(rand.NewSource(3))
		v := vctx{lay: LayoutOf(0)}
		for k := 0; k < 20000; k++ {
			x := r.Uint64() >> uint(r.Intn(64))
			i := int64(x) >> uint(r.Intn(8))
			l := Location{Space: Space(r.Intn(5)), Partition: r.Intn(256) - r.Intn(2), Offset: x}
			want := []string{fmt.Sprintf("0x%x", x), fmt.Sprint(x), fmt.Sprint(i), l.String(),
				fmt.Sprintf("a multiple of %d (CCE alignment)", i), fmt.Sprintf("%d elements", x)}
			got := []txt{v.hex(x), v.udec(x), v.dec(i), v.loc(l), v.num("a multiple of ", i, " (CCE alignment)"), v.unum("", x, " elements")}
			v.out = v.out[:0]
			for j := range got {
				v.failT("opcode", got[j], lit("legal"))
			}
			for j, o := range v.finish() {
				if o.Value != want[j] {
					t.Fatalf("text %d: got %q, want %q", j, o.Value, want[j])
				}
			}
		}
	})
	for _, k := range []ValueKind{KWaitMode, KUpdateMode, KDType, KALUOp, KSubdim, KComputeOp} {
		t.Run("enum "+k.String(), func(t *testing.T) {
			for x := uint64(0); x < 256; x++ {
				want := fmt.Sprintf("0x%02x", x)
				if n, ok := EnumName(k, x); ok {
					want = n
				}
				if a := fmtEnum(k, x); a != want || strings.ContainsRune(a, '(') {
					t.Fatalf("fmtEnum(%d) = %q, want %q", x, a, want)
				}
			}
		})
	}
	t.Run("byte tables", func(t *testing.T) {
		for x := 0; x < 256; x++ {
			if hex2Strings[x] != fmt.Sprintf("0x%02x", x) || regStrings[x] != fmt.Sprintf("reg:%d", x) {
				t.Fatal(x)
			}
		}
	})
	t.Run("paths", func(t *testing.T) {
		for _, n := range []string{"src_mem_pattern", "dst_mem_pattern", "other"} {
			for d := 0; d < 4; d++ {
				if p := numElemPath(n, d); p != fmt.Sprintf("%s.num_elem[%d]", n, d) {
					t.Fatal(p)
				}
			}
		}
	})
	for k := range layoutTable {
		l := &layoutTable[k]
		t.Run("offsets "+l.Kind.String(), func(t *testing.T) {
			for p, o := range fieldOffsets[k] {
				if l.Offset(p) != o {
					t.Fatalf("%s: offset %d, want %d", p, o, l.Offset(p))
				}
			}
		})
	}
}

// A reused Validator must not change the texts of violations it returned before, and must give
// what Validate gives.
func TestValidatorReuse(t *testing.T) {
	s4ops := S4D4TROpcodes(CAYMAN)
	others := []string{"d2", "di", "dx", "gx", "lms", "memset"}
	for _, c := range []struct {
		name string
		word func(r *rand.Rand) [64]byte
	}{
		{"random S4D4_TR words", func(r *rand.Rand) [64]byte {
			var w [64]byte
			r.Read(w[:])
			w[0], w[1] = byte(s4ops[r.Intn(len(s4ops))]), 16
			return w
		}},
		{"other structs, one byte changed", func(r *rand.Rand) [64]byte {
			w := Encode(bases()[others[r.Intn(len(others))]]())
			w[1+r.Intn(63)] = byte(r.Intn(256))
			return w
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewSource(4))
			var d Decoder
			var x Validator
			var vs []Violation
			var kept [][]Violation
			var insts []Inst
			for k := 0; k < 1000; k++ {
				w := c.word(r)
				i, _ := d.Decode(w[:])
				vs = x.Append(vs[:0], i, CAYMAN)
				kept = append(kept, append([]Violation(nil), vs...))
				j, _ := Decode(w[:])
				insts = append(insts, j)
			}
			for k, i := range insts {
				if want := Validate(i, CAYMAN); fmt.Sprint(want) != fmt.Sprint(kept[k]) {
					t.Fatalf("word %d: reused validator gave\n%v\nwant\n%v", k, kept[k], want)
				}
			}
		})
	}
}

func TestValidateInvalidAllocs(t *testing.T) {
	s4 := s4base(OpSTREAM_TRANSPOSE)
	s4.NumActiveChannels, s4.SrcMemPattern.StartAddr, s4.Reserved1[2] = 48, 0x1003, 7 // dynamic and static texts
	insts := map[string]Inst{"S4D4_TR": s4}
	for name, b := range bases() {
		// the first byte after the header and events that, set to 0xff, makes the base invalid
		w := Encode(b())
		for p := 12; p < 64; p++ {
			v := w
			v[p] = 0xff
			if i, _ := Decode(v[:]); len(Validate(i, CAYMAN)) > 0 {
				insts[fmt.Sprintf("%s_byte%d", name, p)] = i
				break
			}
		}
	}
	for name, i := range insts {
		t.Run(name, func(t *testing.T) {
			var x Validator
			vs := x.Append(nil, i, CAYMAN)
			if len(vs) == 0 {
				t.Fatalf("want violations")
			}
			n := testing.AllocsPerRun(100, func() { vs = x.Append(vs[:0], i, CAYMAN) })
			if n > 1 {
				t.Errorf("validating an invalid word with a reused Validator allocates %v times, want <= 1", n)
			}
		})
	}
}
