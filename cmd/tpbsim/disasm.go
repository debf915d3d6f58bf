package main

import (
	"bufio"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
)

func newDisasmCmd(stdout, stderr io.Writer) *cobra.Command {
	var gen string
	var asJSON bool
	c := &cobra.Command{
		Use:   "disasm IN.bin [--json]",
		Short: "Disassemble 64-byte instruction words (one line or JSON object per word)",
		Long: `Print each 64-byte word of IN.bin (or of an .s / .tpb / .json source, assembled first) as
one assembly line (ending in a comment with the word's index and byte offset) or, with --json,
as one JSON object per line whose "word" and "offset" keys give the index and offset and whose
"engine" key names the queue the word runs on (a source's .engine section or "engine" key; for
a .bin, its opcode's engine, which is where 'tpbsim run' puts it). The text prints an '.engine E'
line where the queue changes (none for a .bin), so both forms run like the source with
'tpbsim run'. Opcodes without a modelled struct print as their name
(or number) with the raw payload. --gen (default CAYMAN) sets the partition stride used to print
addresses (on MAVERICK, which has no PSUM, every on-chip address prints as sbuf:). Every JSON
object carries "gen":"G", and the text of a generation other than CAYMAN starts with a '.gen G'
line (CAYMAN is what asm assumes), so both forms assemble back to the same bytes with
'tpbsim asm' without --gen. The text of a .bin on CAYMAN is exactly one line per word.

The file length must be a multiple of 64 (exit 2 names the offset of the incomplete word).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := loadProgramArg(args[0], gen)
			if err != nil {
				return err
			}
			g := f.Gen
			bw := bufio.NewWriter(stdout)
			defer bw.Flush()
			// The text of a generation other than the default starts with its '.gen' line, so
			// it assembles back to the same bytes without --gen. The default's needs none: asm
			// assembles for CAYMAN when the file names no generation, and a .bin then prints
			// exactly one line per word (DESIGN.md §7).
			if !asJSON && g != isa.DefaultGeneration {
				fmt.Fprintf(bw, ".gen %v\n", g)
			}
			// A source's register settings (.bound_reg / .addr_reg, "bound_regs" / "addr_regs")
			// print first, so both outputs run like the source.
			if f.Src != nil {
				if j := regsJSON(f.Src.BoundRegs, f.Src.AddrRegs, g); asJSON && j != "" {
					fmt.Fprintln(bw, j)
				} else if !asJSON {
					for _, l := range append(asm.BoundRegLines(f.Src.BoundRegs), asm.AddrRegLines(f.Src.AddrRegs, g)...) {
						fmt.Fprintln(bw, l)
					}
				}
			}
			section := isa.EngineNone // the queue of the last .engine line printed
			for k := 0; k < f.Len(); k++ {
				w, eng := f.Word(k), f.Engine(k)
				off := k * isa.InstNBytes
				if asJSON {
					kv := []asm.KV{{Key: "word", Value: k}, {Key: "offset", Value: fmt.Sprintf("0x%x", off)}}
					if eng != isa.EngineNone {
						kv = append(kv, asm.KV{Key: "engine", Value: eng.String()})
					}
					bw.Write(asm.ToJSON(w, g, kv...))
					bw.WriteByte('\n')
					continue
				}
				// An .engine line where the queue changes, except while no section is open and
				// the word is on its opcode's own queue (where it goes without one): the text
				// assembles back to the same queues, and a .bin prints none.
				if eng != section && (section != isa.EngineNone || eng != isa.Opcode(w[0]).Engine()) {
					fmt.Fprintf(bw, ".engine %v\n", eng)
					section = eng
				}
				note := ""
				if inst, _ := isa.Decode(w[:]); !isa.Supported(inst) {
					note = " (unsupported: raw word)"
				}
				fmt.Fprintf(bw, "%s  # word %d @0x%x%s\n", asm.Format(w, g), k, off, note)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per word")
	c.Flags().StringVar(&gen, "gen", "", "generation for printing addresses (default CAYMAN)")
	return c
}
