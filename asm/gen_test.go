package asm

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

// addrWord is randWord with its address fields pointed on-chip, so that the generation's
// partition stride (and PSUM) matter to how the word prints.
func addrWord(r *rand.Rand) [64]byte {
	w := randWord(r)
	for _, f := range isa.LayoutOf(isa.Opcode(w[0])).Fields {
		for k := 0; k < f.Count; k++ {
			if r.Intn(4) == 0 {
				continue
			}
			a := uint32(r.Int63n(0x8800000))
			switch f.Kind {
			case isa.KAddr4:
				f.Set(&w, k, uint64(a))
			case isa.KAddr8:
				f.Set(&w, k, uint64(isa.LocalAddr8(a)))
			}
		}
	}
	return w
}

// For every generation, words printed as text (with the .gen line disasm writes) and as JSON
// (ToJSON's "gen" key) assemble back to the same bytes with no generation given (the default,
// CAYMAN, is passed and must lose to the file's).
func TestRoundTripWithoutGen(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for _, g := range isa.Generations {
		var text, js bytes.Buffer
		fmt.Fprintf(&text, ".gen %v\n", g)
		var words [][64]byte
		for n := 0; n < 1500; n++ {
			w := addrWord(r)
			words = append(words, w)
			line := Format(w, g)
			if g.Geometry().PSUMSize == 0 && strings.Contains(line, "psum:") {
				t.Fatalf("%v prints psum: %s", g, line)
			}
			fmt.Fprintf(&text, "%s  # word %d\n", line, n)
			js.Write(ToJSON(w, g, KV{"word", n}))
			js.WriteByte('\n')
		}
		for _, c := range []struct {
			name string
			p    func() (*Program, error)
		}{
			{"text", func() (*Program, error) { return Parse("x.s", text.Bytes(), isa.DefaultGeneration) }},
			{"json", func() (*Program, error) { return ParseJSON("x.json", js.Bytes(), isa.DefaultGeneration) }},
			{"json array", func() (*Program, error) {
				arr := "[" + strings.ReplaceAll(strings.TrimSpace(js.String()), "\n", ",\n") + "]"
				return ParseJSON("x.json", []byte(arr), isa.CAYMAN)
			}},
		} {
			p, err := c.p()
			if err != nil {
				t.Fatalf("%v %s: %v", g, c.name, err)
			}
			if p.Gen != g || len(p.Items) != len(words) {
				t.Fatalf("%v %s: read as %v, %d words", g, c.name, p.Gen, len(p.Items))
			}
			for k, it := range p.Items {
				if it.Word != words[k] {
					t.Fatalf("%v %s word %d differs\n in %x\nout %x\n%s", g, c.name, k, words[k], it.Word, Format(words[k], g))
				}
			}
		}
	}
	// the generation matters: MAVERICK's sbuf:1:0x0 is CAYMAN's sbuf:4:0x0
	p, err := ParseJSON("x.json", []byte(`{"gen":"MAVERICK","opcode":"COPY","dst_mem_pattern":{"start_addr":"sbuf:1:0x0"}}`), isa.CAYMAN)
	if err != nil || p.Gen != isa.MAVERICK || p.GenLine != 1 || !strings.Contains(Format(p.Items[0].Word, isa.CAYMAN), "sbuf:4:0x0") {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestJSONGenErrors(t *testing.T) {
	cp := `{"opcode":"COPY"}`
	for _, c := range []struct{ name, src, want string }{
		{"mixed generations",
			`{"gen":"CAYMAN","opcode":"COPY"}` + "\n" + cp + "\n" + `{"gen":"MAVERICK","opcode":"COPY"}`,
			`f.json:3: gen: MAVERICK contradicts CAYMAN (line 1): a file holds one generation`},
		{"mixed in a one-line array",
			`[{"gen":"SUNDA","opcode":"COPY"},{"gen":"MARIANA","opcode":"COPY"}]`,
			`f.json:1: instruction 1: gen: MARIANA contradicts SUNDA (line 1): a file holds one generation`},
		{"unknown generation",
			`{"gen":"V9","opcode":"COPY"}`,
			`f.json:1: gen: unknown generation "V9" (want SUNDA, CAYMAN, MARIANA, MARIANA_PLUS or MAVERICK)`},
		{"not a string",
			`{"gen":5,"opcode":"COPY"}`,
			`f.json:1: gen: want a generation name, got 5`},
		{"psum on MAVERICK",
			cp + "\n" + `{"gen":"MAVERICK","opcode":"COPY","dst_mem_pattern":{"start_addr":"psum:0:0x0"}}`,
			`f.json:2: dst_mem_pattern.start_addr: address "psum:0:0x0": MAVERICK has no PSUM (PSUM_BUF_SZ = 0)`},
		{"psum on MAVERICK, named by a later object",
			`{"opcode":"COPY","dst_mem_pattern":{"start_addr":"psum:0:0x0"}}` + "\n" + `{"gen":"MAVERICK","opcode":"COPY"}`,
			`f.json:1: dst_mem_pattern.start_addr: address "psum:0:0x0": MAVERICK has no PSUM (PSUM_BUF_SZ = 0)`},
		{"field error before a syntax error is reported first",
			`{"opcode":"COPY","op":"NOPE"}` + "\n" + `{"opcode":`,
			`f.json:1: op: unknown ALU op "NOPE"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseJSON("f.json", []byte(c.src), isa.CAYMAN)
			if err == nil || err.Error() != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Line == 0 {
				t.Errorf("does not unwrap to *Error with a line: %#v", err)
			}
		})
	}
	// text: psum: under .gen MAVERICK names file:line and field
	_, err := Parse("m.s", []byte(".gen MAVERICK\nCOPY nac=64 src=sbuf:0:0x0[64@1] dst=psum:0:0x0[64@1]\n"), isa.CAYMAN)
	if err == nil || !strings.Contains(err.Error(), `m.s:2: dst_mem_pattern: address "psum:0:0x0": MAVERICK has no PSUM (PSUM_BUF_SZ = 0)`) {
		t.Fatal(err)
	}
}

// A second .gen naming another generation is an error at its own line, not a silent override;
// the same generation again is harmless and the first line stays the one named.
func TestConflictingGenLines(t *testing.T) {
	src := ".gen MAVERICK\n# a comment\n.gen SUNDA\n.engine DVE\nCOPY nac=32\n"
	_, err := Parse("g2.s", []byte(src), isa.DefaultGeneration)
	var e *Error
	if !errors.As(err, &e) || e.File != "g2.s" || e.Line != 3 || !strings.Contains(e.Msg, "SUNDA contradicts .gen MAVERICK (line 1)") {
		t.Fatalf("err = %v, want g2.s:3 naming both generations", err)
	}
	if _, err := ParseProgram("g2.s", []byte(src), isa.DefaultGeneration); err == nil {
		t.Fatal("ParseProgram accepted conflicting .gen lines")
	}
	p, err := Parse("g.s", []byte(".gen MAVERICK\n.gen maverick\nCOPY nac=32\n"), isa.DefaultGeneration)
	if err != nil || p.Gen != isa.MAVERICK || p.GenLine != 1 {
		t.Fatalf("repeated .gen: %v, gen %v line %d", err, p.Gen, p.GenLine)
	}
}

// OffDefaultEngine finds the first instruction a bare word list would put on another queue;
// CheckEngines the first on no queue at all.
func TestEngineQueueChecks(t *testing.T) {
	p, err := Parse("q.s", []byte("COPY nac=32\n.engine DVE\nCOPY nac=32\n.engine ACT\nCAST nac=32\nCOPY nac=32\n"), isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	it, moved := p.OffDefaultEngine()
	if !moved || it.Line != 5 || it.Engine != isa.EngineACT {
		t.Fatalf("OffDefaultEngine = line %d %v %v, want line 5 on ACT", it.Line, it.Engine, moved)
	}
	if err := p.CheckEngines(); err != nil {
		t.Fatal(err)
	}
	p, _ = Parse("q.s", []byte(".engine DVE\nCOPY nac=32\n"), isa.CAYMAN)
	if _, moved := p.OffDefaultEngine(); moved {
		t.Fatal("an .engine line naming the opcode's own engine counted as moved")
	}
	// An opcode with no default engine and no .engine line.
	var none isa.Opcode
	for _, op := range isa.AllOpcodes {
		if op.Engine() == isa.EngineNone {
			none = op
			break
		}
	}
	p, err = Parse("n.s", []byte(fmt.Sprintf("COPY nac=32\n%d\n", none)), isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckEngines(); err == nil || !strings.Contains(err.Error(), "n.s:2: opcode:") {
		t.Fatalf("CheckEngines = %v", err)
	}
}
