// Package wirespec is the one description of the instruction layer's wire structs: every
// field's name, byte offset, type and count, written from the seed's struct listing (seed 000
// §4, §4.1) and FACTS' tables (§B.1-§B.4, §C.2-§C.6, §F.4). Everything else that knows where a
// field lives is generated from it (Files): package isa's Go structs, encoder, decoder and field
// table (isa/wire_gen.go), which asm, disasm, check and explain read, and the C header and
// field lists the gcc oracle test compiles (testdata/isa/oracle). `go generate ./isa/...` writes
// them; isa's TestGeneratedCurrent fails when they are not current.
//
// Adding a struct kind is one Struct entry in Structs (plus its rule list in package isa, named
// by Struct.Rules).
//
// The package imports nothing of this module, so package isa's tests can call Files.
package wirespec

// Type is a wire type a field can have: a C scalar, a 1-byte enum, an address word, a 1-byte
// bitfield type or a sub-struct.
type Type struct {
	Name   string     // spec name, e.g. "u8", "DTYPE", "TENSOR4D"
	C      string     // C type name (a typedef of the header, or a stdint type)
	CBase  string     // for a typedef: the stdint type it names ("" for stdint types and structs)
	Go     string     // Go type in package isa
	Size   int        // bytes
	Signed bool       // two's-complement integer
	Kind   string     // isa.ValueKind of a scalar: "KUint", "KInt", "KDType", ...
	Bits   []Bitfield // a 1-byte bitfield type: its subfields, LSB first
	Make   string     // a bitfield type: the name of its Go constructor ("" for none)
	Sub    *Struct    // a sub-struct (HEADER, EVENTS, TENSOR4D)
	Doc    string     // Go doc comment of the type (generated declarations only)
}

// Bitfield is one subfield of a 1-byte bitfield type.
type Bitfield struct {
	Name   string // C and layout name, e.g. "priority_class"
	Width  uint8  // bits
	Kind   string // isa.ValueKind of the subfield
	Method string // Go accessor method name
	Result string // Go result type of the accessor: "bool", "uint8" or an enum type
	Doc    string // accessor doc
}

// Field is one field of a struct, in wire order.
type Field struct {
	Name    string // the header's name, e.g. "src_mem_pattern"
	Off     int    // byte offset in its struct as the source lists it (the generator checks it)
	Type    string // a Type name
	Count   int    // array length; 0 or 1 is a scalar
	Go      string // Go field name (default: the name in CamelCase with DMA, RAM kept upper)
	Blob    bool   // opaque bytes the sources do not describe: isa.KBlob, printed as hex
	NoGo    bool   // no Go field: the bytes live in the struct's whole-word copy (KeepWord)
	OverRaw bool   // written over the whole-word copy only when non-zero (INFERRED offsets)
	Inline  bool   // a sub-struct whose field paths take no prefix (the HEADER)
	Alias   string // a TENSOR4D: the assembler's short name ("src", "dst")
	Default uint64 // the value an assembler starts from
	Doc     string // Go field comment
}

// Struct is one wire struct: a 64-byte instruction struct or a sub-struct.
type Struct struct {
	Kind     string  // StructKind suffix: "S4D4_TR" is isa.StructS4D4_TR ("" for sub-structs)
	Go       string  // Go type name
	C        string  // the header's struct name
	Size     int     // bytes (64 for instructions)
	Doc      string  // Go doc comment (may hold a byte diagram)
	Fields   []Field // in wire order
	Partial  string  // non-empty when the layout is only partly known: what is unknown
	KeepWord string  // Go field holding the whole word as read ("" for none)
	Rules    string  // the rule list in package isa ("" for none)
	ByOpcode bool    // Rules is an array indexed by opcode
	Opcode   uint8   // an opcode that binds the struct (the oracle fills it with this one)
	Oracle   bool    // the gcc oracle compiles and checks it
	KindDoc  string  // comment of the StructKind constant
}
