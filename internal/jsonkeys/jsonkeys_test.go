package jsonkeys

import (
	"reflect"
	"testing"
)

type inner struct {
	OPA int `json:"opa"`
}

type outer struct {
	Name  string  `json:"name"`
	Lanes []inner `json:"lanes"`
	In    *inner  `json:"in"`
}

func TestCheck(t *testing.T) {
	ot := reflect.TypeOf(outer{})
	for _, c := range []struct {
		data string
		t    reflect.Type
		path string // "" = no finding
		msg  string
	}{
		{`{"a":1,"b":{"c":2}}`, nil, "", ""},
		{`{"a":1,"a":2}`, nil, "a", "key given twice in one object"},
		{`{"a":{"b":1,"b":2}}`, nil, "a.b", "key given twice in one object"},
		{`[{"x":1},{"x":1,"x":2}]`, nil, "x", "key given twice in one object"},
		{`{"a":[{"b":1},{"b":1}]}`, nil, "", ""}, // the same key in sibling objects is fine
		{`{"name":"n","lanes":[{"opa":1},{"OPA":2}]}`, ot, "lanes.OPA", `the key is spelled "opa"`},
		{`{"in":{"Opa":1}}`, ot, "in.Opa", `the key is spelled "opa"`},
		{`{"NAME":"n"}`, nil, "", ""}, // no type: case is not checked
		{`{"unknown":1}`, ot, "", ""}, // unknown keys are the decoder's business
		{`{"a":`, nil, "", ""},        // not JSON: the decoder reports it
	} {
		t.Run(c.data, func(t *testing.T) {
			err := Check([]byte(c.data), c.t)
			if c.path == "" {
				if err != nil {
					t.Errorf("%v, want no finding", err)
				}
				return
			}
			e, ok := err.(*Error)
			if !ok || e.Path != c.path || e.Msg != c.msg {
				t.Errorf("%v, want %s: %s", err, c.path, c.msg)
			}
		})
	}
}
