package isa

import (
	"reflect"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	for _, op := range AllOpcodes {
		var w [64]byte
		w[0], w[1] = byte(op), 16
		f.Add(w[:])
	}
	for _, op := range S4D4TROpcodes(CAYMAN) {
		w := Encode(s4base(op))
		f.Add(w[:])
	}
	for _, b := range bases() {
		w := Encode(b())
		f.Add(w[:])
	}
	f.Add([]byte{0x6b})
	f.Add(make([]byte, 65))
}

// FuzzDecodeEncode: decoding never panics, decode -> encode gives back the bytes, and
// decode -> encode -> decode gives an equal instruction.
func FuzzDecodeEncode(f *testing.F) {
	fuzzSeeds(f)
	var d Decoder
	f.Fuzz(func(t *testing.T, b []byte) {
		inst, err := Decode(b)
		if len(b) != 64 {
			if err == nil {
				t.Fatalf("len %d decoded", len(b))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		w := Encode(inst)
		if string(w[:]) != string(b) {
			t.Fatalf("round trip differs:\n in %x\nout %x", b, w)
		}
		again, _ := Decode(w[:])
		if !reflect.DeepEqual(inst, again) {
			t.Fatalf("decode(encode(decode(b))) differs")
		}
		same, _ := d.Decode(b)
		if !reflect.DeepEqual(inst, same) {
			t.Fatalf("Decoder differs from Decode")
		}
	})
}

// FuzzValidate: validation of any word, on any generation, of every struct kind never panics,
// and every violation names a registered rule and a field inside the word.
func FuzzValidate(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 64 {
			return
		}
		inst, _ := Decode(b[:64])
		if vs := Validate(inst, GenInvalid); len(vs) != 1 || vs[0].Rule != RuleGeneration {
			t.Fatalf("GenInvalid: %v, want the one %s violation", vs, RuleGeneration)
		}
		for _, g := range Generations {
			for _, v := range ValidateOn(inst, g, Opcode(b[0]).Engine()) {
				if _, ok := Lookup(v.Rule); !ok {
					t.Fatalf("unregistered rule %q", v.Rule)
				}
				if v.Offset < 0 || v.Offset > 63 || v.Field == "" {
					t.Fatalf("bad violation %+v", v)
				}
			}
		}
	})
}
