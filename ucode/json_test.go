package ucode

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestJSONRoundTripFixtures(t *testing.T) {
	for _, name := range FixtureNames() {
		s := mustFixture(t, name)
		js, err := MarshalJSONSet(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeJSON(js)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, got := s.Files(), back.Files()
		if len(want) != len(got) {
			t.Fatalf("%s: %d tables back, want %d", name, len(got), len(want))
		}
		for tb, data := range want {
			if !bytes.Equal(got[tb], data) {
				t.Errorf("%s: %s not byte-identical", name, tb)
			}
		}
	}
}

func TestJSONErrors(t *testing.T) {
	s := mustFixture(t, "gen2/default")
	js, _ := MarshalJSONSet(s)
	cases := []struct {
		name, from, to, msg string
	}{
		{"word vs fields", `"word": "0x71d6000"`, `"word": "0x71d6001"`, "disagrees with its fields"},
		{"raw vs rows", `"raw": "0x9cf"`, `"raw": "0x9ce"`, "raw 0x9ce disagrees"},
		{"unknown key", `"k": 8`, `"depth": 8`, "unknown field"},
		{"lane range", `"lane": 7`, `"lane": 9`, "lane out of range"},
		{"field width", `"stage": 7`, `"stage": 9`, "STAGE=0x9 does not fit"},
		{"format", JSONFormat, "other/1", "format"},
		{"gen", `"gen": "gen2"`, `"gen": "gen9"`, "gen"},
	}
	for _, c := range cases {
		bad := strings.Replace(string(js), c.from, c.to, 1)
		if bad == string(js) {
			t.Fatalf("%s: %q not in the JSON", c.name, c.from)
		}
		if _, err := DecodeJSON([]byte(bad)); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.msg)
		}
	}
	// Found by FuzzDecodeJSON's checks (its trailing-object seed): a second object, or any text,
	// after the set was ignored.
	for _, tail := range []string{"{}", "x", `{"format":"tpbsim.dtable/1","set":"y","gen":"gen2","tables":[]}`} {
		if _, err := DecodeJSON(append(bytes.Clone(js), tail...)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "after the set's object") {
			t.Errorf("JSON followed by %q: err %v", tail, err)
		}
	}
	if _, err := DecodeJSON(append(bytes.Clone(js), " \n\t"...)); err != nil {
		t.Errorf("JSON followed by white space: %v", err)
	}
	if _, err := DecodeJSON([]byte(`{"format":"tpbsim.dtable/1","set":"x","gen":"gen2","tables":[],"opcode_table":[{"op":1,"fast_row":1,"slow_row":0}]}`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("entries for an unlisted table: %v", err)
	}
}
