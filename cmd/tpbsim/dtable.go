package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/internal/atomicfile"
	"github.com/tpbsim/tpbsim/ucode"
)

// dtableOpts are the flags shared by the dtable subcommands.
type dtableOpts struct {
	set, setB string
	gen       string
	json      bool
	ops       []string
	blocks    []int
	out       string
	diff      string
	stderr    io.Writer // where load warns that --gen contradicts the idle-word census
}

func newDtableCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dtable",
		Short: "Read, decode, analyse, diff, re-encode and draw the DVE microcode tables",
		Long: `dtable works on a compiler DVE table set (neuronxcc/dve/dve_bin_gen{2,3,4}/<set>_*_table.bin):
opcode_table -> control_table (gen2) or control_fast_table + control_slow_table (gen3/gen4)
-> datapath_table (seed 004, FACTS §E).

A set is given as a folder (with --set NAME when it holds several; "default" otherwise) or as
single files named <set>_<table>.bin. The generation comes from --gen (gen2, gen3, gen4 or a
codename: SUNDA, CAYMAN, MARIANA) or is inferred from the sizes and, between gen3 and gen4, the
idle-word census; the tool says which and why.

Exit status: 0 success; 1 the tables break a rule (census: left-packing violation or orphan
block; diff across generations: a lane whose relocated fields differ); 2 usage or I/O error,
wrong size, truncated file or unknown generation.`,
	}
	cmd.AddCommand(dtableInfoCmd(stdout, stderr), dtableCensusCmd(stdout, stderr), dtableDumpCmd(stdout, stderr),
		dtableDiffCmd(stdout, stderr), dtableEncodeCmd(stdout), dtableReportCmd(stdout, stderr))
	return cmd
}

func addSetFlags(c *cobra.Command, o *dtableOpts) {
	c.Flags().StringVar(&o.set, "set", "", `table-set name inside a folder (default: the only set, or "default")`)
	c.Flags().StringVar(&o.gen, "gen", "", "table generation: gen2, gen3, gen4 or SUNDA, CAYMAN, MARIANA (default: inferred from the files)")
}

func (o *dtableOpts) tableGen() (ucode.TableGen, error) {
	if o.gen == "" {
		return ucode.GenUnknown, nil
	}
	g, err := ucode.ParseTableGen(o.gen)
	if err != nil {
		return g, ioErr(fmt.Errorf("--gen: %w", err))
	}
	return g, nil
}

func (o *dtableOpts) load(paths []string, set string) (*ucode.TableSet, error) {
	g, err := o.tableGen()
	if err != nil {
		return nil, err
	}
	// A missing path is an I/O error in its own words, not a file whose table kind is unknown.
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return nil, ioErr(err)
		}
	}
	s, err := ucode.Load(paths, set, g)
	if err != nil {
		return nil, ioErr(err)
	}
	// An explicit --gen wins, but a census that disagrees is said on stderr: census and diff
	// print no generation reason, so decoding gen3 tables as gen4 went unremarked there.
	if w := s.GenWarning; w != "" && o.stderr != nil {
		fmt.Fprintf(o.stderr, "tpbsim: warning: %s: %s\n", strings.Join(paths, " "), w)
	}
	return s, nil
}

// loadB loads the second set of a diff: --set-b, or --set when --set-b is not given.
func (o *dtableOpts) loadB(path string) (*ucode.TableSet, error) {
	set := o.setB
	if set == "" {
		set = o.set
	}
	return o.load([]string{path}, set)
}

func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ioErr(err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// parseOpcode reads an opcode as a decimal or 0x number or a roster name (any case).
func parseOpcode(s string) (uint8, error) {
	if v, err := strconv.ParseUint(s, 0, 8); err == nil {
		return uint8(v), nil
	}
	for op := 0; op < ucode.NumOpcodes; op++ {
		if strings.EqualFold(ucode.OpcodeName(uint8(op)), s) {
			return uint8(op), nil
		}
	}
	return 0, fmt.Errorf("--op %q: not an opcode number (0..255) or a DVE opcode name", s)
}

func (o *dtableOpts) opcodes() ([]uint8, error) {
	var out []uint8
	for _, s := range o.ops {
		for _, part := range strings.Split(s, ",") {
			op, err := parseOpcode(strings.TrimSpace(part))
			if err != nil {
				return nil, ioErr(err)
			}
			out = append(out, op)
		}
	}
	return out, nil
}

func opList(ops []uint8) string {
	parts := make([]string, len(ops))
	for i, op := range ops {
		parts[i] = fmt.Sprintf("%d %s", op, ucode.OpcodeName(op))
	}
	return strings.Join(parts, ", ")
}

// --- info -------------------------------------------------------------------------------

type infoTable struct {
	Table string `json:"table"`
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	Note  string `json:"note"`
}

type infoOut struct {
	Set          string           `json:"set"`
	Gen          ucode.TableGen   `json:"gen"`
	Generation   string           `json:"generation"`
	GenReason    string           `json:"gen_reason"`
	Tables       []infoTable      `json:"tables"`
	RosterSize   int              `json:"roster_size"`
	NotEnabled   ucode.OpcodeList `json:"roster_not_enabled"`
	OutOfRoster  ucode.OpcodeList `json:"enabled_not_in_roster"`
	MissingTable []string         `json:"missing_tables,omitempty"`
}

func dtableInfoCmd(stdout, stderr io.Writer) *cobra.Command {
	o := dtableOpts{stderr: stderr}
	c := &cobra.Command{
		Use:   "info DIR | FILE...",
		Short: "Say which generation a table set is (and why) and what each table holds",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := o.load(args, o.set)
			if err != nil {
				return err
			}
			out := infoOut{Set: s.Name, Gen: s.Gen, Generation: s.Gen.Generation().String(), GenReason: s.GenReason}
			files := s.Files()
			for _, t := range s.Gen.Tables() {
				data, ok := files[t]
				if !ok {
					out.MissingTable = append(out.MissingTable, t.String())
					continue
				}
				it := infoTable{Table: t.String(), Path: s.Paths[t], Bytes: len(data)}
				switch t {
				case ucode.TableOpcode:
					it.Note = fmt.Sprintf("%d enabled opcode slots", len(s.Opcodes.Enabled()))
				case ucode.TableControl, ucode.TableControlFast:
					it.Note = fmt.Sprintf("%d/%d rows used", s.Control.UsedRows(), len(s.Control.Rows))
				case ucode.TableControlSlow:
					it.Note = fmt.Sprintf("%d/%d rows used", s.Slow.UsedRows(), len(s.Slow.Rows))
				case ucode.TableDatapath:
					c, _ := s.Census()
					it.Note = fmt.Sprintf("%d blocks: %d OFF, %d PASSTHRU, %d ACTIVE", c.Blocks, c.Off, c.Passthru, c.Active)
				}
				out.Tables = append(out.Tables, it)
			}
			roster := ucode.Roster(s.Gen)
			out.RosterSize = len(roster)
			if s.Opcodes != nil {
				in := map[uint8]bool{}
				for _, r := range roster {
					in[r.Opcode] = true
					if !s.Opcodes.Entries[r.Opcode].Enabled() {
						out.NotEnabled = append(out.NotEnabled, r.Opcode)
					}
				}
				for _, op := range s.Opcodes.Enabled() {
					if op != 0 && !in[op] {
						out.OutOfRoster = append(out.OutOfRoster, op)
					}
				}
			}
			if o.json {
				return printJSON(stdout, out)
			}
			fmt.Fprintf(stdout, "set:        %s\ngeneration: %s (%s)\nwhy:        %s\n", out.Set, out.Gen, out.Generation, out.GenReason)
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			for _, it := range out.Tables {
				fmt.Fprintf(tw, "  %s\t%d B\t%s\t%s\n", it.Table, it.Bytes, it.Note, it.Path)
			}
			tw.Flush()
			if len(out.MissingTable) > 0 {
				fmt.Fprintf(stdout, "missing:    %s\n", strings.Join(out.MissingTable, ", "))
			}
			if s.Opcodes != nil {
				fmt.Fprintf(stdout, "roster:     %d ops in the %s default roster (FACTS §E.2)\n", out.RosterSize, s.Gen)
				if len(out.NotEnabled) > 0 {
					fmt.Fprintf(stdout, "  not enabled in this set: %s\n", opList(out.NotEnabled))
				}
				if len(out.OutOfRoster) > 0 {
					fmt.Fprintf(stdout, "  enabled outside the roster: %s\n", opList(out.OutOfRoster))
				}
			}
			return nil
		},
	}
	addSetFlags(c, &o)
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

// --- census -----------------------------------------------------------------------------

func dtableCensusCmd(stdout, stderr io.Writer) *cobra.Command {
	o := dtableOpts{stderr: stderr}
	c := &cobra.Command{
		Use:   "census DIR | FILE...",
		Short: "Block classes, depth-k histogram with opcodes, per-bit counts, idle/nonzero words (seed 004 §2-§4)",
		Long: `census prints the statistics of seed 004 §2-§4 for the set's datapath table. It exits 1
(after printing) when a block breaks the left-packing rule or an active block sits on an unused
control row.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := o.load(args, o.set)
			if err != nil {
				return err
			}
			c, err := s.Census()
			if err != nil {
				return ioErr(fmt.Errorf("%s (set %s): %w (%s)", strings.Join(args, ", "), s.Name, err, ucode.TableDatapath.FileName(s.Name)))
			}
			if o.json {
				if err := printJSON(stdout, c); err != nil {
					return err
				}
			} else {
				printCensus(stdout, s, c)
			}
			if len(c.PackingViolations) > 0 || len(c.OrphanBlocks) > 0 {
				return errSilentRule
			}
			return nil
		},
	}
	addSetFlags(c, &o)
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

func printCensus(w io.Writer, s *ucode.TableSet, c ucode.Census) {
	fmt.Fprintf(w, "set %s, %s: %d blocks\n", c.Set, c.Gen, c.Blocks)
	fmt.Fprintf(w, "  OFF       %4d\n  PASSTHRU  %4d  (all-idle %d: rows %v; idle+zero %d)\n  ACTIVE    %4d\n",
		c.Off, c.Passthru, c.PassthruAllIdle, c.AllIdleRows, c.PassthruIdleZero, c.Active)
	fmt.Fprintf(w, "words: %d nonzero = %d idle (%#x) + %d active; %d terminal lanes (VALID clear); highest active bit %d\n",
		c.NonzeroWords, c.IdleWords, uint64(s.Gen.IdleWord()), c.ActiveWords, c.TerminalLanes, c.HighestBit)
	if c.UsedControlRows >= 0 {
		fmt.Fprintf(w, "control rows used: %d", c.UsedControlRows)
		if c.UsedSlowRows >= 0 {
			fmt.Fprintf(w, "; slow rows used: %d", c.UsedSlowRows)
		}
		fmt.Fprintln(w)
	}
	if c.EnabledOpcodes >= 0 {
		fmt.Fprintf(w, "enabled opcode slots: %d\n", c.EnabledOpcodes)
	}
	fmt.Fprintln(w, "depth k histogram:")
	for _, d := range c.Depths {
		fmt.Fprintf(w, "  k=%d %4d blocks", d.K, len(d.Blocks))
		if len(d.Opcodes) > 0 {
			fmt.Fprintf(w, "  ops: %s", opList(d.Opcodes))
		}
		fmt.Fprintln(w)
	}
	top := c.HighestBit
	fmt.Fprintln(w, "per-bit set counts over active words (bit: count):")
	for b := 0; b <= top; b++ {
		fmt.Fprintf(w, " %d:%d", b, c.BitCounts[b])
		if b%16 == 15 || b == top {
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "left-packing violations: %v\norphan active blocks: %v\n", c.PackingViolations, c.OrphanBlocks)
}

// laneLine renders one lane: the word, its fields, and a terminal-lane mark (seed 004 §8 QUIRK).
func laneLine(w ucode.LaneWord, g ucode.TableGen) string {
	line := fmt.Sprintf("%#016x %s", uint64(w), w.Format(g))
	if w.Terminal(g) {
		line += "  <- terminal lane (VALID clear)"
	}
	return line
}

// --- dump -------------------------------------------------------------------------------

type resolutionOut struct {
	Opcode    uint8            `json:"opcode"`
	Name      string           `json:"name"`
	Enabled   bool             `json:"enabled"`
	Entry     string           `json:"entry"`
	FastRow   int              `json:"fast_row"`
	SlowRow   uint64           `json:"slow_row"`
	Fast      string           `json:"control,omitempty"`
	Slow      string           `json:"control_slow,omitempty"`
	Class     string           `json:"class,omitempty"`
	Form      string           `json:"form,omitempty"`
	K         int              `json:"k"`
	Lanes     []string         `json:"lanes,omitempty"`
	SharesRow ucode.OpcodeList `json:"shares_row,omitempty"`
	Twin      string           `json:"twin,omitempty"`
	Notes     []string         `json:"notes,omitempty"`
}

// blockOut is one datapath block in dump --json --block: what the text form prints of it.
type blockOut struct {
	Block      int              `json:"block"`
	Offset     string           `json:"offset"`
	Class      string           `json:"class"`
	Form       string           `json:"form,omitempty"`
	K          int              `json:"k"`
	LeftPacked bool             `json:"left_packed"`
	Opcodes    ucode.OpcodeList `json:"opcodes,omitempty"`
	Lanes      []string         `json:"lanes"`
}

func blockOf(s *ucode.TableSet, b int) blockOut {
	blk := s.Datapath.Blocks[b]
	in := blk.Analyze(s.Gen)
	out := blockOut{Block: b, Offset: fmt.Sprintf("%#x", b*ucode.BlockSize), Class: in.Class.String(), K: in.Depth, LeftPacked: in.LeftPacked}
	if in.Form != ucode.FormNone {
		out.Form = in.Form.String()
	}
	if s.Opcodes != nil {
		out.Opcodes = s.Opcodes.OpcodesOnRow(b)
	}
	for _, w := range blk {
		out.Lanes = append(out.Lanes, laneLine(w, s.Gen))
	}
	return out
}

func resolutionOf(s *ucode.TableSet, op uint8) resolutionOut {
	r, ok := s.Lookup(op)
	out := resolutionOut{Opcode: op, Name: r.Name, Enabled: ok, Entry: fmt.Sprintf("%#x", r.Entry.Raw),
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
			out.Lanes = append(out.Lanes, laneLine(w, s.Gen))
		}
	}
	if r.HasTwin {
		out.Twin = fmt.Sprintf("%d %s", r.Twin, ucode.OpcodeName(r.Twin))
		if r.TwinRow {
			out.Twin += " (shares this row)"
		}
	}
	return out
}

func dtableDumpCmd(stdout, stderr io.Writer) *cobra.Command {
	o := dtableOpts{stderr: stderr}
	c := &cobra.Command{
		Use:   "dump DIR | FILE...",
		Short: "Resolve opcodes through the tables and decode every lane word (--json: the re-encodable form)",
		Long: `dump prints, for each enabled opcode (or those given with --op), its chain
opcode -> fast row (+ slow row) -> control words -> datapath block with every lane decoded, then
every non-OFF block (or those given with --block). --json prints the decoded form that
'dtable encode' turns back into byte-identical files; with --op it prints the resolutions,
with --block those blocks (not both).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := o.load(args, o.set)
			if err != nil {
				return err
			}
			ops, err := o.opcodes()
			if err != nil {
				return err
			}
			// --block is checked before anything is printed (a bad one used to fail after the
			// header and the blocks before it were out).
			for _, b := range o.blocks {
				if s.Datapath == nil {
					return ioErr(fmt.Errorf("--block %d: the set has no datapath table", b))
				}
				if b < 0 || b >= len(s.Datapath.Blocks) {
					return ioErr(fmt.Errorf("--block %d: the datapath table has blocks 0..%d", b, len(s.Datapath.Blocks)-1))
				}
			}
			if o.json && len(o.blocks) > 0 {
				// --json used to print the --op resolutions (or "null") and drop --block.
				if len(ops) > 0 {
					return ioErr(errors.New("--json prints either the --op resolutions or the --block blocks: give one of them"))
				}
				out := make([]blockOut, len(o.blocks))
				for i, b := range o.blocks {
					out[i] = blockOf(s, b)
				}
				return printJSON(stdout, out)
			}
			if o.json && len(ops) == 0 && len(o.blocks) == 0 {
				js, err := ucode.MarshalJSONSet(s)
				if err != nil {
					return ioErr(err)
				}
				_, err = fmt.Fprintf(stdout, "%s\n", js)
				return err
			}
			if len(ops) == 0 && len(o.blocks) == 0 && s.Opcodes != nil {
				ops = s.Opcodes.Enabled()
			}
			var res []resolutionOut
			for _, op := range ops {
				res = append(res, resolutionOf(s, op))
			}
			if o.json {
				return printJSON(stdout, res)
			}
			fmt.Fprintf(stdout, "set %s, %s (%s)\n", s.Name, s.Gen, s.GenReason)
			for _, r := range res {
				fmt.Fprintf(stdout, "op %d %s: ", r.Opcode, r.Name)
				if !r.Enabled {
					fmt.Fprintf(stdout, "not enabled in this set %s\n", strings.Join(r.Notes, "; "))
					continue
				}
				fmt.Fprintf(stdout, "entry %s -> fast row %d, slow row %d", r.Entry, r.FastRow, r.SlowRow)
				if r.Class != "" {
					fmt.Fprintf(stdout, " -> block %d %s", r.FastRow, r.Class)
					if r.Form != "" {
						fmt.Fprintf(stdout, " (%s)", r.Form)
					}
					fmt.Fprintf(stdout, " k=%d", r.K)
				}
				fmt.Fprintln(stdout)
				if len(r.SharesRow) > 0 {
					fmt.Fprintf(stdout, "    shares the row with %s\n", opList(r.SharesRow))
				}
				if r.Twin != "" {
					fmt.Fprintf(stdout, "    twin: %s\n", r.Twin)
				}
				if r.Fast != "" {
					fmt.Fprintf(stdout, "    control:      %s\n", r.Fast)
				}
				if r.Slow != "" {
					fmt.Fprintf(stdout, "    control_slow: %s\n", r.Slow)
				}
				for _, n := range r.Notes {
					fmt.Fprintf(stdout, "    note: %s\n", n)
				}
				if r.Class == "ACTIVE" {
					for L, l := range r.Lanes {
						fmt.Fprintf(stdout, "    lane%d %s\n", L, l)
					}
				}
			}
			if s.Datapath == nil {
				return nil
			}
			blocks := o.blocks
			if len(blocks) == 0 && len(o.ops) == 0 {
				for i := range s.Datapath.Blocks {
					blocks = append(blocks, i)
				}
			}
			for _, b := range blocks {
				blk := s.Datapath.Blocks[b]
				in := blk.Analyze(s.Gen)
				if in.Class == ucode.ClassOff && len(o.blocks) == 0 {
					continue
				}
				fmt.Fprintf(stdout, "block %d @%#x: %s", b, b*ucode.BlockSize, in.Class)
				if in.Form != ucode.FormNone {
					fmt.Fprintf(stdout, " (%s)", in.Form)
				}
				fmt.Fprintf(stdout, " k=%d", in.Depth)
				if !in.LeftPacked {
					fmt.Fprint(stdout, " NOT LEFT-PACKED")
				}
				if s.Opcodes != nil {
					if on := s.Opcodes.OpcodesOnRow(b); len(on) > 0 {
						fmt.Fprintf(stdout, "  [%s]", opList(on))
					}
				}
				fmt.Fprintln(stdout)
				for L, w := range blk {
					fmt.Fprintf(stdout, "    lane%d %s\n", L, laneLine(w, s.Gen))
				}
			}
			return nil
		},
	}
	addSetFlags(c, &o)
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	c.Flags().StringSliceVar(&o.ops, "op", nil, "opcode(s) to resolve: number, 0x-hex or DVE name; repeatable or comma-separated")
	c.Flags().IntSliceVar(&o.blocks, "block", nil, "datapath block(s) to print (default: every non-OFF block)")
	return c
}

// --- diff -------------------------------------------------------------------------------

func dtableDiffCmd(stdout, stderr io.Writer) *cobra.Command {
	o := dtableOpts{stderr: stderr}
	c := &cobra.Command{
		Use:   "diff A B",
		Short: "Diff two table sets word by word, or check opcodes across generations",
		Long: `diff compares two sets (each a folder or a single file; --set picks A's set, --set-b B's).
Same generation: the lane words and blocks that differ, the distinct XOR deltas, the opcodes
affected, the control/slow rows that differ (seed 004 §9). Different generations: the seed 004 §5
cross-generation check of each opcode (--op, default every opcode enabled in both): VALID, MODE
and STAGE must be equal after relocation (exit 1 otherwise); OPA/OPB/MUX differences are listed.`,
		Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			a, err := o.load(args[:1], o.set)
			if err != nil {
				return err
			}
			b, err := o.loadB(args[1])
			if err != nil {
				return err
			}
			if a.Gen != b.Gen {
				return crossGen(stdout, &o, a, b)
			}
			d, err := ucode.DiffSets(a, b)
			if err != nil {
				return ioErr(err)
			}
			if o.json {
				return printJSON(stdout, d)
			}
			fmt.Fprintf(stdout, "%s %s vs %s\n", d.Gen, d.A, d.B)
			fmt.Fprintf(stdout, "lane words differing: %d in %d blocks %v\n", len(d.Words), len(d.Blocks), d.Blocks)
			fmt.Fprintf(stdout, "distinct XOR deltas: %d\n", len(d.Deltas))
			for _, x := range d.Deltas {
				fmt.Fprintf(stdout, "  %#016x x%d  (%s)\n", uint64(x.XOR), x.Count, strings.Join(ucode.FieldsDiffering(x.XOR, 0, d.Gen), " "))
			}
			fmt.Fprintf(stdout, "opcode slots differing: %v\n", []uint8(d.OpcodeSlots))
			fmt.Fprintf(stdout, "opcodes affected: %s\n", opList(d.Opcodes))
			fmt.Fprintf(stdout, "control rows differing: %d %v\nslow rows differing: %d %v\n", len(d.ControlRows), d.ControlRows, len(d.SlowRows), d.SlowRows)
			if len(d.MissingInA) > 0 || len(d.MissingInB) > 0 {
				fmt.Fprintf(stdout, "tables only in B: %v; only in A: %v\n", d.MissingInA, d.MissingInB)
			}
			for _, w := range d.Words {
				fmt.Fprintf(stdout, "  block %d lane %d: %#016x -> %#016x  %s -> %s\n", w.Block, w.Lane, uint64(w.A), uint64(w.B), w.A.Format(d.Gen), w.B.Format(d.Gen))
			}
			return nil
		},
	}
	addSetFlags(c, &o)
	c.Flags().StringVar(&o.setB, "set-b", "", "table-set name for B (default: --set)")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	c.Flags().StringSliceVar(&o.ops, "op", nil, "cross-generation: opcode(s) to check (default: all enabled in both)")
	return c
}

func crossGen(stdout io.Writer, o *dtableOpts, a, b *ucode.TableSet) error {
	ops, err := o.opcodes()
	if err != nil {
		return err
	}
	if len(ops) == 0 {
		if a.Opcodes == nil || b.Opcodes == nil {
			return ioErr(errors.New("a cross-generation check needs both opcode tables (or --op with single files cannot resolve)"))
		}
		for _, op := range a.Opcodes.Enabled() {
			if op != 0 && b.Opcodes.Entries[op].Enabled() {
				ops = append(ops, op)
			}
		}
	}
	var results []ucode.CrossGenResult
	fail := false
	for _, op := range ops {
		r, err := ucode.CrossGenCheck(a, b, op)
		if err != nil {
			return ioErr(err)
		}
		fail = fail || !r.OK
		results = append(results, r)
	}
	if o.json {
		if err := printJSON(stdout, results); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "cross-generation check %s %s vs %s %s (VALID/MODE/STAGE after relocation, seed 004 §5)\n", a.Gen, a.Name, b.Gen, b.Name)
		for _, r := range results {
			verdict := "ok"
			if !r.OK {
				verdict = "FIELDS DIFFER"
			}
			fmt.Fprintf(stdout, "op %d %s: row %d k=%d -> row %d k=%d: %s\n", r.Opcode, r.Name, r.RowA, r.DepthA, r.RowB, r.DepthB, verdict)
			for _, l := range r.Lanes {
				if l.KindA != ucode.LaneActive && l.KindB != ucode.LaneActive {
					continue
				}
				mark := "  "
				if !l.Relocated {
					mark = "!!"
				}
				fmt.Fprintf(stdout, "  %s lane%d %#x -> %#x", mark, l.Lane, uint64(l.A), uint64(l.B))
				if len(l.LowDiffers) > 0 {
					fmt.Fprintf(stdout, "  (%s differ)", strings.Join(l.LowDiffers, ", "))
				}
				fmt.Fprintln(stdout)
			}
		}
	}
	if fail {
		return errSilentRule
	}
	return nil
}

// --- encode -----------------------------------------------------------------------------

func dtableEncodeCmd(stdout io.Writer) *cobra.Command {
	var o dtableOpts
	c := &cobra.Command{
		Use:   "encode IN.json -o DIR",
		Short: "Turn the decoded JSON form (dump --json) back into <set>_*_table.bin files",
		Args:  cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return ioErr(err)
			}
			s, err := ucode.DecodeJSON(data)
			if err != nil {
				return ioErr(fmt.Errorf("%s: %w", args[0], err))
			}
			if o.out == "" {
				return ioErr(errors.New("encode needs -o DIR"))
			}
			if o.out == stdoutPath {
				return ioErr(errors.New("encode writes several files: -o names a folder, not - (standard output)"))
			}
			// The folder is made when missing, with its missing parents; on a failure each
			// folder this command made is removed again (os.Remove: only while empty).
			var made []string
			for d := filepath.Clean(o.out); ; d = filepath.Dir(d) {
				if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
					break
				}
				made = append(made, d)
				if filepath.Dir(d) == d {
					break
				}
			}
			removeMade := func() {
				for _, d := range made {
					os.Remove(d)
				}
			}
			if err := os.MkdirAll(o.out, 0o755); err != nil {
				removeMade()
				return ioErr(fmt.Errorf("-o %s: %w", o.out, err))
			}
			var files []atomicfile.File
			for t, b := range s.Files() {
				files = append(files, atomicfile.File{Path: filepath.Join(o.out, t.FileName(s.Name)), Data: b})
			}
			sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
			if err := atomicfile.WriteFiles(files, atomicfile.DefaultPerm); err != nil {
				removeMade()
				return ioErr(fmt.Errorf("-o %s: %w", o.out, err))
			}
			for _, f := range files {
				fmt.Fprintf(stdout, "wrote %s (%d B)\n", f.Path, len(f.Data))
			}
			return nil
		},
	}
	c.Flags().StringVarP(&o.out, "out", "o", "", "output folder")
	return c
}

// --- report -----------------------------------------------------------------------------

func dtableReportCmd(stdout, stderr io.Writer) *cobra.Command {
	o := dtableOpts{stderr: stderr}
	c := &cobra.Command{
		Use:   "report DIR | FILE... -o OUT.html [--diff DIR2]",
		Short: "Write one self-contained HTML page: block map, lane tables, census (and a diff)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			s, err := o.load(args, o.set)
			if err != nil {
				return err
			}
			var other *ucode.TableSet
			if o.diff != "" {
				if other, err = o.loadB(o.diff); err != nil {
					return err
				}
				if other.Gen != s.Gen {
					return ioErr(fmt.Errorf("--diff: %s is %s, %s is %s; a report diffs sets of one generation", o.diff, other.Gen, args[0], s.Gen))
				}
			}
			if o.out == "" {
				return ioErr(errors.New("report needs -o OUT.html"))
			}
			if err := checkOutputs(outFlag{"-o", o.out}); err != nil {
				return err
			}
			var b strings.Builder
			if err := ucode.WriteReport(&b, s, other); err != nil {
				return ioErr(err)
			}
			outs := []output{{o.out, []byte(b.String())}}
			if err := writeOutputs(outs, stdout); err != nil {
				return ioErr(err)
			}
			if !toStdout(outs) {
				fmt.Fprintf(stdout, "wrote %s (%d B)\n", o.out, b.Len())
			}
			return nil
		},
	}
	addSetFlags(c, &o)
	c.Flags().StringVarP(&o.out, "out", "o", "", "output HTML file (- for standard output)")
	c.Flags().StringVar(&o.diff, "diff", "", "a second set (folder or file) of the same generation to diff against")
	c.Flags().StringVar(&o.setB, "set-b", "", "table-set name for --diff (default: --set)")
	return c
}
