// Package kernel runs NKI-level kernels on the tpbsim machine (issue 11): the JSON kernel form a
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

// Parse reads a kernel form. Unknown keys, a key given twice in one object, trailing data and a
// wrong format or version are refused (a malformed *Error) with where they are.
func Parse(data []byte) (*Kernel, error) {
	if err := checkDuplicateKeys(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var k Kernel
	if err := dec.Decode(&k); err != nil {
		return nil, formErr("", "kernel.form.json", "%s", jsonErrText(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, formErr("", "kernel.form.json", "trailing data after the kernel object")
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
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	return fmt.Sprintf("line %d (byte %d): %s", line, off, msg)
}

// checkDuplicateKeys refuses an object that names a key twice (encoding/json keeps the last).
func checkDuplicateKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		obj  bool
		keys map[string]bool
		next bool // the next string token is a key
	}
	var st []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return nil // the decoder proper reports syntax errors with their line
		}
		var top *frame
		if len(st) > 0 {
			top = st[len(st)-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top != nil && top.obj {
					top.next = true
				}
				st = append(st, &frame{obj: t == '{', keys: map[string]bool{}, next: t == '{'})
			default:
				st = st[:len(st)-1]
				if len(st) > 0 && st[len(st)-1].obj {
					st[len(st)-1].next = true
				}
			}
			continue
		case string:
			if top != nil && top.obj && top.next {
				if top.keys[t] {
					off := dec.InputOffset()
					line := 1 + bytes.Count(data[:off], []byte{'\n'})
					return formErr("", "kernel.form.duplicate_key", "line %d: key %q given twice in one object", line, t)
				}
				top.keys[t] = true
				top.next = false
				continue
			}
		}
		if top != nil && top.obj {
			top.next = true
		}
	}
}

// checkStructure checks what the form itself requires: ids in range, shapes and patterns well
// formed, the keys each op needs. What the NKI rules or the machine refuse is the lowering's.
func (k *Kernel) checkStructure() error {
	if len(k.Tensors) == 0 {
		return formErr("tensors", "kernel.form.tensor", "empty: a kernel has at least one tensor")
	}
	for i := range k.Tensors {
		t := &k.Tensors[i]
		p := fmt.Sprintf("tensors[%d]", i)
		if len(t.Shape) == 0 {
			return formErr(p+".shape", "kernel.form.tensor", "empty (tensor %q)", t.Name)
		}
		n := int64(1)
		for j, d := range t.Shape {
			if d < 1 {
				return formErr(fmt.Sprintf("%s.shape[%d]", p, j), "kernel.form.tensor", "%d (tensor %q): every extent is at least 1", d, t.Name)
			}
			n *= int64(d)
			if n > 1<<40 {
				return formErr(p+".shape", "kernel.form.tensor", "%v (tensor %q): more than 2^40 elements", t.Shape, t.Name)
			}
		}
		switch t.Buffer {
		case BufHBM, BufSharedHBM, BufPrivateHBM, BufSBUF, BufPSUM:
		default:
			return formErr(p+".buffer", "kernel.form.tensor", "%q (tensor %q); legal: hbm, shared_hbm, private_hbm, sbuf, psum", t.Buffer, t.Name)
		}
		switch t.Kind {
		case "", "internal":
			if t.File != "" || t.Arg != nil {
				return formErr(p, "kernel.form.tensor", "tensor %q has \"file\" or \"arg\" but is not an input", t.Name)
			}
		case "input":
			if t.onChip() {
				return formErr(p+".buffer", "kernel.form.tensor", "input %q is in %s: kernel arguments are HBM tensors", t.Name, t.Buffer)
			}
		default:
			return formErr(p+".kind", "kernel.form.tensor", "%q (tensor %q); legal: input, internal", t.Kind, t.Name)
		}
		switch t.Encoding {
		case "", "native", "raw", "float32":
		default:
			return formErr(p+".encoding", "kernel.form.tensor", "%q (tensor %q); legal: native, raw, float32", t.Encoding, t.Name)
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
		p := fmt.Sprintf("calls[%d]", i)
		need := map[string]bool{}
		switch c.Op {
		case OpDMACopy, OpDMATranspose, OpLoadTranspose2D, OpStreamShuffle, OpTensorCopy:
			need["dst"], need["src"] = true, true
		case OpNCTranspose, OpTensorReduce, OpReciprocal:
			need["dst"], need["data"] = true, true
		case OpMemset:
			need["dst"] = true
			if c.Value == nil {
				return formErr(p+".value", "kernel.form.call", "missing (%s at %s)", c.name(), c.Loc)
			}
		default:
			return formErr(p+".op", "kernel.form.call", "%q (%s at %s) is not an op of the kernel form; legal: %s", c.Op, c.name(), c.Loc,
				strings.Join([]string{OpDMACopy, OpDMATranspose, OpLoadTranspose2D, OpNCTranspose, OpStreamShuffle, OpTensorReduce, OpTensorCopy, OpReciprocal, OpMemset}, ", "))
		}
		for _, v := range []struct {
			key string
			v   *View
		}{{"dst", c.Dst}, {"src", c.Src}, {"data", c.Data}} {
			switch {
			case need[v.key] && v.v == nil:
				return formErr(p+"."+v.key, "kernel.form.call", "missing (%s at %s)", c.name(), c.Loc)
			case !need[v.key] && v.v != nil:
				return formErr(p+"."+v.key, "kernel.form.call", "%s takes no %q operand (at %s)", c.Op, v.key, c.Loc)
			case v.v != nil:
				if err := k.checkView(p+"."+v.key, v.v, c, 0); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (k *Kernel) checkView(path string, v *View, c *Call, depth int) error {
	if v.Tensor < 0 || v.Tensor >= len(k.Tensors) {
		return formErr(path+".tensor", "kernel.form.view", "%d; legal 0..%d (%s at %s)", v.Tensor, len(k.Tensors)-1, c.name(), c.Loc)
	}
	if len(v.Pattern) == 0 {
		return formErr(path+".pattern", "kernel.form.view", "empty (%s at %s): a view has at least one axis", c.name(), c.Loc)
	}
	if len(v.Pattern) > 16 {
		return formErr(path+".pattern", "kernel.form.view", "%d axes (%s at %s): at most 16", len(v.Pattern), c.name(), c.Loc)
	}
	n := int64(1)
	for i, p := range v.Pattern {
		if p[1] < 1 || p[1] > 1<<32 {
			return formErr(fmt.Sprintf("%s.pattern[%d]", path, i), "kernel.form.view", "num %d (%s at %s): legal 1..2^32", p[1], c.name(), c.Loc)
		}
		if p[0] < -(1<<40) || p[0] > 1<<40 {
			return formErr(fmt.Sprintf("%s.pattern[%d]", path, i), "kernel.form.view", "step %d (%s at %s) out of range", p[0], c.name(), c.Loc)
		}
		if n *= p[1]; n > 1<<40 {
			return formErr(path+".pattern", "kernel.form.view", "more than 2^40 elements (%s at %s)", c.name(), c.Loc)
		}
	}
	if v.Offset < -(1<<40) || v.Offset > 1<<40 {
		return formErr(path+".offset", "kernel.form.view", "%d (%s at %s) out of range", v.Offset, c.name(), c.Loc)
	}
	if v.Indirect != nil {
		if depth > 0 {
			return formErr(path+".indirect", "kernel.form.view", "an index view is itself indirect (%s at %s)", c.name(), c.Loc)
		}
		if v.Indirect.Dim < 0 || v.Indirect.Dim >= len(v.Pattern) {
			return formErr(path+".indirect.dim", "kernel.form.view", "%d; legal 0..%d (%s at %s)", v.Indirect.Dim, len(v.Pattern)-1, c.name(), c.Loc)
		}
		return k.checkView(path+".indirect.index", &v.Indirect.Index, c, depth+1)
	}
	return nil
}
