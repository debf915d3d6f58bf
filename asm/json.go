package asm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tpbsim/tpbsim/internal/jsonkeys"
	"github.com/tpbsim/tpbsim/isa"
)

// The JSON form (DESIGN.md §7): one object per instruction whose keys are the header's field
// names, nested like the header's sub-structs (events{...}, src_mem_pattern{start_addr,
// step_elem, num_elem}, dma_configs{priority_class, reserved}, ...). Enum fields print as names
// (numbers when the code has no name) and read names or numbers; addresses print and read in
// the address syntax; raw bytes are hex strings. Every field is printed; fields left out when
// reading take their defaults. Keys "word", "offset", "line" and "comment" are ignored on input;
// "engine" names the queue; "gen" names the generation of the address syntax (ParseJSON).

type jnode struct {
	keys []string
	kids map[string]*jnode
	leaf json.RawMessage
}

func (n *jnode) child(k string) *jnode {
	if n.kids == nil {
		n.kids = map[string]*jnode{}
	}
	c, ok := n.kids[k]
	if !ok {
		c = &jnode{}
		n.kids[k] = c
		n.keys = append(n.keys, k)
	}
	return c
}

func (n *jnode) write(b *bytes.Buffer) {
	if n.kids == nil {
		b.Write(n.leaf)
		return
	}
	b.WriteByte('{')
	for k, key := range n.keys {
		if k > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(key)
		b.Write(kb)
		b.WriteByte(':')
		n.kids[key].write(b)
	}
	b.WriteByte('}')
}

func jsonScalar(f isa.Field, v uint64, g isa.Generation) json.RawMessage {
	var x any
	switch {
	case f.Kind.IsEnum():
		if n := enumName(f.Kind, v); n != "" {
			x = n
		} else {
			x = v
		}
	case f.Kind == isa.KAddr4 || f.Kind == isa.KAddr8:
		x = formatScalar(f, v, g)
	case f.Kind == isa.KInt:
		x = int64(v)
	default:
		x = v
	}
	b, _ := json.Marshal(x)
	return b
}

// KV is an extra leading key of a JSON object (e.g. the word index).
type KV struct {
	Key   string
	Value any
}

// ToJSON renders one word as its JSON object (single line), with extra keys first, then "gen"
// (the generation g whose partition stride the addresses are written in; ParseJSON reads it
// back, so the object assembles to the same bytes without being told g).
func ToJSON(w [isa.InstNBytes]byte, g isa.Generation, extra ...KV) []byte {
	root := &jnode{}
	for _, e := range extra {
		b, _ := json.Marshal(e.Value)
		root.child(e.Key).leaf = b
	}
	gb, _ := json.Marshal(g.String())
	root.child("gen").leaf = gb
	l := isa.LayoutOf(isa.Opcode(w[0]))
	for _, f := range l.Fields {
		n := root
		parts := strings.Split(f.Path, ".")
		for _, p := range parts {
			n = n.child(p)
		}
		switch {
		case f.Kind == isa.KBlob:
			b, _ := json.Marshal(fmt.Sprintf("%x", w[f.Offset:f.Offset+f.Count]))
			n.leaf = b
		case f.Count > 1:
			var b bytes.Buffer
			b.WriteByte('[')
			for k := 0; k < f.Count; k++ {
				if k > 0 {
					b.WriteByte(',')
				}
				b.Write(jsonScalar(f, f.Get(&w, k), g))
			}
			b.WriteByte(']')
			n.leaf = b.Bytes()
		default:
			n.leaf = jsonScalar(f, f.Get(&w, 0), g)
		}
	}
	var b bytes.Buffer
	root.write(&b)
	return b.Bytes()
}

var ignoredKeys = map[string]bool{"word": true, "offset": true, "line": true, "comment": true, "engine": true}

// ParseJSON reads instructions in the JSON form: one object, an array of objects, or a stream
// of objects (one per line, as `tpbsim disasm --json` prints). Errors name file:line and field,
// and the object's index (*InstructionError) when other objects share its line.
//
// An object's "gen" key (ToJSON writes it in every object) names the generation of its address
// syntax; it is the file's generation, like a text `.gen` line, and wins over g, which applies
// only to a file that names none (and must be one of the five generations). All "gen" keys of a
// file must agree; objects without one take the file's generation.
func ParseJSON(name string, data []byte, g isa.Generation) (*Program, error) {
	if err := checkGen(name, g); err != nil {
		return nil, err
	}
	prog := &Program{Gen: g, Queues: map[isa.Engine][]Item{}}
	lineAt := func(off int64) int {
		if off > int64(len(data)) {
			off = int64(len(data))
		}
		return bytes.Count(data[:off], []byte{'\n'}) + 1
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// skip leading blanks and see whether this is an array
	trim := bytes.TrimLeft(data, " \t\r\n")
	array := len(trim) > 0 && trim[0] == '['
	if array {
		if _, err := dec.Token(); err != nil {
			return nil, &Error{File: name, Line: 1, Msg: err.Error(), Err: err}
		}
	}
	// Pass 1 decodes every object (the file's generation may be named by any of them); a
	// syntax error is reported after the errors of the objects before it.
	type object struct {
		obj    map[string]any
		line   int
		shared bool // another object starts on its line: errors name the index too
	}
	var objs []object
	var syntaxErr error
	prevLine := 0 // line of the previous object's start
	for index := 0; ; index++ {
		if array && !dec.More() {
			// the closing ']', then nothing but blanks: a second array or trailing text
			// would otherwise be dropped without a word
			if _, err := dec.Token(); err == io.EOF {
				syntaxErr = &Error{File: name, Line: lineAt(dec.InputOffset()), Msg: "bad JSON: the instruction array has no closing ']'"}
			} else if err != nil {
				syntaxErr = &Error{File: name, Line: lineAt(dec.InputOffset()), Msg: "bad JSON: " + err.Error()}
			} else if rest := data[dec.InputOffset():]; len(bytes.TrimLeft(rest, " \t\r\n")) > 0 {
				off := dec.InputOffset() + int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")))
				syntaxErr = &Error{File: name, Line: lineAt(off),
					Msg: fmt.Sprintf("bad JSON: content after the instruction array's closing ']' (byte offset %d); one file holds one array, one object, or a stream of objects", off)}
			}
			break
		}
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		var obj map[string]any
		if err == nil {
			obj, err = instObject(raw)
		}
		// the object starts after any blanks/commas following start
		rest := data[start:]
		skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n,"))
		line := lineAt(start + int64(skip))
		// the object's index is named when its line alone does not find it: another object
		// starts on the same line before it or (when it parsed) after it.
		shared := line == prevLine
		if !shared && err == nil {
			tail := data[dec.InputOffset():]
			if nl := bytes.IndexByte(tail, '\n'); nl >= 0 {
				tail = tail[:nl]
			}
			shared = bytes.IndexByte(tail, '{') >= 0
		}
		if err != nil {
			e, ok := err.(*Error) // instObject's, else the decoder's
			if !ok {
				e = &Error{Msg: "bad JSON: " + err.Error()}
				// A syntax error is located at its byte, not where the object began. The stream
				// decoder's offsets are off by the separators it consumed, so the object is
				// scanned again on its own.
				var se *json.SyntaxError
				obj := start + int64(skip)
				var again json.RawMessage
				if errors.As(json.NewDecoder(bytes.NewReader(data[obj:])).Decode(&again), &se) && se.Offset > 0 {
					at := obj + se.Offset - 1
					line = lineAt(at)
					e.Msg += fmt.Sprintf(" (byte offset %d)", at)
				}
			}
			e.File, e.Line = name, line
			syntaxErr = wrapIndex(index, shared, e)
			break
		}
		objs = append(objs, object{obj, line, shared})
		prevLine = line
	}
	// The file's generation: the first "gen" key; every other one must agree.
	for index, o := range objs {
		v, ok := o.obj["gen"]
		if !ok {
			continue
		}
		s, isStr := v.(string)
		gg, err := isa.ParseGeneration(s)
		if !isStr || err != nil {
			msg := fmt.Sprintf("want a generation name, got %s", jsonString(v))
			if isStr {
				msg = err.Error()
			}
			return nil, wrapIndex(index, o.shared, &Error{File: name, Line: o.line, Field: "gen", Msg: msg})
		}
		if prog.GenLine == 0 {
			prog.Gen, prog.GenLine = gg, o.line
			continue
		}
		if gg != prog.Gen {
			return nil, wrapIndex(index, o.shared, &Error{File: name, Line: o.line, Field: "gen",
				Msg: fmt.Sprintf("%v contradicts %v (line %d): a file holds one generation", gg, prog.Gen, prog.GenLine)})
		}
	}
	for index, o := range objs {
		if isRegObject(o.obj) {
			if err := prog.jsonRegs(o.obj, o.line); err != nil {
				e := err.(*Error)
				e.File, e.Line = name, o.line
				return nil, wrapIndex(index, o.shared, e)
			}
			continue
		}
		w, eng, werr := jsonWord(o.obj, prog.Gen)
		if werr != nil {
			e := werr.(*Error)
			e.File, e.Line = name, o.line
			return nil, wrapIndex(index, o.shared, e)
		}
		if aerr := prog.add(w, eng, name, o.line, "", false); aerr != nil {
			if e, ok := aerr.(*Error); ok {
				return nil, wrapIndex(index, o.shared, e)
			}
			return nil, aerr
		}
	}
	if syntaxErr != nil {
		return nil, syntaxErr
	}
	return prog, nil
}

// instObject decodes one instruction: a JSON object, in which no key appears twice at any
// level (jsonkeys.Check: encoding/json would keep the last silently; the text form refuses a
// field set twice too).
func instObject(raw json.RawMessage) (map[string]any, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		got := string(t)
		if len(got) > 20 {
			got = got[:20] + "..."
		}
		return nil, &Error{Msg: fmt.Sprintf("want an instruction object {...}, got %s", got)}
	}
	if e, ok := jsonkeys.Check(t, nil).(*jsonkeys.Error); ok {
		return nil, &Error{Field: e.Path, Msg: e.Msg}
	}
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(t))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		return nil, &Error{Msg: "bad JSON: " + err.Error()}
	}
	return obj, nil
}

// wrapIndex adds the object's index to e when other objects share its line.
func wrapIndex(index int, shared bool, e *Error) error {
	if shared {
		return &InstructionError{Index: index, Err: e}
	}
	return e
}

// InstructionError is an error in one instruction object of a JSON input whose line holds other
// objects too (a single-line array), where file:line alone does not find it: it also carries
// the object's index, 0 for the first, as disasm numbers words. It prints
// "file:line: instruction N: field: message" and unwraps to the *Error.
type InstructionError struct {
	Index int
	Err   *Error
}

func (e *InstructionError) Error() string {
	where := (&Error{File: e.Err.File, Line: e.Err.Line}).Error() // "file:line: "
	what := *e.Err
	what.File, what.Line = "", 0
	return fmt.Sprintf("%sinstruction %d: %s", where, e.Index, what.Error())
}

func (e *InstructionError) Unwrap() error { return e.Err }

// ErrPath names the object, e.g. "instruction[2]" (the *Error it wraps names file, line and field).
func (e *InstructionError) ErrPath() string { return fmt.Sprintf("instruction[%d]", e.Index) }

// RuleID is the wrapped error's rule.
func (e *InstructionError) RuleID() string { return e.Err.RuleID() }

func jsonWord(obj map[string]any, g isa.Generation) ([isa.InstNBytes]byte, isa.Engine, error) {
	var w [isa.InstNBytes]byte
	ov, ok := obj["opcode"]
	if !ok {
		return w, isa.EngineNone, &Error{Field: "opcode", Msg: "missing"}
	}
	opv, err := enumValue(isa.KOpcode, jsonString(ov), 255)
	if err != nil {
		return w, isa.EngineNone, &Error{Field: "opcode", Msg: err.Error(), Err: err}
	}
	eng := isa.EngineNone
	if e, ok := obj["engine"]; ok {
		if eng, err = isa.ParseEngine(jsonString(e)); err != nil {
			return w, eng, &Error{Field: "engine", Msg: err.Error(), Err: err}
		}
	}
	w = NewWord(isa.Opcode(opv))
	l := isa.LayoutOf(isa.Opcode(opv))
	var set assignments
	var walk func(prefix string, m map[string]any) error
	walk = func(prefix string, m map[string]any) error {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if prefix == "" && (k == "opcode" || k == "gen" || ignoredKeys[k]) {
				continue
			}
			path := prefix + k
			switch v := m[k].(type) {
			case map[string]any:
				if _, isField := l.Field(path); isField {
					return &Error{Field: path, Msg: "want a value, not an object"}
				}
				if err := walk(path+".", v); err != nil {
					return err
				}
			default:
				p, fp, err := setField(&w, l, path, jsonString(v), g)
				if err != nil {
					return err
				}
				if err := set.add(p, fmt.Sprintf("%q: %s", path, jsonString(v)), fp); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", obj); err != nil {
		return w, eng, err
	}
	return w, eng, nil
}

func jsonString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "1"
		}
		return "0"
	case []any:
		parts := make([]string, len(x))
		for k, e := range x {
			parts[k] = jsonString(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
