package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/sim"
)

// One loader for every command that takes a program (asm, disasm, check, run), so they accept
// the same files the same way:
//
//   - .bin: 64-byte instruction words (no engine queues: run puts each word on its opcode's engine);
//   - .json: the JSON form (one object, an array, or one object per line);
//   - .s, .asm, .tpb: assembly text (.tpb is what testdata/sim and `demo --export` use), or the
//     JSON form when it starts with '{' or '[';
//   - any other name, and "-" (standard input): words when the content is not text (a NUL byte,
//     or not UTF-8), else JSON when it starts with '{' or '[', else as a .s file.
//
// A file named as text that holds a NUL byte is refused as binary content (exit 2), not parsed
// into a confusing "unknown opcode" message.

// programFile is a program file as read by loadProgramFile.
type programFile struct {
	path  string
	form  programForm
	gen   isa.Generation // the file's generation, or the --gen / default one
	words []byte         // a word file's bytes (nil for a source)
	src   *asm.Program   // a source file's program (nil for a word file)
}

// binary reports whether the file is a bare list of 64-byte words.
func (f *programFile) binary() bool { return f.src == nil }

// Len is the number of instruction words.
func (f *programFile) Len() int {
	if f.src != nil {
		return len(f.src.Items)
	}
	return len(f.words) / isa.InstNBytes
}

// Word is word k.
func (f *programFile) Word(k int) [isa.InstNBytes]byte {
	if f.src != nil {
		return f.src.Items[k].Word
	}
	var w [isa.InstNBytes]byte
	copy(w[:], f.words[k*isa.InstNBytes:])
	return w
}

// Engine is the queue of word k: its section's in a source, its opcode's in a word file (the
// queue run gives it).
// where is " FILE:LINE" of word k of a source (its line in the text or JSON file), "" for a
// word file.
func (f *programFile) where(k int) string {
	if f.src == nil || k < 0 || k >= len(f.src.Items) {
		return ""
	}
	it := f.src.Items[k]
	return fmt.Sprintf(" %s:%d", it.File, it.Line)
}

func (f *programFile) Engine(k int) isa.Engine {
	if f.src != nil {
		return f.src.Items[k].Engine
	}
	return isa.Opcode(f.words[k*isa.InstNBytes]).Engine()
}

type programForm int

const (
	formWords programForm = iota
	formText
	formJSON
)

// programFormOf decides how a file is read: by its extension, else by its content.
func programFormOf(path string, data []byte) (programForm, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".bin":
		return formWords, nil
	case ".s", ".asm", ".tpb", ".json":
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return 0, fmt.Errorf("%s looks binary (a NUL byte at offset 0x%x), not %s text: a file of 64-byte instruction words must be named .bin", path, i, ext)
		}
		if ext == ".json" {
			return formJSON, nil
		}
	default:
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return formWords, nil
		}
	}
	if trim := bytes.TrimLeft(data, " \t\r\n"); len(trim) > 0 && (trim[0] == '{' || trim[0] == '[') {
		return formJSON, nil
	}
	return formText, nil
}

// stdinPath is the PROGRAM argument that means standard input; stdinName names it in messages
// (FILE:LINE of a source, the summary line). stdin is the reader, a variable for the tests.
const (
	stdinPath = "-"
	stdinName = "<stdin>"
)

var stdin io.Reader = os.Stdin

// loadProgramArg is loadProgramFile for a command's PROGRAM argument and its --gen flag value
// (empty: not given, CAYMAN unless the file names its generation).
func loadProgramArg(path, gen string) (*programFile, error) {
	g, err := parseGenFlag(gen)
	if err != nil {
		return nil, ioErr(err)
	}
	return loadProgramFile(path, g, gen != "")
}

// loadProgramFile reads a program file of any form. g is the generation for a file that names
// none; genSet says it came from an explicit --gen, which a file's own generation (a `.gen`
// line, JSON "gen" keys) must then agree with. Every error is a usage or I/O error (exit 2),
// naming file:line and field for a source.
func loadProgramFile(path string, g isa.Generation, genSet bool) (*programFile, error) {
	var data []byte
	var err error
	if path == stdinPath {
		// "-" is standard input (`tpbsim demo --print-program | tpbsim run -`); its form is
		// told by its content, as for a file name without a known extension.
		path = stdinName
		if data, err = io.ReadAll(stdin); err != nil {
			return nil, ioErr(fmt.Errorf("reading standard input: %w", err))
		}
	} else if data, err = os.ReadFile(path); err != nil {
		return nil, ioErr(err)
	}
	data = stripBOM(path, data)
	form, err := programFormOf(path, data)
	if err != nil {
		return nil, ioErr(err)
	}
	f := &programFile{path: path, form: form, gen: g}
	if form == formWords {
		if err := isa.CheckStreamLength(len(data)); err != nil {
			if bytes.IndexByte(data, 0) < 0 && utf8.Valid(data) {
				err = fmt.Errorf("%w (the file looks like text: name an assembly file .s or .tpb, a JSON one .json)", err)
			}
			return nil, ioErr(fmt.Errorf("%s: %w", path, err))
		}
		f.words = data
		return f, nil
	}
	what := ".gen"
	if form == formJSON {
		f.src, err = asm.ParseJSON(path, data, g)
		what = `"gen"`
	} else {
		f.src, err = asm.Parse(path, data, g)
	}
	if err != nil {
		if !utf8.Valid(data) {
			err = fmt.Errorf("%w (the file is not UTF-8 text: if it holds 64-byte instruction words, name it .bin)", err)
		}
		return nil, ioErr(err)
	}
	if genSet && f.src.GenLine > 0 && f.src.Gen != g {
		return nil, ioErr(&asm.Error{File: path, Line: f.src.GenLine, Field: "gen",
			Msg: fmt.Sprintf("the file says %s %v but --gen is %v (drop --gen: the file's generation is used)", what, f.src.Gen, g)})
	}
	f.gen = f.src.Gen
	return f, nil
}

// simProgram turns the file into machine queues: a word file's words each on its opcode's
// engine queue (sim.FromList), a source's queues as written, each instruction keeping its line.
// An instruction no queue executes is a rule error for a word file (as the word is valid
// input) and a usage error for a source (it needs an .engine line).
func (f *programFile) simProgram() (*sim.Program, error) {
	if f.binary() {
		insts, err := isa.DecodeStream(f.words)
		if err != nil {
			return nil, ioErr(fmt.Errorf("%s: %w", f.path, err))
		}
		p, err := sim.FromList(f.path, insts, nil)
		if err != nil {
			return nil, ruleErr(err)
		}
		return p, nil
	}
	if err := f.src.CheckEngines(); err != nil {
		return nil, ioErr(err)
	}
	return sim.FromAsm(f.path, f.src), nil
}

// checkProgram is the program `check` reports on: every word on the queue run gives it (its
// section's in a source, EngineNone for a word in none; its opcode's engine in a word file, as
// sim.FromList does), each with its byte offset in the words (check names word k at offset
// k*64, a source's too) and a source's line.
func (f *programFile) checkProgram() (*sim.Program, error) {
	if f.binary() {
		insts, err := isa.DecodeStream(f.words)
		if err != nil {
			return nil, ioErr(fmt.Errorf("%s: %w", f.path, err))
		}
		return sim.FromList(f.path, insts, nil)
	}
	p := &sim.Program{File: f.path, BoundRegs: f.src.BoundRegs}
	slot := map[isa.Engine]int{}
	for k, it := range f.src.Items {
		qi, ok := slot[it.Engine]
		if !ok {
			qi = len(p.Queues)
			slot[it.Engine] = qi
			p.Queues = append(p.Queues, sim.Queue{Engine: it.Engine})
		}
		in, _ := isa.Decode(it.Word[:]) // a word of 64 bytes always decodes (an unknown struct as isa.Raw)
		q := &p.Queues[qi]
		q.Insts = append(q.Insts, sim.Instr{Inst: in, Index: len(q.Insts), Offset: int64(k) * isa.InstNBytes, Line: it.Line})
	}
	return p, nil
}

// utf8BOM is the UTF-8 byte-order mark some editors (Windows Notepad, Excel exports) put at the
// start of a text file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// stripBOM drops a leading UTF-8 byte-order mark from a text or JSON program (it is not part of
// the text: "\ufeffCOPY" is no opcode, and JSON does not allow it), never from a .bin's words.
func stripBOM(path string, data []byte) []byte {
	if !bytes.HasPrefix(data, utf8BOM) || strings.ToLower(filepath.Ext(path)) == ".bin" {
		return data
	}
	if rest := data[len(utf8BOM):]; bytes.IndexByte(rest, 0) < 0 && utf8.Valid(rest) {
		return rest
	}
	return data
}
