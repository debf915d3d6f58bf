package asm

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
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
		t.Run(g.String(), func(t *testing.T) { roundTripWithoutGen(t, r, g) })
	}
	t.Run("the generation matters", func(t *testing.T) {
		// MAVERICK's sbuf:1:0x0 is CAYMAN's sbuf:4:0x0
		p, err := ParseJSON("x.json", []byte(`{"gen":"MAVERICK","opcode":"COPY","dst_mem_pattern":{"start_addr":"sbuf:1:0x0"}}`), isa.CAYMAN)
		if err != nil || p.Gen != isa.MAVERICK || p.GenLine != 1 || !strings.Contains(mustFormat(t, p.Items[0].Word, isa.CAYMAN), "sbuf:4:0x0") {
			t.Fatalf("%v %+v", err, p)
		}
	})
}

// roundTripWithoutGen: words written on g in text, JSON lines and a JSON array read back on the
// default generation, the files' own generation winning.
func roundTripWithoutGen(t *testing.T, r *rand.Rand, g isa.Generation) {
	var text, js bytes.Buffer
	fmt.Fprintf(&text, ".gen %v\n", g)
	var words [][64]byte
	for n := 0; n < 1500; n++ {
		w := addrWord(r)
		words = append(words, w)
		line := mustFormat(t, w, g)
		if g.Geometry().PSUMSize == 0 && strings.Contains(line, "psum:") {
			t.Fatalf("prints psum: %s", line)
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
		t.Run(c.name, func(t *testing.T) {
			p, err := c.p()
			if err != nil {
				t.Fatal(err)
			}
			if p.Gen != g || len(p.Items) != len(words) {
				t.Fatalf("read as %v, %d words", p.Gen, len(p.Items))
			}
			for k, it := range p.Items {
				if it.Word != words[k] {
					t.Fatalf("word %d differs\n in %x\nout %x\n%s", k, words[k], it.Word, mustFormat(t, words[k], g))
				}
			}
		})
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
	conflict := ".gen MAVERICK\n# a comment\n.gen SUNDA\n.engine DVE\nCOPY nac=32\n"
	for _, c := range []struct {
		name  string
		parse func(string, []byte, isa.Generation) (*Program, error)
	}{{"Parse", Parse}, {"ParseProgram", ParseProgram}} {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.parse("g2.s", []byte(conflict), isa.DefaultGeneration)
			var e *Error
			if !errors.As(err, &e) || e.File != "g2.s" || e.Line != 3 || !strings.Contains(e.Msg, "SUNDA contradicts .gen MAVERICK (line 1)") {
				t.Fatalf("err = %v, want g2.s:3 naming both generations", err)
			}
		})
	}
	t.Run("repeated", func(t *testing.T) {
		p, err := Parse("g.s", []byte(".gen MAVERICK\n.gen maverick\nCOPY nac=32\n"), isa.DefaultGeneration)
		if err != nil || p.Gen != isa.MAVERICK || p.GenLine != 1 {
			t.Fatalf("repeated .gen: %v, gen %v line %d", err, p.Gen, p.GenLine)
		}
	})
}

// OffDefaultEngine finds the first instruction a bare word list would put on another queue;
// CheckEngines the first on no queue at all.
func TestEngineQueueChecks(t *testing.T) {
	var none isa.Opcode // an opcode with no default engine
	for _, op := range isa.AllOpcodes {
		if op.Engine() == isa.EngineNone {
			none = op
			break
		}
	}
	for _, c := range []struct {
		name     string
		src      string
		moved    int // line of the first word off its opcode's engine; 0: none
		movedTo  isa.Engine
		checkErr string // CheckEngines' error; "" when it passes
	}{
		{"section on another engine", "COPY nac=32\n.engine DVE\nCOPY nac=32\n.engine ACT\nCAST nac=32\nCOPY nac=32\n", 5, isa.EngineACT, ""},
		{"section on the opcode's own engine", ".engine DVE\nCOPY nac=32\n", 0, isa.EngineNone, ""},
		{"no engine at all", fmt.Sprintf("COPY nac=32\n%d\n", none), 0, isa.EngineNone, "n.s:2: opcode:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse("n.s", []byte(c.src), isa.CAYMAN)
			if err != nil {
				t.Fatal(err)
			}
			it, moved := p.OffDefaultEngine()
			if moved != (c.moved > 0) || moved && (it.Line != c.moved || it.Engine != c.movedTo) {
				t.Errorf("OffDefaultEngine = line %d %v %v, want line %d on %v", it.Line, it.Engine, moved, c.moved, c.movedTo)
			}
			err = p.CheckEngines()
			if c.checkErr == "" && err != nil || c.checkErr != "" && (err == nil || !strings.Contains(err.Error(), c.checkErr)) {
				t.Errorf("CheckEngines = %v, want %q", err, c.checkErr)
			}
		})
	}
}

// mustFormat is Format on a generation the test knows is valid.
func mustFormat(t testing.TB, w [isa.InstNBytes]byte, g isa.Generation) string {
	t.Helper()
	line, err := Format(w, g)
	if err != nil {
		t.Fatalf("Format(%v): %v", g, err)
	}
	return line
}

// Format refuses an invalid generation (its addresses would be in no generation's map) with
// isa's *GenerationError, as the parsers do.
func TestFormatInvalidGeneration(t *testing.T) {
	w, err := ParseLine("COPY src_mem_pattern=sbuf:1:0x0[32@1] dst_mem_pattern=sbuf:2:0x0[32@1] num_active_channels=32", isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []isa.Generation{isa.GenInvalid, isa.MAVERICK + 1} {
		line, err := Format(w, g)
		var ge *isa.GenerationError
		if line != "" || !errors.As(err, &ge) || fault.Rule(err) != isa.RuleGeneration || !errors.Is(err, fault.ErrInvalid) {
			t.Errorf("Format(%v) = %q, %v", g, line, err)
		}
	}
}
