package kernel

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tpbsim/tpbsim/fault"
	"github.com/tpbsim/tpbsim/internal/npy"
	"github.com/tpbsim/tpbsim/isa"
	"github.com/tpbsim/tpbsim/num"
)

// The numpy boundary (FORMAT.md, README "bf16 and fp8 in numpy"): numpy has no bfloat16 or fp8,
// so those cross as raw bits (unsigned integers of their width) or as float32 values converted
// with the machine's own rounding.

// npyOwn is a dtype's own numpy type ("" when numpy has none), npyRaw the unsigned integer
// type of its raw bits: internal/npy's mapping, the one the CLI's --load and --dump use.
func npyOwn(d isa.DType) string {
	if t, own := npy.TypeOf(num.Kind(d)); own {
		return t
	}
	return ""
}

func npyRaw(d isa.DType) string { return npy.RawType(num.Kind(d)) }

// InputBytes converts a .npy array into the raw bytes of input tensor t (dtype d) under the
// tensor's encoding.
func InputBytes(t *Tensor, d isa.DType, a *npy.Array) ([]byte, error) {
	bad := func(format string, args ...any) error {
		return &Error{Kind: fault.ErrInvalid, Malformed: true, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.input_npy", Msg: fmt.Sprintf(format, args...)}
	}
	n := int64(1)
	for _, s := range a.Shape {
		n *= int64(s)
	}
	if n != t.Elements() {
		return nil, bad("the .npy holds %v (%d elements); the tensor is %v", a.Shape, n, t.Shape)
	}
	enc := t.Encoding
	if enc == "" {
		enc = "native"
	}
	switch enc {
	case "native":
		own := npyOwn(d)
		if d == isa.DTypeUINT8 && a.Dtype == "b1" {
			return a.Data, nil
		}
		if own == "" {
			return nil, bad("%s has no numpy type: give raw bits (encoding raw, a %s array) or float32 values (encoding float32)", t.DType, npyRaw(d))
		}
		if a.Dtype != own {
			return nil, bad("the .npy is %s; a %s tensor takes %s (or encoding float32 to convert)", a.Dtype, t.DType, own)
		}
		return a.Data, nil
	case "raw":
		if a.Dtype != npyRaw(d) && a.Dtype != npyOwn(d) {
			return nil, bad("raw bits of %s are %s, not %s", t.DType, npyRaw(d), a.Dtype)
		}
		return a.Data, nil
	case "float32":
		sk, ok := npy.KindOf(a.Dtype)
		if !ok {
			return nil, bad("cannot convert a %s array", a.Dtype)
		}
		out := make([]byte, n*int64(d.Size()))
		if err := num.ConvertSlice(out, num.Kind(d), a.Data, sk, int(n)); err != nil {
			return nil, bad("%v", err)
		}
		return out, nil
	}
	return nil, bad("encoding %q", enc)
}

// ReadInputs reads every input tensor's .npy: overrides[name] when given, else the tensor's
// "file" relative to dir.
func ReadInputs(k *Kernel, g isa.Generation, dir string, overrides map[string]string) (map[int][]byte, error) {
	out := map[int][]byte{}
	for i := range k.Tensors {
		t := &k.Tensors[i]
		if t.Kind != "input" {
			continue
		}
		path, ok := overrides[t.Name]
		if !ok {
			if t.File == "" {
				return nil, &Error{Kind: fault.ErrInvalid, Malformed: true, Loc: t.Loc, Arg: "tensor " + t.Name, Rule: "kernel.input_given", Msg: "no \"file\" and no --input " + t.Name + "=FILE.npy"}
			}
			path = t.File
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			if ok { // an *fs.PathError still (errors.As), named by the flag that gave it
				return nil, fmt.Errorf("--input %s=%s: %w", t.Name, path, err)
			}
			return nil, fmt.Errorf("input %s (its \"file\"): %w", t.Name, err)
		}
		a, err := npy.Read(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		d, err := dtypeOf(t, g)
		if err != nil {
			return nil, err
		}
		if out[i], err = InputBytes(t, d, a); err != nil {
			return nil, err
		}
	}
	for name := range overrides {
		found := false
		for i := range k.Tensors {
			found = found || (k.Tensors[i].Name == name && k.Tensors[i].Kind == "input")
		}
		if !found {
			return nil, &Error{Kind: fault.ErrInvalid, Malformed: true, Arg: "--input " + name, Rule: "kernel.input_given", Msg: "the kernel has no input of that name"}
		}
	}
	return out, nil
}

// OutputArray is output o as a numpy array: the dtype's own numpy type, else float32 values
// (exact for bf16 / fp8) or, with rawBits, the raw bits. encoding is "native", "float32" or "raw".
func OutputArray(o *Output, rawBits bool) (a *npy.Array, encoding string, err error) {
	a = &npy.Array{Shape: o.Shape}
	if own := npyOwn(o.DType); own != "" {
		a.Dtype, a.Data = own, o.Data
		return a, "native", nil
	}
	if rawBits {
		a.Dtype, a.Data = npyRaw(o.DType), o.Data
		return a, "raw", nil
	}
	n := len(o.Data) / o.DType.Size()
	buf := make([]byte, 4*n)
	if err := num.ConvertSlice(buf, num.FP32, o.Data, num.Kind(o.DType), n); err != nil {
		return nil, "", err
	}
	a.Dtype, a.Data = "f4", buf
	return a, "float32", nil
}
