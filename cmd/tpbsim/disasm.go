package main

import (
	"io"

	"github.com/spf13/cobra"
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
			if err := f.WriteDisasm(stdout, asJSON); err != nil {
				return ioErr(err)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per word")
	c.Flags().StringVar(&gen, "gen", "", "generation for printing addresses (default CAYMAN)")
	return c
}
