package ucode

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ResolutionView is one opcode's chain as `dtable dump` prints it (and its --json --op form).
type ResolutionView struct {
	Opcode    uint8      `json:"opcode"`
	Name      string     `json:"name"`
	Enabled   bool       `json:"enabled"`
	Entry     string     `json:"entry"`
	FastRow   int        `json:"fast_row"`
	SlowRow   uint64     `json:"slow_row"`
	Fast      string     `json:"control,omitempty"`
	Slow      string     `json:"control_slow,omitempty"`
	Class     string     `json:"class,omitempty"`
	Form      string     `json:"form,omitempty"`
	K         int        `json:"k"`
	Lanes     []string   `json:"lanes,omitempty"`
	SharesRow OpcodeList `json:"shares_row,omitempty"`
	Twin      string     `json:"twin,omitempty"`
	Notes     []string   `json:"notes,omitempty"`
}

// BlockView is one datapath block as `dtable dump` prints it (and its --json --block form).
type BlockView struct {
	Block      int        `json:"block"`
	Offset     string     `json:"offset"`
	Class      string     `json:"class"`
	Form       string     `json:"form,omitempty"`
	K          int        `json:"k"`
	LeftPacked bool       `json:"left_packed"`
	Opcodes    OpcodeList `json:"opcodes,omitempty"`
	Lanes      []string   `json:"lanes"`
}

// DumpQuery selects what Dump shows: the opcodes to resolve and the blocks to print. With
// neither, the text form shows every enabled opcode and every non-OFF block, and the JSON form
// is the whole set's re-encodable form (SetJSON). JSON asks for the JSON form, which shows the
// resolutions or the blocks, not both.
type DumpQuery struct {
	Ops    []uint8
	Blocks []int
	JSON   bool
}

// Dump is what `dtable dump` prints of a set. It marshals to the JSON form its query chose and
// writes the text form with WriteText.
type Dump struct {
	SetName     string
	Gen         TableGen
	GenReason   string
	Resolutions []ResolutionView
	Blocks      []BlockView
	Set         *SetJSON // the JSON form of a query with neither opcodes nor blocks
	query       DumpQuery
}

// Dump resolves and renders what q asks for. A block that is not in the datapath table (or a
// block of a set without one) is an error (rule ucode.block_index), found before anything is
// rendered; so is a JSON query for both opcodes and blocks.
func (s *TableSet) Dump(q DumpQuery) (*Dump, error) {
	if err := s.Gen.Check(); err != nil {
		return nil, err
	}
	for _, b := range q.Blocks {
		path := fmt.Sprintf("block[%d]", b)
		if s.Datapath == nil {
			return nil, invalid(RuleBlockIndex, path, "", "", "the set has no datapath table")
		}
		if b < 0 || b >= len(s.Datapath.Blocks) {
			return nil, invalid(RuleBlockIndex, path, "", fmt.Sprintf("0..%d", len(s.Datapath.Blocks)-1), "not a block of the datapath table")
		}
	}
	d := &Dump{SetName: s.Name, Gen: s.Gen, GenReason: s.GenReason, query: q}
	switch {
	case q.JSON && len(q.Ops) > 0 && len(q.Blocks) > 0:
		return nil, invalid(RuleDumpSelection, "", "", "opcodes or blocks", "the JSON form prints either the opcode resolutions or the blocks: give one of them")
	case q.JSON && len(q.Ops) == 0 && len(q.Blocks) == 0:
		j, err := s.JSON()
		if err != nil {
			return nil, err
		}
		d.Set = &j
		return d, nil
	}
	ops := q.Ops
	if len(ops) == 0 && len(q.Blocks) == 0 && s.Opcodes != nil {
		ops = s.Opcodes.Enabled()
	}
	for _, op := range ops {
		d.Resolutions = append(d.Resolutions, s.resolutionView(op))
	}
	if s.Datapath == nil || (q.JSON && len(q.Blocks) == 0) {
		return d, nil
	}
	blocks := q.Blocks
	if len(blocks) == 0 && len(q.Ops) == 0 {
		for i := range s.Datapath.Blocks {
			if s.Datapath.Blocks[i].Analyze(s.Gen).Class != ClassOff {
				blocks = append(blocks, i)
			}
		}
	}
	for _, b := range blocks {
		d.Blocks = append(d.Blocks, s.blockView(b))
	}
	return d, nil
}

func (s *TableSet) blockView(b int) BlockView {
	blk := s.Datapath.Blocks[b]
	in := blk.Analyze(s.Gen)
	out := BlockView{Block: b, Offset: fmt.Sprintf("%#x", b*BlockSize), Class: in.Class.String(), K: in.Depth, LeftPacked: in.LeftPacked}
	if in.Form != FormNone {
		out.Form = in.Form.String()
	}
	if s.Opcodes != nil {
		out.Opcodes = s.Opcodes.OpcodesOnRow(b)
	}
	for _, w := range blk {
		out.Lanes = append(out.Lanes, w.Line(s.Gen))
	}
	return out
}

func (s *TableSet) resolutionView(op uint8) ResolutionView {
	r, ok := s.Lookup(op)
	out := ResolutionView{Opcode: op, Name: r.Name, Enabled: ok, Entry: fmt.Sprintf("%#x", r.Entry.Raw),
		FastRow: r.FastRow, SlowRow: r.SlowRow, SharesRow: r.SharesRow, Notes: r.Notes}
	if r.Fast != nil {
		out.Fast = r.Fast.Hex()
	}
	if r.Slow != nil {
		out.Slow = r.Slow.Hex()
	}
	if r.Block != nil {
		out.Class, out.Form, out.K = r.Info.Class.String(), r.Info.Form.String(), r.Info.Depth
		for _, w := range r.Block {
			out.Lanes = append(out.Lanes, w.Line(s.Gen))
		}
	}
	if r.HasTwin {
		out.Twin = fmt.Sprintf("%d %s", r.Twin, OpcodeName(r.Twin))
		if r.TwinRow {
			out.Twin += " (shares this row)"
		}
	}
	return out
}

// MarshalJSON renders the JSON form the query chose: the set's SetJSON, the blocks, or the
// resolutions.
func (d *Dump) MarshalJSON() ([]byte, error) {
	switch {
	case d.Set != nil:
		return json.Marshal(d.Set)
	case len(d.query.Blocks) > 0:
		return json.Marshal(d.Blocks)
	}
	return json.Marshal(d.Resolutions)
}

// WriteText writes the text form: a header, each resolution, then each block.
func (d *Dump) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("set %s, %s (%s)\n", d.SetName, d.Gen, d.GenReason)
	for _, r := range d.Resolutions {
		ew.printf("op %d %s: ", r.Opcode, r.Name)
		if !r.Enabled {
			ew.printf("not enabled in this set %s\n", strings.Join(r.Notes, "; "))
			continue
		}
		ew.printf("entry %s -> fast row %d, slow row %d", r.Entry, r.FastRow, r.SlowRow)
		if r.Class != "" {
			ew.printf(" -> block %d %s", r.FastRow, r.Class)
			if r.Form != "" {
				ew.printf(" (%s)", r.Form)
			}
			ew.printf(" k=%d", r.K)
		}
		ew.printf("\n")
		if len(r.SharesRow) > 0 {
			ew.printf("    shares the row with %s\n", FormatOpcodes(r.SharesRow))
		}
		if r.Twin != "" {
			ew.printf("    twin: %s\n", r.Twin)
		}
		if r.Fast != "" {
			ew.printf("    control:      %s\n", r.Fast)
		}
		if r.Slow != "" {
			ew.printf("    control_slow: %s\n", r.Slow)
		}
		for _, n := range r.Notes {
			ew.printf("    note: %s\n", n)
		}
		if r.Class == ClassActive.String() {
			for L, l := range r.Lanes {
				ew.printf("    lane%d %s\n", L, l)
			}
		}
	}
	for _, b := range d.Blocks {
		ew.printf("block %d @%s: %s", b.Block, b.Offset, b.Class)
		if b.Form != "" {
			ew.printf(" (%s)", b.Form)
		}
		ew.printf(" k=%d", b.K)
		if !b.LeftPacked {
			ew.printf(" NOT LEFT-PACKED")
		}
		if len(b.Opcodes) > 0 {
			ew.printf("  [%s]", FormatOpcodes(b.Opcodes))
		}
		ew.printf("\n")
		for L, l := range b.Lanes {
			ew.printf("    lane%d %s\n", L, l)
		}
	}
	return ew.err
}
