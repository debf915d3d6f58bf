package isa

import "testing"

func TestPickViolation(t *testing.T) {
	vs := []Violation{
		{Rule: "a", Field: "dtype.dtype_lo"},
		{Rule: "b", Field: "src_num_elem[1]"},
		{Rule: "c", Field: "dst_start_addr"},
	}
	cases := []struct {
		name, rule, field string
		want              string // the rule of the pick, "" for none
	}{
		{"the rule wins over an earlier field match", "c", "dtype", "c"},
		{"a part of the field", "x", "dtype", "a"},
		{"the field a part is of", "x", "src_num_elem", "b"},
		{"the field itself", "x", "dst_start_addr", "c"},
		{"a name that only shares a prefix", "x", "dst_start", ""},
		{"no field", "x", "", ""},
		{"nothing", "x", "elem_size", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := PickViolation(vs, c.rule, c.field)
			if ok != (c.want != "") || v.Rule != c.want {
				t.Errorf("PickViolation(%q, %q) = %q, %v; want %q", c.rule, c.field, v.Rule, ok, c.want)
			}
		})
	}
}
