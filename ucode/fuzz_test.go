package ucode

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// FuzzLaneWord: every word of every generation decodes, re-encodes to itself, formats, and
// relocates forward keeping its relocated fields; FieldsDiffering names exactly the fields whose
// bits differ.
func FuzzLaneWord(f *testing.F) {
	for _, w := range []LaneWord{0x071d6000, 0x77005b4000, 0xa00040000001438, 0x440000014000, 0, ^LaneWord(0), 1 << 20, 1 << 42} {
		f.Add(uint64(w), uint64(w^0x600000))
	}
	f.Fuzz(func(t *testing.T, u, v uint64) {
		w, x := LaneWord(u), LaneWord(v)
		for i, g := range TableGens {
			l := layout(g)
			fs := mustDecode(t, w, g)
			back, err := fs.Encode(g)
			if err != nil || back != w {
				t.Fatalf("%s %#x: %#x %v", g, u, uint64(back), err)
			}
			kind := w.Kind(g)
			if (kind == LaneZero) != (w == 0) || (kind == LaneIdle) != (w == idleWords[g]) || w.Format(g) == "" || !strings.HasPrefix(w.Line(g), fmt.Sprintf("%#016x ", u)) {
				t.Fatalf("%s %#x: kind %v, format %q", g, u, kind, w.Format(g))
			}
			if w.Terminal(g) != (kind == LaneActive && uint64(w)&uint64(idleWords[g]) == 0) {
				t.Fatalf("%s %#x: terminal %v", g, u, w.Terminal(g))
			}
			diff, err := FieldsDiffering(w, x, g)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, nf := range l.Fields() {
				if uint64(w^x)&nf.Mask() != 0 {
					want = append(want, nf.Name)
				}
			}
			if !slices.Equal(diff, want) || (len(diff) == 0) != (w == x) {
				t.Fatalf("%s %#x vs %#x: differ in %v, want %v", g, u, v, diff, want)
			}
			for _, to := range TableGens[i:] {
				r, err := RelocateFrom(w, g, to)
				if err != nil {
					t.Fatalf("%s -> %s %#x: %v", g, to, u, err)
				}
				fr := mustDecode(t, r, to)
				if fr.VALID != fs.VALID || fr.MODE != fs.MODE || fr.STAGE != fs.STAGE || fr.OPA != fs.OPA || fr.OPB != fs.OPB || fr.MUX != fs.MUX || fr.HIGH != 0 {
					t.Fatalf("%s -> %s %#x: %+v from %+v", g, to, u, fr, fs)
				}
			}
		}
	})
}

// FuzzDatapathBlock: a block of eight lane words (the input's first 64 bytes, zero-padded) of
// the mode's generation, at block mode/3 of an otherwise empty datapath table: Analyze agrees with
// a classification of its own (class, form, depth, idle and zero lanes, packing, terminal lanes),
// the census of the table counts the block and nothing else, and the block's JSON form reads
// back to the same words.
func FuzzDatapathBlock(f *testing.F) {
	lanes := func(ws ...LaneWord) []byte {
		var out []byte
		for _, w := range ws {
			out = binary.LittleEndian.AppendUint64(out, uint64(w))
		}
		return out
	}
	mean, m2 := LaneWord(0x071d6000), LaneWord(0x077d6000)
	f.Add(lanes(mean, mean, mean, m2, mean, mean, mean, m2), uint8(3*41))
	f.Add(lanes(0x01102000, 0x01102000, 0x01002000, 0x00100480, 1<<20, 1<<20, 1<<20, 1<<20), uint8(3*8))
	f.Add(lanes(0x1100014000, 0, 1<<32, 0x10000140c), uint8(1))
	f.Add(lanes(0xa00040000001438, 1<<42, 0, 0xa00040000001406), uint8(2+3*84))
	f.Add(lanes(1<<20, 1<<20, 1<<20, 1<<20, 1<<20, 1<<20, 1<<20, 1<<20), uint8(0))
	f.Add(lanes(1<<32, 0, 1<<32), uint8(1))
	f.Add(lanes(0, 0x0010041c), uint8(0)) // not left-packed
	f.Add([]byte{}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g := genOf(mode)
		var b DatapathBlock
		for L := range b {
			var w [8]byte
			if L*8 < len(data) {
				copy(w[:], data[L*8:])
			}
			b[L] = LaneWord(binary.LittleEndian.Uint64(w[:]))
		}
		idx := int(mode/3) % g.ControlRows()
		in := b.Analyze(g)
		want := analyzeOwn(b, idleWords[g])
		want.Index = in.Index
		if in.Class != want.Class || in.Form != want.Form || in.Depth != want.Depth || in.Idle != want.Idle || in.Zero != want.Zero ||
			in.LeftPacked != want.LeftPacked || !slices.Equal(in.Terminal, want.Terminal) {
			t.Fatalf("%s %#x: Analyze %+v, want %+v", g, b, in, want)
		}
		dt := &DatapathTable{Gen: g, Blocks: make([]DatapathBlock, g.ControlRows())}
		dt.Blocks[idx] = b
		s := &TableSet{Name: "f", Gen: g, Datapath: dt}
		c, err := s.Census()
		if err != nil {
			t.Fatal(err)
		}
		off := g.ControlRows() - 1
		if in.Class == ClassOff {
			off++
		}
		if c.Blocks != g.ControlRows() || c.Off != off || c.Active+c.Passthru+c.Off != c.Blocks || c.IdleWords != in.Idle ||
			c.ActiveWords != in.Depth || c.TerminalLanes != len(in.Terminal) || len(c.Depths[in.Depth].Blocks) != depthBlocks(in.Depth, g) {
			t.Fatalf("%s census of one block %+v: %+v", g, in, c)
		}
		if (len(c.PackingViolations) == 1) != !in.LeftPacked {
			t.Fatalf("%s packing violations %v for %+v", g, c.PackingViolations, in)
		}
		checkBlockJSON(t, idx, b, g)
	})
}

// analyzeOwn classifies a block the way seed 004 §2-§4 describes it, independently of Analyze.
func analyzeOwn(b DatapathBlock, idle LaneWord) BlockInfo {
	var in BlockInfo
	for L, w := range b {
		switch w {
		case 0:
			in.Zero++
		case idle:
			in.Idle++
		default:
			in.Depth++
			if w&idle == 0 {
				in.Terminal = append(in.Terminal, L)
			}
		}
	}
	// Left-packed: the active lanes are the first Depth lanes.
	in.LeftPacked = !slices.ContainsFunc(b[:in.Depth], func(w LaneWord) bool { return w == 0 || w == idle })
	// seed 004 §2: any active lane makes the block ACTIVE; else idle lanes make it PASSTHRU
	// (all-idle or idle+zero); else it is OFF.
	in.Class, in.Form = ClassOff, FormNone
	if in.Idle > 0 {
		in.Class, in.Form = ClassPassthru, [2]PassthruForm{FormIdleZero, FormAllIdle}[boolIndex(in.Idle == LanesPerBlock)]
	}
	if in.Depth > 0 {
		in.Class, in.Form = ClassActive, FormNone
	}
	return in
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// depthBlocks is how many blocks of depth k a table holding one block of depth k and zeros has.
func depthBlocks(k int, g TableGen) int {
	if k == 0 {
		return g.ControlRows()
	}
	return 1
}

// FuzzControlRow: sixteen bytes (zero-padded) as a row of the control table mode/3 picks (the
// control table, or the control_slow_table where the generation has one) of the mode's
// generation: its fields cover its bytes once in order, a slow row's steps are its first six
// bytes, the hex form reads back, and so does the row's JSON form.
func FuzzControlRow(f *testing.F) {
	for _, r := range []ControlRow{
		{0x00, 0xc3, 0x30, 0x0c, 0xc3, 0x30, 0x01, 0x00}, {0x00, 0x00, 0xe8, 0x00, 0xa0, 0x82, 0x08, 0x00},
		{0x55, 0x55, 0x10, 0, 0x20, 0x80, 0x10}, {0x01, 0x92, 0x00, 0x00, 0x08, 0x80, 0x01, 0x00}, {},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	} {
		for m := range 6 {
			f.Add(r[:], uint8(m+6*int(r[1])))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g := genOf(mode)
		var r ControlRow
		copy(r[:], data)
		tb := TableControl
		if g != Gen2 {
			tb = [...]Table{TableControlFast, TableControlSlow}[mode/3%2]
		}
		checkRow(t, r, tb, g)
		back, err := ParseControlRowHex(r.Hex())
		if err != nil || back != r {
			t.Fatalf("hex %q: %v %v", r.Hex(), back, err)
		}
		if back, err := ParseControlRowHex(hex.EncodeToString(r[:])); err != nil || back != r {
			t.Fatalf("unspaced hex: %v %v", back, err)
		}
		checkRowJSON(t, int(mode/6)%g.ControlRows(), r, tb, g)
	})
}

// FuzzOpcodeEntry: a raw slot value for opcode op of the mode's generation: it decodes when it
// fits the slot (8 bytes in gen2, 4 in gen3/gen4) and is refused otherwise; a decoded entry is
// MakeOpcodeEntry's mirror and survives the opcode table's file form; in the default synthetic
// set it resolves to exactly the rows and block it names, however wild, with a note for what is
// out of range; a cross-generation check of it either compares eight lanes or says why not; and
// the slot's JSON form reads back.
func FuzzOpcodeEntry(f *testing.F) {
	for _, c := range []struct {
		raw  uint64
		op   uint8
		mode uint8
	}{{0x9cf, 102, 0}, {0x3008, 65, 1}, {0x3008, 81, 1}, {0x46f, 107, 2}, {0x180, 0, 0}, {0xffffffff, 234, 2},
		{1 << 32, 65, 1}, {^uint64(0), 97, 0}, {127 | 1<<7, 255, 0}, {0, 65, 2}, {0xff, 88, 1}} {
		f.Add(c.raw, c.op, c.mode)
	}
	f.Fuzz(func(t *testing.T, raw uint64, op uint8, mode uint8) {
		g := genOf(mode)
		e, err := DecodeOpcodeEntry(raw, g)
		sz := g.OpcodeEntrySize()
		if fits := sz == 8 || raw>>(8*sz) == 0; !fits {
			if fault.Rule(err) != RuleOpcodeEntry || fault.Path(err) != "raw" {
				t.Fatalf("%s raw %#x wider than %d bytes: %v", g, raw, sz, err)
			}
			return
		}
		n := uint(7)
		if g != Gen2 {
			n = 8
		}
		if err != nil || e.Raw != raw || e.FastRow != int(raw&(1<<n-1)) || e.SlowRow != raw>>n || e.Enabled() != (raw != 0) {
			t.Fatalf("%s raw %#x: %+v %v", g, raw, e, err)
		}
		if m, err := MakeOpcodeEntry(g, e.FastRow, e.SlowRow); err != nil || m != e {
			t.Fatalf("%s %+v: MakeOpcodeEntry %+v %v", g, e, m, err)
		}
		base := fuzzBase(t, g)
		s := cloneSet(base)
		s.Opcodes.Entries[op] = e
		ot, err := ParseOpcodeTable(s.Opcodes.Bytes(), g)
		if err != nil || ot.Entries != s.Opcodes.Entries {
			t.Fatalf("%s opcode table file form: %v", g, err)
		}
		r, ok := s.Lookup(op)
		if ok != e.Enabled() || r.Entry != e || r.FastRow != e.FastRow || r.SlowRow != e.SlowRow {
			t.Fatalf("%s Lookup(%d) of %+v: %+v %v", g, op, e, r, ok)
		}
		checkChainOps(t, s, []uint8{op})
		other := fuzzBase(t, TableGens[(int(g-Gen2)+1)%len(TableGens)])
		x, err := CrossGenCheck(s, other, op)
		_, okb := other.Lookup(op)
		if (err == nil) != (ok && okb) || (err == nil && (len(x.Lanes) != LanesPerBlock || x.RowA != e.FastRow)) || (err != nil && fault.Rule(err) != RuleResolves) {
			t.Fatalf("%s CrossGenCheck(%d) against %s: %+v %v", g, op, other.Gen, x, err)
		}
		checkSlotJSON(t, int(op), e, g)
	})
}

// FuzzTableFile: a file of one table of any size: the first two input bytes are the size
// (little-endian, up to 64 KiB), the rest the fill pattern repeated over it (zeros when empty);
// mode picks the table and the generation. A size that fits no generation fails with an *Error
// naming the file, the table, the offset and the size; a size that fits parses as the
// generation given, re-encodes to the same bytes, and infers its generation (gen2 by size; a
// datapath table of gen3/gen4 size by its idle words, a tie being an error; any other lone
// gen3/gen4 table asks for the generation). A generation that does not exist is refused.
func FuzzTableFile(f *testing.F) {
	size := func(n int, pattern ...byte) []byte {
		return append(binary.LittleEndian.AppendUint16(nil, uint16(n)), pattern...)
	}
	idle := func(g TableGen) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(idleWords[g])) }
	for m := range 15 {
		f.Add(size(3, 1, 2, 3), uint8(m))
		f.Add(size(0), uint8(m))
	}
	f.Add(size(8192, idle(Gen2)...), uint8(0+3*4))
	f.Add(size(16384, idle(Gen3)...), uint8(1+3*4))
	f.Add(size(16384, idle(Gen4)...), uint8(1+3*4))                            // read as gen3: the census says gen4
	f.Add(size(16384, slices.Concat(idle(Gen3), idle(Gen4))...), uint8(2+3*4)) // a gen3/gen4 tie
	f.Add(size(16387, idle(Gen4)...), uint8(2+3*4))
	f.Add(size(9000), uint8(3*4))
	f.Add(size(2048, 0x80, 0x01), uint8(0))
	f.Add(size(1024, 0x08, 0x30, 0, 0), uint8(2))
	f.Add(size(4096, 0, 0xc3, 0x30, 0x0c), uint8(1+3*3))
	f.Add(size(2048), uint8(3*3)) // control_slow_table in gen2: no such table
	f.Add(size(4096), uint8(3*2))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g := genOf(mode)
		tb := AllTables[int(mode/3)%len(AllTables)]
		var n int
		if len(data) >= 2 {
			n, data = int(binary.LittleEndian.Uint16(data)), data[2:]
		}
		data = data[:min(len(data), fuzzMaxInput)]
		file := make([]byte, n)
		for i := 0; len(data) > 0 && i < n; i += copy(file[i:], data) {
		}
		checkSingleTable(t, tb, file, g)
	})
}

// FuzzTableFragment: patch records applied to the default synthetic set of the mode's
// generation (see patchSet: opcode slots, control rows, slow rows, lane words), and checks of what
// they touched (the file forms are FuzzTableFile's and TestWholeTables'): each touched slot
// re-encodes and each touched row's fields tile it, DiffSets against the unpatched set lists exactly the changed
// words, blocks, slots and rows and the opcodes they affect, the census changes by the touched
// blocks' own counts, the opcodes whose resolution can have changed resolve consistently (two
// of them, with their twins), and the touched parts' JSON forms read back.
func FuzzTableFragment(f *testing.F) {
	entry := func(op uint8, raw uint64) []byte { return binary.LittleEndian.AppendUint64([]byte{0, op}, raw) }
	row := func(sel, idx uint8, r ControlRow) []byte { return append([]byte{sel, idx}, r[:8]...) }
	lane := func(idx uint16, w LaneWord) []byte {
		return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint16([]byte{3}, idx), uint64(w))
	}
	ctl := ControlRow{0x55, 0x55, 0x10, 0, 0x20, 0x80, 0x10}
	slow48 := ControlRow{0x00, 0xc3, 0x30, 0x0c, 0xc3, 0x30, 0x01, 0x00}
	for m := range 3 {
		f.Add([]byte{}, uint8(m))
		f.Add(slices.Concat(entry(65, 0), entry(81, 0x3008), row(1, 8, ctl), row(2, 48, slow48)), uint8(m))
		f.Add(slices.Concat(lane(3*8, 0x0010041c), lane(3*8+1, 0), lane(5*8+7, idleWords[TableGens[m]]), lane(0xffff, 1)), uint8(m))
		f.Add(slices.Concat(entry(107, 0xffffff05), entry(0, 0x1ff), row(1, 255, ControlRow{}), lane(41*8+3, 0x077d6000)), uint8(m))
		f.Add(slices.Concat(entry(255, 127|1<<7), lane(8*8+2, 0x01002000), lane(8*8+2, 0x01102000)), uint8(m))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		g := genOf(mode)
		base := fuzzBase(t, g)
		s := fragmentScratch(base)
		p := patchSet(s, data[:min(len(data), fuzzMaxInput)])
		for _, op := range p.ops {
			checkEntry(t, g, op, s.Opcodes.Entries[op])
		}
		for _, r := range p.rows {
			checkRow(t, s.Control.Rows[r], s.Control.Table, g)
		}
		for _, r := range p.slow {
			checkRow(t, s.Slow.Rows[r], TableControlSlow, g)
		}
		d := checkFragmentDiff(t, base, s, p)
		checkFragmentCensus(t, base, s, p)
		// The opcodes whose resolution can have changed: their slots, and the enabled opcodes on
		// the rows and blocks the patch touched (two of them, with their twins; FuzzOpcodeEntry
		// follows one opcode of every kind of slot).
		checkChainOps(t, s, spreadOps(d.Opcodes, 2))
		for _, op := range p.ops {
			checkSlotJSON(t, op, s.Opcodes.Entries[op], g)
		}
		for _, r := range p.rows {
			checkRowJSON(t, r, s.Control.Rows[r], s.Control.Table, g)
		}
		for _, r := range p.slow {
			checkRowJSON(t, r, s.Slow.Rows[r], TableControlSlow, g)
		}
		for _, b := range p.blocks {
			checkBlockJSON(t, b, s.Datapath.Blocks[b], g)
		}
	})
}

// fragmentScratch returns a copy of base in a set kept per generation for FuzzTableFragment,
// which does not run inputs in parallel: allocating a fresh 24 KiB clone per input costs as much
// as the checks that read it.
func fragmentScratch(base *TableSet) *TableSet {
	fragmentScratches.Lock()
	defer fragmentScratches.Unlock()
	s := fragmentScratches.m[base.Gen]
	if s == nil {
		s = cloneSet(base)
		if fragmentScratches.m == nil {
			fragmentScratches.m = map[TableGen]*TableSet{}
		}
		fragmentScratches.m[base.Gen] = s
	}
	*s.Opcodes = *base.Opcodes
	copy(s.Control.Rows, base.Control.Rows)
	copy(s.Datapath.Blocks, base.Datapath.Blocks)
	if s.Slow != nil {
		copy(s.Slow.Rows, base.Slow.Rows)
	}
	return s
}

var fragmentScratches struct {
	sync.Mutex
	m map[TableGen]*TableSet
}

// patched says what patchSet touched.
type patched struct{ ops, rows, slow, blocks []int }

// patchSet applies FuzzTableFragment's patch records to s: a selector byte (mod 4), then
// 0: an opcode byte and a slot value (8 bytes, cut to the slot: 8 bytes in gen2, 4 in gen3/gen4);
// 1: a row byte (mod the rows) and the first 8 bytes of a control (fast) row;
// 2: the same for a control_slow_table row (the control table in gen2, which has none);
// 3: a u16 lane index (mod the lanes: block index/8, lane index%8) and a lane word (8 bytes).
// A short last record is dropped.
func patchSet(s *TableSet, data []byte) patched {
	var p patched
	g := s.Gen
	add := func(list *[]int, i int) {
		if !slices.Contains(*list, i) {
			*list = append(*list, i)
		}
	}
	for len(data) >= 2 {
		switch sel := data[0] % 4; {
		case sel == 0 && len(data) >= 10:
			op := int(data[1])
			v := binary.LittleEndian.Uint64(data[2:])
			if g != Gen2 {
				v &= 0xffffffff
			}
			s.Opcodes.Entries[op], _ = DecodeOpcodeEntry(v, g)
			add(&p.ops, op)
			data = data[10:]
		case (sel == 1 || sel == 2) && len(data) >= 10:
			ct, list := s.Control, &p.rows
			if sel == 2 && s.Slow != nil {
				ct, list = s.Slow, &p.slow
			}
			r := int(data[1]) % len(ct.Rows)
			copy(ct.Rows[r][:8], data[2:10])
			add(list, r)
			data = data[10:]
		case sel == 3 && len(data) >= 11:
			idx := int(binary.LittleEndian.Uint16(data[1:])) % (len(s.Datapath.Blocks) * LanesPerBlock)
			s.Datapath.Blocks[idx/LanesPerBlock][idx%LanesPerBlock] = LaneWord(binary.LittleEndian.Uint64(data[3:]))
			add(&p.blocks, idx/LanesPerBlock)
			data = data[11:]
		default:
			data = nil
		}
	}
	return p
}

// checkFragmentDiff checks DiffSets(base, s) against what the patch touched: the differing words
// are in the touched blocks, compared lane by lane; slots and rows likewise; the affected opcodes
// are the changed slots and the enabled opcodes (in either set) on a changed block's row.
func checkFragmentDiff(t *testing.T, base, s *TableSet, p patched) Diff {
	t.Helper()
	d, err := DiffSets(base, s)
	if err != nil {
		t.Fatal(err)
	}
	var words []WordDiff
	var blocks []int
	changed := make([]bool, len(s.Datapath.Blocks))
	for _, b := range slices.Sorted(slices.Values(p.blocks)) {
		for L := range LanesPerBlock {
			if wa, wb := base.Datapath.Blocks[b][L], s.Datapath.Blocks[b][L]; wa != wb {
				words = append(words, WordDiff{b, L, wa, wb})
				if !changed[b] {
					changed[b] = true
					blocks = append(blocks, b)
				}
			}
		}
	}
	changedOnly := func(idx []int, same func(int) bool) []int {
		var out []int
		for _, i := range slices.Sorted(slices.Values(idx)) {
			if !same(i) {
				out = append(out, i)
			}
		}
		return out
	}
	var slots, affected OpcodeList
	for _, op := range changedOnly(p.ops, func(op int) bool { return base.Opcodes.Entries[op] == s.Opcodes.Entries[op] }) {
		slots = append(slots, uint8(op))
	}
	affected = slots
	if len(blocks) > 0 {
		affected = nil
		for op := range NumOpcodes {
			ea, eb := base.Opcodes.Entries[op], s.Opcodes.Entries[op]
			if ea != eb || (ea.Enabled() && changed[ea.FastRow]) || (eb.Enabled() && changed[eb.FastRow]) {
				affected = append(affected, uint8(op))
			}
		}
	}
	rows := changedOnly(p.rows, func(r int) bool { return base.Control.Rows[r] == s.Control.Rows[r] })
	var slow []int
	if s.Slow != nil {
		slow = changedOnly(p.slow, func(r int) bool { return base.Slow.Rows[r] == s.Slow.Rows[r] })
	}
	xors := map[LaneWord]int{}
	for _, w := range words {
		xors[w.XOR()]++
	}
	if !slices.Equal(d.Words, words) || !slices.Equal(d.Blocks, blocks) || !slices.Equal(d.OpcodeSlots, slots) || !slices.Equal(d.Opcodes, affected) ||
		!slices.Equal(d.ControlRows, rows) || !slices.Equal(d.SlowRows, slow) || len(d.Deltas) != len(xors) {
		t.Fatalf("%s diff: %d words in %v, slots %v, affected %v, rows %v/%v, %d deltas; want %d in %v, %v, %v, %v/%v, %d",
			s.Gen, len(d.Words), d.Blocks, d.OpcodeSlots, d.Opcodes, d.ControlRows, d.SlowRows, len(d.Deltas), len(words), blocks, slots, affected, rows, slow, len(xors))
	}
	for i, x := range d.Deltas {
		if x.Count != xors[x.XOR] || (i > 0 && (d.Deltas[i-1].Count < x.Count || (d.Deltas[i-1].Count == x.Count && d.Deltas[i-1].XOR >= x.XOR))) {
			t.Fatalf("%s diff delta %d %+v: out of order, or %d words carry it", s.Gen, i, x, xors[x.XOR])
		}
	}
	return d
}

// checkFragmentCensus checks that the census of s differs from the base's by exactly the touched
// blocks' own counts (analyzeOwn), and that its opcode side follows the patched slots.
func checkFragmentCensus(t *testing.T, base, s *TableSet, p patched) {
	t.Helper()
	fuzzBase(t, s.Gen)
	cb := fuzzSets.census[s.Gen]
	c, err := s.Census()
	if err != nil {
		t.Fatal(err)
	}
	g, idle := s.Gen, idleWords[s.Gen]
	delta := func(sign int, b DatapathBlock, want *Census) {
		in := analyzeOwn(b, idle)
		switch in.Class {
		case ClassOff:
			want.Off += sign
		case ClassPassthru:
			want.Passthru += sign
		case ClassActive:
			want.Active += sign
		}
		want.IdleWords += sign * in.Idle
		want.ActiveWords += sign * in.Depth
		want.NonzeroWords += sign * (in.Idle + in.Depth)
		want.TerminalLanes += sign * len(in.Terminal)
		for _, w := range b {
			if w != 0 && w != idle {
				for u := uint64(w); u != 0; u &= u - 1 {
					want.BitCounts[bits.TrailingZeros64(u)] += sign
				}
			}
		}
	}
	want := cb
	for _, i := range p.blocks {
		delta(-1, base.Datapath.Blocks[i], &want)
		delta(1, s.Datapath.Blocks[i], &want)
	}
	if c.Off != want.Off || c.Passthru != want.Passthru || c.Active != want.Active || c.IdleWords != want.IdleWords || c.ActiveWords != want.ActiveWords ||
		c.NonzeroWords != want.NonzeroWords || c.TerminalLanes != want.TerminalLanes || c.BitCounts != want.BitCounts {
		t.Fatalf("%s census after patching blocks %v:\n%+v\nwant\n%+v", g, p.blocks, c, want)
	}
	// The opcode and row side, by the touched slots' and rows' changes from the base's counts.
	used := func(was, is bool) int { return boolIndex(is) - boolIndex(was) }
	for _, op := range p.ops {
		want.EnabledOpcodes += used(base.Opcodes.Entries[op].Enabled(), s.Opcodes.Entries[op].Enabled())
	}
	for _, r := range p.rows {
		want.UsedControlRows += used(!base.Control.Rows[r].IsZero(), !s.Control.Rows[r].IsZero())
	}
	for _, r := range p.slow {
		want.UsedSlowRows += used(!base.Slow.Rows[r].IsZero(), !s.Slow.Rows[r].IsZero())
	}
	if c.EnabledOpcodes != want.EnabledOpcodes || c.UsedControlRows != want.UsedControlRows || c.UsedSlowRows != want.UsedSlowRows {
		t.Fatalf("%s census: %d enabled, %d/%d used rows; want %d, %d/%d", g, c.EnabledOpcodes, c.UsedControlRows, c.UsedSlowRows,
			want.EnabledOpcodes, want.UsedControlRows, want.UsedSlowRows)
	}
}

// TestWholeTables runs the whole-table checks on every synthetic set: the files re-encode byte
// for byte, every block's Analyze and the census agree with the lanes, every opcode resolves
// consistently through the whole chain, the generation is inferred from the files, every slot
// and row re-encodes, a set does not differ from itself, and the diffs between the sets of one
// generation agree with a direct comparison.
func TestWholeTables(t *testing.T) {
	sets := map[string]*TableSet{}
	for _, name := range FixtureNames() {
		sets[name] = mustFixture(t, name)
	}
	for _, name := range FixtureNames() {
		t.Run(name, func(t *testing.T) {
			s := sets[name]
			files, err := s.Files()
			if err != nil {
				t.Fatal(err)
			}
			raw := map[Table]RawTable{}
			for tb, b := range files {
				raw[tb] = RawTable{Path: tb.FileName(s.Name), Data: b}
			}
			parsed, err := ParseTables(s.Name, raw, GenUnknown)
			if err != nil || parsed.Gen != s.Gen {
				t.Fatalf("parse: %v (%s)", err, parsed.Gen)
			}
			back, err := parsed.Files()
			if err != nil {
				t.Fatal(err)
			}
			for tb, b := range files {
				if !bytes.Equal(back[tb], b) {
					t.Errorf("%s: re-encoding changed bytes", tb)
				}
			}
			checkInference(t, map[Table]RawTable{TableDatapath: raw[TableDatapath]}, parsed, s.Gen)
			c := checkDatapath(t, parsed, files[TableDatapath])
			var all []uint8
			for op := range NumOpcodes {
				all = append(all, uint8(op))
			}
			checkChain(t, parsed, c, all)
			checkEntries(t, parsed.Opcodes)
			for r := range parsed.Control.Rows {
				checkRow(t, parsed.Control.Rows[r], parsed.Control.Table, s.Gen)
				if parsed.Slow != nil {
					checkRow(t, parsed.Slow.Rows[r], TableControlSlow, s.Gen)
				}
			}
			checkDiff(t, s, parsed)
		})
	}
	for _, pair := range [][2]string{{"gen2/default", "gen2/transformer"}, {"gen4/default", "gen4/saturate"}} {
		t.Run(pair[0]+" vs "+pair[1], func(t *testing.T) {
			checkDiff(t, sets[pair[0]], sets[pair[1]])
		})
	}
}
