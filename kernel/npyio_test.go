package kernel

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
)

// InputBytes takes a dtype's own numpy type (native), its raw bits (raw) or any numeric array
// converted (float32), and refuses the rest naming what would be legal.
func TestInputBytes(t *testing.T) {
	for _, c := range []struct {
		name, dtype, enc string
		d                isa.DType
		a                *npy.Array
		want             []byte
		err              string
	}{
		{"fp32 native", "float32", "", isa.DTypeFP32, &npy.Array{Dtype: "f4", Shape: []int{1}, Data: []byte{0, 0, 0x80, 0x3F}}, []byte{0, 0, 0x80, 0x3F}, ""},
		{"bool as uint8", "uint8", "native", isa.DTypeUINT8, &npy.Array{Dtype: "b1", Shape: []int{1}, Data: []byte{1}}, []byte{1}, ""},
		{"bf16 native has no numpy type", "bfloat16", "native", isa.DTypeBFLOAT16, &npy.Array{Dtype: "u2", Shape: []int{1}, Data: []byte{0x80, 0x3F}}, nil, "a u2 array"},
		{"bf16 raw bits", "bfloat16", "raw", isa.DTypeBFLOAT16, &npy.Array{Dtype: "u2", Shape: []int{1}, Data: []byte{0x80, 0x3F}}, []byte{0x80, 0x3F}, ""},
		{"bf16 raw of another width", "bfloat16", "raw", isa.DTypeBFLOAT16, &npy.Array{Dtype: "u1", Shape: []int{1}, Data: []byte{0x80}}, nil, "raw bits of bfloat16 are u2"},
		{"float32 to bf16", "bfloat16", "float32", isa.DTypeBFLOAT16, &npy.Array{Dtype: "f4", Shape: []int{1}, Data: []byte{0, 0, 0x80, 0x3F}}, []byte{0x80, 0x3F}, ""},
		{"int64 to fp32", "float32", "float32", isa.DTypeFP32, &npy.Array{Dtype: "i8", Shape: []int{1}, Data: []byte{2, 0, 0, 0, 0, 0, 0, 0}}, []byte{0, 0, 0, 0x40}, ""},
		{"int16 native for int32", "int32", "native", isa.DTypeINT32, &npy.Array{Dtype: "i2", Shape: []int{1}, Data: []byte{1, 0}}, nil, "takes i4"},
		{"element count", "float32", "", isa.DTypeFP32, &npy.Array{Dtype: "f4", Shape: []int{2}, Data: make([]byte, 8)}, nil, "2 elements"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tn := &Tensor{Name: "x", Shape: []int{1}, DType: c.dtype, Encoding: c.enc}
			got, err := InputBytes(tn, c.d, c.a)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || !bytes.Equal(got, c.want) {
				t.Fatalf("got % x, %v; want % x", got, err, c.want)
			}
		})
	}
}

// OutputArray writes a dtype's own numpy type, else float32 values, or raw bits when asked.
func TestOutputArray(t *testing.T) {
	bf1 := []byte{0x80, 0x3F} // bf16 1.0
	for _, c := range []struct {
		name     string
		d        isa.DType
		data     []byte
		raw      bool
		dtype    string
		encoding string
		want     []byte
	}{
		{"int32 native", isa.DTypeINT32, []byte{5, 0, 0, 0}, false, "i4", "native", []byte{5, 0, 0, 0}},
		{"bf16 as float32", isa.DTypeBFLOAT16, bf1, false, "f4", "float32", []byte{0, 0, 0x80, 0x3F}},
		{"bf16 raw bits", isa.DTypeBFLOAT16, bf1, true, "u2", "raw", bf1},
		{"fp8 raw bits", isa.DTypeFP8_EXP4, []byte{0x38}, true, "u1", "raw", []byte{0x38}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, enc, err := OutputArray(&Output{DType: c.d, Shape: []int{1}, Data: c.data}, c.raw)
			if err != nil || a.Dtype != c.dtype || enc != c.encoding || !bytes.Equal(a.Data, c.want) {
				t.Fatalf("got %q %q % x, %v; want %q %q % x", a.Dtype, enc, a.Data, err, c.dtype, c.encoding, c.want)
			}
		})
	}
}
