package ucode

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tpbsim/tpbsim/fault"
)

// TestJSONRoundTripFixtures is the whole-table round trip: every synthetic set through its JSON
// form and back, byte for byte (the fuzz targets round-trip the parts their inputs touch).
func TestJSONRoundTripFixtures(t *testing.T) {
	for _, name := range FixtureNames() {
		t.Run(name, func(t *testing.T) {
			s := mustFixture(t, name)
			js, err := MarshalJSONSet(s)
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeJSON(js)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := s.Files()
			got, err := back.Files()
			if err != nil || len(want) != len(got) {
				t.Fatalf("%d tables back (%v), want %d", len(got), err, len(want))
			}
			for tb, data := range want {
				if !bytes.Equal(got[tb], data) {
					t.Errorf("%s not byte-identical", tb)
				}
			}
		})
	}
}

// TestJSONControlRowKeys: the control rows' fields use the snake_case keys of the rest of the
// form (they were Name / Bytes / Value).
func TestJSONControlRowKeys(t *testing.T) {
	js, err := MarshalJSONSet(mustFixture(t, "gen4/default"))
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Fast []struct {
			Fields []map[string]any `json:"fields"`
		} `json:"control_fast_table"`
	}
	if err := json.Unmarshal(js, &raw); err != nil || len(raw.Fast) == 0 || len(raw.Fast[0].Fields) == 0 {
		t.Fatalf("%v: %d rows", err, len(raw.Fast))
	}
	for k := range raw.Fast[0].Fields[0] {
		if k != strings.ToLower(k) {
			t.Errorf("key %q is not snake_case", k)
		}
	}
	if !bytes.Contains(js, []byte(`"name": "step_config"`)) || bytes.Contains(js, []byte(`"Name"`)) {
		t.Error("control row fields are not keyed name / bytes / value")
	}
}

func TestJSONErrors(t *testing.T) {
	s := mustFixture(t, "gen2/default")
	js, err := MarshalJSONSet(s)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, from, to, rule, msg string
	}{
		{"word vs fields", `"word": "0x71d6000"`, `"word": "0x71d6001"`, RuleJSONAgree, "disagrees with its fields"},
		{"raw vs rows", `"raw": "0x9cf"`, `"raw": "0x9ce"`, RuleJSONAgree, "op[102]: raw = 0x9ce, legal: 0x9cf: disagrees with fast_row 79"},
		{"unknown key", `"k": 8`, `"depth": 8`, RuleJSONSyntax, "unknown field"},
		{"lane range", `"lane": 7`, `"lane": 9`, RuleJSONIndex, "lane[9], legal: 0..7: out of range"},
		{"field width", `"stage": 7`, `"stage": 9`, RuleLaneField, "STAGE = 0x9, legal: 0..0x7: does not fit 3 bits"},
		{"format", JSONFormat, "other/1", RuleJSONFormat, `format = "other/1"`},
		{"gen", `"gen": "gen2"`, `"gen": "gen9"`, RuleTableGen, `gen = "gen9"`},
		{"old control-row keys", `"name": "lane_mode"`, `"Name": "lane_mode"`, RuleJSONSyntax, `the key is spelled "name"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := strings.Replace(string(js), c.from, c.to, 1)
			if bad == string(js) {
				t.Fatalf("%q not in the JSON", c.from)
			}
			if _, err := DecodeJSON([]byte(bad)); fault.Rule(err) != c.rule || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err %v, want rule %s and %q", err, c.rule, c.msg)
			}
		})
	}
	// Found by FuzzDecodeJSON's checks (its trailing-object seed): a second object, or any text,
	// after the set was ignored.
	for _, tail := range []string{"{}", "x", `{"format":"tpbsim.dtable/1","set":"y","gen":"gen2","tables":[]}`} {
		t.Run("tail "+tail, func(t *testing.T) {
			if _, err := DecodeJSON(append(bytes.Clone(js), tail...)); fault.Rule(err) != RuleJSONSyntax || !strings.Contains(err.Error(), "after the set's object") {
				t.Errorf("err %v", err)
			}
		})
	}
	t.Run("white space tail", func(t *testing.T) {
		if _, err := DecodeJSON(append(bytes.Clone(js), " \n\t"...)); err != nil {
			t.Error(err)
		}
	})
	t.Run("unlisted table", func(t *testing.T) {
		if _, err := DecodeJSON([]byte(`{"format":"tpbsim.dtable/1","set":"x","gen":"gen2","tables":[],"opcode_table":[{"op":1,"fast_row":1,"slow_row":0}]}`)); fault.Rule(err) != RuleJSONTables {
			t.Errorf("entries for an unlisted table: %v", err)
		}
	})
}

// TestCheckJSONKeys: what encoding/json reads silently is refused: a key given twice (it kept
// the last) and a key in another case (it matched "OPCODE_TABLE" to opcode_table).
func TestCheckJSONKeys(t *testing.T) {
	head := `{"format":"tpbsim.dtable/1","gen":"gen2","set":"d","tables":["datapath_table"],`
	for _, c := range []struct{ name, js, want string }{
		{"gen twice", `{"format":"tpbsim.dtable/1","gen":"gen2","gen":"gen3","set":"d","tables":[]}`, `gen: key given twice`},
		{"word twice", head + `"datapath_table":[{"block":1,"lanes":[{"lane":0,"word":"0x1","word":"0x2"}]}]}`, `datapath_table.lanes.word: key given twice`},
		{"table key case", head + `"DATAPATH_TABLE":[]}`, `DATAPATH_TABLE: the key is spelled "datapath_table"`},
		{"field key case", head + `"datapath_table":[{"block":1,"lanes":[{"lane":0,"fields":{"OPA":1}}]}]}`, `datapath_table.lanes.fields.OPA: the key is spelled "opa"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeJSON([]byte(c.js))
			if fault.Rule(err) != RuleJSONSyntax || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
	// The same keys once each, in the right case, decode; text that is not JSON is left to the
	// decoder.
	t.Run("clean", func(t *testing.T) {
		if _, err := DecodeJSON([]byte(head + `"datapath_table":[{"block":1,"lanes":[{"lane":0,"word":"0x1"}]}]}`)); err != nil {
			t.Error(err)
		}
		if err := CheckJSONKeys([]byte(`{"a":`), reflect.TypeOf(SetJSON{})); err != nil {
			t.Errorf("truncated JSON: %v", err)
		}
	})
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
		t.Run("set "+set, func(t *testing.T) {
			if _, err := DecodeJSON(js(set, "0x1")); fault.Rule(err) != RuleSetName || fault.Path(err) != "set" {
				t.Errorf("err %v", err)
			}
		})
	}
	for word, want := range map[string]LaneWord{"100": 100, "0x100": 0x100, "0X1f": 0x1f} {
		t.Run("word "+word, func(t *testing.T) {
			s, err := DecodeJSON(js("d", word))
			if err != nil || s.Datapath.Blocks[1][0] != want {
				t.Errorf("%v, want %#x", err, want)
			}
		})
	}
	for _, word := range []string{"1f", "0x", "-1", "0x-1", "1_000"} {
		t.Run("bad word "+word, func(t *testing.T) {
			if _, err := DecodeJSON(js("d", word)); fault.Rule(err) != RuleJSONNumber || fault.Path(err) != "datapath_table: block[1]: lane[0]: word" {
				t.Errorf("err %v (path %q)", err, fault.Path(err))
			}
		})
	}
}
