package wirespec

import (
	"fmt"
	"strings"
)

// Row is one row of a struct's flattened field table (isa.Field): a scalar or array of a
// scalar type, or one subfield of a bitfield type, with its absolute offset.
type Row struct {
	Path    string
	Offset  int
	Size    int
	Count   int
	Shift   uint8
	Bits    uint8
	Kind    string
	Default uint64
}

// Tensor is a TENSOR4D group of a struct (the assembler's compact syntax).
type Tensor struct {
	Path, Alias string
	Offset      int
}

// typeByName finds a Type.
func typeByName(n string) (*Type, error) {
	for _, t := range Types {
		if t.Name == n {
			return t, nil
		}
	}
	return nil, fmt.Errorf("wirespec: unknown type %q", n)
}

// count is the field's element count (1 for a scalar).
func (f *Field) count() int {
	if f.Count < 1 {
		return 1
	}
	return f.Count
}

// GoName is the field's Go name: Go, or the name in CamelCase (DMA, RAM and OOB stay upper case).
func (f *Field) GoName() string {
	if f.Go != "" {
		return f.Go
	}
	return Camel(f.Name)
}

var initialisms = map[string]string{"dma": "DMA", "ram": "RAM", "oob": "OOB"}

// Camel turns a snake_case name into CamelCase.
func Camel(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(s, "_") {
		if u, ok := initialisms[p]; ok {
			b.WriteString(u)
		} else if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// Check verifies the spec: every type known, every field at the offset the source gives and
// right after the previous one, every struct exactly its size, bitfield widths summing to 8.
func Check() error {
	for _, t := range Types {
		if len(t.Bits) > 0 {
			w := 0
			for _, b := range t.Bits {
				w += int(b.Width)
			}
			if w != 8*t.Size {
				return fmt.Errorf("wirespec: %s: bitfields hold %d bits, the type %d", t.Name, w, 8*t.Size)
			}
		}
		if t.Sub != nil {
			if err := checkStruct(t.Sub); err != nil {
				return err
			}
		}
	}
	kinds := map[string]bool{}
	for _, s := range Structs {
		if kinds[s.Kind] {
			return fmt.Errorf("wirespec: struct kind %s twice", s.Kind)
		}
		kinds[s.Kind] = true
		if err := checkStruct(s); err != nil {
			return err
		}
		if s.Kind != "None" && s.Size != 64 {
			return fmt.Errorf("wirespec: %s: an instruction struct is 64 bytes, not %d", s.Kind, s.Size)
		}
		for _, f := range s.Fields {
			if (f.NoGo || f.OverRaw) && s.KeepWord == "" {
				return fmt.Errorf("wirespec: %s.%s: NoGo / OverRaw need a whole-word copy (KeepWord)", s.Kind, f.Name)
			}
		}
	}
	return nil
}

func checkStruct(s *Struct) error {
	off := 0
	for _, f := range s.Fields {
		t, err := typeByName(f.Type)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", s.C, f.Name, err)
		}
		if f.Off != off {
			return fmt.Errorf("wirespec: %s.%s: listed at offset %d, the fields before it end at %d", s.C, f.Name, f.Off, off)
		}
		if f.Blob && (t.Size != 1 || t.Sub != nil) {
			return fmt.Errorf("wirespec: %s.%s: a blob is bytes", s.C, f.Name)
		}
		off += t.Size * f.count()
	}
	if off != s.Size {
		return fmt.Errorf("wirespec: %s: fields end at %d, the struct is %d bytes", s.C, off, s.Size)
	}
	return nil
}

// Rows flattens s into its field table, sub-structs prefixed by their field name ("events.",
// "src_mem_pattern."; the header without prefix), bitfield types by their subfields.
func Rows(s *Struct) []Row {
	var out []Row
	var walk func(st *Struct, base int, prefix string)
	walk = func(st *Struct, base int, prefix string) {
		for _, f := range st.Fields {
			t, _ := typeByName(f.Type)
			off := base + f.Off
			switch {
			case t.Sub != nil:
				p := prefix + f.Name + "."
				if f.Inline {
					p = prefix
				}
				walk(t.Sub, off, p)
			case len(t.Bits) > 0:
				sh := uint8(0)
				for _, b := range t.Bits {
					out = append(out, Row{Path: prefix + f.Name + "." + b.Name, Offset: off, Size: 1, Count: 1, Shift: sh, Bits: b.Width, Kind: b.Kind})
					sh += b.Width
				}
			default:
				k := t.Kind
				if f.Blob {
					k = "KBlob"
				}
				out = append(out, Row{Path: prefix + f.Name, Offset: off, Size: t.Size, Count: f.count(), Kind: k, Default: f.Default})
			}
		}
	}
	walk(s, 0, "")
	return out
}

// Tensors lists the TENSOR4D fields of s.
func Tensors(s *Struct) []Tensor {
	var out []Tensor
	for _, f := range s.Fields {
		if f.Type == "TENSOR4D" {
			out = append(out, Tensor{Path: f.Name, Alias: f.Alias, Offset: f.Off})
		}
	}
	return out
}

// goLayoutMirrors reports whether Go lays st out exactly as the wire does (every field at its
// wire offset under Go's alignment rules, no padding, size = wire size), so that decode and
// encode can be one copy on a little-endian machine.
func goLayoutMirrors(st *Struct) bool {
	if st.KeepWord != "" {
		return false
	}
	for _, f := range st.Fields {
		t, _ := typeByName(f.Type)
		if t.Sub != nil && !goLayoutMirrors(t.Sub) {
			return false
		}
		if f.NoGo || f.Off%goAlign(t) != 0 {
			return false
		}
	}
	a := 1
	for _, f := range st.Fields {
		t, _ := typeByName(f.Type)
		if g := goAlign(t); g > a {
			a = g
		}
	}
	return st.Size%a == 0
}

// goAlign is the Go alignment of a field of type t on 64-bit platforms (the generated code
// checks the offsets with unsafe.Offsetof as well).
func goAlign(t *Type) int {
	if t.Sub != nil {
		a := 1
		for _, f := range t.Sub.Fields {
			ft, _ := typeByName(f.Type)
			if g := goAlign(ft); g > a {
				a = g
			}
		}
		return a
	}
	return t.Size
}
