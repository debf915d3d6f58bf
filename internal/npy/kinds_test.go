package npy

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/num"
)

// Every kind is written as its own numpy type where numpy has one, else as its raw bits; a
// descr reads back as the kind of its bytes.
func TestTypeOfAndKindOf(t *testing.T) {
	for _, c := range []struct {
		k    num.Kind
		typ  string
		own  bool
		name string
	}{
		{num.UINT8, "u1", true, "uint8"}, {num.INT8, "i1", true, "int8"}, {num.UINT16, "u2", true, "uint16"},
		{num.INT16, "i2", true, "int16"}, {num.UINT32, "u4", true, "uint32"}, {num.INT32, "i4", true, "int32"},
		{num.UINT64, "u8", true, "uint64"}, {num.INT64, "i8", true, "int64"}, {num.FP16, "f2", true, "float16"},
		{num.FP32, "f4", true, "float32"}, {num.FP32R, "f4", true, "float32"},
		{num.BFLOAT16, "u2", false, "uint16"}, {num.FP8_EXP4, "u1", false, "uint8"},
	} {
		t.Run(c.k.String(), func(t *testing.T) {
			typ, own := TypeOf(c.k)
			if typ != c.typ || own != c.own || TypeName(typ) != c.name {
				t.Errorf("TypeOf = %q, %v (%s); want %q, %v (%s)", typ, own, TypeName(typ), c.typ, c.own, c.name)
			}
			if k, ok := KindOf(typ); own && c.k != num.FP32R && (!ok || k != c.k) {
				t.Errorf("KindOf(%q) = %v, %v", typ, k, ok)
			}
		})
	}
	if _, ok := KindOf("f8"); ok {
		t.Error("f8 has a device kind")
	}
}

// Convert keeps an array of the kind's own type as it is and converts other values through
// FP32 (float64 arrays through their value); index arrays read as uint32 within range only.
func TestConvertAndUint32s(t *testing.T) {
	f64 := &Array{Dtype: "f8", Shape: []int{2}, Data: []byte{0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0xC0}} // 1.0, -2.0
	for _, c := range []struct {
		name string
		a    *Array
		k    num.Kind
		want []byte
		err  string
	}{
		{"own type", &Array{Dtype: "u2", Shape: []int{1}, Data: []byte{1, 2}}, num.UINT16, []byte{1, 2}, ""},
		{"f8 to bf16", f64, num.BFLOAT16, []byte{0x80, 0x3F, 0x00, 0xC0}, ""},
		{"i4 to fp32", &Array{Dtype: "i4", Shape: []int{1}, Data: []byte{3, 0, 0, 0}}, num.FP32, []byte{0, 0, 0x40, 0x40}, ""},
		{"no kind", &Array{Dtype: "u1", Shape: []int{1}, Data: []byte{1}}, num.INVALID, nil, "cannot be loaded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.a.Convert(c.k)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Convert: %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, c.want) {
				t.Errorf("Convert = %x, %v; want %x", got, err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name string
		a    *Array
		want []uint32
		err  string
	}{
		{"int64", &Array{Dtype: "i8", Shape: []int{2}, Data: []byte{5, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}}, []uint32{5, 0xFFFFFFFF}, ""},
		{"negative", &Array{Dtype: "i2", Shape: []int{1}, Data: []byte{0xFF, 0xFF}}, nil, "index [0] = -1"},
		{"float", &Array{Dtype: "f4", Shape: []int{1}, Data: make([]byte, 4)}, nil, "want an integer array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Uint32s(c.a)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Uint32s: %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || len(got) != len(c.want) || got[0] != c.want[0] || got[1] != c.want[1] {
				t.Errorf("Uint32s = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

// Header is exactly what Write puts before the data, for every header size (v1 and v2).
func TestHeaderIsWritePrefix(t *testing.T) {
	long := make([]int, 7000) // a header past 64 KiB: version 2.0
	for i := range long {
		long[i] = 1
	}
	for _, c := range []struct {
		name  string
		dtype string
		shape []int
	}{{"scalar", "f4", nil}, {"1-d", "u1", []int{3}}, {"2-d", "u2", []int{64, 64}}, {"v2", "i8", long}} {
		t.Run(c.name, func(t *testing.T) {
			a := &Array{Dtype: c.dtype, Shape: c.shape}
			a.Data = make([]byte, a.Len()*ItemSize(c.dtype))
			var b bytes.Buffer
			if err := Write(&b, a); err != nil {
				t.Fatal(err)
			}
			hdr, err := Header(c.dtype, c.shape)
			if err != nil || !bytes.Equal(append(hdr, a.Data...), b.Bytes()) || len(hdr)%64 != 0 {
				t.Errorf("Header: %v, %d bytes, not Write's prefix", err, len(hdr))
			}
		})
	}
	if _, err := Header("c8", []int{1}); err == nil {
		t.Error("Header of an unknown dtype")
	}
}

// RawType is the unsigned integer of a kind's width, the type of its raw bits.
func TestRawType(t *testing.T) {
	for _, c := range []struct {
		k    num.Kind
		want string
	}{
		{num.BFLOAT16, "u2"}, {num.FP8_EXP5, "u1"}, {num.FP32, "u4"}, {num.INT64, "u8"}, {num.INVALID, ""},
	} {
		t.Run(c.k.String(), func(t *testing.T) {
			if got := RawType(c.k); got != c.want {
				t.Errorf("RawType(%v) = %q, want %q", c.k, got, c.want)
			}
		})
	}
}
