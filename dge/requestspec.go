package dge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/jsonkeys"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// RuleRequestForm is the rule a request description breaks when it does not read as one request
// (SpecError): the JSON request form, or RequestSpec's fields (README "dge plan|run").
const RuleRequestForm = "dge_request_form"

// RequestSpec is a request as a person writes it: the tensor form (the row-major tensor of Shape
// at Src, written permuted by Perm, numpy axes, row-major at Dst: what `tpbsim dge --src ...
// --shape ...` takes) or a general pair of views (SrcView, DstView, dim 0 innermost, steps in
// elements), plus the DGE's registers. The JSON request form (`dge --request FILE.json`) is
// this struct's JSON; DecodeRequestJSON reads it, Request turns a spec into a Request.
type RequestSpec struct {
	Gen          string    `json:"gen,omitempty"` // a generation name; "" is CAYMAN (isa.DefaultGeneration)
	Src          string    `json:"src,omitempty"` // addresses: sbuf:P:OFF, psum:P:OFF, hbm:ADDR, or a device address
	Dst          string    `json:"dst,omitempty"`
	Shape        []int     `json:"shape,omitempty"`
	Perm         []int     `json:"perm,omitempty"`
	DType        string    `json:"dtype,omitempty"` // an element type name (num.ParseKind)
	OutDType     string    `json:"out_dtype,omitempty"`
	ComputeOp    string    `json:"compute_op,omitempty"` // ParseComputeOp
	DMAs         int       `json:"dmas,omitempty"`       // enable DMA engines 0..DMAs-1 (0: DMACfg's bits)
	DMACfg       RegValue  `json:"dma_cfg,omitempty"`
	CarveoutCfg  RegValue  `json:"carveout_cfg,omitempty"`
	Semaphore    *int      `json:"semaphore,omitempty"`
	SemIncrement int       `json:"sem_increment,omitempty"`
	SrcView      *ViewSpec `json:"src_view,omitempty"`
	DstView      *ViewSpec `json:"dst_view,omitempty"`

	// Flags makes messages name the fields as tpbsim's dge flags (--src, --out-dtype) instead
	// of as the JSON keys (src, out_dtype): the words of the form the spec was written in.
	Flags bool `json:"-"`
}

// ViewSpec is a view as written: base an address (AddrText), dim 0 innermost.
type ViewSpec struct {
	Base     AddrText `json:"base"`
	ElemSize uint32   `json:"elem_size"`
	NumElem  []uint32 `json:"num_elem"`
	StepElem []int64  `json:"step_elem"`
}

// AddrText is an address given as a JSON string ("hbm:0x0", "sbuf:1:0x40", "0x800000000000") or
// a JSON number (a raw device address); DeviceAddress reads it.
type AddrText string

// UnmarshalJSON takes a string as it is and a non-negative integer as its decimal text.
func (a *AddrText) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = AddrText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("address %s: want a string (\"hbm:0x0\") or a non-negative integer", b)
	}
	v, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		return fmt.Errorf("address %s: want a non-negative integer", b)
	}
	*a = AddrText(strconv.FormatUint(v, 10))
	return nil
}

// RegValue is a register value given as a JSON number or a string ("0x...", isa.ParseNumber).
type RegValue uint64

// UnmarshalJSON reads a number or a quoted number.
func (n *RegValue) UnmarshalJSON(b []byte) error {
	v, err := isa.ParseNumber(strings.Trim(string(b), `"`))
	if err != nil {
		return err
	}
	*n = RegValue(v)
	return nil
}

// SpecError is a request description that does not read as one request: a malformed or
// ambiguous JSON form (a key given twice, text after the object, the tensor form's fields
// beside the views), a missing field, a value of the wrong syntax, a semaphore without its
// increment. It is the writer's mistake, not a rule of the DGE: a request that reads but breaks
// one is an *Error. Msg is the whole message (naming the field); Err the cause, if any.
// Category fault.ErrInvalid, rule RuleRequestForm, path the field.
type SpecError struct {
	Path string
	Msg  string
	Err  error
}

func (e *SpecError) Error() string   { return e.Msg }
func (e *SpecError) RuleID() string  { return RuleRequestForm }
func (e *SpecError) ErrPath() string { return e.Path }

// Unwrap gives the category and the cause.
func (e *SpecError) Unwrap() []error {
	if e.Err == nil {
		return []error{fault.ErrInvalid}
	}
	return []error{fault.ErrInvalid, e.Err}
}

func specErr(path string, cause error, format string, args ...any) error {
	return &SpecError{Path: path, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// DecodeRequestJSON reads the JSON request form strictly: one object (a leading UTF-8 BOM is
// dropped), every key one of RequestSpec's, none given twice or spelt in another case, and
// nothing after the object. Errors are *SpecError.
func DecodeRequestJSON(data []byte) (*RequestSpec, error) {
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	if err := jsonkeys.Check(data, reflect.TypeOf(RequestSpec{})); err != nil {
		return nil, specErr("", err, "%v", err) // the path is the key's (*jsonkeys.Error)
	}
	s := &RequestSpec{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, specErr("", nil, "empty file (want one JSON object)")
		}
		return nil, specErr("", err, "%v", err)
	}
	// One request per file: a second object (or any other text) after it was ignored.
	if extra := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(extra) > 0 {
		return nil, specErr("", nil, "text after the request object at byte offset %d (the file holds one JSON object)", len(data)-len(extra))
	}
	return s, nil
}

// ParseRequestJSON reads the JSON request form (DecodeRequestJSON) into a Request
// (RequestSpec.Request). g, unless it is the zero Generation, replaces the file's "gen" (as
// `tpbsim dge --request FILE --gen G` does). A malformed description is a *SpecError; a request
// that reads but breaks a rule of the DGE's (a tensor that does not fit its partitions, a view of
// more than 2^40 elements) is an *Error under that rule.
func ParseRequestJSON(data []byte, g isa.Generation) (Request, error) {
	s, err := DecodeRequestJSON(data)
	if err != nil {
		return Request{}, err
	}
	if g != isa.GenInvalid {
		s.Gen = g.String()
	}
	return s.Request()
}

// ReadRequestFile reads a JSON request file (`tpbsim dge --request FILE.json`) with
// ParseRequestJSON, g overriding the file's "gen" unless it is isa.GenInvalid. A *SpecError
// names the file; an unreadable file is its *os.PathError.
func ReadRequestFile(path string, g isa.Generation) (Request, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Request{}, err
	}
	req, err := ParseRequestJSON(data, g)
	var se *SpecError
	if errors.As(err, &se) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return req, err
}

// name is how messages name a field given by its JSON key.
func (s *RequestSpec) name(key string) string {
	if s.Flags {
		return "--" + strings.ReplaceAll(key, "_", "-")
	}
	return key
}

// Request turns the spec into a Request, checking what the spec form requires (src_view and
// dst_view together and without the tensor form's src/dst/shape; the tensor form's four fields;
// 32-bit registers; dmas within the generation's engines and agreeing with dma_cfg; a semaphore
// with its increment). The errors are those of ParseRequestJSON.
func (s *RequestSpec) Request() (Request, error) {
	if err := checkRegs32(s.DMACfg, s.CarveoutCfg, s.name); err != nil {
		return Request{}, err
	}
	g := isa.DefaultGeneration
	if s.Gen != "" {
		var err error
		if g, err = isa.ParseGeneration(s.Gen); err != nil {
			return Request{}, specErr("gen", err, "%v", err)
		}
	}
	req, err := s.views(g)
	if err != nil {
		return req, err
	}
	if s.OutDType != "" {
		k, err := num.ParseKind(s.OutDType)
		if err != nil {
			return req, specErr("out_dtype", err, "%s: %v", s.name("out_dtype"), err)
		}
		if req.In == 0 {
			return req, specErr("out_dtype", nil, "%s needs %s", s.name("out_dtype"), s.name("dtype"))
		}
		req.Out = isa.DType(k)
		req.Dst.ElemSize = req.Src.ElemSize / uint32(req.In.Size()) * uint32(k.Size())
		if s.SrcView == nil { // re-lay the destination for the new element size
			dst, _ := DeviceAddress(s.Dst, g)
			dv, err := LayoutView(dst, req.Dst.ElemSize, PermutedShape(s.Shape, s.Perm), g)
			if err != nil {
				return req, err
			}
			req.Dst = dv
		}
	}
	if req.ComputeOp, err = ParseComputeOp(s.ComputeOp); err != nil {
		return req, specErr("compute_op", nil, "%s %q: want NONE, ADD, MULTIPLY, MAX or MIN", s.name("compute_op"), s.ComputeOp)
	}
	req.CarveoutCfg = uint32(s.CarveoutCfg)
	if req.DMACfg, err = withDMAs(g, s.DMAs, uint32(s.DMACfg), s.name); err != nil {
		return req, err
	}
	switch {
	case s.Semaphore != nil && s.SemIncrement == 0:
		// Without an increment the engines would signal nothing: the semaphore was dropped.
		return req, specErr("sem_increment", nil, "semaphore %d without sem_increment: give the total the engines add to it (1..255; it also caps the engines used)", *s.Semaphore)
	case s.Semaphore == nil && s.SemIncrement != 0:
		return req, specErr("semaphore", nil, "sem_increment %d without semaphore: name the semaphore (0..255) the engines add it to", s.SemIncrement)
	case s.Semaphore != nil:
		req.Semaphore, req.SemIncrement = *s.Semaphore, s.SemIncrement
	}
	return req, nil
}

// checkRegs32 refuses a dma_cfg or carveout_cfg past 32 bits (RequestSpec, IndexRequestSpec);
// name names a field by its JSON key.
func checkRegs32(dmaCfg, carveoutCfg RegValue, name func(string) string) error {
	for _, c := range []struct {
		key string
		v   RegValue
	}{{"dma_cfg", dmaCfg}, {"carveout_cfg", carveoutCfg}} {
		if c.v > 0xFFFFFFFF {
			return specErr(c.key, nil, "%s 0x%x: the register is 32 bits (max 0xffffffff)", name(c.key), uint64(c.v))
		}
	}
	return nil
}

// withDMAs is MEMCOPY_DMA_CFG with its DMA bitfield set to engines 0..dmas-1 (dmas 0: cfg as
// it is); dmas must be within generation g's engines and agree with cfg's own DMA bits
// (RequestSpec, IndexRequestSpec: one rule for both request forms).
func withDMAs(g isa.Generation, dmas int, cfg uint32, name func(string) string) (uint32, error) {
	if dmas == 0 {
		return cfg, nil
	}
	n := g.Geometry().DMAEngineCount
	if dmas < 1 || dmas > n {
		return cfg, specErr("dmas", nil, "%s %d: %v has %d DMA engines; give 1..%d, or leave it out for all of them", name("dmas"), dmas, g, n, n)
	}
	// dmas replaces MEMCOPY_DMA_CFG's DMA bitfield: another one given in dma_cfg would be
	// silently dropped.
	mask := uint32(1<<dmas - 1)
	if bits := cfg & 0xFFFF; bits != 0 && bits != mask {
		return cfg, specErr("dmas", nil, "%s %d enables DMA engines 0..%d (mask 0x%x) but %s 0x%x enables mask 0x%x: give one of them (or %s with the DMA bits 0)",
			name("dmas"), dmas, dmas-1, mask, name("dma_cfg"), cfg, bits, name("dma_cfg"))
	}
	return cfg&0xFFFF0000 | mask, nil
}

// views is the request's pair of views and dtypes: from src_view/dst_view, or laid out from the
// tensor form (TensorRequest).
func (s *RequestSpec) views(g isa.Generation) (Request, error) {
	if s.SrcView != nil || s.DstView != nil {
		if s.SrcView == nil || s.DstView == nil {
			return Request{}, specErr("src_view", nil, "src_view and dst_view go together")
		}
		// The tensor form's fields describe another request; beside the views they were ignored.
		for _, k := range []struct {
			name  string
			given bool
		}{{"src", s.Src != ""}, {"dst", s.Dst != ""}, {"shape", len(s.Shape) > 0}} {
			if k.given {
				return Request{}, specErr(k.name, nil, "%q is the flag form's; with src_view/dst_view the views are the request (drop %q)", k.name, k.name)
			}
		}
		sv, err := s.SrcView.view("src_view", g)
		if err != nil {
			return Request{}, err
		}
		dv, err := s.DstView.view("dst_view", g)
		if err != nil {
			return Request{}, err
		}
		req := Request{Gen: g, Src: sv, Dst: dv, Perm: s.Perm}
		if s.DType != "" {
			k, err := num.ParseKind(s.DType)
			if err != nil {
				return req, specErr("dtype", err, "%v", err)
			}
			req.In, req.Out = isa.DType(k), isa.DType(k)
		}
		return req, nil
	}
	var missing []string
	for _, m := range []struct {
		key   string
		given bool
	}{{"src", s.Src != ""}, {"dst", s.Dst != ""}, {"shape", len(s.Shape) > 0}, {"dtype", s.DType != ""}} {
		if !m.given {
			missing = append(missing, s.name(m.key))
		}
	}
	if len(missing) > 0 {
		alt := "src_view and dst_view"
		if s.Flags {
			alt = "--request FILE.json"
		}
		return Request{}, specErr(strings.TrimLeft(missing[0], "-"), nil, "missing %s: a request needs %s, %s, %s and %s (or %s)", strings.Join(missing, ", "),
			s.name("src"), s.name("dst"), s.name("shape"), s.name("dtype"), alt)
	}
	k, err := num.ParseKind(s.DType)
	if err != nil {
		return Request{}, specErr("dtype", err, "%s: %v", s.name("dtype"), err)
	}
	src, err := DeviceAddress(s.Src, g)
	if err != nil {
		return Request{}, specErr("src", err, "%s: %v", s.name("src"), err)
	}
	dst, err := DeviceAddress(s.Dst, g)
	if err != nil {
		return Request{}, specErr("dst", err, "%s: %v", s.name("dst"), err)
	}
	return TensorRequest(g, src, dst, s.Shape, s.Perm, isa.DType(k))
}

// view is the View of a ViewSpec; name is its key ("src_view").
func (v *ViewSpec) view(name string, g isa.Generation) (View, error) {
	a, err := DeviceAddress(string(v.Base), g)
	if err != nil {
		return View{}, specErr(name+".base", err, "%s.base: %v", name, err)
	}
	out := View{Base: a, ElemSize: v.ElemSize, NumElem: [4]uint32{1, 1, 1, 1}}
	if len(v.NumElem) > 4 || len(v.StepElem) != len(v.NumElem) {
		return out, specErr(name, nil, "%s: num_elem and step_elem need the same length, at most 4", name)
	}
	total := uint64(1)
	for k := range v.NumElem {
		out.NumElem[k], out.StepElem[k] = v.NumElem[k], v.StepElem[k]
		// View.Elements multiplies in 64 bits: 65536^4 wraps to 0 and would pass the planner's
		// 2^40 limit. Refuse it here by the same rule.
		if n := uint64(v.NumElem[k]); n > 0 && total > maxElements/n {
			return out, reqErr(RuleViewValid, name+".num_elem", "%s.num_elem %v: more than 2^40 elements", name, v.NumElem)
		}
		total *= uint64(v.NumElem[k])
	}
	return out, nil
}

// DeviceAddress reads an address of the CLI syntax (isa.ParseAddress: sbuf:P:OFF, psum:P:OFF,
// hbm:ADDR, or a number) as the device address the DGE works in (isa.addr8_address_map): HBM as
// its offset, SBUF/PSUM as DMALocalBase + the on-chip address of generation g, a raw number as
// it is. A raw number above the device address map, or a register address, is an error.
func DeviceAddress(s string, g isa.Generation) (uint64, error) {
	loc, err := isa.ParseAddress(s, g)
	if err != nil {
		return 0, err
	}
	switch loc.Space {
	case isa.SpaceSBUF, isa.SpacePSUM:
		a, _ := loc.OnChip(g)
		return isa.DMALocalBase + uint64(a), nil
	case isa.SpaceHBM:
		return loc.Offset, nil
	case isa.SpaceRaw:
		// Anything above DMALocalBase + a 29-bit on-chip address names no memory; the planner
		// would wrap it around 2^64 (0xffffffffffffffff + 1024 planned as address 0x3ff).
		if a := loc.Offset; a >= isa.DMALocalBase && a-isa.DMALocalBase > isa.TPBPartitionAddrMask {
			return 0, fmt.Errorf("raw address 0x%x is outside the device address map: HBM is below 0x%x, SBUF/PSUM at 0x%x + a 29-bit on-chip address (up to 0x%x); see tpbsim explain isa.addr8_address_map",
				a, uint64(isa.DMALocalBase), uint64(isa.DMALocalBase), uint64(isa.DMALocalBase)+isa.TPBPartitionAddrMask)
		}
		return loc.Offset, nil
	}
	return 0, fmt.Errorf("%v: register addresses are resolved by a program, not here", loc)
}

// ParseInts reads a shape or an axis permutation as `tpbsim dge --shape` / `--perm` take it
// (what names it in messages): integers separated by ',' (or 'x', or spaces). An empty
// item ("1,,0", ",") is an error, not skipped: "--perm ," used to plan with no permutation.
// An item written as a hex number ("0x10") is refused, as --dump's SHAPE refuses it: split at
// its 'x' it read as the two axes 0 and 10 and failed as a rule (exit 1) about a 0 axis the
// user never wrote.
func ParseInts(s, what string) ([]int, error) {
	var out []int
	for _, item := range strings.Split(s, ",") {
		for _, f := range strings.Fields(item) {
			if len(f) > 1 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X') {
				return nil, fmt.Errorf("%s %q: %q looks like a hex number; write decimal integers separated by ',' (e.g. 64,32)", what, s, f)
			}
		}
	}
	for _, part := range strings.Split(strings.NewReplacer("x", ",", "X", ",").Replace(s), ",") {
		items := strings.Fields(part)
		if len(items) == 0 {
			return nil, fmt.Errorf("%s %q: an empty item (want comma-separated integers, e.g. 1,0)", what, s)
		}
		for _, p := range items {
			v, err := strconv.Atoi(p)
			if err != nil {
				return nil, fmt.Errorf("%s %q: %q is not an integer (want comma-separated integers, e.g. 1,0)", what, s, p)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// ParseComputeOp reads a compute_op: NONE (or "", BYPASS), ADD, MULTIPLY (MUL, MULT), MAX, MIN,
// in any case, or a number (an invalid value can be given on purpose: the planner refuses it
// under RuleComputeOp).
func ParseComputeOp(s string) (isa.DGEComputeOp, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "", "NONE", "BYPASS":
		return isa.DGEComputeNONE, nil
	case "ADD":
		return isa.DGEComputeADD, nil
	case "MULTIPLY", "MUL", "MULT":
		return isa.DGEComputeMULTIPLY, nil
	case "MAX":
		return isa.DGEComputeMAX, nil
	case "MIN":
		return isa.DGEComputeMIN, nil
	}
	v, err := strconv.ParseUint(s, 0, 8)
	if err != nil {
		return 0, &SpecError{Path: "compute_op", Msg: fmt.Sprintf("compute_op %q: want NONE, ADD, MULTIPLY, MAX or MIN", s)}
	}
	return isa.DGEComputeOp(v), nil
}

// RequestProvenance registers the request form's rule.
func RequestProvenance() []isa.Provenance {
	return []isa.Provenance{
		isa.Rule(RuleRequestForm, "A request description reads as one request: the JSON form is one object whose keys are RequestSpec's, none given twice or in another case, nothing after it; "+
			"either the tensor form (src, dst, shape, dtype, all four) or src_view and dst_view together without src, dst or shape; addresses, dtypes, compute_op and registers in their syntax, "+
			"dma_cfg and carveout_cfg 32-bit, dmas within the generation's engines and agreeing with dma_cfg's DMA bits; a semaphore with a non-zero sem_increment and the reverse.",
			"DESIGN.md §5, §7 (the request; addresses and numbers)", isa.Invented, []string{"src", "dst", "shape", "dtype", "src_view", "dst_view", "semaphore", "sem_increment", "dmas", "dma_cfg"},
			"a field the form silently dropped (a second key, the tensor form beside the views, a semaphore without an increment) made a request other than the one written"),
	}
}
