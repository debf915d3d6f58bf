package wirespec

import (
	"strings"
	"testing"
)

// TestCheckRefuses: the spec check catches each way an entry can be written wrong.
func TestCheckRefuses(t *testing.T) {
	cases := []struct {
		name string
		mut  func() func() // breaks the spec, returns the undo
		want string
	}{
		{"offset off by one", func() func() {
			f := &Structs[0].Fields[3]
			f.Off++
			return func() { f.Off-- }
		}, "listed at offset"},
		{"struct too short", func() func() {
			s := Structs[1]
			s.Size = 63
			return func() { s.Size = 64 }
		}, "fields end at"},
		{"bitfield widths", func() func() {
			b := &Types[14].Bits[0]
			b.Width++
			return func() { b.Width-- }
		}, "bitfields hold"},
		{"unknown type", func() func() {
			f := &Structs[2].Fields[2]
			old := f.Type
			f.Type = "NOPE"
			return func() { f.Type = old }
		}, "unknown type"},
		{"kind twice", func() func() {
			old := Structs[1].Kind
			Structs[1].Kind = Structs[0].Kind
			return func() { Structs[1].Kind = old }
		}, "twice"},
		{"raw-only field without a word copy", func() func() {
			f := &Structs[0].Fields[4]
			f.NoGo = true
			return func() { f.NoGo = false }
		}, "KeepWord"},
	}
	if err := Check(); err != nil {
		t.Fatalf("the spec as written: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			undo := c.mut()
			defer undo()
			err := Check()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Check = %v, want an error with %q", err, c.want)
			}
		})
	}
}

// TestRowsCoverEveryByte: the flattened table of every instruction struct covers bytes 0..63
// once (bitfield subfields share their byte).
func TestRowsCoverEveryByte(t *testing.T) {
	for _, s := range Structs {
		t.Run(s.Kind, func(t *testing.T) {
			var cover [64]int
			for _, r := range Rows(s) {
				if r.Bits != 0 && r.Shift != 0 {
					continue
				}
				for b := r.Offset; b < r.Offset+r.Size*r.Count; b++ {
					cover[b]++
				}
			}
			for b, n := range cover {
				if n != 1 {
					t.Errorf("byte %d covered %d times", b, n)
				}
			}
		})
	}
}

// TestCamel: the Go names the spec derives.
func TestCamel(t *testing.T) {
	for in, want := range map[string]string{
		"dma_configs": "DMAConfigs", "param_ram_offset": "ParamRAMOffset", "dst_step_elem_1": "DstStepElem1",
		"num_active_channels": "NumActiveChannels", "op": "Op",
	} {
		t.Run(in, func(t *testing.T) {
			if got := Camel(in); got != want {
				t.Errorf("Camel(%s) = %s, want %s", in, got, want)
			}
		})
	}
}
