package asm

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Form is how a program file is read (Load, FormOf). The zero value, FormNone, is no form: what
// FormOf returns beside an error, never a File's.
type Form int

const (
	// FormNone is no form (not decided).
	FormNone Form = iota
	// FormWords is a bare list of 64-byte instruction words (a .bin): no engine queues.
	FormWords
	// FormText is assembly text (.s, .asm, .tpb).
	FormText
	// FormJSON is the JSON instruction form (.json: one object, an array, or one per line).
	FormJSON
)

var formNames = [...]string{"none", "words", "text", "JSON"}

// String names the form ("none", "words", "text", "JSON"), or Form(n).
func (f Form) String() string {
	if f >= 0 && int(f) < len(formNames) {
		return formNames[f]
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// File is a program file as Load reads it, in any of the three forms: the words of a .bin
// (Words), or the parsed program of a source (Src). tpbsim's asm, disasm, check and run all read
// their PROGRAM through Load, so they accept the same files the same way.
type File struct {
	Path  string
	Form  Form
	Gen   isa.Generation // the file's own generation, else the one Load was given
	Words []byte         // FormWords: the file's bytes, a whole number of words (nil for a source)
	Src   *Program       // FormText, FormJSON: the parsed source (nil for words)
}

// Binary reports whether the file is a bare list of 64-byte words.
func (f *File) Binary() bool { return f.Src == nil }

// Len is the number of instruction words.
func (f *File) Len() int {
	if f.Src != nil {
		return len(f.Src.Items)
	}
	return len(f.Words) / isa.InstNBytes
}

// Word is word k (0 <= k < Len).
func (f *File) Word(k int) [isa.InstNBytes]byte {
	if f.Src != nil {
		return f.Src.Items[k].Word
	}
	var w [isa.InstNBytes]byte
	copy(w[:], f.Words[k*isa.InstNBytes:])
	return w
}

// Engine is the queue of word k: its section's in a source, its opcode's in a word file (the
// queue a run gives a bare word).
func (f *File) Engine(k int) isa.Engine {
	if f.Src != nil {
		return f.Src.Items[k].Engine
	}
	return isa.Opcode(f.Words[k*isa.InstNBytes]).Engine()
}

// Where is " FILE:LINE" of word k of a source (its line in the text or JSON file), "" for a
// word file or a k out of range.
func (f *File) Where(k int) string {
	if f.Src == nil || k < 0 || k >= len(f.Src.Items) {
		return ""
	}
	it := f.Src.Items[k]
	return fmt.Sprintf(" %s:%d", it.File, it.Line)
}

// LoadError is a program file Load cannot read as the form its name or content says: text
// named .s that holds a NUL byte, a word file whose length is no whole number of words. Msg is
// the whole message, naming the file; Err the cause (isa's *LengthError), nil for none. Its
// category is the cause's (fault.ErrTruncated for a length), else fault.ErrInvalid, under rule
// RuleForm.
type LoadError struct {
	File string
	Msg  string
	Err  error
}

func (e *LoadError) Error() string { return e.Msg }

// Unwrap gives the cause, or fault.ErrInvalid when there is none.
func (e *LoadError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return fault.ErrInvalid
}

// ErrPath is the file; the cause's path (isa's "word[N]") follows it in fault.Path.
func (e *LoadError) ErrPath() string { return e.File }

// RuleID is the cause's rule when it names one, else RuleForm.
func (e *LoadError) RuleID() string {
	if r := fault.Rule(e.Err); r != "" {
		return r
	}
	return RuleForm
}

// FormOf decides how a file is read: by its extension (.bin words; .s, .asm, .tpb text; .json
// JSON), else by its content: words when it is not text (a NUL byte, or not UTF-8), else JSON
// when it starts with '{' or '[', else text. A text source (.s, .asm, .tpb) that starts with
// '{' or '[' is JSON too. A file named as text that holds a NUL byte is refused as binary
// content, not parsed into a confusing "unknown opcode".
func FormOf(path string, data []byte) (Form, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".bin":
		return FormWords, nil
	case ".s", ".asm", ".tpb", ".json":
		if i := bytes.IndexByte(data, 0); i >= 0 {
			if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
				return FormNone, &LoadError{File: path, Msg: fmt.Sprintf("%s is UTF-16 text (its byte-order mark); tpbsim reads %s text as UTF-8: save it as UTF-8", path, ext)}
			}
			return FormNone, &LoadError{File: path, Msg: fmt.Sprintf("%s looks binary (a NUL byte at offset 0x%x), not %s text: a file of 64-byte instruction words must be named .bin", path, i, ext)}
		}
		if ext == ".json" {
			return FormJSON, nil
		}
	default:
		if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
			return FormWords, nil
		}
	}
	if trim := bytes.TrimLeft(data, " \t\r\n"); len(trim) > 0 && (trim[0] == '{' || trim[0] == '[') {
		return FormJSON, nil
	}
	return FormText, nil
}

// utf8BOM is the UTF-8 byte-order mark some editors (Windows Notepad, Excel exports) put at the
// start of a text file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// StripBOM drops a leading UTF-8 byte-order mark from a text or JSON file (it is not part of
// the text: "\ufeffCOPY" is no opcode, and JSON does not allow it), never from a .bin's words
// nor from content that is not text after it.
func StripBOM(path string, data []byte) []byte {
	if !bytes.HasPrefix(data, utf8BOM) || strings.ToLower(filepath.Ext(path)) == ".bin" {
		return data
	}
	if rest := data[len(utf8BOM):]; bytes.IndexByte(rest, 0) < 0 && utf8.Valid(rest) {
		return rest
	}
	return data
}

// Load reads the program file path whose bytes are data, in whichever form FormOf says, after
// StripBOM. g is the generation of a file that names none (a `.gen` line, JSON "gen" keys); a
// file that names its own is read in that one, unless pinned (the caller's generation was
// asked for explicitly, as `--gen`): then a file naming another is an *Error at that line.
// Errors: *LoadError for the file as a whole, *Error (file:line, field) for a source.
func Load(path string, data []byte, g isa.Generation, pinned bool) (*File, error) {
	data = StripBOM(path, data)
	form, err := FormOf(path, data)
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, Form: form, Gen: g}
	if form == FormWords {
		if err := isa.CheckStreamLength(len(data)); err != nil {
			msg := fmt.Sprintf("%s: %v", path, err)
			if bytes.IndexByte(data, 0) < 0 && utf8.Valid(data) {
				msg += " (the file looks like text: name an assembly file .s or .tpb, a JSON one .json)"
			}
			return nil, &LoadError{File: path, Msg: msg, Err: err}
		}
		f.Words = data
		return f, nil
	}
	what := ".gen"
	if form == FormJSON {
		f.Src, err = ParseJSON(path, data, g)
		what = `"gen"`
	} else {
		f.Src, err = Parse(path, data, g)
	}
	if err != nil {
		if !utf8.Valid(data) {
			err = fmt.Errorf("%w (the file is not UTF-8 text: if it holds 64-byte instruction words, name it .bin)", err)
		}
		return nil, err
	}
	if pinned && f.Src.GenLine > 0 && f.Src.Gen != g {
		return nil, &Error{File: path, Line: f.Src.GenLine, Field: "gen",
			Msg: fmt.Sprintf("the file says %s %v but --gen is %v (drop --gen: the file's generation is used)", what, f.Src.Gen, g)}
	}
	f.Gen = f.Src.Gen
	return f, nil
}
