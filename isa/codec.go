package isa

//go:generate go run ./internal/wiregen -root ..

import "encoding/binary"

var le = binary.LittleEndian

// structOf is the opcode table's Struct column as an array, for a map-free decode dispatch.
var structOf = func() (t [256]StructKind) {
	for op, in := range opcodeTable {
		t[op] = in.Struct
	}
	return t
}()

// DecodeStream decodes a whole instruction stream (a file of 64-byte words). A length that is
// not a multiple of 64 is a *LengthError naming the offset of the incomplete word; no word is
// returned then.
func DecodeStream(b []byte) ([]Inst, error) {
	if len(b)%InstNBytes != 0 {
		return nil, &LengthError{Len: len(b), Offset: len(b) / InstNBytes * InstNBytes}
	}
	out := make([]Inst, 0, len(b)/InstNBytes)
	for off := 0; off < len(b); off += InstNBytes {
		i, _ := Decode(b[off : off+InstNBytes])
		out = append(out, i)
	}
	return out, nil
}

// CheckStreamLength returns a *LengthError when n is not a multiple of 64.
func CheckStreamLength(n int) error {
	if n%InstNBytes != 0 {
		return &LengthError{Len: n, Offset: n / InstNBytes * InstNBytes}
	}
	return nil
}

// Encode is the exact mirror of Decode: the 64 bytes of inst, field by field in the same order.
// A nil instruction encodes as 64 zero bytes.
func Encode(inst Inst) [InstNBytes]byte {
	var w [InstNBytes]byte
	EncodeTo(&w, inst)
	return w
}

// Opcode of an instruction (its header's opcode); 0 for nil.
func OpcodeOf(inst Inst) Opcode {
	if inst == nil {
		return 0
	}
	return inst.Hdr().Opcode
}
