package isa

import (
	"strconv"
	"strings"
)

// ValueKind is how a wire field's value is read and printed.
type ValueKind uint8

const (
	KUint         ValueKind = iota // unsigned integer
	KInt                           // two's-complement signed integer
	KAddr4                         // ADDR4 word
	KAddr8                         // ADDR8 word
	KOpcode                        // OPCODE enum
	KDType                         // DTYPE enum
	KALUOp                         // ALU_OP enum
	KSubdim                        // TENSOR_SUBDIM enum
	KWaitMode                      // WAIT_MODE enum
	KUpdateMode                    // UPDATE_MODE enum
	KComputeOp                     // DGE_COMPUTE_OP enum
	KIndirectMode                  // DMA_INDIRECT_FLAGS.indirect_mode
	KIndirectDim                   // INDIRECT_DIM
	KBlob                          // opaque bytes (unknown or raw), printed as hex
	numValueKinds
)

var valueKindNames = [numValueKinds]string{KUint: "unsigned", KInt: "signed", KAddr4: "ADDR4", KAddr8: "ADDR8",
	KOpcode: "opcode", KDType: "dtype", KALUOp: "ALU op", KSubdim: "tensor subdim", KWaitMode: "wait mode",
	KUpdateMode: "update mode", KComputeOp: "DGE compute op", KIndirectMode: "indirect mode",
	KIndirectDim: "indirect dim", KBlob: "bytes"}

// String is what a value of the kind is called in messages ("dtype", "wait mode", ...); a value
// outside the enum prints as ValueKind(N).
func (k ValueKind) String() string {
	if k < numValueKinds {
		return valueKindNames[k]
	}
	return "ValueKind(" + strconv.Itoa(int(k)) + ")"
}

// IsEnum reports a kind whose values are the codes of a one-byte enum with names.
func (k ValueKind) IsEnum() bool { return k < numValueKinds && enumNames[k] != nil }

// enumNames[k][c] is the name of code c of the enum of kind k ("" when c has none); nil for a
// kind that is no enum. The one place that maps a kind to its Go enum type.
var enumNames = func() (t [numValueKinds]*[256]string) {
	name := map[ValueKind]func(c uint8) string{
		KOpcode:       func(c uint8) string { return Opcode(c).String() },
		KDType:        func(c uint8) string { return DType(c).String() },
		KALUOp:        func(c uint8) string { return ALUOp(c).String() },
		KSubdim:       func(c uint8) string { return TensorSubdim(c).String() },
		KWaitMode:     func(c uint8) string { return WaitMode(c).String() },
		KUpdateMode:   func(c uint8) string { return UpdateMode(c).String() },
		KComputeOp:    func(c uint8) string { return DGEComputeOp(c).String() },
		KIndirectMode: func(c uint8) string { return IndirectMode(c).String() },
		KIndirectDim:  func(c uint8) string { return IndirectDim(c).String() },
	}
	for k, f := range name {
		var names [256]string
		for c := range names {
			// String's fallback for a code without a name is "Type(0x..)": no name
			if s := f(uint8(c)); !strings.ContainsRune(s, '(') {
				names[c] = s
			}
		}
		t[k] = &names
	}
	return t
}()

// EnumName is the name of code c of the enum of kind k; false when the code has none, or k is
// no enum.
func EnumName(k ValueKind, c uint64) (string, bool) {
	if !k.IsEnum() || c > 255 || enumNames[k][c] == "" {
		return "", false
	}
	return enumNames[k][c], true
}

// Field is one row of a struct's wire layout: where a field lives, as the assembler, the
// disassembler, the JSON form, the violation offsets and `explain` read it. The table
// (layoutTable), the Go structs and Encode/Decode are all generated from one spec
// (isa/internal/wirespec), so they cannot disagree; the gcc oracle test holds them to C's layout.
type Field struct {
	Path    string    // header field name; dotted for sub-structs: "src_mem_pattern.num_elem"
	Offset  int       // byte offset of element 0 in the 64-byte word
	Size    int       // bytes per element: 1, 2, 4 or 8
	Count   int       // number of elements (1 for a scalar)
	Shift   uint8     // bitfield: first bit within the element (LSB first)
	Bits    uint8     // bitfield width; 0 = the whole element
	Kind    ValueKind // how to read and print it
	Default uint64    // the value an assembler starts from (inst_word_len 16; else 0)
}

// IsArray reports an array field (Count > 1).
func (f Field) IsArray() bool { return f.Count > 1 }

// ByteLen is the number of bytes the field spans.
func (f Field) ByteLen() int { return f.Size * f.Count }

// Get reads element idx from a word (sign-extended for KInt, as two's complement in a uint64).
func (f Field) Get(w *[InstNBytes]byte, idx int) uint64 {
	o := f.Offset + idx*f.Size
	var v uint64
	switch f.Size {
	case 1:
		v = uint64(w[o])
	case 2:
		v = uint64(le.Uint16(w[o:]))
	case 4:
		v = uint64(le.Uint32(w[o:]))
	case 8:
		v = le.Uint64(w[o:])
	}
	if f.Bits != 0 {
		v = v >> f.Shift & (1<<f.Bits - 1)
	}
	if f.Kind == KInt && f.Size < 8 {
		sh := 64 - 8*uint(f.Size)
		v = uint64(int64(v<<sh) >> sh)
	}
	return v
}

// Set writes element idx (truncating v to the field's width).
func (f Field) Set(w *[InstNBytes]byte, idx int, v uint64) {
	o := f.Offset + idx*f.Size
	if f.Bits != 0 {
		m := uint64(1)<<f.Bits - 1
		old := f.raw(w, o)
		v = old&^(m<<f.Shift) | (v&m)<<f.Shift
	}
	switch f.Size {
	case 1:
		w[o] = byte(v)
	case 2:
		le.PutUint16(w[o:], uint16(v))
	case 4:
		le.PutUint32(w[o:], uint32(v))
	case 8:
		le.PutUint64(w[o:], v)
	}
}

func (f Field) raw(w *[InstNBytes]byte, o int) uint64 {
	switch f.Size {
	case 1:
		return uint64(w[o])
	case 2:
		return uint64(le.Uint16(w[o:]))
	case 4:
		return uint64(le.Uint32(w[o:]))
	}
	return le.Uint64(w[o:])
}

// Max is the largest unsigned value the field holds.
func (f Field) Max() uint64 {
	if f.Bits != 0 {
		return 1<<f.Bits - 1
	}
	if f.Size == 8 {
		return ^uint64(0)
	}
	return 1<<(8*uint(f.Size)) - 1
}

// TensorGroup names a TENSOR4D sub-struct of a layout, which the assembly syntax writes
// compactly (`src_mem_pattern=sbuf:0:0x100[32@1,4@32]`).
type TensorGroup struct {
	Path   string // "src_mem_pattern"
	Alias  string // "src"
	Offset int
}

// StructLayout is the wire layout of one struct kind.
type StructLayout struct {
	Kind    StructKind
	CName   string // the ISA header's struct name
	Fields  []Field
	Tensors []TensorGroup
	Partial string // non-empty when the layout is only partly known: what is unknown
}

// Field looks a field up by its path (without an index).
func (l *StructLayout) Field(path string) (Field, bool) {
	i, ok := layoutIndex[l.Kind][path]
	if !ok {
		return Field{}, false
	}
	return l.Fields[i], true
}

// Offset is the byte offset of path (optionally with an index, "num_elem[2]"), or -1.
func (l *StructLayout) Offset(path string) int {
	p, idx := splitIndex(path)
	if f, ok := l.Field(p); ok {
		return f.Offset + idx*f.Size
	}
	for _, t := range l.Tensors {
		if t.Path == p {
			return t.Offset
		}
	}
	for _, f := range l.Fields { // a group of bitfields or a sub-struct: its first byte
		if strings.HasPrefix(f.Path, p+".") {
			return f.Offset
		}
	}
	return -1
}

func splitIndex(path string) (string, int) {
	if j := strings.IndexByte(path, '['); j > 0 && strings.HasSuffix(path, "]") {
		n := 0
		for _, c := range path[j+1 : len(path)-1] {
			if c < '0' || c > '9' {
				return path, 0
			}
			n = n*10 + int(c-'0')
		}
		return path[:j], n
	}
	return path, 0
}

// bitfieldType is a one-byte bitfield type of the wire (DMA_CONFIGS, BOUND_CHECK_REG, ...):
// its spec name, its Go type and its subfields at offset 0.
type bitfieldType struct {
	Name, Go string
	Fields   []Field
}

// layoutIndex[k][path] is the index of path in Layout(k).Fields.
var layoutIndex = func() (t [numStructKinds]map[string]int) {
	for k := range layoutTable {
		t[k] = map[string]int{}
		for i, f := range layoutTable[k].Fields {
			t[k][f.Path] = i
		}
	}
	return t
}()

// Layout is the wire layout of a struct kind (StructNone, and any value outside the enum:
// header, events and a raw payload).
func Layout(k StructKind) *StructLayout {
	if k < numStructKinds {
		return &layoutTable[k]
	}
	return &layoutTable[StructNone]
}

// LayoutOf is the layout an opcode's word decodes with.
func LayoutOf(op Opcode) *StructLayout { return Layout(structOf[op]) }
