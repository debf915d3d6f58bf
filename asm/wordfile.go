package asm

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/tpbsim/tpbsim/isa"
)

// Bytes is the file as a bare word file: its 64-byte words in order (what `tpbsim asm` writes;
// a word file's Words as they are).
func (f *File) Bytes() []byte {
	if f.Src == nil {
		return f.Words
	}
	out := make([]byte, 0, f.Len()*isa.InstNBytes)
	for k := 0; k < f.Len(); k++ {
		w := f.Word(k)
		out = append(out, w[:]...)
	}
	return out
}

// BinQueueWarning says when writing a source as a bare word file loses its engine queues: a
// .bin has none, and `tpbsim run` puts each of its words on the queue of its opcode's engine, so
// an instruction placed on another queue (an .engine section, a JSON "engine" key) would run
// elsewhere, and a correct multi-queue program could deadlock or race. The .bin is still
// written (DESIGN.md §7: asm turns any source into its bytes); the warning, an *Error, names the
// first such line and how to keep the queues; arg is how the command that keeps them names
// the input. A source whose every instruction is on its opcode's own queue runs the same from
// the .bin: nil.
func (f *File) BinQueueWarning(arg string) error {
	if f.Binary() {
		return nil
	}
	it, moved := f.Src.OffDefaultEngine()
	if !moved {
		return nil
	}
	op := isa.Opcode(it.Word[0])
	there := fmt.Sprintf("on %v (its opcode's engine)", op.Engine())
	if op.Engine() == isa.EngineNone {
		there = "on no queue (its opcode has no engine)"
	}
	keep := fmt.Sprintf("to run it as written, run the source (.s/.tpb) or its JSON form, which keeps each instruction's engine: tpbsim disasm --json %s > OUT.json", arg)
	if f.Form == FormJSON {
		keep = fmt.Sprintf("to run it as written, run %s itself: the JSON form keeps each instruction's engine", f.Path)
	}
	return &Error{File: it.File, Line: it.Line, Field: "engine",
		Msg: fmt.Sprintf("%v is on the %v queue, but a bare .bin has no engine queues: 'tpbsim run' of the .bin puts it %s; %s",
			op, it.Engine, there, keep)}
}

// WriteDisasm writes the file as `tpbsim disasm` prints it: one assembly line per word (ending
// in a comment with its index and byte offset, "(unsupported: raw word)" for a word of no
// modelled struct) or, asJSON, one JSON object per word (ToJSON with "word", "offset" and
// "engine" keys). Both forms assemble back to the same bytes and queues: the text of a
// generation other than the default starts with its .gen line, a source's register settings
// come first (.bound_reg / .addr_reg lines, a "bound_regs" / "addr_regs" object), and the text
// has an .engine line where the queue changes (none for a .bin, whose words run on their
// opcodes' engines).
func (f *File) WriteDisasm(w io.Writer, asJSON bool) error {
	g := f.Gen
	if err := g.Check(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	// The default generation's text needs no .gen line: asm assembles for it when the file
	// names none, and a .bin then prints exactly one line per word (DESIGN.md §7).
	if !asJSON && g != isa.DefaultGeneration {
		fmt.Fprintf(bw, ".gen %v\n", g)
	}
	if f.Src != nil {
		if j := regsJSON(f.Src.BoundRegs, f.Src.AddrRegs, g); asJSON && j != "" {
			fmt.Fprintln(bw, j)
		} else if !asJSON {
			for _, l := range append(BoundRegLines(f.Src.BoundRegs), AddrRegLines(f.Src.AddrRegs, g)...) {
				fmt.Fprintln(bw, l)
			}
		}
	}
	section := isa.EngineNone // the queue of the last .engine line printed
	for k := 0; k < f.Len(); k++ {
		word, eng := f.Word(k), f.Engine(k)
		off := k * isa.InstNBytes
		if asJSON {
			kv := []KV{{Key: "word", Value: k}, {Key: "offset", Value: fmt.Sprintf("0x%x", off)}}
			if eng != isa.EngineNone {
				kv = append(kv, KV{Key: "engine", Value: eng.String()})
			}
			bw.Write(ToJSON(word, g, kv...))
			bw.WriteByte('\n')
			continue
		}
		// An .engine line where the queue changes, except while no section is open and the word
		// is on its opcode's own queue (where it goes without one).
		if eng != section && (section != isa.EngineNone || eng != isa.Opcode(word[0]).Engine()) {
			fmt.Fprintf(bw, ".engine %v\n", eng)
			section = eng
		}
		note := ""
		if inst, _ := isa.Decode(word[:]); !isa.Supported(inst) {
			note = " (unsupported: raw word)"
		}
		fmt.Fprintf(bw, "%s  # word %d @0x%x%s\n", format(word, g), k, off, note)
	}
	return bw.Flush()
}

// regsJSON is the JSON form's register object, {"bound_regs": {"5": "0x64"}, "addr_regs":
// {"3": "sbuf:1:0x100"}}; "" when the program sets none.
func regsJSON(bound, addr map[int]uint32, g isa.Generation) string {
	var objs []string
	for _, f := range []struct {
		key  string
		regs map[int]uint32
		val  func(uint32) string
	}{
		{"bound_regs", bound, func(v uint32) string { return fmt.Sprintf("0x%x", v) }},
		{"addr_regs", addr, func(v uint32) string { return AddrRegText(v, g) }},
	} {
		if len(f.regs) == 0 {
			continue
		}
		keys := make([]int, 0, len(f.regs))
		for k := range f.regs {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%q: %q", fmt.Sprint(k), f.val(f.regs[k]))
		}
		objs = append(objs, fmt.Sprintf("%q: {%s}", f.key, strings.Join(parts, ", ")))
	}
	if objs == nil {
		return ""
	}
	return "{" + strings.Join(objs, ", ") + "}"
}
