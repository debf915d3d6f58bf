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
		Long: `Print each 64-byte word of IN.bin as one assembly line (ending in a comment with the
word's index and byte offset) or, with --json, as one JSON object per line whose "word" and
"offset" keys give the index and offset. Opcodes without a modelled struct print as their name
(or number) with the raw payload. --gen (default CAYMAN) sets the partition stride used to print
addresses (on MAVERICK, which has no PSUM, every on-chip address prints as sbuf:). The text
starts with a '.gen G' line and every JSON object carries "gen":"G", so both forms assemble
back to the same bytes with 'tpbsim asm' without --gen.

The file length must be a multiple of 64 (exit 2 names the offset of the incomplete word).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := parseGenFlag(gen)
			if err != nil {
				return ioErr(err)
			}
			words, g, err := readWords(args[0], g, gen != "")
			if err != nil {
				return err
			}
			bw := bufio.NewWriter(stdout)
			defer bw.Flush()
			if !asJSON {
				fmt.Fprintf(bw, ".gen %v\n", g)
			}
			for k, w := range words {
				off := k * isa.InstNBytes
				if asJSON {
					bw.Write(asm.ToJSON(w, g, asm.KV{Key: "word", Value: k}, asm.KV{Key: "offset", Value: fmt.Sprintf("0x%x", off)}))
					bw.WriteByte('\n')
					continue
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
