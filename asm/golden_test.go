package asm

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/isa"
)

const disasmGolden = "../testdata/isa/disasm.txt"

// TestGoldenDisasm reads testdata/isa/disasm.txt: `HEX<TAB>disassembly` on CAYMAN, one word a
// line; the disassembly must match and assemble back to the same bytes. The file is kept by
// hand, never rewritten from the disassembler's output; isa's TestGoldenDisasmSaysWhatCReads
// holds every line to what gcc reads in its word.
func TestGoldenDisasm(t *testing.T) {
	f, err := os.Open(disasmGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	n := 0
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hx, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s:%d: malformed", disasmGolden, ln)
		}
		w := mustWord(t, hx)
		t.Run(fmt.Sprintf("line %d", ln), func(t *testing.T) {
			if got := mustFormat(t, w, isa.CAYMAN); got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
			back, err := ParseLine(want, isa.CAYMAN)
			if err != nil || back != w {
				t.Errorf("does not assemble back: %v", err)
			}
		})
		n++
	}
	if n < 100 {
		t.Errorf("only %d vectors", n)
	}
}

func mustWord(t *testing.T, hx string) [64]byte {
	b, err := hex.DecodeString(hx)
	if err != nil || len(b) != 64 {
		t.Fatalf("bad hex %q", hx)
	}
	var w [64]byte
	copy(w[:], b)
	return w
}

// TestNegativeFixtures reads testdata/asm/errors.txt: `SOURCE<TAB>expected error`, one case a
// line (`\n` in SOURCE is a line break); the error must contain the expected text.
func TestNegativeFixtures(t *testing.T) {
	data, err := os.ReadFile("../testdata/asm/errors.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ln, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		src, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("errors.txt:%d: malformed", ln+1)
		}
		src = strings.ReplaceAll(src, `\n`, "\n")
		t.Run(fmt.Sprintf("line %d", ln+1), func(t *testing.T) {
			var err error
			if strings.HasPrefix(strings.TrimSpace(src), "{") || strings.HasPrefix(strings.TrimSpace(src), "[") {
				_, err = ParseJSON("f.json", []byte(src), isa.CAYMAN)
			} else {
				_, err = ParseProgram("f.s", []byte(src), isa.CAYMAN)
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%q: got %v, want %q", src, err, want)
			}
		})
		n++
	}
	if n < 10 {
		t.Errorf("only %d cases", n)
	}
}
