package isa

import (
	"strconv"
	"strings"
	"testing"
)

// TestEnumStringsTotal: String of every enum is defined on all 256 byte values: it never
// panics, never prints "", and a value outside the enum prints as Type(N) with the type's name.
func TestEnumStringsTotal(t *testing.T) {
	cases := []struct {
		name   string
		str    func(c uint8) string
		named  func(c uint8) bool // c is a value of the enum
		prefix string             // the fallback's type name
	}{
		{"Generation", func(c uint8) string { return Generation(c).String() }, func(c uint8) bool { return c < uint8(numGenerations) }, "Generation("},
		{"StructKind", func(c uint8) string { return StructKind(c).String() }, func(c uint8) bool { return c < uint8(numStructKinds) }, "StructKind("},
		{"Space", func(c uint8) string { return Space(c).String() }, func(c uint8) bool { return c <= uint8(SpaceReg) }, "Space("},
		{"Engine", func(c uint8) string { return Engine(c).String() }, func(c uint8) bool { return c <= uint8(EngineTOP_SP) }, "Engine("},
		{"DType", func(c uint8) string { return DType(c).String() }, func(c uint8) bool { return DType(c).Known() }, "DType("},
		{"Opcode", func(c uint8) string { return Opcode(c).String() }, func(c uint8) bool { return Opcode(c).Known() }, "Opcode("},
		{"ALUOp", func(c uint8) string { return ALUOp(c).String() }, func(c uint8) bool { return ALUOp(c).Known() }, "ALUOp("},
		{"TensorSubdim", func(c uint8) string { return TensorSubdim(c).String() }, func(c uint8) bool { return c == 0 || c >= 2 && c <= 5 }, "TensorSubdim("},
		{"WaitMode", func(c uint8) string { return WaitMode(c).String() }, func(c uint8) bool { return WaitMode(c).Known() }, "WaitMode("},
		{"UpdateMode", func(c uint8) string { return UpdateMode(c).String() }, func(c uint8) bool { return UpdateMode(c).Known() }, "UpdateMode("},
		{"DGEComputeOp", func(c uint8) string { return DGEComputeOp(c).String() }, func(c uint8) bool { return c <= 4 }, "DGEComputeOp("},
		{"IndirectDim", func(c uint8) string { return IndirectDim(c).String() }, func(c uint8) bool { return c <= 3 }, "IndirectDim("},
		{"IndirectMode", func(c uint8) string { return IndirectMode(c).String() }, func(c uint8) bool { return c <= 2 }, "IndirectMode("},
		{"ValueKind", func(c uint8) string { return ValueKind(c).String() }, func(c uint8) bool { return c < uint8(numValueKinds) }, "ValueKind("},
		{"EngineSet", func(c uint8) string { return EngineSet(uint16(c) << 1).String() }, func(c uint8) bool { return true }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			seen := map[string]uint8{}
			for v := 0; v < 256; v++ {
				s := c.str(uint8(v))
				if s == "" {
					t.Fatalf("String(%d) is empty", v)
				}
				if c.prefix == "" {
					continue
				}
				if fallback := strings.HasPrefix(s, c.prefix); fallback == c.named(uint8(v)) {
					t.Errorf("String(%d) = %q (a value of the enum: %v)", v, s, c.named(uint8(v)))
				}
				if prev, dup := seen[s]; dup {
					t.Errorf("String(%d) = String(%d) = %q", v, prev, s)
				}
				seen[s] = uint8(v)
			}
		})
	}
}

// TestZeroValuesMeanNone: the zero value of every enum whose zero is not a hardware code is
// the "none" member.
func TestZeroValuesMeanNone(t *testing.T) {
	var (
		e Engine
		g Generation
		k StructKind
		s EngineSet
		d DType
		v ValueKind
	)
	_, code := e.Code()
	cases := []struct {
		name string
		ok   bool
		got  string
	}{
		{"Engine", e == EngineNone && e.String() == "none" && !code, e.String()},
		{"Generation", g == GenInvalid && !g.Valid() && g.Check() != nil, g.String()},
		{"StructKind", k == StructNone && k.String() == "none", k.String()},
		{"EngineSet", s.String() == "none" && !s.Has(EnginePE) && len(s.List()) == 0, s.String()},
		{"DType", d == DTypeINVALID && d.String() == "INVALID", d.String()},
		{"ValueKind", v == KUint, v.String()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("the zero value is %s, not none", c.got)
			}
		})
	}
}

// TestEngineCodes: the NEURON_ENGINE codes of FACTS §A.4, both ways.
func TestEngineCodes(t *testing.T) {
	facts := map[uint8]Engine{0: EnginePE, 1: EngineACT, 2: EnginePOOL, 3: EngineDVE, 4: EngineTPB_SP, 5: EngineTOP_SP}
	for c := 0; c < 256; c++ {
		t.Run(strconv.Itoa(c), func(t *testing.T) {
			e, ok := EngineOfCode(uint8(c))
			want, known := facts[uint8(c)]
			if ok != known || e != want {
				t.Errorf("EngineOfCode(%d) = %v %v, want %v %v", c, e, ok, want, known)
			}
			if known {
				if back, ok := e.Code(); !ok || back != uint8(c) {
					t.Errorf("%v.Code() = %d %v, want %d", e, back, ok, c)
				}
			}
		})
	}
}
