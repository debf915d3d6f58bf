package ucode

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// FuzzLaneWord: every word of every generation decodes, re-encodes to itself and formats.
func FuzzLaneWord(f *testing.F) {
	for _, w := range []LaneWord{BNStats2MeanGen2, BNStats2M2Gen3, Op65Lane0Gen4, Op88Lane0Gen4, 0, ^LaneWord(0)} {
		f.Add(uint64(w))
	}
	f.Fuzz(func(t *testing.T, u uint64) {
		for _, g := range TableGens {
			w := LaneWord(u)
			back, err := w.Decode(g).Encode(g)
			if err != nil || back != w {
				t.Fatalf("%s %#x: %#x %v", g, u, uint64(back), err)
			}
			_ = w.Format(g)
		}
	})
}

// FuzzDatapathTable: any bytes either fail to parse with an error or go through the JSON form
// back to the same bytes.
func FuzzDatapathTable(f *testing.F) {
	f.Add(mustFixture(f, "gen2/default").Datapath.Bytes(), uint8(0))
	f.Add(mustFixture(f, "gen4/saturate").Datapath.Bytes(), uint8(4))
	f.Add(make([]byte, 8192), uint8(2))
	f.Add([]byte{1, 2, 3}, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, gen uint8) {
		g := TableGen(gen % 5)
		s, err := ParseTables("f", map[Table]RawTable{TableDatapath: {Path: "f_datapath_table.bin", Data: data}}, g)
		if err != nil {
			return
		}
		if _, err := s.Census(); err != nil {
			t.Fatal(err)
		}
		js, err := MarshalJSONSet(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeJSON(js)
		if err != nil {
			t.Fatalf("decode own JSON: %v", err)
		}
		if !bytes.Equal(back.Files()[TableDatapath], data) {
			t.Fatal("round trip changed bytes")
		}
	})
}

// FuzzOpcodeTable: opcode tables of any content round-trip through JSON, and Lookup never
// panics on them, however wild the rows.
func FuzzOpcodeTable(f *testing.F) {
	f.Add(mustFixture(f, "gen2/default").Opcodes.Bytes(), false)
	f.Add(mustFixture(f, "gen4/default").Opcodes.Bytes(), true)
	f.Fuzz(func(t *testing.T, data []byte, later bool) {
		g := Gen2
		if later {
			g = Gen4
		}
		want := g.TableSize(TableOpcode)
		buf := make([]byte, want)
		copy(buf, data)
		raw := map[Table]RawTable{TableOpcode: {Data: buf}, TableDatapath: {Data: make([]byte, g.TableSize(TableDatapath))}}
		if g == Gen4 {
			slow := make([]byte, g.TableSize(TableControlSlow))
			binary.LittleEndian.PutUint64(slow[16:], 0xffff)
			raw[TableControlSlow] = RawTable{Data: slow}
		}
		s, err := ParseTables("f", raw, g)
		if err != nil {
			t.Fatal(err)
		}
		for op := 0; op < NumOpcodes; op++ {
			s.Lookup(uint8(op))
		}
		js, _ := MarshalJSONSet(s)
		back, err := DecodeJSON(js)
		if err != nil {
			t.Fatalf("decode own JSON: %v", err)
		}
		if !bytes.Equal(back.Opcodes.Bytes(), buf) {
			t.Fatal("round trip changed bytes")
		}
	})
}

// FuzzDecodeJSON: arbitrary JSON never panics.
func FuzzDecodeJSON(f *testing.F) {
	js, _ := MarshalJSONSet(mustFixture(f, "gen3/default"))
	f.Add(js)
	f.Add([]byte(`{"format":"tpbsim.dtable/1","gen":"gen4","tables":["datapath_table"],"datapath_table":[{"block":3,"lanes":[{"lane":0,"fields":{"high":"0x1"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodeJSON(data)
		if err == nil {
			s.Files()
		}
	})
}
