package npy

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tpbsim/tpbsim/num"
)

// The numpy boundary of tpbsim's element types (DESIGN.md §7): an array's descr names the
// element kind of its bytes (KindOf), a kind is written as its own numpy type where numpy has
// one and as the unsigned integer of its width (its raw bits) otherwise (TypeOf), and an array
// of another type is converted value by value through FP32 (Convert).

// kinds maps a descr to the element kind of its bytes. f8 is absent: no device type is FP64.
var kinds = map[string]num.Kind{
	"b1": num.UINT8, "u1": num.UINT8, "i1": num.INT8, "u2": num.UINT16, "i2": num.INT16,
	"u4": num.UINT32, "i4": num.INT32, "u8": num.UINT64, "i8": num.INT64, "f2": num.FP16, "f4": num.FP32,
}

// KindOf is the element kind whose bytes a descr's elements are (bool reads as UINT8 0/1);
// false for f8, which no device element type is, and for a descr tpbsim does not read.
func KindOf(dtype string) (num.Kind, bool) {
	k, ok := kinds[dtype]
	return k, ok
}

// TypeOf is the descr kind k is written as: its own numpy type where numpy has it (own true),
// else the unsigned integer of its width, its raw bits (own false; "" when k has no whole-byte
// width).
func TypeOf(k num.Kind) (dtype string, own bool) {
	if t, ok := ownTypes[k]; ok {
		return t, true
	}
	return rawTypes[k.Size()], false
}

// RawType is the unsigned integer descr of k's raw bits ("u2" for BF16), "" when k has no
// whole-byte width of 1, 2, 4 or 8 bytes.
func RawType(k num.Kind) string { return rawTypes[k.Size()] }

// ownTypes are the kinds numpy has a type of; rawTypes the unsigned integers of each width.
var (
	ownTypes = map[num.Kind]string{
		num.UINT8: "u1", num.INT8: "i1", num.UINT16: "u2", num.INT16: "i2", num.UINT32: "u4", num.INT32: "i4",
		num.UINT64: "u8", num.INT64: "i8", num.FP16: "f2", num.FP32: "f4", num.FP32R: "f4",
	}
	rawTypes = map[int]string{1: "u1", 2: "u2", 4: "u4", 8: "u8"}
)

// unsignedNames are numpy's names of the raw-bits types TypeOf gives.
var unsignedNames = map[string]string{"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64"}

// TypeName is numpy's name of a descr TypeOf gives ("u2" -> "uint16"), else the descr itself.
func TypeName(dtype string) string {
	if n, ok := unsignedNames[dtype]; ok {
		return n
	}
	if n := numpyName(dtype); n != "" {
		return n
	}
	return dtype
}

// Convert turns the array's elements into elements of k: its bytes as they are when the
// array's type is k's own numpy type, else each value converted to k through FP32 (float64
// arrays through their float64 value).
func (a *Array) Convert(k num.Kind) ([]byte, error) {
	if !k.Numeric() || k.Size() == 0 {
		return nil, fmt.Errorf("element type %v cannot be loaded", k)
	}
	if own, _ := TypeOf(k); a.Dtype == own {
		return a.Data, nil
	}
	n := a.Len()
	out := make([]byte, n*k.Size())
	if a.Dtype == "f8" {
		for i := 0; i < n; i++ {
			num.StoreF64(k, out[i*k.Size():], math.Float64frombits(binary.LittleEndian.Uint64(a.Data[i*8:])))
		}
		return out, nil
	}
	sk, ok := kinds[a.Dtype]
	if !ok {
		return nil, fmt.Errorf("cannot convert %s to %v", a.Dtype, k)
	}
	if err := num.ConvertSlice(out, k, a.Data, sk, n); err != nil {
		return nil, err
	}
	return out, nil
}

// Uint32s reads an integer array as uint32 values (the DGE's index arrays): any integer type,
// each value 0..2^32-1.
func Uint32s(a *Array) ([]uint32, error) {
	k, ok := kinds[a.Dtype]
	if !ok || !k.IsInteger() {
		return nil, fmt.Errorf("the indices are %s: want an integer array (uint32, int32, int64, ...)", a.Dtype)
	}
	n := a.Len()
	out := make([]uint32, n)
	es := k.Size()
	for i := 0; i < n; i++ {
		v := num.LoadInt(k, a.Data[i*es:])
		if k == num.UINT64 {
			v = int64(num.LoadUint(k, a.Data[i*es:]))
		}
		if v < 0 || v > 0xFFFFFFFF {
			return nil, fmt.Errorf("index [%d] = %d: the DGE reads uint32 indices", i, v)
		}
		out[i] = uint32(v)
	}
	return out, nil
}
