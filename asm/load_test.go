package asm_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/asm"
	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// Load reads each form by its name, else by its content, and names the file in every error.
func TestLoad(t *testing.T) {
	word, err := asm.ParseLine("COPY in=FP32 out=FP32 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]", isa.CAYMAN)
	if err != nil {
		t.Fatal(err)
	}
	text := "COPY in=FP32 out=FP32 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]\n"
	json := string(asm.ToJSON(word, isa.CAYMAN))
	for _, tc := range []struct {
		name, path string
		data       []byte
		gen        isa.Generation
		pinned     bool
		form       asm.Form
		wantGen    isa.Generation
		words      int
		err        string // substring of the error; "" for none
		category   error
	}{
		{"bin", "p.bin", word[:], isa.CAYMAN, false, asm.FormWords, isa.CAYMAN, 1, "", nil},
		{"text", "p.s", []byte(text), isa.CAYMAN, false, asm.FormText, isa.CAYMAN, 1, "", nil},
		{"json by name", "p.json", []byte(json), isa.CAYMAN, false, asm.FormJSON, isa.CAYMAN, 1, "", nil},
		{"json under .tpb", "p.tpb", []byte(" [" + json + "]"), isa.CAYMAN, false, asm.FormJSON, isa.CAYMAN, 1, "", nil},
		{"words without a name", "<stdin>", word[:], isa.CAYMAN, false, asm.FormWords, isa.CAYMAN, 1, "", nil},
		{"text without a name", "<stdin>", []byte(text), isa.CAYMAN, false, asm.FormText, isa.CAYMAN, 1, "", nil},
		{"BOM stripped", "p.s", append([]byte{0xEF, 0xBB, 0xBF}, text...), isa.CAYMAN, false, asm.FormText, isa.CAYMAN, 1, "", nil},
		{".gen line wins", "p.s", []byte(".gen MARIANA\n" + text), isa.CAYMAN, false, asm.FormText, isa.MARIANA, 1, "", nil},
		{".gen against a pinned gen", "p.s", []byte(".gen MARIANA\n" + text), isa.CAYMAN, true, 0, 0, 0, "p.s:1: gen: the file says .gen MARIANA but --gen is CAYMAN", fault.ErrInvalid},
		{"NUL in text", "p.s", append([]byte(text), 0), isa.CAYMAN, false, 0, 0, 0, "p.s looks binary (a NUL byte at offset 0x49)", fault.ErrInvalid},
		{"UTF-16 text", "p.s", []byte{0xFF, 0xFE, 'C', 0, 'O', 0, 'P', 0, 'Y', 0, '\n', 0}, isa.CAYMAN, false, 0, 0, 0, "p.s is UTF-16 text (its byte-order mark); tpbsim reads .s text as UTF-8", fault.ErrInvalid},
		{"text under .bin", "p.bin", []byte(text), isa.CAYMAN, false, 0, 0, 0, "the file looks like text", fault.ErrTruncated},
		{"bad source line", "p.s", []byte("NOPE\n"), isa.CAYMAN, false, 0, 0, 0, "p.s:1:", fault.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := asm.Load(tc.path, tc.data, tc.gen, tc.pinned)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, tc.category) {
					t.Fatalf("err = %v (category %v), want %q of %v", err, fault.Category(err), tc.err, tc.category)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w0 := f.Word(0); f.Form != tc.form || f.Gen != tc.wantGen || f.Len() != tc.words || w0 != word {
				t.Errorf("form %v gen %v len %d word0 % x; want %v %v %d % x", f.Form, f.Gen, f.Len(), w0[:8], tc.form, tc.wantGen, tc.words, word[:8])
			}
			if f.Engine(0) != isa.OpCOPY.Engine() {
				t.Errorf("engine %v, want %v", f.Engine(0), isa.OpCOPY.Engine())
			}
		})
	}
}

func ExampleLoad() {
	src := []byte(".gen MARIANA\n.engine ACT\nCOPY in=FP32 out=FP32 nac=32 src=sbuf:0:0x0[32@1] dst=sbuf:0:0x100[32@1]\n")
	f, err := asm.Load("prog.tpb", src, isa.DefaultGeneration, false)
	if err != nil {
		panic(err)
	}
	fmt.Println(f.Form, f.Gen, f.Len(), f.Engine(0), f.Where(0))
	_, err = asm.Load("prog.tpb", src, isa.CAYMAN, true)
	fmt.Println(err)
	// Output:
	// text MARIANA 1 ACT  prog.tpb:3
	// prog.tpb:1: gen: the file says .gen MARIANA but --gen is CAYMAN (drop --gen: the file's generation is used)
}

// A *LoadError's path is the file, then its cause's ("p.bin: word[2]" for a length), through a
// caller's wrapping; its rule is the cause's, else asm.form.
func TestLoadErrorPath(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		data       []byte
		rule, want string
		kind       error
	}{
		{"length", "p.bin", make([]byte, 64*2+5), isa.RuleInstNBytes, "p.bin: word[2]", fault.ErrTruncated},
		{"NUL in text", "p.s", []byte("COPY\x00\n"), asm.RuleForm, "p.s", fault.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := asm.Load(tc.path, tc.data, isa.CAYMAN, false)
			w := fmt.Errorf("tpbsim: %w", err)
			var le *asm.LoadError
			if !errors.As(w, &le) || fault.Rule(w) != tc.rule || fault.Path(w) != tc.want || fault.Category(w) != tc.kind {
				t.Errorf("%v: rule %q path %q category %v", err, fault.Rule(w), fault.Path(w), fault.Category(w))
			}
		})
	}
}

// The zero Form is no form (FormNone), what FormOf gives beside an error; every value prints.
func TestFormZeroIsNone(t *testing.T) {
	var zero asm.Form
	if zero != asm.FormNone || zero.String() != "none" {
		t.Errorf("zero Form = %v", zero)
	}
	if f, err := asm.FormOf("p.s", []byte("COPY\x00")); err == nil || f != asm.FormNone {
		t.Errorf("FormOf on a refused file = %v, %v", f, err)
	}
	for f, want := range map[asm.Form]string{asm.FormWords: "words", asm.FormText: "text", asm.FormJSON: "JSON", -1: "Form(-1)", 9: "Form(9)"} {
		if got := f.String(); got != want {
			t.Errorf("Form(%d).String() = %q, want %q", int(f), got, want)
		}
	}
}
