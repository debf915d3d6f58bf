package ucode

import (
	"bytes"
	"encoding/binary"
	"slices"
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

// FuzzDatapathTable builds a full-size datapath table from a small input (mode picks the
// generation and the shape, see fuzzMode; patch records are a u16 LE lane index and a u64 LE
// word) and checks: a file of the wrong size fails with a *TableError naming the offset and the
// size; a full-size one parses as its generation, re-encodes to the same bytes, infers its
// generation by the idle-word census, analyses and censuses consistently with its lanes, resolves
// the fixture's opcodes whose blocks changed through it, diffs against the fixture word for word,
// and round-trips the blocks the input wrote through JSON.
func FuzzDatapathTable(f *testing.F) {
	lanes := func(ws ...LaneWord) []byte {
		var out []byte
		for _, w := range ws {
			out = binary.LittleEndian.AppendUint64(out, uint64(w))
		}
		return out
	}
	patch := func(lane int, w LaneWord) []byte {
		return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint16(nil, uint16(lane)), uint64(w))
	}
	mean, m2 := BNStats2MeanGen2, BNStats2M2Gen2
	f.Add(lanes(mean, mean, mean, m2, mean, mean, mean, m2), fuzzMode(Gen2, shapePrefix, 0))
	f.Add(lanes(Op88Lane0Gen3, 0, idleWords[Gen3], Op66Lane1Gen3), fuzzMode(Gen3, shapePrefix, 0))
	f.Add(slices.Concat(patch(3*8, Op65Lane0Gen4), patch(3*8+1, 0), patch(5*8+7, idleWords[Gen4]), patch(0xffff, 1)), fuzzMode(Gen4, shapePatch, 0))
	f.Add(slices.Concat(patch(41*8+3, BNStats2MeanGen2), patch(0, ^LaneWord(0))), fuzzMode(Gen2, shapePatch, 0))
	f.Add(lanes(idleWords[Gen4]), fuzzMode(Gen3, shapeTile, 0))                  // census says gen4
	f.Add(lanes(idleWords[Gen3], idleWords[Gen4]), fuzzMode(Gen4, shapeTile, 0)) // a gen3/gen4 tie
	f.Add(lanes(idleWords[Gen2], 0, Op65Lane0Gen2), fuzzMode(Gen2, shapeTile, 0))
	f.Add([]byte{1, 2, 3}, fuzzMode(Gen2, shapeRaw, 0))
	f.Add([]byte{}, fuzzMode(Gen4, shapeRaw, 0))
	f.Add([]byte{0}, fuzzMode(Gen3, shapeOversize, 0))
	f.Add([]byte{}, fuzzMode(Gen2, shapeOversize, 0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g, shape, _ := splitFuzzMode(mode)
		if len(data) > fuzzMaxInput {
			data = data[:fuzzMaxInput]
		}
		base := fuzzBase(t, g)
		file := shapeTable(shape, data, base.Datapath.Bytes())
		var touched []int
		switch shape {
		case shapeRaw, shapeOversize:
			if len(file) != len(base.Datapath.Blocks)*BlockSize {
				checkSingleTable(t, TableDatapath, file, g)
				return
			}
		case shapePatch:
			touched = patchDatapath(file, data)
		default:
			touched = spanned(len(data), BlockSize, g.ControlRows())
		}
		raw := map[Table]RawTable{TableDatapath: {Path: TableDatapath.FileName("f"), Data: file}}
		s, err := ParseTables("f", raw, g)
		if err != nil {
			t.Fatalf("%s datapath_table of the right size: %v", g, err)
		}
		checkInference(t, raw, s, g)
		whole := &TableSet{Name: "f", Gen: g, Opcodes: base.Opcodes, Control: base.Control, Slow: base.Slow, Datapath: s.Datapath}
		checkChain(t, whole, checkDatapath(t, whole, file), spreadOps(affectedOps(base, whole), 32))
		checkDiff(t, base, whole)
		checkJSONRoundTrip(t, sparseCopy(s, nil, touched, nil, nil))
	})
}

// patchDatapath applies FuzzDatapathTable's patch records to a datapath table: a u16 LE lane
// index (modulo the table's lanes: block index/8, lane index%8) and the new u64 LE lane word,
// 10 bytes a record; a short last record is dropped. It returns the blocks it wrote.
func patchDatapath(file, data []byte) []int {
	var blocks []int
	nlanes := len(file) / 8
	for ; len(data) >= 10; data = data[10:] {
		lane := int(binary.LittleEndian.Uint16(data)) % nlanes
		copy(file[lane*8:], data[2:10])
		if b := lane / LanesPerBlock; !slices.Contains(blocks, b) {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// FuzzOpcodeTable builds a full-size set from the default fixture and a small input that
// rewrites its opcode table, control (fast) table or control_slow_table (mode picks the
// generation, the shape and, for all shapes but patches, the table; see fuzzMode and
// patchControl), and checks: a file of the wrong size fails with a *TableError naming the offset
// and the size; a whole set parses, re-encodes byte for byte, every opcode slot re-encodes,
// every row's fields tile its bytes, Lookup resolves the opcodes the input can have changed to
// exactly the rows and block their slots name (however wild the slot), the census and the diff
// against the fixture agree with the tables, CrossGenCheck handles the changed opcodes (the first
// 16), and what the input wrote round-trips through JSON.
func FuzzOpcodeTable(f *testing.F) {
	entry := func(g TableGen, op uint8, raw uint64) []byte {
		out := []byte{0, op}
		if g == Gen2 {
			return binary.LittleEndian.AppendUint64(out, raw)
		}
		return binary.LittleEndian.AppendUint32(out, uint32(raw))
	}
	row := func(sel, idx uint8, r ControlRow) []byte { return append([]byte{sel, idx}, r[:]...) }
	ctl := ControlRow{0x55, 0x55, 0x10, 0, 0x20, 0x80, 0x10}
	slow48 := ControlRow{0x00, 0xc3, 0x30, 0x0c, 0xc3, 0x30, 0x01, 0x00}
	for i, g := range TableGens {
		f.Add(fuzzBase(f, g).Opcodes.Bytes()[:64], fuzzMode(g, shapePrefix, 0))
		f.Add([]byte{0xff, 0xff, 0xff, 0xff}, fuzzMode(g, shapeTile, 0)) // every op on the last row, slow field all ones
		f.Add([]byte{1, 2, 3}, fuzzMode(g, shapeRaw, i))
		f.Add([]byte{0}, fuzzMode(g, shapeOversize, 2-i))
		f.Add(ctl[:], fuzzMode(g, shapeTile, 1))
		f.Add(slow48[:], fuzzMode(g, shapePrefix, 2))
	}
	f.Add(slices.Concat(entry(Gen2, 0xff, 127|1<<7), entry(Gen2, 65, 0), row(1, 200, ctl), row(2, 5, slow48)), fuzzMode(Gen2, shapePatch, 0))
	f.Add(slices.Concat(entry(Gen3, 107, 0xffffff05), entry(Gen3, 81, 0x3008), row(2, 255, slow48)), fuzzMode(Gen3, shapePatch, 0))
	f.Add(slices.Concat(entry(Gen4, 48, 0), entry(Gen4, 0, 0x1ff), row(1, 1, ControlRow{}), row(2, 48, ctl)), fuzzMode(Gen4, shapePatch, 0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g, shape, tsel := splitFuzzMode(mode)
		if len(data) > fuzzMaxInput {
			data = data[:fuzzMaxInput]
		}
		tb := [...]Table{TableOpcode, TableControl, TableControlSlow}[tsel]
		if tb == TableControl && g != Gen2 {
			tb = TableControlFast
		}
		base := fuzzBase(t, g)
		files := base.Files()
		if shape == shapeRaw || shape == shapeOversize {
			checkSingleTable(t, tb, shapeTable(shape, data, files[tb]), g) // gen2 has no slow table: an error
			return
		}
		if tb == TableControlSlow && g == Gen2 {
			tb = TableControl
		}
		var ops, rows, slow []int
		if shape == shapePatch {
			ops, rows, slow = patchControl(files, data, g)
		} else {
			files[tb] = shapeTable(shape, data, files[tb])
			switch tb {
			case TableOpcode:
				ops = spanned(len(data), g.OpcodeEntrySize(), NumOpcodes)
			case TableControl, TableControlFast:
				rows = spanned(len(data), ControlRowSize, g.ControlRows())
			case TableControlSlow:
				slow = spanned(len(data), ControlRowSize, g.ControlRows())
			}
		}
		raw := map[Table]RawTable{}
		for t, data := range files {
			raw[t] = RawTable{Path: t.FileName("f"), Data: data}
		}
		s, err := ParseTables("f", raw, g)
		if err != nil {
			t.Fatalf("%s set of the right sizes: %v", g, err)
		}
		for tb, data := range s.Files() {
			if !bytes.Equal(data, files[tb]) {
				t.Fatalf("%s %s: re-encoding changed bytes", g, tb)
			}
		}
		checkEntries(t, s.Opcodes)
		for _, r := range rows {
			checkRow(t, s.Control.Rows[r], s.Control.Table, g)
		}
		for _, r := range slow {
			checkRow(t, s.Slow.Rows[r], TableControlSlow, g)
		}
		c, err := s.Census()
		if err != nil {
			t.Fatal(err)
		}
		checkChain(t, s, c, spreadOps(affectedOps(base, s), 32))
		d := checkDiff(t, base, s)
		other := fuzzBase(t, TableGens[(int(g-Gen2)+1)%len(TableGens)])
		for _, op := range d.OpcodeSlots[:min(len(d.OpcodeSlots), 16)] {
			r, err := CrossGenCheck(s, other, op)
			ra, oka := s.Lookup(op)
			_, okb := other.Lookup(op)
			if (err == nil) != (oka && okb) || (err == nil && (len(r.Lanes) != LanesPerBlock || r.RowA != ra.FastRow)) {
				t.Fatalf("%s CrossGenCheck(%d) against %s: %+v %v", g, op, other.Gen, r, err)
			}
		}
		checkJSONRoundTrip(t, sparseCopy(&TableSet{Name: "f", Gen: g, Opcodes: s.Opcodes, Control: s.Control, Slow: s.Slow}, ops, nil, rows, slow))
	})
}

// patchControl applies FuzzOpcodeTable's patch records to a set's files: a selector byte (mod 3:
// the opcode table, the control (fast) table, the control_slow_table, which gen2 lacks and so
// takes on its control_table), an index byte (the opcode, or the row modulo the row count) and
// the new bytes: an opcode slot (8 B in gen2, 4 B in gen3/gen4) or a 16-byte row. A short last
// record is dropped. It returns the opcode slots, control rows and slow rows it wrote.
func patchControl(files map[Table][]byte, data []byte, g TableGen) (ops, rows, slow []int) {
	ctl := TableControlFast
	if g == Gen2 {
		ctl = TableControl
	}
	for len(data) >= 2 {
		sel, idx := data[0]%3, int(data[1])
		tb, size, list := ctl, ControlRowSize, &rows
		switch {
		case sel == 0:
			tb, size, list = TableOpcode, g.OpcodeEntrySize(), &ops
		case sel == 2 && g != Gen2:
			tb, list = TableControlSlow, &slow
		}
		if len(data) < 2+size {
			break
		}
		if tb != TableOpcode {
			idx %= g.ControlRows()
		}
		if !slices.Contains(*list, idx) {
			*list = append(*list, idx)
		}
		copy(files[tb][idx*size:], data[2:2+size])
		data = data[2+size:]
	}
	return ops, rows, slow
}

// FuzzDecodeJSON maps a small input onto the JSON form (mode picks the generation, the shape and
// the template, see splitJSONMode): raw JSON text, or patch records (see patchJSON) rewriting keys
// and values of a compact JSON rendering of part of the default fixture. It checks (see
// checkDecodeJSON): text that is not one JSON object of the form is refused as JSON; a decode
// error is ErrInvalid or ErrGeneration and names where (format, gen, tables, or the list element
// and lane that exist in the JSON); a set holds exactly what the JSON lists, re-encodes to JSON
// that decodes to the same tables byte for byte, and that JSON is a fixpoint. An unpatched
// template decodes to the tables it was rendered from.
func FuzzDecodeJSON(f *testing.F) {
	rec := func(slot int, how uint8, payload string) []byte {
		return append([]byte{byte(slot), how<<6 | uint8(len(payload))}, payload...)
	}
	for i, g := range TableGens {
		f.Add([]byte{}, jsonMode(g, false, i))
		f.Add(rec(0, 1, "fields"), jsonMode(g, false, 0)) // a key renamed: unknown field
		f.Add(slices.Concat(rec(9, 2, "\x01"), rec(17, 3, "\xff\xff"), rec(40, 2, "\xff")), jsonMode(g, false, 1))
		f.Add(slices.Concat(rec(60, 3, "\x01\x00\x00\x00\x00\x00\x00\x00\x00"), rec(90, 1, " 0x7 ")), jsonMode(g, false, 2))
		f.Add(rec(120, 0, "null"), jsonMode(g, false, 3))
	}
	f.Add([]byte(`{"format":"tpbsim.dtable/1","gen":"gen4","tables":["datapath_table"],"datapath_table":[{"block":3,"lanes":[{"lane":0,"fields":{"high":"0x1"}}]}]}`), jsonMode(Gen4, true, 0))
	f.Add([]byte(`{"format":"tpbsim.dtable/1","set":"s","gen":"2","tables":["opcode_table","control_table"],"opcode_table":[{"op":255,"raw":"0X81","fast_row":1,"slow_row":1}],"control_table":[{"row":127,"bytes":" 00112233445566778899aabbccddeeff"}]}`), jsonMode(Gen2, true, 0))
	f.Add([]byte(`{"format":"tpbsim.dtable/1","gen":"MARIANA","tables":["control_slow_table","datapath_table"],"datapath_table":[{"block":0,"lanes":[{"lane":7,"word":"0x40000000000"}]}]} `), jsonMode(Gen4, true, 0))
	f.Add([]byte(`{"format":"tpbsim.dtable/1","gen":"gen3","tables":[]}{}`), jsonMode(Gen3, true, 0))
	f.Add([]byte(`[`), jsonMode(Gen3, true, 0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g, raw, v := splitJSONMode(mode)
		if raw {
			checkDecodeJSON(t, data[:min(len(data), jsonFuzzMaxRaw)])
			return
		}
		tp := fuzzJSONTemplate(t, g, v)
		js, n := patchJSON(tp, data[:min(len(data), fuzzMaxInput)])
		s := checkDecodeJSON(t, js)
		if n == 0 {
			want := tp.src.Files()
			if s == nil || len(s.Files()) != len(want) {
				t.Fatalf("%s template %d does not decode to its tables", g, v)
			}
			for tb, b := range s.Files() {
				if !bytes.Equal(b, want[tb]) {
					t.Fatalf("%s template %d: %s differs from the fixture's", g, v, tb)
				}
			}
		}
	})
}

// jsonMode packs FuzzDecodeJSON's mode byte: mode%3 the generation, mode/3%2 raw JSON (1) or
// patches (0), mode/6%jsonVariants the template.
func jsonMode(g TableGen, raw bool, variant int) uint8 {
	m := uint8(g-Gen2) + 6*uint8(variant%jsonVariants)
	if raw {
		m += 3
	}
	return m
}

func splitJSONMode(mode uint8) (TableGen, bool, int) {
	return TableGens[mode%3], mode/3%2 == 1, int(mode / 6 % jsonVariants)
}
