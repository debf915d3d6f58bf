package dve

import (
	"unsafe"

	"github.com/tpbsim/tpbsim/num"
)

// Element access of the reduce and scan paths, through num's element forms: one element (the
// references) or a chunk of them (the lanes, num's slice forms) decoded into an op class's
// values and encoded back.

// valueKind is how an instruction's elements are read and written for its op class.
type valueKind struct {
	class opClass
	in    num.Kind
	out   num.Kind
	width int // bits of the input (bitvec)
}

// loadF, loadI and loadB read element i of b as the float, integer-band and bitvec classes
// take it: FP32, the word extended by the dtype's sign (UINT64: its bits), the raw bits.
func (v *valueKind) loadF(b []byte, i int) float32 { return num.LoadF32(v.in, b[i*v.in.Size():]) }
func (v *valueKind) loadI(b []byte, i int) int64   { return num.LoadExtended(v.in, b[i*v.in.Size():]) }
func (v *valueKind) loadB(b []byte, i int) uint64  { return num.LoadBits(v.in, b[i*v.in.Size():]) }

// storeInt stores an integer-band result as an element of vk.out, saturated to its range: the
// value of v's 64 bits read unsigned when the input is UINT64 (whose values the int64 lanes hold
// as their bits), else signed (Provenance dve.int_band_ops).
func storeInt(vk valueKind, b []byte, v int64) {
	if vk.in == num.UINT64 {
		num.StoreUint(vk.out, b, uint64(v))
		return
	}
	num.StoreInt(vk.out, b, v)
}

// storeUnsigned stores integer-band results of a UINT64 input as storeInt does: each word's bits
// read as a uint64, saturated to k's largest value (num.StoreUintSlice).
func storeUnsigned(b []byte, xs []int64, k num.Kind) {
	num.StoreUintSlice(b, unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(xs))), len(xs)), k)
}
