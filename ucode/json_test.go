package ucode

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
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

// TestCheckJSONKeys: what encoding/json reads silently is refused: a key given twice (it kept
// the last) and a key in another case (it matched "OPCODE_TABLE" to opcode_table).
func TestCheckJSONKeys(t *testing.T) {
	head := `{"format":"tpbsim.dtable/1","gen":"gen2","set":"d","tables":["datapath_table"],`
	for _, c := range []struct{ js, want string }{
		{`{"format":"tpbsim.dtable/1","gen":"gen2","gen":"gen3","set":"d","tables":[]}`, `gen: key given twice`},
		{head + `"datapath_table":[{"block":1,"lanes":[{"lane":0,"word":"0x1","word":"0x2"}]}]}`, `datapath_table.lanes.word: key given twice`},
		{head + `"DATAPATH_TABLE":[]}`, `DATAPATH_TABLE: the key is spelled "datapath_table"`},
		{head + `"datapath_table":[{"block":1,"lanes":[{"lane":0,"fields":{"OPA":1}}]}]}`, `datapath_table.lanes.fields.OPA: the key is spelled "opa"`},
	} {
		_, err := DecodeJSON([]byte(c.js))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.js, err, c.want)
		}
	}
	// The same keys once each, in the right case, decode; text that is not JSON is left to the
	// decoder.
	if _, err := DecodeJSON([]byte(head + `"datapath_table":[{"block":1,"lanes":[{"lane":0,"word":"0x1"}]}]}`)); err != nil {
		t.Error(err)
	}
	if err := CheckJSONKeys([]byte(`{"a":`), reflect.TypeOf(SetJSON{})); err != nil {
		t.Errorf("truncated JSON: %v", err)
	}
}

// TestSetNameAndNumbers: a set name must be a file-name part (encode wrote "../x" outside the
// output folder, "" as unreadable "_opcode_table.bin"), and a number string without 0x is
// decimal (it was read as hex).
func TestSetNameAndNumbers(t *testing.T) {
	js := func(set, word string) []byte {
		q, _ := json.Marshal(set)
		return []byte(`{"format":"tpbsim.dtable/1","gen":"gen2","set":` + string(q) +
			`,"tables":["datapath_table"],"datapath_table":[{"block":1,"lanes":[{"lane":0,"word":"` + word + `"}]}]}`)
	}
	for _, set := range []string{"", ".", "..", "../x", `a\b`, "a/b", "a\x00b", "a\nb"} {
		if _, err := DecodeJSON(js(set, "0x1")); err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "set: ") {
			t.Errorf("set %q: err %v", set, err)
		}
	}
	for word, want := range map[string]LaneWord{"100": 100, "0x100": 0x100, "0X1f": 0x1f} {
		s, err := DecodeJSON(js("d", word))
		if err != nil || s.Datapath.Blocks[1][0] != want {
			t.Errorf("word %q: %v %#x, want %#x", word, err, s.Datapath.Blocks[1][0], want)
		}
	}
	for _, word := range []string{"1f", "0x", "-1", "0x-1", "1_000"} {
		if _, err := DecodeJSON(js("d", word)); err == nil {
			t.Errorf("word %q accepted", word)
		}
	}
}
