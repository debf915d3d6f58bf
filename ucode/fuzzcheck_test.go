package ucode

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Input shaping and property checks shared by FuzzDatapathTable and FuzzOpcodeTable.
//
// The targets take small inputs (a truncated table, a few rows, a list of patches) and build the
// full-size table from them: with whole 8-16 KiB tables as corpus entries the fuzzer spent a long
// run minimising them instead of mutating.

// fuzzMaxInput caps the bytes a table target reads: 4 datapath blocks, 16 control rows, 32-64
// opcode slots or 14-42 patches (tiling reaches the rest of a table). The rest is ignored, so
// mutating it finds nothing new, and the fuzzer's minimiser, quadratic in the input's length,
// never spends its full minute on one input.
const fuzzMaxInput = 256

// fuzzShape is how a table target lays its input out as a table file.
type fuzzShape uint8

const (
	shapePrefix   fuzzShape = iota // data is the start of the table, zero-padded to its size
	shapePatch                     // data is patch records applied to the default fixture's tables
	shapeTile                      // data repeated to the table's size
	shapeRaw                       // data is the whole file, of any size
	shapeOversize                  // the fixture's table with data appended
	numShapes
)

// fuzzMode packs a generation, a shape and a table selector (FuzzOpcodeTable) into the mode byte
// the table targets take: mode%3 is the generation, mode/3%5 the shape, mode/15%3 the table.
func fuzzMode(g TableGen, sh fuzzShape, table int) uint8 {
	return uint8(g-Gen2) + 3*uint8(sh) + 15*uint8(table)
}

func splitFuzzMode(mode uint8) (TableGen, fuzzShape, int) {
	return TableGens[mode%3], fuzzShape(mode / 3 % uint8(numShapes)), int(mode / 15 % 3)
}

var fuzzSets struct {
	once sync.Once
	sets map[TableGen]*TableSet
	err  error
}

// fuzzBase returns the default fixture of generation g, built once per process (BuildFixture
// takes milliseconds; a fuzz worker runs the target thousands of times a second). Callers must
// not modify it: Files() returns fresh copies of its bytes.
func fuzzBase(tb testing.TB, g TableGen) *TableSet {
	tb.Helper()
	fuzzSets.once.Do(func() {
		fuzzSets.sets = map[TableGen]*TableSet{}
		for _, g := range TableGens {
			s, err := BuildFixture(g.String() + "/default")
			if err != nil {
				fuzzSets.err = err
				return
			}
			fuzzSets.sets[g] = s
		}
	})
	if fuzzSets.err != nil {
		tb.Fatal(fuzzSets.err)
	}
	return fuzzSets.sets[g]
}

// shapeTable lays data out as a table file per shape; base is the fixture's table. For
// shapePatch it returns a copy of base, for the caller to patch.
func shapeTable(shape fuzzShape, data, base []byte) []byte {
	switch shape {
	case shapePrefix:
		out := make([]byte, len(base))
		copy(out, data)
		return out
	case shapeTile:
		out := make([]byte, len(base))
		for i := 0; len(data) > 0 && i < len(out); i += copy(out[i:], data) {
		}
		return out
	case shapeRaw:
		return bytes.Clone(data)
	case shapeOversize:
		return append(bytes.Clone(base), data...)
	}
	return bytes.Clone(base)
}

// spanned lists the units (blocks, rows) of size unit that the first n bytes of a table of
// count units cover.
func spanned(n, unit, count int) []int {
	var out []int
	for i := 0; i*unit < n && i < count; i++ {
		out = append(out, i)
	}
	return out
}

// wantSizeErr is what ParseTables must report for table t of n bytes parsed as gen
// (GenUnknown: inferred): a nil sentinel when the size fits, else the sentinel and the byte
// offset the error names (-1: none).
func wantSizeErr(t Table, n int, gen TableGen) (error, int64) {
	lo, hi := gen.TableSize(t), gen.TableSize(t)
	if gen == GenUnknown {
		s2, s34 := Gen2.TableSize(t), Gen3.TableSize(t)
		if (s2 != 0 && n == s2) || (s34 != 0 && n == s34) {
			return nil, 0
		}
		lo, hi = max(s2, s34), max(s2, s34)
		if s2 != 0 && s34 != 0 {
			lo = min(s2, s34)
		}
		if n > lo && n < hi {
			return ErrSize, -1
		}
	} else if lo == 0 {
		return ErrGeneration, -1
	}
	switch {
	case n < lo:
		return ErrTruncated, int64(n)
	case n > hi:
		return ErrSize, int64(hi)
	}
	return nil, 0
}

// checkTableErr checks that err is a *TableError of the sentinel want at offset off, naming the
// file, the table and (for a size error) the size it found.
func checkTableErr(t *testing.T, err, want error, off int64, path string, tb Table, n int) {
	t.Helper()
	var te *TableError
	if !errors.As(err, &te) || !errors.Is(err, want) {
		t.Fatalf("%s of %d B: err %v, want a *TableError %v", tb, n, err, want)
	}
	if te.Path != path || te.Table != tb || te.Offset != off {
		t.Fatalf("%s of %d B: error names %q %s offset %d, want %q %s offset %d", tb, n, te.Path, te.Table, te.Offset, path, tb, off)
	}
	msg := err.Error()
	need := []string{path, tb.String()}
	if want != ErrGeneration {
		need = append(need, fmt.Sprintf("%d B", n))
	}
	if off >= 0 {
		need = append(need, fmt.Sprintf("offset %#x", off))
	}
	for _, s := range need {
		if !strings.Contains(msg, s) {
			t.Fatalf("%s of %d B: message %q does not say %q", tb, n, msg, s)
		}
	}
}

// checkSingleTable parses one table file of any size alone, as g and as GenUnknown: it must
// fail with the right size error, or when the size fits parse back to the same bytes (as g) or
// name the generation it inferred: gen2 by size; gen3 and gen4 files are the same size, and a
// lone table other than the datapath table (whose idle words decide, see checkInference) must
// ask for the generation. A generation that does not exist is refused whatever the file.
func checkSingleTable(t *testing.T, tb Table, file []byte, g TableGen) {
	t.Helper()
	path := tb.FileName("f")
	raw := map[Table]RawTable{tb: {Path: path, Data: file}}
	bad := [...]TableGen{1, Gen4 + 1, 255}[len(file)%3]
	if _, err := ParseTables("f", raw, bad); !errors.Is(err, ErrGeneration) {
		t.Fatalf("%s of %d B as %s: err %v, want %v", tb, len(file), bad, err, ErrGeneration)
	}
	for _, gen := range []TableGen{g, GenUnknown} {
		s, err := ParseTables("f", raw, gen)
		want, off := wantSizeErr(tb, len(file), gen)
		switch {
		case want != nil:
			checkTableErr(t, err, want, off, path, tb, len(file))
		case gen == GenUnknown && tb == TableDatapath && len(file) != Gen2.TableSize(tb):
			if s != nil {
				checkInference(t, raw, s, s.Gen)
			} else if !errors.Is(err, ErrGeneration) {
				t.Fatalf("%s of %d B: %v", tb, len(file), err)
			}
		case gen != GenUnknown || len(file) == Gen2.TableSize(tb):
			if err != nil {
				t.Fatalf("%s of %d B as %s: %v", tb, len(file), gen, err)
			}
			if !bytes.Equal(s.Files()[tb], file) || (gen == GenUnknown && s.Gen != Gen2) {
				t.Fatalf("%s of %d B as %s: parsed as %s, bytes changed", tb, len(file), gen, s.Gen)
			}
		case !errors.Is(err, ErrGeneration) || !strings.Contains(err.Error(), "pass the generation"):
			t.Fatalf("%s of %d B alone fits gen3 and gen4: err %v", tb, len(file), err)
		}
	}
}

// idleWords are the idle words, independent of the package: the VALID bit alone, bit 20 in
// gen2, 32 in gen3, 42 in gen4 (seed 004 §2).
var idleWords = map[TableGen]LaneWord{Gen2: 1 << 20, Gen3: 1 << 32, Gen4: 1 << 42}

// checkInference parses a full-size datapath table with the generation inferred: gen2 by its
// size; gen3/gen4 by which idle word is more common, an error on a tie. explicit is the same
// file parsed as g, whose reason must warn exactly when the census disagrees with g.
func checkInference(t *testing.T, raw map[Table]RawTable, explicit *TableSet, g TableGen) {
	t.Helper()
	var n3, n4 int
	data := raw[TableDatapath].Data
	for off := 0; off+8 <= len(data); off += 8 {
		switch LaneWord(binary.LittleEndian.Uint64(data[off:])) {
		case idleWords[Gen3]:
			n3++
		case idleWords[Gen4]:
			n4++
		}
	}
	want := Gen2
	if g != Gen2 {
		switch {
		case n3 > n4:
			want = Gen3
		case n4 > n3:
			want = Gen4
		default:
			want = GenUnknown
		}
	}
	s, err := ParseTables("f", raw, GenUnknown)
	switch {
	case want == GenUnknown:
		if !errors.Is(err, ErrGeneration) || !strings.Contains(err.Error(), "cannot tell gen3 from gen4") {
			t.Fatalf("%d gen3 and %d gen4 idle words: err %v, want a gen3/gen4 tie", n3, n4, err)
		}
	case err != nil || s.Gen != want:
		t.Fatalf("%d gen3 and %d gen4 idle words: inferred %v (%v), want %s", n3, n4, s, err, want)
	case !bytes.Equal(s.Files()[TableDatapath], data):
		t.Fatal("inferred parse changed bytes")
	}
	warns := strings.Contains(explicit.GenReason, "warning")
	if disagrees := (g == Gen3 && n4 > n3) || (g == Gen4 && n3 > n4); warns != disagrees {
		t.Fatalf("%s with %d gen3 and %d gen4 idle words: reason %q", g, n3, n4, explicit.GenReason)
	}
}

// checkDatapath checks a parsed datapath table against the file it came from: it re-encodes to
// the same bytes, every block's Analyze agrees with its lanes, and the census adds up. It
// returns the census, for checkChain.
func checkDatapath(t *testing.T, s *TableSet, file []byte) Census {
	t.Helper()
	dt, g := s.Datapath, s.Gen
	if len(dt.Blocks) != g.ControlRows() || !bytes.Equal(dt.Bytes(), file) || !bytes.Equal(s.Files()[TableDatapath], file) {
		t.Fatalf("%s datapath_table: %d blocks, re-encoding changed bytes", g, len(dt.Blocks))
	}
	idle := idleWords[g]
	var want Census
	want.Depths = make([]DepthBucket, LanesPerBlock+1)
	want.HighestBit = -1
	for i, in := range dt.Analyze() {
		b := dt.Blocks[i]
		var zero, nidle, active int
		var terminal []int
		for L, w := range b {
			switch w {
			case 0:
				zero++
			case idle:
				nidle++
				want.IdleWords++
			default:
				active++
				want.ActiveWords++
				if w&idle == 0 {
					terminal = append(terminal, L)
				}
				for u := uint64(w); u != 0; u &= u - 1 {
					want.BitCounts[bits.TrailingZeros64(u)]++
				}
				want.HighestBit = max(want.HighestBit, 63-bits.LeadingZeros64(uint64(w)))
			}
		}
		packed := true
		for L := 0; L < active; L++ {
			packed = packed && b[L] != 0 && b[L] != idle
		}
		class, form := ClassActive, FormNone
		switch {
		case active > 0:
			want.Active++
		case nidle == 0:
			class = ClassOff
			want.Off++
		case nidle == LanesPerBlock:
			class, form = ClassPassthru, FormAllIdle
			want.PassthruAllIdle++
			want.AllIdleRows = append(want.AllIdleRows, i)
		default:
			class, form = ClassPassthru, FormIdleZero
			want.PassthruIdleZero++
		}
		if in.Index != i || in.Class != class || in.Form != form || in.Depth != active || in.Idle != nidle ||
			in.Zero != zero || in.LeftPacked != packed || !slices.Equal(in.Terminal, terminal) {
			t.Fatalf("%s block %d %#x: Analyze %+v", g, i, b, in)
		}
		if !packed {
			want.PackingViolations = append(want.PackingViolations, i)
		}
		want.Depths[active].Blocks = append(want.Depths[active].Blocks, i)
		want.TerminalLanes += len(terminal)
	}
	c, err := s.Census()
	if err != nil {
		t.Fatal(err)
	}
	want.Blocks, want.Passthru, want.NonzeroWords = len(dt.Blocks), want.PassthruAllIdle+want.PassthruIdleZero, want.IdleWords+want.ActiveWords
	for k := range want.Depths {
		want.Depths[k].K = k
		if k < len(c.Depths) {
			want.Depths[k].Opcodes = c.Depths[k].Opcodes // checkChain checks the opcode side
		}
	}
	want.Set, want.Gen, want.OrphanBlocks, want.UsedControlRows, want.UsedSlowRows, want.EnabledOpcodes =
		c.Set, c.Gen, c.OrphanBlocks, c.UsedControlRows, c.UsedSlowRows, c.EnabledOpcodes
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("%s census\n%+v\nwant\n%+v", g, c, want)
	}
	return c
}

// affectedOps lists the opcodes whose resolution in b may differ from the one in a (two whole
// sets of one generation): the slot differs, the slot shares a fast row with a slot that
// differs, or the control row, slow row or datapath block it names differs.
func affectedOps(a, b *TableSet) []uint8 {
	rows := map[int]bool{}
	for op, ea := range a.Opcodes.Entries {
		if eb := b.Opcodes.Entries[op]; ea != eb {
			rows[ea.FastRow], rows[eb.FastRow] = true, true
		}
	}
	var out []uint8
	for op, e := range b.Opcodes.Entries {
		r := e.FastRow
		slowDiffers := a.Slow != nil && e.SlowRow < uint64(len(a.Slow.Rows)) && a.Slow.Rows[e.SlowRow] != b.Slow.Rows[e.SlowRow]
		if rows[r] || a.Opcodes.Entries[op] != e || a.Control.Rows[r] != b.Control.Rows[r] || a.Datapath.Blocks[r] != b.Datapath.Blocks[r] || slowDiffers {
			out = append(out, uint8(op))
		}
	}
	return out
}

// spreadOps picks at most n of ops, evenly spread, and adds their arith/bitvec twins: an input
// that rewrites the whole opcode table changes every slot, and following all 256 through Lookup
// (which scans the whole table each time) would cost a third of a run.
func spreadOps(ops []uint8, n int) []uint8 {
	if len(ops) <= n {
		return ops
	}
	var out []uint8
	add := func(op uint8) {
		if !slices.Contains(out, op) {
			out = append(out, op)
		}
	}
	for i := range n {
		op := ops[i*len(ops)/n]
		add(op)
		if tw, ok := Twin(op); ok {
			add(tw)
		}
	}
	return out
}

// checkChain follows the opcodes ops through a whole set (opcode, control, slow in gen3/gen4,
// datapath) and checks Lookup against the tables, then MissingOpcodes and the opcode side of
// the set's census c for every opcode. The callers pass the opcodes their input can have
// changed (see affectedOps, spreadOps).
func checkChain(t *testing.T, s *TableSet, c Census, ops []uint8) {
	t.Helper()
	g := s.Gen
	infos := s.Datapath.Analyze()
	byRow := map[int][]uint8{}
	var enabled, missing, all []uint8
	for op, e := range s.Opcodes.Entries {
		all = append(all, uint8(op))
		if e.Raw == 0 {
			missing = append(missing, uint8(op))
			continue
		}
		enabled = append(enabled, uint8(op))
		byRow[e.FastRow] = append(byRow[e.FastRow], uint8(op))
	}
	for _, op := range ops {
		e := s.Opcodes.Entries[op]
		r, ok := s.Lookup(op)
		if ok != (e.Raw != 0) || r.Opcode != op || r.Name != OpcodeName(op) || r.Entry != e || r.FastRow != e.FastRow || r.SlowRow != e.SlowRow {
			t.Fatalf("%s Lookup(%d) with entry %+v: %+v %v", g, op, e, r, ok)
		}
		if !ok {
			continue
		}
		// The fast row is 7 bits (gen2) or 8: always inside the control and datapath tables.
		in := infos[e.FastRow]
		if r.Fast == nil || *r.Fast != s.Control.Rows[e.FastRow] || r.Block == nil || *r.Block != s.Datapath.Blocks[e.FastRow] ||
			r.Info.Index != e.FastRow || r.Info.Class != in.Class || r.Info.Depth != in.Depth || r.Info.LeftPacked != in.LeftPacked {
			t.Fatalf("%s Lookup(%d) row %d: %+v", g, op, e.FastRow, r)
		}
		shares := slices.DeleteFunc(slices.Clone(byRow[e.FastRow]), func(o uint8) bool { return o == op })
		tw, has := Twin(op)
		if !slices.Equal(r.SharesRow, shares) || r.HasTwin != has || r.Twin != tw || r.TwinRow != (has && slices.Contains(shares, tw)) {
			t.Fatalf("%s Lookup(%d) row %d shared with %v: %+v", g, op, e.FastRow, shares, r)
		}
		notes := strings.Join(r.Notes, "; ")
		switch {
		case e.SlowRow == 0:
			if r.Slow != nil || notes != "" {
				t.Fatalf("%s Lookup(%d) fast-only: %+v", g, op, r)
			}
		case g == Gen2:
			if r.Slow != nil || !strings.Contains(notes, "gen2 has no slow table") {
				t.Fatalf("%s Lookup(%d) slow field %d: %+v", g, op, e.SlowRow, r)
			}
		case e.SlowRow < uint64(len(s.Slow.Rows)):
			if r.Slow == nil || *r.Slow != s.Slow.Rows[e.SlowRow] || notes != "" {
				t.Fatalf("%s Lookup(%d) slow row %d: %+v", g, op, e.SlowRow, r)
			}
		default:
			if r.Slow != nil || !strings.Contains(notes, fmt.Sprintf("slow row %d is past the control_slow_table", e.SlowRow)) {
				t.Fatalf("%s Lookup(%d) slow row %d past the table: %+v", g, op, e.SlowRow, r)
			}
		}
	}
	if got := s.MissingOpcodes(all); !slices.Equal(got, missing) {
		t.Fatalf("%s MissingOpcodes %v, want %v", g, got, missing)
	}
	n := 0
	for k, d := range c.Depths {
		for _, op := range d.Opcodes {
			if got := infos[s.Opcodes.Entries[op].FastRow].Depth; got != k {
				t.Fatalf("%s census lists op %d at k=%d, its block has k=%d", g, op, k, got)
			}
		}
		n += len(d.Opcodes)
	}
	var orphans []int
	for i, in := range infos {
		if in.Class == ClassActive && s.Control.Rows[i].IsZero() {
			orphans = append(orphans, i)
		}
	}
	slowUsed := -1
	if s.Slow != nil {
		slowUsed = s.Slow.UsedRows()
	}
	if c.EnabledOpcodes != len(enabled) || n != len(enabled) || c.UsedControlRows != nonzeroRows(s.Control) ||
		c.UsedSlowRows != slowUsed || !slices.Equal(c.OrphanBlocks, orphans) {
		t.Fatalf("%s census: %d enabled (%d by depth), %d/%d used rows, orphans %v; want %d, %d/%d, %v",
			g, c.EnabledOpcodes, n, c.UsedControlRows, c.UsedSlowRows, c.OrphanBlocks, len(enabled), nonzeroRows(s.Control), slowUsed, orphans)
	}
}

func nonzeroRows(ct *ControlTable) int {
	n := 0
	for _, r := range ct.Rows {
		if r != (ControlRow{}) {
			n++
		}
	}
	return n
}

// checkDiff checks DiffSets(a, b) of two whole sets of one generation against a direct
// comparison of their tables, and that a set does not differ from itself. It returns the diff.
func checkDiff(t *testing.T, a, b *TableSet) Diff {
	t.Helper()
	d, err := DiffSets(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var words []WordDiff
	var blocks []int
	changed := make([]bool, len(a.Datapath.Blocks))
	for i := range a.Datapath.Blocks {
		for L, wa := range a.Datapath.Blocks[i] {
			if wb := b.Datapath.Blocks[i][L]; wa != wb {
				words = append(words, WordDiff{i, L, wa, wb})
				if !changed[i] {
					changed[i] = true
					blocks = append(blocks, i)
				}
			}
		}
	}
	counts := make(map[LaneWord]int, len(words))
	for _, w := range words {
		counts[w.XOR()]++
	}
	var slots, affected OpcodeList
	for op := range a.Opcodes.Entries {
		ea, eb := a.Opcodes.Entries[op], b.Opcodes.Entries[op]
		if ea != eb {
			slots = append(slots, uint8(op))
		}
		if ea != eb || (ea.Enabled() && changed[ea.FastRow]) || (eb.Enabled() && changed[eb.FastRow]) {
			affected = append(affected, uint8(op))
		}
	}
	rows := func(x, y *ControlTable) []int {
		var out []int
		if x == nil {
			return nil
		}
		for i := range x.Rows {
			if x.Rows[i] != y.Rows[i] {
				out = append(out, i)
			}
		}
		return out
	}
	if !slices.Equal(d.Words, words) || !slices.Equal(d.Blocks, blocks) || !slices.Equal(d.OpcodeSlots, slots) ||
		!slices.Equal(d.Opcodes, affected) || !slices.Equal(d.ControlRows, rows(a.Control, b.Control)) ||
		!slices.Equal(d.SlowRows, rows(a.Slow, b.Slow)) || len(d.MissingInA)+len(d.MissingInB) != 0 || len(d.Deltas) != len(counts) {
		t.Fatalf("%s diff: %d words in blocks %v, slots %v, affected %v, rows %v/%v, %d deltas; want %d in %v, %v, %v",
			a.Gen, len(d.Words), d.Blocks, d.OpcodeSlots, d.Opcodes, d.ControlRows, d.SlowRows, len(d.Deltas), len(words), blocks, slots, affected)
	}
	for i, x := range d.Deltas {
		if x.Count != counts[x.XOR] || (i > 0 && (d.Deltas[i-1].Count < x.Count || (d.Deltas[i-1].Count == x.Count && d.Deltas[i-1].XOR >= x.XOR))) {
			t.Fatalf("%s diff delta %d %+v (after %+v): out of order, or %d words carry it", a.Gen, i, x, d.Deltas[max(i-1, 0)], counts[x.XOR])
		}
	}
	self, err := DiffSets(b, b)
	if err != nil || len(self.Words)+len(self.Blocks)+len(self.Deltas)+len(self.OpcodeSlots)+len(self.Opcodes)+len(self.ControlRows)+len(self.SlowRows) != 0 {
		t.Fatalf("%s set differs from itself: %+v %v", b.Gen, self, err)
	}
	return d
}

// checkEntries checks that every opcode slot re-encodes to its raw value.
func checkEntries(t *testing.T, ot *OpcodeTable) {
	t.Helper()
	for op, e := range ot.Entries {
		m, err := MakeOpcodeEntry(ot.Gen, e.FastRow, e.SlowRow)
		if err != nil || m != e || DecodeOpcodeEntry(e.Raw, ot.Gen) != e {
			t.Fatalf("%s op %d entry %+v re-encodes to %+v (%v)", ot.Gen, op, e, m, err)
		}
	}
}

// checkRow checks that a control row's named fields cover its 16 bytes once, in order, and
// that a slow row's four 12-bit steps are its first six bytes.
func checkRow(t *testing.T, r ControlRow, tb Table, g TableGen) {
	t.Helper()
	next := 0
	for _, f := range r.RowFields(tb, g) {
		var lo, hi int
		if _, err := fmt.Sscanf(f.Bytes, "[%d:%d]", &lo, &hi); err != nil || lo != next || hi <= lo {
			t.Fatalf("%s %s row %x: field %+v after byte %d", g, tb, r, f, next)
		}
		next = hi
	}
	if next != ControlRowSize {
		t.Fatalf("%s %s row %x: fields end at byte %d", g, tb, r, next)
	}
	st := r.SlowSteps()
	v := uint64(st[0]) | uint64(st[1])<<12 | uint64(st[2])<<24 | uint64(st[3])<<36
	if v != binary.LittleEndian.Uint64(append(r[:6:6], 0, 0)) {
		t.Fatalf("row %x: steps %#x", r, st)
	}
}

// sparseCopy is s with only the listed opcode slots, datapath blocks and control and slow rows
// (the rest zero). The JSON form lists every slot, block and row on its own, so the round trip
// of the part an input touched tests what a whole-set round trip would, without encoding/json's
// ~16 ms for a full fixture on every run.
func sparseCopy(s *TableSet, ops, blocks, rows, slow []int) *TableSet {
	out := &TableSet{Name: s.Name, Gen: s.Gen}
	if s.Opcodes != nil {
		out.Opcodes = &OpcodeTable{Gen: s.Gen}
		for _, op := range ops {
			out.Opcodes.Entries[op] = s.Opcodes.Entries[op]
		}
	}
	keep := func(ct *ControlTable, idx []int) *ControlTable {
		if ct == nil {
			return nil
		}
		c := &ControlTable{Table: ct.Table, Gen: ct.Gen, Rows: make([]ControlRow, len(ct.Rows))}
		for _, i := range idx {
			c.Rows[i] = ct.Rows[i]
		}
		return c
	}
	out.Control, out.Slow = keep(s.Control, rows), keep(s.Slow, slow)
	if s.Datapath != nil {
		out.Datapath = &DatapathTable{Gen: s.Gen, Blocks: make([]DatapathBlock, len(s.Datapath.Blocks))}
		for _, i := range blocks {
			out.Datapath.Blocks[i] = s.Datapath.Blocks[i]
		}
	}
	return out
}

// checkJSONRoundTrip checks that s goes through its JSON form back to the same tables, byte
// for byte.
func checkJSONRoundTrip(t *testing.T, s *TableSet) {
	t.Helper()
	js, err := MarshalJSONSet(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeJSON(js)
	if err != nil {
		t.Fatalf("decode own JSON: %v", err)
	}
	want, got := s.Files(), back.Files()
	if back.Gen != s.Gen || back.Name != s.Name || len(got) != len(want) {
		t.Fatalf("JSON round trip: %s %q with %d tables, want %s %q with %d", back.Gen, back.Name, len(got), s.Gen, s.Name, len(want))
	}
	for tb, data := range want {
		if !bytes.Equal(got[tb], data) {
			t.Fatalf("JSON round trip changed the %s", tb)
		}
	}
}
