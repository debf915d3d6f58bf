package asm

import (
	"errors"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// Errors in a JSON object name its index when file:line alone does not find it.
func TestJSONErrorIndex(t *testing.T) {
	ok := `{"opcode":"COPY"}`
	for _, c := range []struct{ name, src, want string }{
		{"single-line array, 4th object",
			`[` + ok + `,` + ok + `,` + ok + `,{"opcode":"COPY","in_dtype":"NOPE"}]`,
			`f.json:1: instruction 3: in_dtype: unknown dtype "NOPE"`},
		{"single-line array, 1st object",
			`[{"opcode":"COPY","in_dtype":"NOPE"},` + ok + `]`,
			`f.json:1: instruction 0: in_dtype: unknown dtype "NOPE"`},
		{"two objects on one line of a stream",
			ok + ` {"opcode":"COPY","op":"NOPE"}`,
			`f.json:1: instruction 1: op: unknown ALU op "NOPE"`},
		{"single-line array, missing opcode",
			`[` + ok + `,{"op":"BYPASS"}]`,
			`f.json:1: instruction 1: opcode: missing`},
		{"one object per line: the line is enough",
			ok + "\n" + `{"opcode":"COPY","op":"NOPE"}`,
			`f.json:2: op: unknown ALU op "NOPE"`},
		{"array, one object per line",
			"[" + ok + ",\n" + `{"opcode":"COPY","op":"NOPE"}` + "]",
			`f.json:2: op: unknown ALU op "NOPE"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseJSON("f.json", []byte(c.src), isa.CAYMAN)
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Line == 0 || e.File != "f.json" {
				t.Errorf("does not unwrap to *Error with file and line: %#v", err)
			}
		})
	}
}

// An array file ends at its closing ']': anything after it but blanks is refused (it was dropped
// without a word, so a second array assembled to nothing), and a missing ']' is named.
func TestJSONArrayEnd(t *testing.T) {
	ok := `{"opcode":"COPY"}`
	for _, c := range []struct{ name, src, want string }{
		{"second array", "[" + ok + "]\n[" + ok + "]", `f.json:2: bad JSON: content after the instruction array's closing ']' (byte offset 20)`},
		{"trailing text", "[" + ok + "] x", `f.json:1: bad JSON: content after the instruction array's closing ']' (byte offset 20)`},
		{"no closing bracket", "[" + ok + "\n", `f.json:1: bad JSON: the instruction array has no closing ']'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseJSON("f.json", []byte(c.src), isa.CAYMAN)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("got %v (program %v), want %s...", err, p, c.want)
			}
		})
	}
	for _, src := range []string{"[" + ok + "]", "[" + ok + "]\n\n  ", "[]", "[" + ok + "," + ok + "]\n"} {
		if _, err := ParseJSON("f.json", []byte(src), isa.CAYMAN); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}
