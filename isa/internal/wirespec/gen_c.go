package wirespec

import (
	"fmt"
	"strings"
)

// cDecl writes the C typedef of s.
func cDecl(g *gen, s *Struct) {
	g.p("typedef struct PACKED %s {", s.C)
	for i := range s.Fields {
		f := &s.Fields[i]
		t := must(typeByName(f.Type))
		arr := ""
		if f.Count > 1 {
			arr = fmt.Sprintf("[%d]", f.Count)
		}
		decl := fmt.Sprintf("    %s %s%s;", t.C, f.Name, arr)
		note := fmt.Sprintf("%d", f.Off)
		if t.Size*f.count() > 1 {
			note = fmt.Sprintf("%d..%d", f.Off, f.Off+t.Size*f.count()-1)
		}
		if f.OverRaw {
			note += ": tpbsim's INFERRED reading"
		}
		g.p("%-52s /* %s */", decl, note)
	}
	g.p("} %s;", s.C)
	g.p("")
}

// CHeader is testdata/isa/oracle/tpb_structs.h: the C definitions the gcc oracle compiles.
func CHeader() ([]byte, error) {
	if err := Check(); err != nil {
		return nil, err
	}
	g := &gen{}
	g.p("/* %s */", Header)
	g.p("/* C definitions of the NeuronCore TPB instruction structs modelled by tpbsim, from the struct")
	g.p(" * listing of seed 000 §4 / §4.1 (S4D4_TR, TENSOR4D, HEADER, EVENTS) and FACTS §B.1-§B.4,")
	g.p(" * §C.2-§C.6 (DMA structs), §F.4 (CTRL_IM, D4_MR) as isa/internal/wirespec writes them. All")
	g.p(" * structs and enums are packed; enums are one byte. gcc lays them out by its own rules, and the")
	g.p(" * oracle test (isa/oracle_test.go) holds the Go encoder and decoder to that layout. Names follow")
	g.p(" * the ISA headers; bytes the sources do not describe are named unknownNN (offset NN). */")
	g.p("#include <stdint.h>")
	g.p("")
	g.p("#define PACKED __attribute__((packed))")
	g.p("")
	for _, t := range Types {
		if t.CBase != "" {
			g.p("typedef %s %s;", t.CBase, t.C)
		}
	}
	g.p("")
	for _, t := range Types {
		if t.Sub != nil {
			cDecl(g, t.Sub)
		}
	}
	for _, s := range Structs {
		if s.Oracle {
			cDecl(g, s)
		}
	}
	for _, t := range Types {
		if t.Sub != nil {
			g.p("_Static_assert(sizeof(%s) == %d, %q);", t.C, t.Size, t.Name)
		}
	}
	for _, s := range Structs {
		if s.Oracle {
			g.p("_Static_assert(sizeof(%s) == %d, %q);", s.C, s.Size, s.Kind)
		}
	}
	g.p("")
	g.p("/* The one-byte bitfield types, LSB first as declared. */")
	for _, t := range Types {
		if len(t.Bits) == 0 {
			continue
		}
		var bs []string
		for _, b := range t.Bits {
			bs = append(bs, fmt.Sprintf("uint8_t %s : %d;", b.Name, b.Width))
		}
		g.p("typedef struct PACKED { %s } %s_BITS;", strings.Join(bs, " "), t.Name)
	}
	return []byte(g.b.String()), nil
}

// cFieldMacro is the X-macro listing s's leaf fields for the oracle: X(S, "path", member) for a
// scalar, XA(S, "path", member, n) for an array.
func cFieldMacro(g *gen, s *Struct) {
	var items []string
	var walk func(st *Struct, path, member string)
	walk = func(st *Struct, path, member string) {
		for i := range st.Fields {
			f := &st.Fields[i]
			t := must(typeByName(f.Type))
			p, m := path+f.Name, member+f.Name
			switch {
			case t.Sub != nil:
				if f.Inline {
					walk(t.Sub, path, m+".")
				} else {
					walk(t.Sub, p+".", m+".")
				}
			case f.Count > 1:
				items = append(items, fmt.Sprintf("XA(S, %q, %s, %d)", p, m, f.Count))
			default:
				items = append(items, fmt.Sprintf("X(S, %q, %s)", p, m))
			}
		}
	}
	walk(s, "", "")
	cMacro(g, s.Kind+"_FIELDS(X, XA, S)", items)
}

// cMacro writes #define head with one item a line.
func cMacro(g *gen, head string, items []string) {
	g.p("#define %s \\", head)
	for i, it := range items {
		if i < len(items)-1 {
			g.p("    %s \\", it)
		} else {
			g.p("    %s", it)
		}
	}
	g.p("")
}

// COracle is testdata/isa/oracle/tpb_oracle.h: the field lists oracle.c walks.
func COracle() ([]byte, error) {
	if err := Check(); err != nil {
		return nil, err
	}
	g := &gen{}
	g.p("/* %s */", Header)
	g.p("/* The field lists of the oracle (oracle.c): NAME_FIELDS(X, XA, S) names every leaf field of a")
	g.p(" * struct; FOR_EACH_STRUCT(D) calls D(NAME, C type, NAME_FIELDS, opcode) for every struct;")
	g.p(" * print_bits prints the subfields of every one-byte bitfield type for byte value b. */")
	g.p("#include <stdio.h>")
	g.p("#include <string.h>")
	g.p("#include \"tpb_structs.h\"")
	g.p("")
	var each []string
	for _, s := range Structs {
		if !s.Oracle {
			continue
		}
		cFieldMacro(g, s)
		each = append(each, fmt.Sprintf("D(%s, %s, %s_FIELDS, %#02x)", s.Kind, s.C, s.Kind, s.Opcode))
	}
	cMacro(g, "FOR_EACH_STRUCT(D)", each)
	g.p("static void print_bits(int b) {")
	g.p("    unsigned char c = (unsigned char)b;")
	for _, t := range Types {
		if len(t.Bits) == 0 {
			continue
		}
		var fmts, args []string
		for _, bf := range t.Bits {
			fmts = append(fmts, bf.Name+"=%u")
			args = append(args, "(unsigned)x."+bf.Name)
		}
		g.p("    { %s_BITS x; memcpy(&x, &c, 1); printf(\"%%d %s %s\\n\", b, %s); }", t.Name, t.Name, strings.Join(fmts, " "), strings.Join(args, ", "))
	}
	g.p("}")
	return []byte(g.b.String()), nil
}

// Files are the generated files, by path from the module root.
func Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	for path, f := range map[string]func() ([]byte, error){
		"isa/wire_gen.go":                   GoFile,
		"testdata/isa/oracle/tpb_structs.h": CHeader,
		"testdata/isa/oracle/tpb_oracle.h":  COracle,
	} {
		b, err := f()
		if err != nil {
			return nil, err
		}
		out[path] = b
	}
	return out, nil
}
