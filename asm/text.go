package asm

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Error is an assembly error: where (file:line) and which field. Its category is
// fault.ErrInvalid (the input breaks the assembly form, rule RuleForm) unless the error it
// carries (Err, from isa or elsewhere) has a category and rule of its own.
type Error struct {
	File  string
	Line  int
	Field string // empty when the error is not about one field
	Msg   string
	Err   error // the cause, when another layer's error is behind Msg; nil otherwise
}

// RuleForm is the rule every assembly error breaks unless its cause names another: the text
// and JSON forms of an instruction (DESIGN.md §7).
const RuleForm = "asm.form"

// Unwrap gives the cause and the category: fault.ErrInvalid, unless the cause has its own.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{fault.ErrInvalid}
	}
	if fault.Category(e.Err) != nil {
		return []error{e.Err}
	}
	return []error{fault.ErrInvalid, e.Err}
}

// RuleID is the cause's rule when it names one, else RuleForm.
func (e *Error) RuleID() string {
	if r := fault.Rule(e.Err); r != "" {
		return r
	}
	return RuleForm
}

// ErrPath is the field (File and Line say where the instruction is; Error prints them).
func (e *Error) ErrPath() string { return e.Field }

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Item is one assembled instruction with where it came from.
type Item struct {
	Word   [isa.InstNBytes]byte
	Inst   isa.Inst   // isa.Decode(Word)
	Engine isa.Engine // the queue it belongs to
	File   string
	Line   int    // 1-based source line
	Source string // the source line, trimmed
}

// Program is a parsed assembly file: instructions in file order and split into per-engine
// queues. An instruction goes to the queue of the last `.engine` line, or, before any, to its
// opcode's engine (isa.Opcode.Engine).
type Program struct {
	Gen     isa.Generation
	GenLine int // line of the `.gen` directive or first JSON "gen" key that set Gen; 0 when the file names none
	Items   []Item
	Queues  map[isa.Engine][]Item
	Engines []isa.Engine // in order of first appearance
	// BoundRegs are the bound-check registers (0..63, 32-bit) the program sets before it runs:
	// `.bound_reg N VALUE` in text, {"bound_regs": {"N": VALUE}} in JSON. BoundRegLine names
	// the line that set each.
	BoundRegs    map[int]uint32
	BoundRegLine map[int]int
	// AddrRegs are the address registers (0..63, NUM_ADDR_REGISTERS) the program sets before it
	// runs, read by ADDR4s in register mode (reg:N) and the register EVENTS forms:
	// `.addr_reg N VALUE` in text, {"addr_regs": {"N": VALUE}} in JSON, VALUE a 32-bit number or
	// sbuf:P:OFF / psum:P:OFF (its ADDR4 on Gen). AddrRegLine names the line that set each.
	AddrRegs    map[int]uint32
	AddrRegLine map[int]int
}

// Words returns the instruction words in file order.
func (p *Program) Words() [][isa.InstNBytes]byte {
	out := make([][isa.InstNBytes]byte, len(p.Items))
	for k, it := range p.Items {
		out[k] = it.Word
	}
	return out
}

// ParseProgram parses assembly source (name is used in error messages). g is the generation
// for the address syntax unless the file sets one with `.gen` (a generation none of the five,
// the zero value included, is an error: no default is assumed). Every instruction must have an
// engine (an `.engine` section or an opcode with a default engine).
func ParseProgram(name string, src []byte, g isa.Generation) (*Program, error) {
	p, err := parse(name, src, g, true)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Parse parses assembly source into a program without requiring engines (what `tpbsim asm`
// needs to write a flat word file).
func Parse(name string, src []byte, g isa.Generation) (*Program, error) {
	return parse(name, src, g, false)
}

func parse(name string, src []byte, g isa.Generation, needEngine bool) (*Program, error) {
	if err := checkGen(name, g); err != nil {
		return nil, err
	}
	prog := &Program{Gen: g, Queues: map[isa.Engine][]Item{}}
	cur := isa.EngineNone
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	var pending strings.Builder // continuation lines ending in '\'
	startLine := 0
	for sc.Scan() {
		ln++
		raw := sc.Text()
		text := stripComment(raw)
		if strings.HasSuffix(strings.TrimSpace(text), `\`) {
			if pending.Len() == 0 {
				startLine = ln
			}
			t := strings.TrimSpace(text)
			pending.WriteString(t[:len(t)-1])
			pending.WriteByte(' ')
			continue
		}
		line := ln
		if pending.Len() > 0 {
			pending.WriteString(text)
			text = pending.String()
			pending.Reset()
			line = startLine
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, ".") {
			fields := strings.Fields(text)
			switch strings.ToLower(fields[0]) {
			case ".gen":
				if len(fields) != 2 {
					return nil, &Error{File: name, Line: line, Msg: ".gen takes one generation name"}
				}
				if len(prog.Items) > 0 || len(prog.AddrRegs) > 0 {
					// an .addr_reg location (sbuf:P:OFF) was read with the generation before it
					return nil, &Error{File: name, Line: line, Msg: ".gen must come before the first instruction and the first .addr_reg"}
				}
				gg, err := isa.ParseGeneration(fields[1])
				if err != nil {
					return nil, &Error{File: name, Line: line, Msg: err.Error(), Err: err}
				}
				if prog.GenLine > 0 && gg != prog.Gen {
					return nil, &Error{File: name, Line: line,
						Msg: fmt.Sprintf(".gen %v contradicts .gen %v (line %d): a file holds one generation", gg, prog.Gen, prog.GenLine)}
				}
				if prog.GenLine > 0 {
					continue // the same generation again: the first line stays the one named
				}
				prog.Gen, prog.GenLine = gg, line
				continue
			case ".engine":
				if len(fields) != 2 {
					return nil, &Error{File: name, Line: line, Msg: ".engine takes one engine name (DVE, POOL, ACT, SP, PE, or none)"}
				}
				if strings.EqualFold(fields[1], "none") {
					// Closes the open section: what follows goes, as before any .engine line,
					// to its opcode's own engine (disasm prints it after a section for a word
					// on no queue).
					cur = isa.EngineNone
					continue
				}
				e, err := isa.ParseEngine(fields[1])
				if err != nil {
					return nil, &Error{File: name, Line: line, Msg: err.Error() + "; '.engine none' closes a section", Err: err}
				}
				cur = e
				continue
			case ".bound_reg", ".addr_reg":
				f, example := boundRegFile, "0x1000"
				if strings.EqualFold(fields[0], ".addr_reg") {
					f, example = addrRegFile, "sbuf:3:0x100"
				}
				if len(fields) != 3 {
					return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf(".%s takes a register number 0..%d and a value, %s (.%s 5 %s)", f.field, f.n-1, f.what, f.field, example)}
				}
				if err := prog.setReg(f, fields[1], fields[2], line); err != nil {
					e := err.(*Error)
					e.File, e.Line = name, line
					return nil, e
				}
				continue
			case ".word":
				hx := strings.Join(fields[1:], "")
				b, err := hex.DecodeString(hx)
				if err != nil || len(b) != isa.InstNBytes {
					return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf(".word wants 128 hex digits (64 bytes), got %q", hx)}
				}
				var w [isa.InstNBytes]byte
				copy(w[:], b)
				if err := prog.add(w, cur, name, line, text, needEngine); err != nil {
					return nil, err
				}
				continue
			}
			return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("unknown directive %s (want .gen, .engine, .bound_reg, .addr_reg or .word)", fields[0])}
		}
		w, err := ParseLine(text, prog.Gen)
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.File, e.Line = name, line
				return nil, e
			}
			return nil, &Error{File: name, Line: line, Msg: err.Error(), Err: err}
		}
		if err := prog.add(w, cur, name, line, text, needEngine); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: name, Line: ln + 1, Msg: err.Error(), Err: err}
	}
	if pending.Len() > 0 {
		return nil, &Error{File: name, Line: startLine, Msg: `file ends after a '\' continuation`}
	}
	return prog, nil
}

func (p *Program) add(w [isa.InstNBytes]byte, cur isa.Engine, file string, line int, src string, needEngine bool) error {
	e := cur
	if e == isa.EngineNone {
		e = isa.Opcode(w[0]).Engine()
	}
	if e == isa.EngineNone && needEngine {
		return noEngine(file, line, isa.Opcode(w[0]))
	}
	inst, _ := isa.Decode(w[:])
	it := Item{Word: w, Inst: inst, Engine: e, File: file, Line: line, Source: src}
	p.Items = append(p.Items, it)
	if _, ok := p.Queues[e]; !ok {
		p.Engines = append(p.Engines, e)
	}
	p.Queues[e] = append(p.Queues[e], it)
	return nil
}

// CheckEngines reports the first instruction that is on no engine queue (no `.engine` line or
// "engine" key before it, and an opcode with no default engine): what a program to run needs.
func (p *Program) CheckEngines() error {
	for _, it := range p.Items {
		if it.Engine == isa.EngineNone {
			return noEngine(it.File, it.Line, isa.Opcode(it.Word[0]))
		}
	}
	return nil
}

func noEngine(file string, line int, op isa.Opcode) error {
	return &Error{File: file, Line: line, Field: "opcode",
		Msg: fmt.Sprintf("%v has no default engine: put it under an .engine line (in JSON, give it an \"engine\" key)", op)}
}

// OffDefaultEngine returns the first instruction whose queue is not its opcode's default
// engine (isa.Opcode.Engine), and false when there is none. A bare word list (a .bin) keeps no
// queues: run, it puts every word on its opcode's engine, so a program with such an
// instruction would run differently from its source.
func (p *Program) OffDefaultEngine() (Item, bool) {
	for _, it := range p.Items {
		if it.Engine != isa.Opcode(it.Word[0]).Engine() {
			return it, true
		}
	}
	return Item{}, false
}

func stripComment(s string) string {
	if j := strings.IndexByte(s, '#'); j >= 0 {
		return s[:j]
	}
	return s
}

// tokens splits a line on blanks outside brackets.
func tokens(s string) []string {
	var out []string
	depth, start := 0, -1
	for k, c := range s {
		switch {
		case c == '[':
			depth++
		case c == ']':
			if depth > 0 {
				depth--
			}
		}
		blank := (c == ' ' || c == '\t') && depth == 0
		if blank {
			if start >= 0 {
				out = append(out, s[start:k])
				start = -1
			}
		} else if start < 0 {
			start = k
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// resolved is what a key names: a field (with an element index or -1 for the whole field), a
// tensor group, or a group of bitfields sharing one byte.
type resolved struct {
	field  isa.Field
	idx    int // -1: whole field
	tensor *isa.TensorGroup
	group  []isa.Field // bitfields written as one byte
	path   string      // canonical path for messages
}

func resolve(l *isa.StructLayout, key string) (resolved, error) {
	base, idx := key, -1
	if j := strings.IndexByte(key, '['); j > 0 && strings.HasSuffix(key, "]") {
		n, err := isa.ParseNumber(key[j+1 : len(key)-1])
		if err != nil {
			return resolved{}, fmt.Errorf("bad index in %q", key)
		}
		base, idx = key[:j], int(n)
	}
	base = strings.ToLower(base)
	if a, ok := aliases[base]; ok {
		base = a
	}
	if dot := strings.IndexByte(base, '.'); dot > 0 {
		if a, ok := aliases[base[:dot]]; ok {
			base = a + base[dot:]
		}
	}
	for k := range l.Tensors {
		if l.Tensors[k].Path == base && idx < 0 {
			return resolved{tensor: &l.Tensors[k], path: base}, nil
		}
	}
	f, ok := l.Field(base)
	if !ok { // a unique leaf name: wait_mode -> events.wait_mode
		var hits []isa.Field
		for _, c := range l.Fields {
			if strings.HasSuffix(c.Path, "."+base) {
				hits = append(hits, c)
			}
		}
		if len(hits) == 1 {
			f, ok = hits[0], true
		}
	}
	if !ok {
		var grp []isa.Field
		for _, c := range l.Fields {
			if strings.HasPrefix(c.Path, base+".") && c.Bits != 0 {
				grp = append(grp, c)
			}
		}
		if len(grp) > 0 && idx < 0 {
			return resolved{group: grp, path: base}, nil
		}
		return resolved{}, fmt.Errorf("no field %q in %s (fields: %s)", key, l.CName, fieldList(l))
	}
	if idx >= 0 && idx >= f.Count {
		return resolved{}, fmt.Errorf("index %d out of range: %s has %d elements", idx, f.Path, f.Count)
	}
	if idx >= 0 && f.Count == 1 {
		return resolved{}, fmt.Errorf("%s is not an array", f.Path)
	}
	path := f.Path
	if idx >= 0 {
		path = fmt.Sprintf("%s[%d]", f.Path, idx)
	}
	return resolved{field: f, idx: idx, path: path}, nil
}

func fieldList(l *isa.StructLayout) string {
	var names []string
	seen := map[string]bool{}
	for _, t := range l.Tensors {
		names = append(names, t.Path)
		seen[t.Path] = true
	}
	for _, f := range l.Fields {
		if f.Path == "opcode" {
			continue
		}
		p := f.Path
		if j := strings.IndexByte(p, '.'); j > 0 && seen[p[:j]] {
			continue
		}
		names = append(names, p)
	}
	return strings.Join(names, ", ")
}

// NewWord is the word an assembler starts from for opcode op: inst_word_len 16, the rest zero.
func NewWord(op isa.Opcode) [isa.InstNBytes]byte {
	var w [isa.InstNBytes]byte
	for _, f := range isa.LayoutOf(op).Fields {
		if f.Default != 0 {
			f.Set(&w, 0, f.Default)
		}
	}
	w[0] = byte(op)
	return w
}

// checkGen refuses a generation that is none of the modelled ones (the zero value included):
// the address syntax has no partition stride without one.
func checkGen(name string, g isa.Generation) error {
	if err := g.Check(); err != nil {
		return &Error{File: name, Field: "gen", Msg: err.Error(), Err: err}
	}
	return nil
}

// ParseLine assembles one instruction line (no comment, no directive) for generation g.
func ParseLine(line string, g isa.Generation) ([isa.InstNBytes]byte, error) {
	if err := checkGen("", g); err != nil {
		return [isa.InstNBytes]byte{}, err
	}
	toks := tokens(strings.TrimSpace(line))
	if len(toks) == 0 {
		return [isa.InstNBytes]byte{}, &Error{Msg: "empty instruction"}
	}
	opv, err := enumValue(isa.KOpcode, toks[0], 255)
	if err != nil {
		return [isa.InstNBytes]byte{}, &Error{Field: "opcode", Msg: err.Error(), Err: err}
	}
	op := isa.Opcode(opv)
	w := NewWord(op)
	l := isa.LayoutOf(op)
	var set assignments
	for _, t := range toks[1:] {
		eq := strings.IndexByte(t, '=')
		if eq <= 0 {
			return w, &Error{Msg: fmt.Sprintf("%q: want key=value", t)}
		}
		key, val := t[:eq], t[eq+1:]
		path, fp, err := setField(&w, l, key, val, g)
		if err != nil {
			return w, err
		}
		// The same bits twice — the same field under two names, or a whole tensor or array and
		// then one of its parts — is a typo or a merge gone wrong, not a request for the last
		// value.
		if err := set.add(path, t, fp); err != nil {
			return w, err
		}
	}
	return w, nil
}

// setField sets key (any spelling resolve accepts) to val and returns the field's path and the
// bits it wrote.
func setField(w *[isa.InstNBytes]byte, l *isa.StructLayout, key, val string, g isa.Generation) (string, footprint, error) {
	r, err := resolve(l, key)
	if err != nil {
		return "", footprint{}, &Error{Field: key, Msg: err.Error(), Err: err}
	}
	if r.path == "opcode" {
		return "", footprint{}, &Error{Field: key, Msg: "the opcode is the first word of the line"}
	}
	return r.path, footprintOf(l, r), r.set(w, l, val, g)
}

// set writes val into the field r resolved to.
func (r resolved) set(w *[isa.InstNBytes]byte, l *isa.StructLayout, val string, g isa.Generation) error {
	fail := func(err error) error { return &Error{Field: r.path, Msg: err.Error(), Err: err} }
	switch {
	case r.tensor != nil:
		if err := setTensor(w, l, r.tensor, val, g); err != nil {
			return fail(err)
		}
	case r.group != nil:
		v, err := isa.ParseNumber(val)
		if err != nil || v > 255 {
			return fail(fmt.Errorf("want the whole byte as a number 0..255, or set %s.<bitfield>", r.path))
		}
		w[r.group[0].Offset] = byte(v)
	case r.field.Kind == isa.KBlob:
		if r.idx >= 0 {
			v, err := parseScalar(isa.Field{Size: 1, Count: 1, Kind: isa.KUint}, val, g)
			if err != nil {
				return fail(err)
			}
			w[r.field.Offset+r.idx] = byte(v)
			return nil
		}
		b, err := parseBlob(r.field, val)
		if err != nil {
			return fail(err)
		}
		copy(w[r.field.Offset:], b)
	case r.idx < 0 && r.field.Count > 1:
		elems, err := parseArray(val)
		if err != nil {
			return fail(err)
		}
		if len(elems) != r.field.Count {
			return fail(fmt.Errorf("%d values given, the field has %d", len(elems), r.field.Count))
		}
		for k, e := range elems {
			v, err := parseScalar(r.field, e, g)
			if err != nil {
				return fail(fmt.Errorf("[%d]: %v", k, err))
			}
			r.field.Set(w, k, v)
		}
	default:
		idx := r.idx
		if idx < 0 {
			idx = 0
		}
		v, err := parseScalar(r.field, val, g)
		if err != nil {
			return fail(err)
		}
		r.field.Set(w, idx, v)
	}
	return nil
}

func parseArray(s string) ([]string, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "[") || !strings.HasSuffix(t, "]") {
		return nil, fmt.Errorf("want an array [a,b,...], got %q", s)
	}
	t = strings.TrimSpace(t[1 : len(t)-1])
	if t == "" {
		return nil, nil
	}
	parts := strings.Split(t, ",")
	for k := range parts {
		parts[k] = strings.TrimSpace(parts[k])
	}
	return parts, nil
}

// setTensor parses `ADDR[n0@s0,...]` into a TENSOR4D group.
func setTensor(w *[isa.InstNBytes]byte, l *isa.StructLayout, t *isa.TensorGroup, val string, g isa.Generation) error {
	j := strings.IndexByte(val, '[')
	if j < 0 || !strings.HasSuffix(val, "]") {
		return fmt.Errorf("want ADDR[num@step,...] (dim 0 first), got %q", val)
	}
	if k := strings.IndexAny(val[j+1:], "[="); k >= 0 {
		// tokens keeps blanks inside brackets (for [32@1, 4@32]), so an unclosed '[' swallows
		// the fields after it, up to the next ']'
		cut := j + 1 + k
		if b := strings.LastIndexAny(val[:cut], " \t"); b > j {
			cut = b
		}
		return fmt.Errorf("the '[' of %q is not closed before %q: want ADDR[num@step,...]", strings.TrimSpace(val[:cut]), strings.TrimSpace(val[cut:]))
	}
	sa, _ := l.Field(t.Path + ".start_addr")
	steps, _ := l.Field(t.Path + ".step_elem")
	nums, _ := l.Field(t.Path + ".num_elem")
	a, err := parseScalar(sa, val[:j], g)
	if err != nil {
		return err
	}
	dims, err := parseArray(val[j:])
	if err != nil {
		return err
	}
	if len(dims) == 0 || len(dims) > 4 {
		return fmt.Errorf("want 1 to 4 dims num@step, got %d", len(dims))
	}
	sa.Set(w, 0, a)
	for d := 0; d < 4; d++ {
		n, s := "1", "1"
		if d < len(dims) {
			n = dims[d]
			if k := strings.IndexByte(n, '@'); k >= 0 {
				n, s = n[:k], n[k+1:]
			}
		}
		nv, err := parseScalar(nums, n, g)
		if err != nil {
			return fmt.Errorf("dim %d num: %v", d, err)
		}
		sv, err := parseScalar(steps, s, g)
		if err != nil {
			return fmt.Errorf("dim %d step: %v", d, err)
		}
		nums.Set(w, d, nv)
		steps.Set(w, d, sv)
	}
	return nil
}

// textKey is the key the disassembler prints for a field path: the path without "events.".
func textKey(path string) string { return strings.TrimPrefix(path, "events.") }

func formatTensor(w *[isa.InstNBytes]byte, l *isa.StructLayout, t isa.TensorGroup, g isa.Generation) string {
	sa, _ := l.Field(t.Path + ".start_addr")
	steps, _ := l.Field(t.Path + ".step_elem")
	nums, _ := l.Field(t.Path + ".num_elem")
	n := 4
	for n > 1 && nums.Get(w, n-1) == 1 && int64(steps.Get(w, n-1)) == 1 {
		n--
	}
	var b strings.Builder
	b.WriteString(formatScalar(sa, sa.Get(w, 0), g))
	b.WriteByte('[')
	for d := 0; d < n; d++ {
		if d > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d@%d", nums.Get(w, d), int64(steps.Get(w, d)))
	}
	b.WriteByte(']')
	return b.String()
}

// Format disassembles one word into an assembly line that ParseLine reads back to the same 64
// bytes. Fields at their default value are left out; a TENSOR4D whose 20 bytes are all zero too.
// The addresses are written in g's partitions, so an invalid g is isa's *GenerationError (rule
// isa.generation), not a line in no generation's address map.
func Format(w [isa.InstNBytes]byte, g isa.Generation) (string, error) {
	if err := g.Check(); err != nil {
		return "", err
	}
	return format(w, g), nil
}

// format is Format for a valid g.
func format(w [isa.InstNBytes]byte, g isa.Generation) string {
	l := isa.LayoutOf(isa.Opcode(w[0]))
	var b strings.Builder
	b.WriteString(formatScalar(isa.Field{Kind: isa.KOpcode, Size: 1, Count: 1}, uint64(w[0]), g))
	inTensor := map[string]bool{}
	for _, t := range l.Tensors {
		inTensor[t.Path] = true
	}
	done := map[string]bool{}
	for _, f := range l.Fields {
		if f.Path == "opcode" {
			continue
		}
		if j := strings.IndexByte(f.Path, '.'); j > 0 && inTensor[f.Path[:j]] {
			tp := f.Path[:j]
			if done[tp] {
				continue
			}
			done[tp] = true
			for _, t := range l.Tensors {
				if t.Path != tp {
					continue
				}
				zero := true
				for _, x := range w[t.Offset : t.Offset+20] {
					zero = zero && x == 0
				}
				if !zero {
					fmt.Fprintf(&b, " %s=%s", tp, formatTensor(&w, l, t, g))
				}
			}
			continue
		}
		switch {
		case f.Kind == isa.KBlob:
			zero := true
			for _, x := range w[f.Offset : f.Offset+f.Count] {
				zero = zero && x == 0
			}
			if !zero {
				fmt.Fprintf(&b, " %s=%s", f.Path, formatBlob(&w, f))
			}
		case f.Count > 1:
			zero := true
			for k := 0; k < f.Count; k++ {
				zero = zero && f.Get(&w, k) == 0
			}
			if zero {
				continue
			}
			fmt.Fprintf(&b, " %s=[", textKey(f.Path))
			for k := 0; k < f.Count; k++ {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(formatScalar(f, f.Get(&w, k), g))
			}
			b.WriteByte(']')
		default:
			v := f.Get(&w, 0)
			if v == f.Default {
				continue
			}
			fmt.Fprintf(&b, " %s=%s", textKey(f.Path), formatScalar(f, v, g))
		}
	}
	return b.String()
}
