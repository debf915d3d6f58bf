package ucode

import (
	"fmt"
	"math/bits"
	"sort"
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

// Census computes the statistics of the set's datapath table (ErrMissing without one).
func (s *TableSet) Census() (Census, error) {
	c := Census{Set: s.Name, Gen: s.Gen, HighestBit: -1, UsedControlRows: -1, UsedSlowRows: -1, EnabledOpcodes: -1}
	if s.Datapath == nil {
		return c, fmt.Errorf("%w: census needs a datapath_table", ErrMissing)
	}
	infos := s.Datapath.Analyze()
	c.Blocks = len(infos)
	c.Depths = make([]DepthBucket, LanesPerBlock+1)
	for k := range c.Depths {
		c.Depths[k].K = k
	}
	idle := s.Gen.IdleWord()
	for i, in := range infos {
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
		c.Depths[in.Depth].Blocks = append(c.Depths[in.Depth].Blocks, i)
		c.TerminalLanes += len(in.Terminal)
		for _, w := range s.Datapath.Blocks[i] {
			switch {
			case w == 0:
			case w == idle:
				c.IdleWords++
				c.NonzeroWords++
			default:
				c.NonzeroWords++
				c.ActiveWords++
				for u := uint64(w); u != 0; u &= u - 1 {
					c.BitCounts[bits.TrailingZeros64(u)]++
				}
				if hb := 63 - bits.LeadingZeros64(uint64(w)); hb > c.HighestBit {
					c.HighestBit = hb
				}
			}
		}
	}
	if s.Opcodes != nil {
		c.EnabledOpcodes = 0
		for op, e := range s.Opcodes.Entries {
			if !e.Enabled() {
				continue
			}
			c.EnabledOpcodes++
			if e.FastRow < len(infos) {
				k := infos[e.FastRow].Depth
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

// DiffSets compares a and b, which must be of the same generation (ErrGeneration otherwise;
// use CrossGenCheck across generations).
func DiffSets(a, b *TableSet) (Diff, error) {
	d := Diff{A: a.Name, B: b.Name, Gen: a.Gen, ChangedBlocksA: map[int]bool{}}
	if a.Gen != b.Gen {
		return d, fmt.Errorf("%w: cannot diff %s against %s word by word; compare one opcode across generations instead", ErrGeneration, a.Gen, b.Gen)
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
		if s.Opcodes == nil {
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
func FieldsDiffering(a, b LaneWord, g TableGen) []string {
	var out []string
	x := uint64(a ^ b)
	for _, f := range LayoutOf(g).Fields() {
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
// documented relocation (seed 004 §5).
func CrossGenCheck(a, b *TableSet, op uint8) (CrossGenResult, error) {
	r := CrossGenResult{Opcode: op, Name: OpcodeName(op), GenA: a.Gen, GenB: b.Gen, OK: true}
	ra, oka := a.Lookup(op)
	rb, okb := b.Lookup(op)
	if !oka || !okb || ra.Block == nil || rb.Block == nil {
		return r, fmt.Errorf("%w: opcode %d (%s) does not resolve to a datapath block in both sets", ErrMissing, op, r.Name)
	}
	r.RowA, r.RowB, r.DepthA, r.DepthB = ra.FastRow, rb.FastRow, ra.Info.Depth, rb.Info.Depth
	for L := 0; L < LanesPerBlock; L++ {
		wa, wb := ra.Block[L], rb.Block[L]
		cl := CrossGenLane{Lane: L, A: wa, B: wb, KindA: wa.Kind(a.Gen), KindB: wb.Kind(b.Gen)}
		switch {
		case (cl.KindA == LaneActive) != (cl.KindB == LaneActive):
		case cl.KindA != LaneActive:
			cl.Relocated = true // idle and zero are both inactive: the depth is unchanged
		default:
			fa, fb := wa.Decode(a.Gen), wb.Decode(b.Gen)
			cl.Relocated = fa.VALID == fb.VALID && fa.MODE == fb.MODE && fa.STAGE == fb.STAGE
			if fa.OPA != fb.OPA {
				cl.LowDiffers = append(cl.LowDiffers, "OPA")
			}
			if fa.OPB != fb.OPB {
				cl.LowDiffers = append(cl.LowDiffers, "OPB")
			}
			if fa.MUX != fb.MUX {
				cl.LowDiffers = append(cl.LowDiffers, "MUX")
			}
		}
		r.OK = r.OK && cl.Relocated
		r.Lanes = append(r.Lanes, cl)
	}
	return r, nil
}
