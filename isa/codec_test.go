package isa

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/tpbsim/tpbsim/fault"
)

// snake converts a Go field name to the header's snake_case name.
func snake(s string) string {
	switch s {
	case "DstStepElem1":
		return "dst_step_elem_1"
	case "Raw12", "Raw33", "Raw35", "Raw37":
		return "unknown" + s[3:]
	}
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// goFields walks a decoded instruction by reflection and returns header path -> value; a
// 1-byte named bitfield type is reported whole under its own name. Raw byte copies are skipped.
func goFields(inst Inst) map[string]uint64 {
	out := map[string]uint64{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Struct:
			t := v.Type()
			for k := 0; k < v.NumField(); k++ {
				name := t.Field(k).Name
				if name == "Raw" || name == "Bytes" {
					continue
				}
				p := prefix + snake(name)
				if name == "Header" {
					p = ""
				} else {
					if v.Field(k).Kind() == reflect.Struct {
						p += "."
					}
				}
				walk(p, v.Field(k))
			}
		case reflect.Array:
			for k := 0; k < v.Len(); k++ {
				walk(fmt.Sprintf("%s[%d]", prefix, k), v.Index(k))
			}
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			out[prefix] = uint64(v.Int())
		default:
			out[prefix] = v.Uint()
		}
	}
	walk("", reflect.ValueOf(inst).Elem())
	return out
}

// layoutFields reads every field of a word through the layout table, with the same naming.
func layoutFields(l *StructLayout, w *[64]byte) map[string]uint64 {
	out := map[string]uint64{}
	for _, f := range l.Fields {
		if f.Kind == KBlob && (l.Kind == StructDMA_DIRECT2D_XPOSE || l.Kind == StructNone) {
			continue
		}
		if f.Bits != 0 {
			out[f.Path[:strings.LastIndexByte(f.Path, '.')]] = uint64(w[f.Offset])
			continue
		}
		for k := 0; k < f.Count; k++ {
			p := f.Path
			if f.Count > 1 || strings.HasSuffix(p, "step_elem") || strings.HasSuffix(p, "num_elem") || p == "reserved1" {
				if f.Count > 1 || l.Kind == StructS4D4_TR || l.Kind == StructD4_MR {
					p += fmt.Sprintf("[%d]", k)
				}
			}
			out[p] = f.Get(w, k)
		}
	}
	return out
}

func randomWord(r *rand.Rand, op Opcode) [64]byte {
	var w [64]byte
	r.Read(w[:])
	w[0] = byte(op)
	return w
}

func TestDecodeEncodeRoundTripAllOpcodes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var d Decoder
	for op := 0; op < 256; op++ {
		t.Run(Opcode(op).String(), func(t *testing.T) {
			for n := 0; n < 50; n++ {
				w := randomWord(r, Opcode(op))
				inst, err := Decode(w[:])
				if err != nil {
					t.Fatal(err)
				}
				if got := Encode(inst); got != w {
					t.Fatalf("round trip differs\n in %x\nout %x", w, got)
				}
				inst2, _ := d.Decode(w[:])
				if !reflect.DeepEqual(inst, inst2) {
					t.Fatalf("Decoder and Decode disagree on %x", w)
				}
			}
		})
	}
}

func TestLayoutMatchesCodec(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, k := range append([]StructKind{StructNone}, StructKinds...) {
		t.Run(k.String(), func(t *testing.T) { layoutMatchesCodec(t, r, k) })
	}
}

// layoutMatchesCodec: the layout table of k covers every byte once and reads every field of
// random words as the decoder does.
func layoutMatchesCodec(t *testing.T, r *rand.Rand, k StructKind) {
	var op Opcode
	for _, o := range AllOpcodes {
		if o.Struct() == k {
			op = o
			break
		}
	}
	l := Layout(k)
	// coverage: every byte exactly once (bitfields of one byte together count once)
	var cover [64]int
	seen := map[int]uint8{}
	for _, f := range l.Fields {
		if f.Bits != 0 {
			seen[f.Offset] += f.Bits
			continue
		}
		for b := f.Offset; b < f.Offset+f.ByteLen(); b++ {
			cover[b]++
		}
	}
	for off, nb := range seen {
		if nb != 8 {
			t.Errorf("%v: bitfields of byte %d cover %d bits", k, off, nb)
		}
		cover[off]++
	}
	for b, c := range cover {
		if c != 1 {
			t.Errorf("%v: byte %d covered %d times", k, b, c)
		}
	}
	for n := 0; n < 20; n++ {
		w := randomWord(r, op)
		inst, _ := Decode(w[:])
		gf, lf := goFields(inst), layoutFields(l, &w)
		for p, v := range gf {
			lv, ok := lf[p]
			if !ok {
				t.Errorf("%v: Go field %s not in the layout table", k, p)
				continue
			}
			if lv != v {
				t.Errorf("%v: %s: codec %#x, layout %#x", k, p, v, lv)
			}
		}
		if t.Failed() {
			return
		}
	}
}

func TestDecodeLengths(t *testing.T) {
	cases := []struct {
		name     string
		n        int
		decode   func(n int) error
		category error
		trailing bool
	}{
		{"empty", 0, decodeLen, fault.ErrTruncated, false},
		{"one byte", 1, decodeLen, fault.ErrTruncated, false},
		{"one short", 63, decodeLen, fault.ErrTruncated, false},
		{"one long", 65, decodeLen, fault.ErrInvalid, true},
		{"two words", 128, decodeLen, fault.ErrInvalid, true},
		{"Decoder one short", 63, decoderLen, fault.ErrTruncated, false},
		{"Decoder one long", 65, decoderLen, fault.ErrInvalid, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.decode(c.n)
			var we *WordLengthError
			if !errors.As(err, &we) || we.Len != c.n || !errors.Is(err, c.category) || errors.Is(err, ErrTrailing) != c.trailing {
				t.Errorf("%d bytes: %v", c.n, err)
			}
		})
	}
	t.Run("stream", func(t *testing.T) {
		_, err := DecodeStream(make([]byte, 64*3+5))
		var le *LengthError
		if !errors.As(err, &le) || le.Offset != 0xc0 || !errors.Is(err, fault.ErrTruncated) {
			t.Fatalf("stream: %v", err)
		}
		if !strings.Contains(err.Error(), "offset 0xc0") {
			t.Errorf("message does not name the offset: %v", err)
		}
		insts, err := DecodeStream(make([]byte, 128))
		if err != nil || len(insts) != 2 {
			t.Fatal(insts, err)
		}
	})
}

func decodeLen(n int) error { _, err := Decode(make([]byte, n)); return err }

func decoderLen(n int) error {
	var d Decoder
	_, err := d.Decode(make([]byte, n))
	return err
}

// mirrorPair decodes w both ways (one copy, field by field) and encodes the result both ways;
// ok when the four agree with each other and with w.
func mirrorPair[T comparable](w *[64]byte, dec, decF func(*[64]byte, *T), enc, encF func(*[64]byte, *T)) bool {
	var a, b T
	dec(w, &a)
	decF(w, &b)
	var wa, wb [64]byte
	enc(&wa, &a)
	encF(&wb, &a)
	return a == b && wa == wb && wa == *w
}

// TestMirrorAgreesWithFields: for every struct whose Go layout is its wire layout, the one-copy
// decode and encode give what the field-by-field reference gives (which every other platform
// runs), and on a little-endian host the one-copy path is the one taken.
func TestMirrorAgreesWithFields(t *testing.T) {
	cases := []struct {
		name   string
		op     Opcode
		mirror bool
		check  func(w *[64]byte) bool
	}{
		{"S4D4_TR", OpSTREAM_TRANSPOSE, mirrorS4D4TR, func(w *[64]byte) bool {
			return mirrorPair(w, decodeS4D4TR, decodeS4D4TRFields, encodeS4D4TR, encodeS4D4TRFields)
		}},
		{"CTRL_IM", OpLOAD_MASK_SELECT, mirrorLoadMaskSelect, func(w *[64]byte) bool {
			return mirrorPair(w, decodeLoadMaskSelect, decodeLoadMaskSelectFields, encodeLoadMaskSelect, encodeLoadMaskSelectFields)
		}},
		{"D4_MR", OpMEMSET, mirrorMemset, func(w *[64]byte) bool {
			return mirrorPair(w, decodeMemset, decodeMemsetFields, encodeMemset, encodeMemsetFields)
		}},
		{"DMA_DIRECT2D", OpDMAMEMCPY, mirrorDMADirect2D, func(w *[64]byte) bool {
			return mirrorPair(w, decodeDMADirect2D, decodeDMADirect2DFields, encodeDMADirect2D, encodeDMADirect2DFields)
		}},
		{"DMA_INDIRECT1D", OpDMA_INDIRECT, mirrorDMAIndirect1D, func(w *[64]byte) bool {
			return mirrorPair(w, decodeDMAIndirect1D, decodeDMAIndirect1DFields, encodeDMAIndirect1D, encodeDMAIndirect1DFields)
		}},
		{"DMA_GATHER_XPOSE", OpDMA_GATHER_TRANSPOSE, mirrorDMAGatherXpose, func(w *[64]byte) bool {
			return mirrorPair(w, decodeDMAGatherXpose, decodeDMAGatherXposeFields, encodeDMAGatherXpose, encodeDMAGatherXposeFields)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if littleEndian && !c.mirror {
				t.Errorf("the one-copy path is off on a little-endian host")
			}
			r := rand.New(rand.NewSource(5))
			for n := 0; n < 2000; n++ {
				w := randomWord(r, c.op)
				if !c.check(&w) {
					t.Fatalf("decode / encode paths differ on %x", w)
				}
			}
		})
	}
}
