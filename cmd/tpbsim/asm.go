package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func newAsmCmd(stdout, stderr io.Writer) *cobra.Command {
	var out, gen string
	c := &cobra.Command{
		Use:   "asm IN.s|IN.tpb|IN.json -o OUT.bin",
		Short: "Assemble text or JSON instructions into 64-byte words",
		Long: `Assemble a text assembly file (.s, .asm or .tpb) or the JSON form (.json, as printed by
'tpbsim disasm --json') into a file of 64-byte little-endian instruction words. Every command
reads the same program forms the same way (a .bin input is copied).

A bare .bin has no engine queues: 'tpbsim run' puts each of its words on the queue of its
opcode's engine. A source that puts an instruction on another queue (an '.engine' section, a
JSON "engine" key: e.g. a CAST on ACT) would run differently from the .bin: asm writes the
words and warns on standard error, naming the first such line (exit 0). To run the program as
written, run the source itself, or keep the queues in the JSON form ('tpbsim disasm --json IN >
OUT.json', which 'tpbsim run' takes). Several queues whose every instruction is on its opcode's
own engine lose nothing: no warning.

Text syntax: one instruction per line, the opcode then key=value fields, e.g.
  STREAM_TRANSPOSE in=BFLOAT16 out=BFLOAT16 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x1000[32@1]
'#' starts a comment, a trailing '\' continues a line, '.gen G' sets the generation,
'.engine E' starts an engine queue ('.engine none' closes it: what follows goes to its
opcode's engine), '.word HEX' gives a raw word. A file holds one generation: a
second '.gen' naming another is an error. A TENSOR4D is
ADDR[num@step,...] with dim 0 first. Addresses: sbuf:P:OFF, psum:P:OFF, hbm:ADDR, reg:N or a
number. Invalid values can be written on purpose (numbers for enums); 'tpbsim check' tells.

Generation: the partition stride of the address syntax (and whether psum: exists: MAVERICK
has no PSUM) is the file's own generation when it names one, a '.gen G' line in text or a
"gen":"G" key in JSON ('tpbsim disasm' writes both, so its output assembles back to the same
bytes without --gen). All "gen" keys of a JSON file must agree. --gen is used for a file that
names no generation (default CAYMAN); an explicit --gen that contradicts the file's generation
is an error (exit 2). The output is written whole or not at all; -o - writes the words to standard
output (and the summary line to stderr).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return ioErr(fmt.Errorf("asm: -o OUT.bin is required"))
			}
			if err := checkOutputs(output{Flag: "-o", Path: out}); err != nil {
				return err
			}
			if err := notTheInput(args[0], output{Flag: "-o", Path: out}); err != nil {
				return err
			}
			f, err := loadProgramArg(args[0], gen)
			if err != nil {
				return err
			}
			arg := f.Path
			if arg == stdinName {
				arg = stdinPath + " (the same input)"
			}
			warning := f.BinQueueWarning(arg)
			words := f.Bytes()
			outs := []output{{Flag: "-o", Path: out, Data: words}}
			if err := writeOutputs(outs, stdout); err != nil {
				return err
			}
			info, dest := stdout, out
			if out == stdoutPath {
				info, dest = stderr, "standard output"
			}
			fmt.Fprintf(info, "%s: %d instructions (%d bytes) written to %s\n", f.Path, f.Len(), len(words), dest)
			if warning != nil {
				fmt.Fprintf(stderr, "tpbsim asm: warning: %s\n", warning)
			}
			return nil
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "", "output file of 64-byte words (required; - for standard output)")
	c.Flags().StringVar(&gen, "gen", "", "generation for the address syntax: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK (default CAYMAN)")
	return c
}
