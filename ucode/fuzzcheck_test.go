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

	"github.com/tpbsim/tpbsim/fault"
)

// Property checks shared by the fuzz targets and TestWholeTables.
//
// The fuzz targets take small structured inputs (a word, a block, a row, a slot, a few patch
// records, a table file's size and a fill pattern) and check what those touch; the checks of
// whole tables (checkDatapath, checkChain, checkDiff, checkInference) run on the synthetic
// sets in TestWholeTables: re-checking every byte of a table for an input that changed a few
// would make each execution cost the whole table.

// fuzzMaxInput caps the bytes a target reads (six patch records, a 64-byte fill pattern); the
// rest is ignored, so mutating it finds nothing new. The fuzzer minimises each new interesting
// input with up to quadratically many executions in its length, and finds nothing meanwhile.
const fuzzMaxInput = 64

// genOf is the generation a mode byte picks: mode%3.
func genOf(mode uint8) TableGen { return TableGens[mode%3] }

var fuzzSets struct {
	once   sync.Once
	sets   map[TableGen]*TableSet
	census map[TableGen]Census
	err    error
}

// fuzzBase returns the default fixture of generation g, built once per process (BuildFixture
// takes milliseconds; a fuzz worker runs the target thousands of times a second). Callers must
// not modify it: Files() returns fresh copies of its bytes.
func fuzzBase(tb testing.TB, g TableGen) *TableSet {
	tb.Helper()
	fuzzSets.once.Do(func() {
		fuzzSets.sets, fuzzSets.census = map[TableGen]*TableSet{}, map[TableGen]Census{}
		for _, g := range TableGens {
			s, err := BuildFixture(g.String() + "/default")
			if err == nil {
				fuzzSets.census[g], err = s.Census()
			}
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

// wantSizeErr is what ParseTables must report for table t of n bytes parsed as gen
// (GenUnknown: inferred): no rule when the size fits, else the category and rule, and the byte
// offset the error names (-1: none).
func wantSizeErr(t Table, n int, gen TableGen) (kind error, rule string, off int64) {
	lo, hi := gen.TableSize(t), gen.TableSize(t)
	if gen == GenUnknown {
		s2, s34 := Gen2.TableSize(t), Gen3.TableSize(t)
		if (s2 != 0 && n == s2) || (s34 != 0 && n == s34) {
			return nil, "", 0
		}
		lo, hi = max(s2, s34), max(s2, s34)
		if s2 != 0 && s34 != 0 {
			lo = min(s2, s34)
		}
		if n > lo && n < hi {
			return fault.ErrInvalid, RuleTableSize, -1
		}
	} else if lo == 0 {
		return fault.ErrInvalid, RuleTableKind, -1
	}
	switch {
	case n < lo:
		return fault.ErrTruncated, RuleTableSize, int64(n)
	case n > hi:
		return fault.ErrInvalid, RuleTableSize, int64(hi)
	}
	return nil, "", 0
}

// checkTableErr checks that err is an *Error of category kind and rule at offset off, naming
// the file, the table and (for a size error) the size it found.
func checkTableErr(t *testing.T, err, kind error, rule string, off int64, path string, tb Table, n int) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || fault.Category(err) != kind || fault.Rule(err) != rule {
		t.Fatalf("%s of %d B: err %v, want %v rule %s", tb, n, err, kind, rule)
	}
	if e.File != path || e.Table != tb || e.Offset != off {
		t.Fatalf("%s of %d B: error names %q %s offset %d, want %q %s offset %d", tb, n, e.File, e.Table, e.Offset, path, tb, off)
	}
	msg := err.Error()
	need := []string{path, tb.String()}
	if rule == RuleTableSize {
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
	if _, err := ParseTables("f", raw, bad); fault.Rule(err) != RuleTableGen {
		t.Fatalf("%s of %d B as %s: err %v, want rule %s", tb, len(file), bad, err, RuleTableGen)
	}
	for _, gen := range []TableGen{g, GenUnknown} {
		s, err := ParseTables("f", raw, gen)
		kind, rule, off := wantSizeErr(tb, len(file), gen)
		switch {
		case kind != nil:
			checkTableErr(t, err, kind, rule, off, path, tb, len(file))
		case gen == GenUnknown && tb == TableDatapath && len(file) != Gen2.TableSize(tb):
			if s != nil {
				checkInference(t, raw, s, s.Gen)
			} else if fault.Rule(err) != RuleTableGen {
				t.Fatalf("%s of %d B: %v", tb, len(file), err)
			}
		case gen != GenUnknown || len(file) == Gen2.TableSize(tb):
			if err != nil {
				t.Fatalf("%s of %d B as %s: %v", tb, len(file), gen, err)
			}
			files, err := s.Files()
			if err != nil || !bytes.Equal(files[tb], file) || (gen == GenUnknown && s.Gen != Gen2) {
				t.Fatalf("%s of %d B as %s: parsed as %s, bytes changed (%v)", tb, len(file), gen, s.Gen, err)
			}
		case fault.Rule(err) != RuleTableGen || !strings.Contains(err.Error(), "pass the generation"):
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
		if fault.Rule(err) != RuleTableGen || !strings.Contains(err.Error(), "cannot tell gen3 from gen4") {
			t.Fatalf("%d gen3 and %d gen4 idle words: err %v, want a gen3/gen4 tie", n3, n4, err)
		}
	case err != nil || s.Gen != want:
		t.Fatalf("%d gen3 and %d gen4 idle words: inferred %v (%v), want %s", n3, n4, s, err, want)
	case !bytes.Equal(s.Datapath.Bytes(), data):
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
	if len(dt.Blocks) != g.ControlRows() || !bytes.Equal(dt.Bytes(), file) {
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

// spreadOps picks at most n of ops, evenly spread, and adds their arith/bitvec twins: following
// every affected opcode through Lookup (which scans the whole opcode table each time) would cost
// most of a run when an input touches many.
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

// checkChainOps follows the opcodes ops through a whole set (opcode, control, slow in
// gen3/gen4, datapath) and checks each Lookup against the tables.
func checkChainOps(t *testing.T, s *TableSet, ops []uint8) {
	t.Helper()
	g := s.Gen
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
		in := analyzeOwn(s.Datapath.Blocks[e.FastRow], idleWords[g])
		if r.Fast == nil || *r.Fast != s.Control.Rows[e.FastRow] || r.Block == nil || *r.Block != s.Datapath.Blocks[e.FastRow] ||
			r.Info.Index != e.FastRow || r.Info.Class != in.Class || r.Info.Depth != in.Depth || r.Info.LeftPacked != in.LeftPacked {
			t.Fatalf("%s Lookup(%d) row %d: %+v", g, op, e.FastRow, r)
		}
		var shares []uint8
		for o, eo := range s.Opcodes.Entries {
			if eo.Enabled() && eo.FastRow == e.FastRow && uint8(o) != op {
				shares = append(shares, uint8(o))
			}
		}
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
}

// checkChain is checkChainOps for ops, then MissingOpcodes and the opcode side of the set's
// census c for every opcode.
func checkChain(t *testing.T, s *TableSet, c Census, ops []uint8) {
	t.Helper()
	checkChainOps(t, s, ops)
	g := s.Gen
	infos := s.Datapath.Analyze()
	var enabled, missing, all []uint8
	for op, e := range s.Opcodes.Entries {
		all = append(all, uint8(op))
		if e.Raw == 0 {
			missing = append(missing, uint8(op))
			continue
		}
		enabled = append(enabled, uint8(op))
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
		checkEntry(t, ot.Gen, op, e)
	}
}

func checkEntry(t *testing.T, g TableGen, op int, e OpcodeEntry) {
	t.Helper()
	m, err := MakeOpcodeEntry(g, e.FastRow, e.SlowRow)
	d, derr := DecodeOpcodeEntry(e.Raw, g)
	if err != nil || derr != nil || m != e || d != e {
		t.Fatalf("%s op %d entry %+v re-encodes to %+v (%v, %v)", g, op, e, m, err, derr)
	}
}

// checkRow checks that a control row's named fields cover its 16 bytes once, in order, and
// that a slow row's four 12-bit steps are its first six bytes.
func checkRow(t *testing.T, r ControlRow, tb Table, g TableGen) {
	t.Helper()
	next := 0
	fields, err := r.RowFields(tb, g)
	if err != nil {
		t.Fatalf("%s %s row %x: %v", g, tb, r, err)
	}
	for _, f := range fields {
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

// checkBlockJSON, checkRowJSON and checkSlotJSON check that one element's JSON form reads back
// to the element: the conversions JSON and DecodeJSON apply to each block, row and slot (the
// JSON text itself is FuzzDecodeJSON's, and the whole sets' TestJSONRoundTripFixtures'). A
// whole-set DecodeJSON per input cost several times the rest of a target.
func checkBlockJSON(t *testing.T, i int, b DatapathBlock, g TableGen) {
	t.Helper()
	bj, ok := blockJSON(i, b, layout(g), g)
	in := analyzeOwn(b, idleWords[g])
	if !ok {
		if in.Class != ClassOff {
			t.Fatalf("%s block %d %#x: left out of the JSON form, but %s", g, i, b, in.Class)
		}
		return
	}
	back, err := bj.words(g)
	if err != nil || back != b || bj.Block != i || bj.Class != in.Class.String() || bj.K != in.Depth || bj.LeftPacked != in.LeftPacked {
		t.Fatalf("%s block %d %#x: JSON %+v reads back as %#x (%v)", g, i, b, bj, back, err)
	}
}

func checkRowJSON(t *testing.T, i int, r ControlRow, tb Table, g TableGen) {
	t.Helper()
	rj, err := rowJSON(i, r, tb, g)
	if err != nil {
		t.Fatalf("%s %s row %d: %v", g, tb, i, err)
	}
	back, err := ParseControlRowHex(rj.Bytes)
	if err != nil || back != r || rj.Row != i {
		t.Fatalf("%s %s row %d %x: JSON %+v reads back as %x (%v)", g, tb, i, r, rj, back, err)
	}
}

func checkSlotJSON(t *testing.T, op int, e OpcodeEntry, g TableGen) {
	t.Helper()
	back, err := opcodeJSON(op, e).entry(g)
	if err != nil || back != e {
		t.Fatalf("%s op %d %+v: JSON reads back as %+v (%v)", g, op, e, back, err)
	}
}
