// Package npy reads and writes NumPy .npy files (format versions 1.0, 2.0 and 3.0): the array
// adapter behind `tpbsim run --load/--dump` (DESIGN.md §7). Only what tpbsim needs is supported:
// C-order arrays of fixed-size numeric dtypes (bool, u1..u8, i1..i8, f2, f4, f8). Big-endian
// arrays are byte-swapped to little-endian on read; Fortran-order arrays are rejected with an
// error that says how to fix them. Data is returned as raw little-endian bytes, which is how the
// machine's memory stores elements.
//
// The format: magic "\x93NUMPY", major, minor, a little-endian header length (u16 for v1, u32 for
// v2/v3), then an ASCII (v3: UTF-8) Python dict literal {'descr': ..., 'fortran_order': ...,
// 'shape': (...)} padded with spaces and a final '\n' so the data starts 64-byte aligned.
package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/isa"
)

// FormatError is a malformed or unsupported .npy input. It unwraps to fault.ErrTruncated when
// the file ends early and to fault.ErrInvalid otherwise; its rule is RuleFormat, its path the
// part of the file at fault (Field).
type FormatError struct {
	// Field is the part of the file: "preamble" (the magic), "version", "header_len", "header", a
	// key of the header ("descr", "fortran_order", "shape") or "data".
	Field     string
	Msg       string
	Truncated bool
}

// RuleFormat is the rule a refused file breaks: the .npy format (versions 1.0 to 3.0) of a
// C-order array of a dtype tpbsim reads.
const RuleFormat = "npy.format"

func (e *FormatError) Error() string  { return "npy: bad or unsupported file: " + e.Msg }
func (e *FormatError) RuleID() string { return RuleFormat }

// ErrPath is the part of the file at fault (Field); the caller adds the file's name.
func (e *FormatError) ErrPath() string { return e.Field }
func (e *FormatError) Unwrap() error {
	if e.Truncated {
		return fault.ErrTruncated
	}
	return fault.ErrInvalid
}

func formatErr(field, format string, args ...any) error {
	return &FormatError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

func truncatedErr(field, format string, args ...any) error {
	return &FormatError{Field: field, Msg: fmt.Sprintf(format, args...), Truncated: true}
}

// maxHeader bounds the header length so a crafted file cannot make the reader allocate much.
const maxHeader = 1 << 20

// maxData bounds the array size the reader accepts (4 GiB).
const maxData = 1 << 32

// Array is a decoded .npy array: its element type (numpy's descr without the byte-order
// character, e.g. "f4", "u2", "b1"), its shape, and its data as little-endian bytes in C order.
type Array struct {
	Dtype string
	Shape []int
	Data  []byte
}

// ItemSize is the element size in bytes of a descr such as "f4" (0 for an unknown one).
func ItemSize(dtype string) int {
	switch dtype {
	case "b1", "u1", "i1":
		return 1
	case "u2", "i2", "f2":
		return 2
	case "u4", "i4", "f4":
		return 4
	case "u8", "i8", "f8":
		return 8
	}
	return 0
}

// Len is the number of elements (the product of the shape; 1 for a 0-d array).
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Read decodes a whole .npy stream.
func Read(r io.Reader) (*Array, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, truncatedErr("preamble", "short preamble: %v", err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, formatErr("preamble", "missing \\x93NUMPY magic")
	}
	major := pre[6]
	var hlen int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, truncatedErr("header_len", "short header length: %v", err)
		}
		hlen = int(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, truncatedErr("header_len", "short header length: %v", err)
		}
		v := binary.LittleEndian.Uint32(b[:])
		if v > maxHeader {
			return nil, formatErr("header_len", "header length %d too large", v)
		}
		hlen = int(v)
	default:
		return nil, formatErr("version", "format version %d.%d not supported", major, pre[7])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, truncatedErr("header", "short header: %v", err)
	}
	descr, fortran, shape, err := parseHeader(string(hdr))
	if err != nil {
		return nil, err
	}
	if fortran {
		return nil, formatErr("fortran_order", "fortran_order arrays are not supported (save np.ascontiguousarray(a))")
	}
	order, typ, err := splitDescr(descr)
	if err != nil {
		return nil, err
	}
	size := ItemSize(typ)
	n := uint64(1)
	for _, d := range shape {
		if d > 0 && n > maxData/uint64(size)/uint64(d) {
			return nil, formatErr("shape", "array of shape %v is larger than %d bytes", shape, uint64(maxData))
		}
		n *= uint64(d)
	}
	// Grow the buffer as the data arrives rather than trusting the header's shape up front: a
	// small crafted file with a huge declared shape fails on its short data without allocating it.
	need := n * uint64(size)
	var buf bytes.Buffer
	buf.Grow(int(min(need, 64<<20)))
	if got, err := io.CopyN(&buf, r, int64(need)); err != nil {
		return nil, truncatedErr("data", "data shorter than shape %v x %d bytes (%d of %d bytes): %v", shape, size, got, need, err)
	}
	data := buf.Bytes()
	if order == '>' && size > 1 {
		swap(data, size)
	}
	return &Array{Dtype: typ, Shape: shape, Data: data}, nil
}

// Write encodes a as a version 1.0 .npy file (version 2.0 if the header does not fit in 64 KiB).
func Write(w io.Writer, a *Array) error {
	size := ItemSize(a.Dtype)
	if size == 0 {
		return formatErr("descr", "dtype %q", a.Dtype)
	}
	if len(a.Data) != a.Len()*size {
		return fmt.Errorf("npy: data is %d bytes, shape %v of %s needs %d", len(a.Data), a.Shape, a.Dtype, a.Len()*size)
	}
	hdr, err := Header(a.Dtype, a.Shape)
	if err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err = w.Write(a.Data)
	return err
}

// Header is what a .npy file of an array of dtype and shape holds before its data (the
// preamble, the header length and the padded header), as Write writes it: a caller that reads
// a large array straight into a buffer after these bytes encodes it without a second copy.
func Header(dtype string, shape []int) ([]byte, error) {
	size := ItemSize(dtype)
	if size == 0 {
		return nil, formatErr("descr", "dtype %q", dtype)
	}
	order := "<"
	if size == 1 {
		order = "|"
	}
	var sh strings.Builder
	sh.WriteByte('(')
	for i, d := range shape {
		if i > 0 {
			sh.WriteString(", ")
		}
		sh.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		sh.WriteByte(',')
	}
	sh.WriteByte(')')
	dict := fmt.Sprintf("{'descr': '%s%s', 'fortran_order': False, 'shape': %s, }", order, dtype, sh.String())
	major, lenBytes := 1, 2
	if len(dict)+1+10 > 65535 {
		major, lenBytes = 2, 4
	}
	pre := 6 + 2 + lenBytes
	total := pre + len(dict) + 1
	pad := (64 - total%64) % 64
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY")
	b.WriteByte(byte(major))
	b.WriteByte(0)
	if lenBytes == 2 {
		binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	} else {
		binary.Write(&b, binary.LittleEndian, uint32(len(hdr)))
	}
	b.WriteString(hdr)
	return b.Bytes(), nil
}

func swap(b []byte, size int) {
	for i := 0; i+size <= len(b); i += size {
		for l, r := i, i+size-1; l < r; l, r = l+1, r-1 {
			b[l], b[r] = b[r], b[l]
		}
	}
}

func splitDescr(d string) (byte, string, error) {
	if len(d) < 2 {
		return 0, "", formatErr("descr", "descr %q", d)
	}
	order, typ := d[0], d[1:]
	switch order {
	case '<', '>', '|', '=':
	default:
		order, typ = '=', d
	}
	if typ == "?" {
		typ = "b1"
	}
	if ItemSize(typ) == 0 {
		name := ""
		if n := numpyName(typ); n != "" {
			name = " (" + n + ")"
		}
		return 0, "", formatErr("descr", "dtype %q%s not supported: tpbsim reads bool, uint8..uint64, int8..int64 and float16/32/64; "+
			"convert the array in numpy first, e.g. np.save(f, a.astype(np.float32))", d, name)
	}
	if order == '=' {
		order = '<' // tpbsim runs on little-endian hosts; '=' in a file means the writer's native order
	}
	return order, typ, nil
}

// numpyName names a dtype tpbsim does not read, by numpy's type code and size ("c8" complex64),
// or "" for a code it does not know.
func numpyName(typ string) string {
	if typ == "" {
		return ""
	}
	bits := ""
	if n, err := strconv.Atoi(typ[1:]); err == nil && n > 0 {
		bits = strconv.Itoa(8 * n)
	}
	switch typ[0] {
	case 'c':
		return "complex" + bits
	case 'f':
		return "float" + bits
	case 'i':
		return "int" + bits
	case 'u':
		return "uint" + bits
	case 'O':
		return "object: Python objects"
	case 'U':
		return "unicode string"
	case 'S', 'a':
		return "byte string"
	case 'V':
		return "void: raw or structured records"
	case 'M':
		return "datetime64"
	case 'm':
		return "timedelta64"
	}
	return ""
}

// parseHeader reads the Python dict literal of a .npy header. It accepts the keys in any order,
// single or double quotes, and trailing commas, as numpy's own writer and other writers emit.
func parseHeader(h string) (descr string, fortran bool, shape []int, err error) {
	p := &lit{s: strings.TrimSpace(h)}
	bad := func(field, why string) error { return formatErr(field, "header %q: %s", h, why) }
	if !p.eat('{') {
		return "", false, nil, bad("header", "not a dict")
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, ok := p.str()
		if !ok {
			return "", false, nil, bad("header", "bad key")
		}
		p.space()
		if !p.eat(':') {
			return "", false, nil, bad("header", "missing ':'")
		}
		p.space()
		switch key {
		case "descr":
			if descr, ok = p.str(); !ok {
				return "", false, nil, bad("descr", "descr is not a string (structured dtypes are not supported)")
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				fortran = true
			case p.word("False"):
				fortran = false
			default:
				return "", false, nil, bad("fortran_order", "fortran_order is not True/False")
			}
		case "shape":
			if shape, ok = p.tuple(); !ok {
				return "", false, nil, bad("shape", "bad shape tuple")
			}
		default:
			return "", false, nil, bad("header", "unknown key "+strconv.Quote(key))
		}
		seen[key] = true
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return "", false, nil, bad("header", "missing ',' or '}'")
			}
			break
		}
	}
	if !seen["descr"] || !seen["shape"] {
		return "", false, nil, bad("header", "missing descr or shape")
	}
	return descr, fortran, shape, nil
}

type lit struct {
	s string
	i int
}

func (p *lit) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *lit) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *lit) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

func (p *lit) str() (string, bool) {
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", false
	}
	q := p.s[p.i]
	j := strings.IndexByte(p.s[p.i+1:], q)
	if j < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+j]
	p.i += j + 2
	return v, true
}

func (p *lit) tuple() ([]int, bool) {
	if !p.eat('(') {
		return nil, false
	}
	shape := []int{}
	for {
		p.space()
		if p.eat(')') {
			return shape, true
		}
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j == p.i {
			return nil, false
		}
		// numpy may print Python longs as 3L in old files.
		v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
		if err != nil || v < 0 || v > 1<<40 {
			return nil, false
		}
		shape = append(shape, int(v))
		p.i = j
		p.eat('L')
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, false
			}
			return shape, true
		}
	}
}

// Provenance is the registry entry of the format rule (tpbsim explain npy.format).
func Provenance() []isa.Provenance {
	return []isa.Provenance{isa.Rule(RuleFormat,
		"A .npy file tpbsim reads is format version 1.0, 2.0 or 3.0, C order, of a fixed-size numeric dtype (bool, uint8..uint64, int8..int64, float16/32/64), its header within 1 MiB and its data the whole shape (at most 4 GiB).",
		"DESIGN.md §7 (.npy), the NumPy .npy format specification", isa.Invented, []string{"descr", "fortran_order", "shape"},
		"the rule id is tpbsim's: the subset is what the machine's element types can hold, and the size bounds keep a crafted file from making the reader allocate much")}
}
