package isa

import (
	"bufio"
	hexenc "encoding/hex"
	"os"
	"strings"
	"testing"
)

const rulesGolden = "../testdata/isa/rules.txt"

// TestGoldenRules reads testdata/isa/rules.txt: one word per line, `HEX<TAB>GEN RULES` where
// RULES is "valid" or the comma-separated ids of the rules the word breaks on GEN; GEN@ENGINE
// validates the word as queued on ENGINE (isa.ValidateOn). The file is kept by hand, never
// rewritten from the validator's output: each line is a claim the validator must meet (its words
// are the valid bases and one-rule mutations of rules_test.go, each breaking the rule the
// mutation names; TestGoldenWordsDecodeAsC holds the bytes to gcc's reading).
func TestGoldenRules(t *testing.T) {
	n := 0
	for _, file := range []string{rulesGolden, "../testdata/isa/rules_hand.txt"} {
		t.Run(file, func(t *testing.T) { n += checkRulesFile(t, file) })
	}
	if n < 100 {
		t.Errorf("only %d golden words", n)
	}
}

func checkRulesFile(t *testing.T, rulesGolden string) int {
	f, err := os.Open(rulesGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for ln := 1; sc.Scan(); ln++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hx, rest, ok := strings.Cut(line, "\t")
		genS, want, ok2 := strings.Cut(rest, " ")
		b, err := hexenc.DecodeString(hx)
		if !ok || !ok2 || err != nil || len(b) != 64 {
			t.Fatalf("%s:%d: malformed line", rulesGolden, ln)
		}
		genS, engS, on := strings.Cut(genS, "@")
		g, err := ParseGeneration(genS)
		if err != nil {
			t.Fatalf("%s:%d: %v", rulesGolden, ln, err)
		}
		eng := EngineNone
		if on {
			if eng, err = ParseEngine(engS); err != nil {
				t.Fatalf("%s:%d: %v", rulesGolden, ln, err)
			}
		}
		inst, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(ruleSet(ValidateOn(inst, g, eng)), ",")
		if got == "" {
			got = "valid"
		}
		if got != want {
			t.Errorf("%s:%d: %v: got %s, want %s", rulesGolden, ln, g, got, want)
		}
		if w := Encode(inst); string(w[:]) != string(b) {
			t.Errorf("%s:%d: round trip differs", rulesGolden, ln)
		}
		n++
	}
	return n
}

// TestGoldenRulesAreTheMutations: rules.txt lists every one-rule mutation of rules_test.go with
// the rule the mutation is written to break (the hand-written name, not the validator's verdict).
func TestGoldenRulesAreTheMutations(t *testing.T) {
	words, rest := goldenWords(t, rulesGolden)
	listed := map[string]string{}
	for k, w := range words {
		on, rules, _ := strings.Cut(rest[k], " ")
		listed[hexenc.EncodeToString(w[:])+" "+on] = rules
	}
	for _, m := range allMutations() {
		i := buildBase(t, m.base)
		m.mut(i)
		w := Encode(i)
		on := m.gen.String()
		if m.eng != EngineNone {
			on += "@" + m.eng.String()
		}
		key := hexenc.EncodeToString(w[:]) + " " + on
		t.Run(m.rule+"/"+m.base+"@"+on, func(t *testing.T) {
			got, ok := listed[key]
			if !ok {
				t.Errorf("the mutation's word is not in %s", rulesGolden)
			} else if got != m.rule {
				t.Errorf("%s says %s", rulesGolden, got)
			}
		})
	}
}
