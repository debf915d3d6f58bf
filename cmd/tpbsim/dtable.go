package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/ucode"
)

// The dtable commands are flags -> one ucode call -> printing: what they do, a Go program does
// with the same calls (Load, Info, Census, Dump, Compare, LoadJSON + WriteSetFiles, WriteReport).

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

func (o *dtableOpts) opcodes() ([]uint8, error) {
	ops, err := ucode.ParseOpcodes(o.ops...)
	if err != nil {
		return nil, ioErr(fmt.Errorf("--op: %w", err))
	}
	return ops, nil
}

// printResult prints v as JSON or in its text form, then exits 1 (the report printed) when it
// found a rule broken.
func printResult(w io.Writer, asJSON bool, v interface{ WriteText(io.Writer) error }, ok bool) error {
	var err error
	if asJSON {
		err = printJSON(w, v)
	} else {
		err = text(v.WriteText(w))
	}
	if err == nil && !ok {
		return errSilentRule
	}
	return err
}

// text writes a text form, a failed write being an I/O error.
func text(err error) error {
	if err != nil {
		return ioErr(err)
	}
	return nil
}

// --- info -------------------------------------------------------------------------------

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
			in, err := s.Info()
			if err != nil {
				return ioErr(err)
			}
			if o.json {
				return printJSON(stdout, in)
			}
			return text(in.WriteText(stdout))
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
			return printResult(stdout, o.json, c, c.OK())
		},
	}
	addSetFlags(c, &o)
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	return c
}

// --- dump -------------------------------------------------------------------------------

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
			d, err := s.Dump(ucode.DumpQuery{Ops: ops, Blocks: o.blocks, JSON: o.json})
			if err != nil {
				return ioErr(err) // names the block (block[N]) or the selection rule
			}
			if o.json {
				return printJSON(stdout, d)
			}
			return text(d.WriteText(stdout))
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
and STAGE must be equal after relocation (exit 1 otherwise; a failing lane names the fields that
differ, with both values); OPA/OPB/MUX differences are listed.`,
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
			ops, err := o.opcodes()
			if err != nil {
				return err
			}
			cmp, err := ucode.Compare(a, b, ops)
			if err != nil {
				return ioErr(err)
			}
			return printResult(stdout, o.json, cmp, cmp.OK())
		},
	}
	addSetFlags(c, &o)
	c.Flags().StringVar(&o.setB, "set-b", "", "table-set name for B (default: --set)")
	c.Flags().BoolVar(&o.json, "json", false, "print JSON")
	c.Flags().StringSliceVar(&o.ops, "op", nil, "cross-generation: opcode(s) to check (default: all enabled in both)")
	return c
}

// --- encode -----------------------------------------------------------------------------

func dtableEncodeCmd(stdout io.Writer) *cobra.Command {
	var o dtableOpts
	c := &cobra.Command{
		Use:   "encode IN.json -o DIR",
		Short: "Turn the decoded JSON form (dump --json) back into <set>_*_table.bin files",
		Long: `encode writes one file per table into DIR, making DIR (and its missing parents) when it
does not exist; the files are written whole or not at all, and on a failure the folders it made
are removed again. -o - is refused: there are several files.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if o.out == "" {
				return ioErr(errors.New("encode needs -o DIR"))
			}
			if o.out == stdoutPath {
				return ioErr(errors.New("encode writes several files: -o names a folder, not - (standard output)"))
			}
			s, err := ucode.LoadJSON(args[0])
			if err != nil {
				return ioErr(err)
			}
			files, err := ucode.WriteSetFiles(o.out, s)
			if err != nil {
				return ioErr(fmt.Errorf("-o %s: %w", o.out, err))
			}
			for _, f := range files {
				fmt.Fprintf(stdout, "wrote %s (%d B)\n", f.Path, f.Bytes)
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
			if o.out == "" {
				return ioErr(errors.New("report needs -o OUT.html"))
			}
			if err := checkOutputs(output{Flag: "-o", Path: o.out}); err != nil {
				return err
			}
			s, err := o.load(args, o.set)
			if err != nil {
				return err
			}
			var other *ucode.TableSet
			if o.diff != "" {
				if other, err = o.loadB(o.diff); err != nil {
					return err
				}
			}
			var b strings.Builder
			if err := ucode.WriteReport(&b, s, other); err != nil {
				return ioErr(fmt.Errorf("%s: %w", strings.Join(args, ", "), err))
			}
			if err := writeOutputs([]output{{Flag: "-o", Path: o.out, Data: []byte(b.String())}}, stdout); err != nil {
				return err
			}
			if o.out != stdoutPath {
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
