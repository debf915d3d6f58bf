// Package jsonkeys refuses what encoding/json reads silently: a key given twice in one object
// (the decoder keeps the last) and a key that matches a struct field only when case is ignored.
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/tpbsim/tpbsim/fault"
	"reflect"
	"strings"
)

// Error is a finding: Path is the key's dotted path ("events.wait_idx"), Msg what is wrong.
type Error struct{ Path, Msg string }

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// ErrPath is the key's path (fault.Pathed); the callers' errors carry the rule of their form.
func (e *Error) ErrPath() string { return e.Path }

// Unwrap gives the category: a key given twice or misspelt is an invalid input.
func (e *Error) Unwrap() error { return fault.ErrInvalid }

// Check reads the JSON value in data token by token and returns an *Error for a key given twice
// in one object, or (where t, the Go type the value will be decoded into, names a struct at that
// level) a key that matches a field only when case is ignored ("OPA" for "opa"). t may be nil
// (maps, any): then only repeated keys are refused. Unknown keys and type errors are left to the
// decoder, and so is a text that is not JSON (Check returns nil for it).
func Check(data []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(t reflect.Type, at string) error
	walk = func(t reflect.Type, at string) error {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			fields := map[string]reflect.Type{}
			if t != nil && t.Kind() == reflect.Struct {
				for i := 0; i < t.NumField(); i++ {
					f := t.Field(i)
					name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
					if name == "-" || !f.IsExported() {
						continue
					}
					if name == "" {
						name = f.Name
					}
					fields[name] = f.Type
				}
			}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				if seen[k] {
					return &Error{Path: at + k, Msg: "key given twice in one object"}
				}
				seen[k] = true
				ft, ok := fields[k]
				if !ok {
					for name := range fields {
						if strings.EqualFold(name, k) {
							return &Error{Path: at + k, Msg: fmt.Sprintf("the key is spelled %q", name)}
						}
					}
				}
				if err := walk(ft, at+k+"."); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			var et reflect.Type
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				et = t.Elem()
			}
			for dec.More() {
				if err := walk(et, at); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := walk(t, ""); err != nil {
		if ke, ok := err.(*Error); ok {
			return ke
		}
		return nil // not JSON: the decoder says why
	}
	return nil
}
