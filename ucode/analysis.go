package ucode

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
)

// DepthBucket is one line of the k histogram: the blocks with pipeline depth K and the enabled
// opcodes whose fast row lands on one of them.
type DepthBucket struct {
	K       int        `json:"k"`
	Blocks  []int      `json:"blocks"`
	Opcodes OpcodeList `json:"opcodes"`
}

// Census is the whole-table statistics of seed 004 §2-§4.
type Census struct {
	Set              string        `json:"set"`
	Gen              TableGen      `json:"gen"`
	Blocks           int           `json:"blocks"`
	Off              int           `json:"off"`
	Passthru         int           `json:"passthru"` // both sub-forms
	PassthruAllIdle  int           `json:"passthru_all_idle"`
	PassthruIdleZero int           `json:"passthru_idle_zero"`
	Active           int           `json:"active"`
	AllIdleRows      []int         `json:"all_idle_rows"`
	Depths           []DepthBucket `json:"depths"` // K = 0..8, every depth listed
	// BitCounts[b] is how many non-idle nonzero words have bit b set (seed 004 §4 table).
	BitCounts         [64]int `json:"bit_counts"`
	ActiveWords       int     `json:"active_words"` // non-idle nonzero lane words
	IdleWords         int     `json:"idle_words"`
	NonzeroWords      int     `json:"nonzero_words"`
	TerminalLanes     int     `json:"terminal_lanes"` // active lanes with VALID clear
	HighestBit        int     `json:"highest_bit"`    // highest bit set in any active word; -1 if none
	PackingViolations []int   `json:"packing_violations"`
	// OrphanBlocks are active blocks on an unused (all-zero) control row: seed 004 §1 says the
	// set is empty in every shipped generation.
	OrphanBlocks    []int `json:"orphan_blocks"`
	UsedControlRows int   `json:"used_control_rows"` // -1 when the table is absent
	UsedSlowRows    int   `json:"used_slow_rows"`    // -1 when absent
	EnabledOpcodes  int   `json:"enabled_opcodes"`   // -1 when absent
}

// Census computes the statistics of the set's datapath table; a set without one, or of an
// invalid generation, is an error.
func (s *TableSet) Census() (Census, error) {
	c := Census{Set: s.Name, Gen: s.Gen, HighestBit: -1, UsedControlRows: -1, UsedSlowRows: -1, EnabledOpcodes: -1}
	if err := s.Gen.Check(); err != nil {
		return c, err
	}
	if s.Datapath == nil {
		return c, s.needs(TableDatapath, "census")
	}
	blocks := s.Datapath.Blocks
	c.Blocks = len(blocks)
	c.Depths = make([]DepthBucket, LanesPerBlock+1)
	for k := range c.Depths {
		c.Depths[k].K = k
	}
	idle := s.Gen.IdleWord()
	depth := make([]uint8, len(blocks))
	bc := bitCounter{counts: &c.BitCounts}
	for i := range blocks {
		b := &blocks[i]
		in, terminal := b.classify(idle)
		depth[i] = uint8(in.Depth)
		switch in.Class {
		case ClassOff:
			c.Off++
		case ClassPassthru:
			c.Passthru++
			if in.Form == FormAllIdle {
				c.PassthruAllIdle++
				c.AllIdleRows = append(c.AllIdleRows, i)
			} else {
				c.PassthruIdleZero++
			}
		case ClassActive:
			c.Active++
			if s.Control != nil && i < len(s.Control.Rows) && s.Control.Rows[i].IsZero() {
				c.OrphanBlocks = append(c.OrphanBlocks, i)
			}
		}
		if !in.LeftPacked {
			c.PackingViolations = append(c.PackingViolations, i)
		}
		c.TerminalLanes += terminal
		c.IdleWords += in.Idle
		c.ActiveWords += in.Depth
		c.NonzeroWords += in.Idle + in.Depth
		if in.Depth > 0 {
			for _, w := range b {
				// Zero and idle words count no bits: masked to 0 without a comparison (see
				// classify).
				act := -(nonzero(uint64(w)) & nonzero(uint64(w^idle)))
				bc.add(uint64(w) & act)
			}
		}
	}
	bc.flush()
	if bc.or != 0 {
		c.HighestBit = 63 - bits.LeadingZeros64(bc.or)
	}
	// The depth buckets' block lists share one backing array (one allocation, not a growing
	// slice per depth), filled in block order after a count of each depth.
	var end [LanesPerBlock + 2]int
	for _, k := range depth {
		end[k+1]++
	}
	for k := 1; k < len(end); k++ {
		end[k] += end[k-1]
	}
	all := make([]int, len(blocks))
	next := end
	for i, k := range depth {
		all[next[k]] = i
		next[k]++
	}
	for k := range c.Depths {
		if end[k+1] > end[k] {
			c.Depths[k].Blocks = all[end[k]:end[k+1]:end[k+1]]
		}
	}
	if s.Opcodes != nil {
		c.EnabledOpcodes = 0
		for op, e := range s.Opcodes.Entries {
			if !e.Enabled() {
				continue
			}
			c.EnabledOpcodes++
			if e.FastRow >= 0 && e.FastRow < len(depth) {
				k := depth[e.FastRow]
				c.Depths[k].Opcodes = append(c.Depths[k].Opcodes, uint8(op))
			}
		}
	}
	if s.Control != nil {
		c.UsedControlRows = s.Control.UsedRows()
	}
	if s.Slow != nil {
		c.UsedSlowRows = s.Slow.UsedRows()
	}
	return c, nil
}

// WordDiff is one lane word that differs between two sets.
type WordDiff struct {
	Block int      `json:"block"`
	Lane  int      `json:"lane"`
	A     LaneWord `json:"a"`
	B     LaneWord `json:"b"`
}

// XOR is the bits that changed.
func (d WordDiff) XOR() LaneWord { return d.A ^ d.B }

// XORDelta is one distinct XOR value and how many words carry it.
type XORDelta struct {
	XOR   LaneWord `json:"xor"`
	Count int      `json:"count"`
}

// OK reports whether the census found nothing that breaks a rule: no left-packing violation
// and no orphan block (dtable census exits 1 otherwise).
func (c Census) OK() bool { return len(c.PackingViolations) == 0 && len(c.OrphanBlocks) == 0 }

// Diff compares two table sets of one generation (seed 004 §9).
type Diff struct {
	A              string       `json:"a"`
	B              string       `json:"b"`
	Gen            TableGen     `json:"gen"`
	Words          []WordDiff   `json:"words"`
	Blocks         []int        `json:"blocks"`       // blocks with at least one differing word
	Deltas         []XORDelta   `json:"xor_deltas"`   // distinct XOR deltas, most frequent first
	OpcodeSlots    OpcodeList   `json:"opcode_slots"` // opcodes whose opcode_table entry differs
	Opcodes        OpcodeList   `json:"opcodes"`      // affected: slot differs or block differs in A or B
	ControlRows    []int        `json:"control_rows"` // control (fast) rows that differ
	SlowRows       []int        `json:"slow_rows"`    // slow rows that differ
	MissingInA     []Table      `json:"missing_in_a,omitempty"`
	MissingInB     []Table      `json:"missing_in_b,omitempty"`
	ChangedBlocksA map[int]bool `json:"-"`
}

// DiffSets compares a and b, which must be of the same valid generation (rule
// ucode.diff_same_gen otherwise; use CrossGenCheck across generations).
func DiffSets(a, b *TableSet) (Diff, error) {
	d := Diff{A: a.Name, B: b.Name, Gen: a.Gen, ChangedBlocksA: map[int]bool{}}
	for _, s := range []*TableSet{a, b} {
		if err := s.Gen.Check(); err != nil {
			return d, within("set "+s.Name, err)
		}
	}
	if a.Gen != b.Gen {
		return d, invalid(RuleDiffSameGen, "gen", fmt.Sprintf("%s vs %s", a.Gen, b.Gen), "one generation",
			"cannot diff %s against %s word by word; compare one opcode across generations instead", a.Gen, b.Gen)
	}
	if a.Datapath != nil && b.Datapath != nil && len(a.Datapath.Blocks) != len(b.Datapath.Blocks) {
		return d, &Error{Table: TableDatapath, Offset: -1, Kind: fault.ErrInvalid, V: fault.Violation{Rule: RuleTableSize, Offset: -1,
			Msg: fmt.Sprintf("%d blocks in %s, %d in %s", len(a.Datapath.Blocks), a.Name, len(b.Datapath.Blocks), b.Name)}}
	}
	for _, t := range AllTables {
		switch ha, hb := a.Has(t), b.Has(t); {
		case ha && !hb:
			d.MissingInB = append(d.MissingInB, t)
		case hb && !ha:
			d.MissingInA = append(d.MissingInA, t)
		}
	}
	if a.Datapath != nil && b.Datapath != nil {
		counts := map[LaneWord]int{}
		for i := range a.Datapath.Blocks {
			if a.Datapath.Blocks[i] == b.Datapath.Blocks[i] {
				continue
			}
			changed := false
			for L := range a.Datapath.Blocks[i] {
				wa, wb := a.Datapath.Blocks[i][L], b.Datapath.Blocks[i][L]
				if wa != wb {
					d.Words = append(d.Words, WordDiff{i, L, wa, wb})
					counts[wa^wb]++
					changed = true
				}
			}
			if changed {
				d.Blocks = append(d.Blocks, i)
				d.ChangedBlocksA[i] = true
			}
		}
		for x, n := range counts {
			d.Deltas = append(d.Deltas, XORDelta{x, n})
		}
		sort.Slice(d.Deltas, func(i, j int) bool {
			if d.Deltas[i].Count != d.Deltas[j].Count {
				return d.Deltas[i].Count > d.Deltas[j].Count
			}
			return d.Deltas[i].XOR < d.Deltas[j].XOR
		})
	}
	d.ControlRows = diffRows(a.Control, b.Control)
	d.SlowRows = diffRows(a.Slow, b.Slow)
	var affected [NumOpcodes]bool
	if a.Opcodes != nil && b.Opcodes != nil {
		for op := range a.Opcodes.Entries {
			if a.Opcodes.Entries[op] != b.Opcodes.Entries[op] {
				d.OpcodeSlots = append(d.OpcodeSlots, uint8(op))
				affected[op] = true
			}
		}
	}
	for _, s := range []*TableSet{a, b} {
		if s.Opcodes == nil || len(d.Blocks) == 0 {
			continue
		}
		for op, e := range s.Opcodes.Entries {
			if e.Enabled() && d.ChangedBlocksA[e.FastRow] {
				affected[op] = true
			}
		}
	}
	for op, yes := range affected {
		if yes {
			d.Opcodes = append(d.Opcodes, uint8(op))
		}
	}
	return d, nil
}

func diffRows(a, b *ControlTable) []int {
	if a == nil || b == nil || len(a.Rows) != len(b.Rows) {
		return nil
	}
	var out []int
	for i := range a.Rows {
		if a.Rows[i] != b.Rows[i] {
			out = append(out, i)
		}
	}
	return out
}

// FieldsDiffering names the lane-word fields of g in which a and b differ, low to high; the
// seed 004 §5 XOR proof is FieldsDiffering(mean, M2) == ["MODE"] in both gen2 and gen3.
func FieldsDiffering(a, b LaneWord, g TableGen) ([]string, error) {
	l := layout(g)
	if l == nil {
		return nil, g.Check()
	}
	return l.differing(a, b), nil
}

func (l *LaneLayout) differing(a, b LaneWord) []string {
	var out []string
	x := uint64(a ^ b)
	for _, f := range l.Fields() {
		if x&f.Mask() != 0 {
			out = append(out, f.Name)
		}
	}
	return out
}

// CrossGenLane compares one lane of an opcode's block across two generations.
type CrossGenLane struct {
	Lane  int      `json:"lane"`
	A     LaneWord `json:"a"`
	B     LaneWord `json:"b"`
	KindA LaneKind `json:"kind_a"`
	KindB LaneKind `json:"kind_b"`
	// Relocated is true when VALID, MODE and STAGE, the fields the +12/+22 relocation moves,
	// are equal after relocation, or when neither lane is active (idle vs zero is not a change of
	// depth).
	Relocated bool `json:"relocated"`
	// Differs says why a lane is not Relocated: the relocated fields (VALID, MODE, STAGE) whose
	// values differ, or "kind" when one lane is active and the other is not (the depth changed).
	Differs []string `json:"differs,omitempty"`
	// LowDiffers names the low fields (OPA, OPB, MUX) that differ; the seed's own cross-gen words
	// show OPA and MUX can change (op65 lane0 OPA 0x1c -> 0x20 -> 0x38), so these are reported,
	// not failed.
	LowDiffers []string `json:"low_differs,omitempty"`
}

// CrossGenResult is the seed 004 §5 check of one opcode across two generations.
type CrossGenResult struct {
	Opcode uint8          `json:"opcode"`
	Name   string         `json:"name"`
	GenA   TableGen       `json:"gen_a"`
	GenB   TableGen       `json:"gen_b"`
	RowA   int            `json:"row_a"`
	RowB   int            `json:"row_b"`
	DepthA int            `json:"k_a"`
	DepthB int            `json:"k_b"`
	Lanes  []CrossGenLane `json:"lanes"`
	OK     bool           `json:"ok"` // every lane Relocated
}

// CrossGenCheck resolves op in both sets and compares its block lane by lane after the
// documented relocation (seed 004 §5). Both generations must be valid, and op must resolve to a
// datapath block in both sets (rule ucode.opcode_resolves).
func CrossGenCheck(a, b *TableSet, op uint8) (CrossGenResult, error) {
	r := CrossGenResult{Opcode: op, Name: OpcodeName(op), GenA: a.Gen, GenB: b.Gen, OK: true}
	la, lb := layout(a.Gen), layout(b.Gen)
	if la == nil {
		return r, within("set "+a.Name, a.Gen.Check())
	}
	if lb == nil {
		return r, within("set "+b.Name, b.Gen.Check())
	}
	ra, oka := a.Lookup(op)
	rb, okb := b.Lookup(op)
	if !oka || !okb || ra.Block == nil || rb.Block == nil {
		var why []string
		for _, x := range []struct {
			s  *TableSet
			r  Resolution
			ok bool
		}{{a, ra, oka}, {b, rb, okb}} {
			switch {
			case !x.ok && len(x.r.Notes) > 0:
				why = append(why, fmt.Sprintf("%s %s: %s", x.s.Gen, x.s.Name, strings.Join(x.r.Notes, "; ")))
			case !x.ok:
				why = append(why, fmt.Sprintf("%s %s: not enabled", x.s.Gen, x.s.Name))
			case x.r.Block == nil:
				why = append(why, fmt.Sprintf("%s %s: no datapath block (%s)", x.s.Gen, x.s.Name, strings.Join(x.r.Notes, "; ")))
			}
		}
		return r, invalid(RuleResolves, fmt.Sprintf("op[%d]", op), "", "an opcode enabled in both sets, with a datapath block",
			"opcode %d (%s) does not resolve to a datapath block in both sets: %s", op, r.Name, strings.Join(why, "; "))
	}
	r.RowA, r.RowB, r.DepthA, r.DepthB = ra.FastRow, rb.FastRow, ra.Info.Depth, rb.Info.Depth
	for L := 0; L < LanesPerBlock; L++ {
		wa, wb := ra.Block[L], rb.Block[L]
		cl := CrossGenLane{Lane: L, A: wa, B: wb, KindA: wa.Kind(a.Gen), KindB: wb.Kind(b.Gen)}
		switch {
		case (cl.KindA == LaneActive) != (cl.KindB == LaneActive):
			cl.Differs = []string{"kind"}
		case cl.KindA != LaneActive:
			cl.Relocated = true // idle and zero are both inactive: the depth is unchanged
		default:
			fa, fb := la.decode(wa), lb.decode(wb)
			cl.Differs = namesWhere([...]namedSame{{"VALID", fa.VALID == fb.VALID}, {"MODE", fa.MODE == fb.MODE}, {"STAGE", fa.STAGE == fb.STAGE}})
			cl.LowDiffers = namesWhere([...]namedSame{{"OPA", fa.OPA == fb.OPA}, {"OPB", fa.OPB == fb.OPB}, {"MUX", fa.MUX == fb.MUX}})
			cl.Relocated = len(cl.Differs) == 0
		}
		r.OK = r.OK && cl.Relocated
		r.Lanes = append(r.Lanes, cl)
	}
	return r, nil
}

// namedSame is a field name and whether the two lanes agree in it.
type namedSame struct {
	name string
	same bool
}

// namesWhere lists, in order, the names of the fields that differ.
func namesWhere(fs [3]namedSame) []string {
	var out []string
	for _, f := range fs {
		if !f.same {
			out = append(out, f.name)
		}
	}
	return out
}

// bitCounter counts, per bit position, the words that set it: each byte of a word adds its
// bits, spread one per byte lane of a uint64, to that byte's accumulator, so a word costs eight
// additions instead of a loop over its set bits; the 8-bit lanes are added into counts before
// they can overflow.
type bitCounter struct {
	acc    [8]uint64
	n      int
	or     uint64 // every bit any word set
	counts *[64]int
}

// spreadByte[b] has byte k equal to bit k of b.
var spreadByte = func() (t [256]uint64) {
	for b := range t {
		for k := range 8 {
			t[b] |= uint64(b>>k&1) << (8 * k)
		}
	}
	return t
}()

func (bc *bitCounter) add(w uint64) {
	bc.or |= w
	bc.acc[0] += spreadByte[byte(w)]
	bc.acc[1] += spreadByte[byte(w>>8)]
	bc.acc[2] += spreadByte[byte(w>>16)]
	bc.acc[3] += spreadByte[byte(w>>24)]
	bc.acc[4] += spreadByte[byte(w>>32)]
	bc.acc[5] += spreadByte[byte(w>>40)]
	bc.acc[6] += spreadByte[byte(w>>48)]
	bc.acc[7] += spreadByte[byte(w>>56)]
	if bc.n++; bc.n == 255 {
		bc.flush()
	}
}

func (bc *bitCounter) flush() {
	for j, a := range bc.acc {
		for k := range 8 {
			bc.counts[8*j+k] += int(a >> (8 * k) & 0xff)
		}
		bc.acc[j] = 0
	}
	bc.n = 0
}
