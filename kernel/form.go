// Package kernel runs NKI-level kernels on the tpbsim machine: the JSON kernel form a
// front end records (FORMAT.md), allocation of its tensors per generation, lowering of every
// call to the ISA instructions and DMA descriptors the machine executes, the semaphores a
// compiler would insert between engines, NKI-level constraint checks per release, and the run
// that hands the outputs back. The lowered program is an ordinary sim.Program: `tpbsim run`
// executes its assembly text to the same bytes.
package kernel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// FormatName and FormatVersion identify the kernel form (FORMAT.md).
const (
	FormatName    = "tpbsim.kernel"
	FormatVersion = 1
)

// Kernel is one recorded NKI kernel (FORMAT.md).
type Kernel struct {
	Format     string   `json:"format"`
	Version    int      `json:"version"`
	Name       string   `json:"name"`
	Source     string   `json:"source,omitempty"`
	API        string   `json:"api,omitempty"`
	Gen        string   `json:"gen,omitempty"`
	NKIVersion string   `json:"nki_version,omitempty"`
	Tensors    []Tensor `json:"tensors"`
	Calls      []Call   `json:"calls"`
	Outputs    []int    `json:"outputs"`
}

// Tensor is one tensor of a kernel: an argument, an output or an internal tile.
type Tensor struct {
	Name      string `json:"name"`
	Shape     []int  `json:"shape"`
	DType     string `json:"dtype"`
	Buffer    string `json:"buffer"`
	Kind      string `json:"kind,omitempty"`
	Arg       *int   `json:"arg,omitempty"`
	File      string `json:"file,omitempty"`
	Encoding  string `json:"encoding,omitempty"`
	Writeback bool   `json:"writeback,omitempty"`
	Loc       string `json:"loc,omitempty"`
}

// Buffers of a tensor.
const (
	BufHBM        = "hbm"
	BufSharedHBM  = "shared_hbm"
	BufPrivateHBM = "private_hbm"
	BufSBUF       = "sbuf"
	BufPSUM       = "psum"
)

func (t *Tensor) onChip() bool { return t.Buffer == BufSBUF || t.Buffer == BufPSUM }

// Elements is the product of the shape.
func (t *Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= int64(d)
	}
	return n
}

// View is an affine walk over a tensor's row-major element index (FORMAT.md "Views").
type View struct {
	Tensor   int        `json:"tensor"`
	Offset   int64      `json:"offset"`
	Pattern  [][2]int64 `json:"pattern"`
	Indirect *Indirect  `json:"indirect,omitempty"`
}

// Indirect replaces the position along pattern axis Dim by the values of the Index view.
type Indirect struct {
	Index View `json:"index"`
	Dim   int  `json:"dim"`
}

// Shape is the view's shape: the nums of its pattern.
func (v *View) Shape() []int {
	s := make([]int, len(v.Pattern))
	for i, p := range v.Pattern {
		s[i] = int(p[1])
	}
	return s
}

// Elements is the number of elements the view walks.
func (v *View) Elements() int64 {
	n := int64(1)
	for _, p := range v.Pattern {
		n *= p[1]
	}
	return n
}

// Call is one recorded NKI call (FORMAT.md "Calls"). Which keys apply depends on Op.
type Call struct {
	Op          string  `json:"op"`
	Call        string  `json:"call,omitempty"`
	Loc         string  `json:"loc,omitempty"`
	Dst         *View   `json:"dst,omitempty"`
	Src         *View   `json:"src,omitempty"`
	Data        *View   `json:"data,omitempty"`
	DstRMWOp    *string `json:"dst_rmw_op,omitempty"`
	OOBMode     string  `json:"oob_mode,omitempty"`
	DGEMode     *string `json:"dge_mode,omitempty"`
	Engine      *string `json:"engine,omitempty"`
	Axes        []int   `json:"axes,omitempty"`
	ShuffleMask []int   `json:"shuffle_mask,omitempty"`
	ReduceOp    string  `json:"reduce_op,omitempty"`
	Axis        []int   `json:"axis,omitempty"`
	Negate      bool    `json:"negate,omitempty"`
	Keepdims    bool    `json:"keepdims,omitempty"`
	Value       *Number `json:"value,omitempty"`
}

// Number is a memset value: a JSON number, or one of the strings "nan", "inf", "-inf" (JSON
// has no literal for them).
type Number float64

// UnmarshalJSON reads a number or one of the three non-finite strings.
func (n *Number) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "nan":
			*n = Number(math.NaN())
		case "inf":
			*n = Number(math.Inf(1))
		case "-inf":
			*n = Number(math.Inf(-1))
		default:
			return fmt.Errorf("value %q: want a number or \"nan\", \"inf\", \"-inf\"", s)
		}
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("value %s: want a number or \"nan\", \"inf\", \"-inf\"", b)
	}
	*n = Number(f)
	return nil
}

// MarshalJSON writes the non-finite values as their strings.
func (n Number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f):
		return []byte(`"nan"`), nil
	case math.IsInf(f, 1):
		return []byte(`"inf"`), nil
	case math.IsInf(f, -1):
		return []byte(`"-inf"`), nil
	}
	return json.Marshal(f)
}

// Ops of the subset (FORMAT.md).
const (
	OpDMACopy         = "dma_copy"
	OpDMATranspose    = "dma_transpose"
	OpLoadTranspose2D = "load_transpose2d"
	OpNCTranspose     = "nc_transpose"
	OpStreamShuffle   = "nc_stream_shuffle"
	OpTensorReduce    = "tensor_reduce"
	OpTensorCopy      = "tensor_copy"
	OpReciprocal      = "reciprocal"
	OpMemset          = "memset"
)

// name is what messages call the call: the user's name when recorded.
func (c *Call) name() string {
	if c.Call != "" {
		return c.Call
	}
	return c.Op
}

// Parse reads a kernel form. Unknown keys (and keys that match only when case is ignored), a
// key given twice in one object, trailing data and a wrong format or version are refused (a
// malformed *Error) with where they are: the JSON errors name their line and byte.
func Parse(data []byte) (*Kernel, error) {
	if err := checkKeys(data, reflect.TypeOf(Kernel{})); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var k Kernel
	if err := dec.Decode(&k); err != nil {
		return nil, formErr("", "kernel.form.json", "%s", jsonErrText(data, err))
	}
	if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
		off += int64(len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n")))
		return nil, formErr("", "kernel.form.json", "%s: data after the kernel object", lineByte(data, off))
	}
	if k.Format != FormatName {
		return nil, formErr("format", "kernel.form.format", "%q; want %q", k.Format, FormatName)
	}
	if k.Version != FormatVersion {
		return nil, formErr("version", "kernel.form.format", "%d; this tpbsim reads version %d", k.Version, FormatVersion)
	}
	if err := k.checkStructure(); err != nil {
		return nil, err
	}
	return &k, nil
}

// lineByte names byte offset off of data as "line N (byte off)" (off counts the bytes before it,
// as encoding/json's offsets do).
func lineByte(data []byte, off int64) string {
	off = max(0, min(off, int64(len(data))))
	return fmt.Sprintf("line %d (byte %d)", 1+bytes.Count(data[:off], []byte{'\n'}), off)
}

// jsonErrText names the line and byte of a JSON decoding error. An input that ends inside the
// object (encoding/json's bare "unexpected EOF") is named at its end.
func jsonErrText(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	msg := err.Error()
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off, msg = int64(len(data)), "unexpected EOF: the input ends inside the kernel object (an unclosed object, array or string)"
	case errors.Is(err, io.EOF):
		off, msg = int64(len(data)), "unexpected EOF: no kernel object (the input is empty or only white space)"
	}
	if off < 0 || off > int64(len(data)) {
		return msg
	}
	return lineByte(data, off) + ": " + msg
}

// checkKeys reads the JSON value in data token by token beside the Go type t it decodes into, and
// refuses, naming the key's path, line and byte, what encoding/json would read silently or
// without a line: a key given twice in one object (it keeps the last), a key that matches a field
// only when case is ignored (it takes it), a key the type does not have, and a memset value that
// is neither a number nor "nan", "inf", "-inf". A text that is not JSON is left to the decoder,
// which names the line of its syntax error.
func checkKeys(data []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	numberType := reflect.TypeOf(Number(0))
	var walk func(t reflect.Type, path string) (error, bool)
	// walk reads one value; false: the text is not JSON (the decoder reports it).
	walk = func(t reflect.Type, path string) (error, bool) {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		start := tokenStart(data, dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if t == numberType {
			s, isStr := tok.(string)
			if _, isNum := tok.(float64); !isNum && tok != nil && (!isStr || s != "nan" && s != "inf" && s != "-inf") {
				return formErr(strings.TrimSuffix(path, "."), "kernel.form.json", "%s: value %v: want a number or \"nan\", \"inf\", \"-inf\"",
					lineByte(data, start), tok), true
			}
			return nil, true
		}
		switch tok {
		case json.Delim('{'):
			fields := jsonFields(t)
			seen := map[string]bool{}
			for dec.More() {
				at := lineByte(data, tokenStart(data, dec.InputOffset()))
				kt, err := dec.Token()
				if err != nil {
					return nil, false
				}
				k, _ := kt.(string)
				if seen[k] {
					return formErr(path+k, "kernel.form.key", "%s: key %q given twice in one object", at, k), true
				}
				seen[k] = true
				ft, ok := fields[k]
				if fields != nil && !ok {
					names := make([]string, 0, len(fields))
					for n := range fields {
						if strings.EqualFold(n, k) {
							return formErr(path+k, "kernel.form.key", "%s: key %q; the form's key is %q (keys are case-sensitive)", at, k, n), true
						}
						names = append(names, n)
					}
					sort.Strings(names)
					return formErr(path+k, "kernel.form.key", "%s: unknown key %q (legal: %s)", at, k, strings.Join(names, ", ")), true
				}
				if err, ok := walk(ft, path+k+"."); err != nil || !ok {
					return err, ok
				}
			}
			_, err := dec.Token()
			return nil, err == nil
		case json.Delim('['):
			var et reflect.Type
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				et = t.Elem()
			}
			for i := 0; dec.More(); i++ {
				if err, ok := walk(et, strings.TrimSuffix(path, ".")+"["+strconv.Itoa(i)+"]."); err != nil || !ok {
					return err, ok
				}
			}
			_, err := dec.Token()
			return nil, err == nil
		}
		return nil, true
	}
	err, _ := walk(t, "")
	return err
}

// tokenStart is where the next token starts from decoder offset off: past white space and the
// ':' or ',' before it.
func tokenStart(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n:,", data[off]) >= 0 {
		off++
	}
	return off
}

// jsonFields maps the JSON keys of struct type t onto their types; nil when t is not a struct.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// checkStructure checks what the form itself requires: ids in range, shapes and patterns well
// formed, the keys each op needs. What the NKI rules or the machine refuse is the lowering's.
func (k *Kernel) checkStructure() error {
	if len(k.Tensors) == 0 {
		return formErr("tensors", "kernel.form.tensor", "empty: a kernel has at least one tensor")
	}
	for i := range k.Tensors {
		t := &k.Tensors[i]
		p := func() string { return "tensors[" + strconv.Itoa(i) + "]" }
		if len(t.Shape) == 0 {
			return formErr(p()+".shape", "kernel.form.tensor", "empty (tensor %q)", t.Name)
		}
		n := int64(1)
		for j, d := range t.Shape {
			if d < 1 {
				return formErr(fmt.Sprintf("%s.shape[%d]", p(), j), "kernel.form.tensor", "%d (tensor %q): every extent is at least 1", d, t.Name)
			}
			n *= int64(d)
			if n > 1<<40 {
				return formErr(p()+".shape", "kernel.form.tensor", "%v (tensor %q): more than 2^40 elements", t.Shape, t.Name)
			}
		}
		switch t.Buffer {
		case BufHBM, BufSharedHBM, BufPrivateHBM, BufSBUF, BufPSUM:
		default:
			return formErr(p()+".buffer", "kernel.form.tensor", "%q (tensor %q); legal: hbm, shared_hbm, private_hbm, sbuf, psum", t.Buffer, t.Name)
		}
		switch t.Kind {
		case "", "internal":
			if t.File != "" || t.Arg != nil {
				return formErr(p(), "kernel.form.tensor", "tensor %q has \"file\" or \"arg\" but is not an input", t.Name)
			}
		case "input":
			if t.onChip() {
				return formErr(p()+".buffer", "kernel.form.tensor", "input %q is in %s: kernel arguments are HBM tensors", t.Name, t.Buffer)
			}
		default:
			return formErr(p()+".kind", "kernel.form.tensor", "%q (tensor %q); legal: input, internal", t.Kind, t.Name)
		}
		switch t.Encoding {
		case "", "native", "raw", "float32":
		default:
			return formErr(p()+".encoding", "kernel.form.tensor", "%q (tensor %q); legal: native, raw, float32", t.Encoding, t.Name)
		}
	}
	for i, o := range k.Outputs {
		if o < 0 || o >= len(k.Tensors) {
			return formErr(fmt.Sprintf("outputs[%d]", i), "kernel.form.outputs", "tensor %d; legal 0..%d", o, len(k.Tensors)-1)
		}
		if k.Tensors[o].onChip() {
			return formErr(fmt.Sprintf("outputs[%d]", i), "kernel.form.outputs", "tensor %q is in %s: a kernel returns HBM tensors", k.Tensors[o].Name, k.Tensors[o].Buffer)
		}
	}
	for i := range k.Calls {
		c := &k.Calls[i]
		p := func() string { return "calls[" + strconv.Itoa(i) + "]" }
		var needDst, needSrc, needData bool
		switch c.Op {
		case OpDMACopy, OpDMATranspose, OpLoadTranspose2D, OpStreamShuffle, OpTensorCopy:
			needDst, needSrc = true, true
		case OpNCTranspose, OpTensorReduce, OpReciprocal:
			needDst, needData = true, true
		case OpMemset:
			needDst = true
			if c.Value == nil {
				return formErr(p()+".value", "kernel.form.call", "missing (%s at %s)", c.name(), c.Loc)
			}
		default:
			return formErr(p()+".op", "kernel.form.call", "%q (%s at %s) is not an op of the kernel form; legal: %s", c.Op, c.name(), c.Loc,
				strings.Join([]string{OpDMACopy, OpDMATranspose, OpLoadTranspose2D, OpNCTranspose, OpStreamShuffle, OpTensorReduce, OpTensorCopy, OpReciprocal, OpMemset}, ", "))
		}
		for _, v := range [...]struct {
			key  string
			v    *View
			need bool
		}{{"dst", c.Dst, needDst}, {"src", c.Src, needSrc}, {"data", c.Data, needData}} {
			switch {
			case v.need && v.v == nil:
				return formErr(p()+"."+v.key, "kernel.form.call", "missing (%s at %s)", c.name(), c.Loc)
			case !v.need && v.v != nil:
				return formErr(p()+"."+v.key, "kernel.form.call", "%s takes no %q operand (at %s)", c.Op, v.key, c.Loc)
			case v.v != nil:
				if err := k.checkView(i, v.key, v.v, c, 0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkView checks view v, operand key of call ci (its index view when depth is 1); the path an
// error names is built only for the error.
func (k *Kernel) checkView(ci int, key string, v *View, c *Call, depth int) error {
	path := func() string {
		p := "calls[" + strconv.Itoa(ci) + "]." + key
		if depth > 0 {
			p += ".indirect.index"
		}
		return p
	}
	if v.Tensor < 0 || v.Tensor >= len(k.Tensors) {
		return formErr(path()+".tensor", "kernel.form.view", "%d; legal 0..%d (%s at %s)", v.Tensor, len(k.Tensors)-1, c.name(), c.Loc)
	}
	if len(v.Pattern) == 0 {
		return formErr(path()+".pattern", "kernel.form.view", "empty (%s at %s): a view has at least one axis", c.name(), c.Loc)
	}
	if len(v.Pattern) > 16 {
		return formErr(path()+".pattern", "kernel.form.view", "%d axes (%s at %s): at most 16", len(v.Pattern), c.name(), c.Loc)
	}
	n := int64(1)
	for i, p := range v.Pattern {
		if p[1] < 1 || p[1] > 1<<32 {
			return formErr(fmt.Sprintf("%s.pattern[%d]", path(), i), "kernel.form.view", "num %d (%s at %s): legal 1..2^32", p[1], c.name(), c.Loc)
		}
		if p[0] < -(1<<40) || p[0] > 1<<40 {
			return formErr(fmt.Sprintf("%s.pattern[%d]", path(), i), "kernel.form.view", "step %d (%s at %s) out of range", p[0], c.name(), c.Loc)
		}
		if n *= p[1]; n > 1<<40 {
			return formErr(path()+".pattern", "kernel.form.view", "more than 2^40 elements (%s at %s)", c.name(), c.Loc)
		}
	}
	if v.Offset < -(1<<40) || v.Offset > 1<<40 {
		return formErr(path()+".offset", "kernel.form.view", "%d (%s at %s) out of range", v.Offset, c.name(), c.Loc)
	}
	if v.Indirect != nil {
		if depth > 0 {
			return formErr(path()+".indirect", "kernel.form.view", "an index view is itself indirect (%s at %s)", c.name(), c.Loc)
		}
		if v.Indirect.Dim < 0 || v.Indirect.Dim >= len(v.Pattern) {
			return formErr(path()+".indirect.dim", "kernel.form.view", "%d; legal 0..%d (%s at %s)", v.Indirect.Dim, len(v.Pattern)-1, c.name(), c.Loc)
		}
		return k.checkView(ci, key, &v.Indirect.Index, c, depth+1)
	}
	return nil
}
