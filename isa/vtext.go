package isa

import (
	"fmt"
	"strconv"
)

// The text of violations without fmt on the validation path. A rule writes the value found and
// what is legal either as a static string (field paths, fixed legal sets, small numbers and
// enum names from the tables below) or into the Validator's scratch buffer; Validator.Append
// turns the buffer into one string at the end (one allocation per invalid word, none for a
// valid one) and points the violations' Value / Legal at substrings of it. The text is
// byte-for-byte what the fmt formatting it replaces produced.

// txt is a Value or Legal under construction: s, or the span [a, b) of vctx.buf when b > a.
type txt struct {
	s    string
	a, b int32
}

func lit(s string) txt { return txt{s: s} }

// pending records a violation whose Value and/or Legal is a span of vctx.buf (a == b: static).
type pending struct {
	i              int
	va, vb, la, lb int32
}

// failT appends a violation whose value / legal may be spans of the scratch buffer.
func (v *vctx) failT(field string, value, legal txt) {
	v.out = append(v.out, Violation{Rule: v.rule, Field: field, Value: value.s, Legal: legal.s, Offset: v.offset(field)})
	if value.b > value.a || legal.b > legal.a {
		if v.pend == nil {
			v.pend = make([]pending, 0, 16)
		}
		v.pend = append(v.pend, pending{i: len(v.out) - 1, va: value.a, vb: value.b, la: legal.a, lb: legal.b})
	}
}

// finish materialises the pending texts (one string for the whole call) and resets the scratch.
func (v *vctx) finish() []Violation {
	if len(v.pend) > 0 {
		s := string(v.buf)
		for _, p := range v.pend {
			o := &v.out[p.i]
			if p.vb > p.va {
				o.Value = s[p.va:p.vb]
			}
			if p.lb > p.la {
				o.Legal = s[p.la:p.lb]
			}
		}
		v.pend = v.pend[:0]
	}
	v.buf = v.buf[:0]
	return v.out
}

// mark starts a text in the scratch buffer; since ends it.
func (v *vctx) mark() int32 {
	if v.buf == nil {
		v.buf = make([]byte, 0, 1024)
	}
	return int32(len(v.buf))
}

func (v *vctx) since(m int32) txt { return txt{a: m, b: int32(len(v.buf))} }

// Writers of the scratch buffer (between mark and since).
func (v *vctx) s(s string) *vctx  { v.buf = append(v.buf, s...); return v }
func (v *vctx) d(x int64) *vctx   { v.buf = strconv.AppendInt(v.buf, x, 10); return v }
func (v *vctx) ud(x uint64) *vctx { v.buf = strconv.AppendUint(v.buf, x, 10); return v }
func (v *vctx) hx(x uint64) *vctx {
	v.buf = append(v.buf, "0x"...)
	v.buf = strconv.AppendUint(v.buf, x, 16)
	return v
}
func (v *vctx) lc(l Location) *vctx { v.buf = appendLocation(v.buf, l); return v }

// num is pre + decimal x + suf (fmt "%d").
func (v *vctx) num(pre string, x int64, suf string) txt {
	m := v.mark()
	v.s(pre).d(x).s(suf)
	return v.since(m)
}

// unum is num for unsigned values.
func (v *vctx) unum(pre string, x uint64, suf string) txt {
	m := v.mark()
	v.s(pre).ud(x).s(suf)
	return v.since(m)
}

// dec is fmt.Sprint of an integer (static below 256).
func (v *vctx) dec(x int64) txt {
	if x >= 0 && x < 256 {
		return lit(decStrings[x])
	}
	return v.num("", x, "")
}

// udec is dec for unsigned values.
func (v *vctx) udec(x uint64) txt {
	if x < 256 {
		return lit(decStrings[x])
	}
	return v.unum("", x, "")
}

// hex is fmt.Sprintf("0x%x", x) (static below 256).
func (v *vctx) hex(x uint64) txt {
	if x < 256 {
		return lit(hexStrings[x])
	}
	m := v.mark()
	v.hx(x)
	return v.since(m)
}

// loc is l.String().
func (v *vctx) loc(l Location) txt {
	m := v.mark()
	v.lc(l)
	return v.since(m)
}

// appendLocation appends Location.String() to b.
func appendLocation(b []byte, l Location) []byte {
	switch l.Space {
	case SpaceSBUF, SpacePSUM:
		b = append(b, l.Space.String()...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(l.Partition), 10)
		b = append(b, ":0x"...)
		return strconv.AppendUint(b, l.Offset, 16)
	case SpaceHBM:
		b = append(b, "hbm:0x"...)
		return strconv.AppendUint(b, l.Offset, 16)
	case SpaceReg:
		b = append(b, "reg:"...)
		return strconv.AppendUint(b, l.Offset, 10)
	}
	b = append(b, "0x"...)
	return strconv.AppendUint(b, l.Offset, 16)
}

// ---- static tables ------------------------------------------------------------------------

// decStrings[x] is fmt.Sprint(x), hexStrings[x] "0x%x", hex2Strings[x] "0x%02x", regStrings[x] "reg:%d".
var decStrings, hexStrings, hex2Strings, regStrings = func() (d, h, h2, r [256]string) {
	for x := range d {
		d[x] = strconv.Itoa(x)
		h[x] = "0x" + strconv.FormatUint(uint64(x), 16)
		h2[x] = fmt.Sprintf("0x%02x", x)
		r[x] = "reg:" + d[x]
	}
	return
}()

// fmtEnum renders an enum value for a violation: its name, or 0x%02x when it has none; a kind
// that is no enum prints the number.
func fmtEnum(k ValueKind, x uint64) string {
	if n, ok := EnumName(k, x); ok {
		return n
	}
	if k.IsEnum() && x < 256 {
		return hex2Strings[x]
	}
	if k.IsEnum() {
		return fmt.Sprintf("0x%02x", x)
	}
	return strconv.FormatUint(x, 10)
}

// idxPaths returns base[0] .. base[n-1].
func idxPaths(base string, n int) []string {
	out := make([]string, n)
	for k := range out {
		out[k] = base + "[" + strconv.Itoa(k) + "]"
	}
	return out
}

// Static field paths of array elements.
var (
	pathReserved1         = idxPaths("reserved1", 5)
	pathReserved0         = idxPaths("reserved0", 17)
	pathImmediate         = idxPaths("immediate", 32)
	pathReserved          = idxPaths("reserved", 3)
	pathSrcPatternNumElem = idxPaths("src_mem_pattern.num_elem", 4)
	pathDstPatternNumElem = idxPaths("dst_mem_pattern.num_elem", 4)
	pathSrcNumElem        = idxPaths("src_num_elem", 2)
	pathDstNumElem        = idxPaths("dst_num_elem", 2)
)

// fieldOffsets[k][path] is Layout(k).Offset(path) for every field, array element, tensor and
// group path of struct kind k: one map lookup per violation instead of Offset's parsing.
var fieldOffsets = func() (t [numStructKinds]map[string]int) {
	for k := range layoutTable {
		l := &layoutTable[k]
		m := map[string]int{}
		add := func(p string) { m[p] = l.Offset(p) }
		for _, f := range l.Fields {
			add(f.Path)
			for _, p := range idxPaths(f.Path, f.Count) {
				add(p)
			}
			for j := range f.Path {
				if f.Path[j] == '.' {
					add(f.Path[:j])
				}
			}
		}
		for _, tp := range l.Tensors {
			add(tp.Path)
		}
		t[k] = m
	}
	return
}()

// offset is v.lay.Offset(field), from fieldOffsets when the path is there.
func (v *vctx) offset(field string) int {
	if o, ok := v.offs[field]; ok {
		return o
	}
	return v.lay.Offset(field)
}
