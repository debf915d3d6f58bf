package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
)

func newAsmCmd(stdout, stderr io.Writer) *cobra.Command {
	var out, gen string
	c := &cobra.Command{
		Use:   "asm IN.s|IN.json -o OUT.bin",
		Short: "Assemble text or JSON instructions into 64-byte words",
		Long: `Assemble a text assembly file (.s) or the JSON form (.json, as printed by
'tpbsim disasm --json') into a file of 64-byte little-endian instruction words.

Text syntax: one instruction per line, the opcode then key=value fields, e.g.
  STREAM_TRANSPOSE in=BFLOAT16 out=BFLOAT16 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x1000[32@1]
'#' starts a comment, a trailing '\' continues a line, '.gen G' sets the generation,
'.engine E' starts an engine queue, '.word HEX' gives a raw word. A TENSOR4D is
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
			if err := checkOutputs(outFlag{"-o", out}); err != nil {
				return err
			}
			g, err := parseGenFlag(gen)
			if err != nil {
				return ioErr(err)
			}
			p, err := readSourceProgram(args[0], g, gen != "")
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			for _, it := range p.Items {
				buf.Write(it.Word[:])
			}
			outs := []output{{out, buf.Bytes()}}
			if err := writeOutputs(outs, stdout); err != nil {
				return ioErr(err)
			}
			info, dest := stdout, out
			if toStdout(outs) {
				info, dest = stderr, "standard output"
			}
			fmt.Fprintf(info, "%s: %d instructions (%d bytes) written to %s\n", args[0], len(p.Items), buf.Len(), dest)
			return nil
		},
	}
	c.Flags().StringVarP(&out, "out", "o", "", "output file of 64-byte words (required; - for standard output)")
	c.Flags().StringVar(&gen, "gen", "", "generation for the address syntax: SUNDA, CAYMAN, MARIANA, MARIANA_PLUS, MAVERICK (default CAYMAN)")
	return c
}

// readSourceProgram reads an assembly (.s) or JSON (.json, or text starting with '{' or '[')
// file. Errors are I/O or syntax errors (exit 2) naming file:line and field. The file's own
// generation (a `.gen` line, or the "gen" key disasm --json writes in every object) decides the
// address syntax; g is used when the file names none. genSet says g came from an explicit
// --gen, which the file's generation must then agree with (as 'tpbsim run' does).
func readSourceProgram(path string, g isa.Generation, genSet bool) (*asm.Program, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ioErr(err)
	}
	trim := bytes.TrimLeft(data, " \t\r\n")
	var p *asm.Program
	what := ".gen"
	if strings.EqualFold(filepath.Ext(path), ".json") || len(trim) > 0 && (trim[0] == '{' || trim[0] == '[') {
		p, err = asm.ParseJSON(path, data, g)
		what = `"gen"`
	} else {
		p, err = asm.Parse(path, data, g)
	}
	if err != nil {
		return nil, ioErr(err)
	}
	if genSet && p.GenLine > 0 && p.Gen != g {
		return nil, ioErr(&asm.Error{File: path, Line: p.GenLine, Field: "gen",
			Msg: fmt.Sprintf("the file says %s %v but --gen is %v (drop --gen: the file's generation is used)", what, p.Gen, g)})
	}
	return p, nil
}

// readWords reads a file for disasm/check: a .bin of 64-byte words, or a source file (.s/.json)
// assembled first. It returns the words and the generation the source asked for (or g).
func readWords(path string, g isa.Generation, genSet bool) ([][isa.InstNBytes]byte, isa.Generation, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".s" || ext == ".asm" || ext == ".json" {
		p, err := readSourceProgram(path, g, genSet)
		if err != nil {
			return nil, g, err
		}
		return p.Words(), p.Gen, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, g, ioErr(err)
	}
	if err := isa.CheckStreamLength(len(data)); err != nil {
		return nil, g, ioErr(fmt.Errorf("%s: %w", path, err))
	}
	out := make([][isa.InstNBytes]byte, len(data)/isa.InstNBytes)
	for k := range out {
		copy(out[k][:], data[k*isa.InstNBytes:])
	}
	return out, g, nil
}
