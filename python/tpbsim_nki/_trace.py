"""The recorder: tracing a kernel function into the kernel form (kernel/FORMAT.md, version 1)."""

import functools
import inspect
import json
import math
import os
import sys
import threading

import numpy as np

from . import _dtypes
from ._errors import TraceError, func_loc, misuse, unsupported, user_loc
from ._views import Tensor, View

FORMAT = "tpbsim.kernel"
VERSION = 1

_state = threading.local()


def current(call):
    """The recorder of the kernel being traced; raises when `call` is made outside a kernel."""
    rec = getattr(_state, "rec", None)
    if rec is None:
        raise TraceError("%s: %s called outside a kernel being traced (run kernels with "
                         "nki.simulate(kernel)(...), nki.simulate_kernel(kernel, ...) or by calling "
                         "the @nki.jit kernel)" % (user_loc(3), call))
    return rec


def active():
    return getattr(_state, "rec", None)


# --- targets ------------------------------------------------------------------------------------

_PLATFORM = {"trn1": "SUNDA", "inf2": "SUNDA", "gen2": "SUNDA", "trn2": "CAYMAN", "gen3": "CAYMAN",
             "trn3": "MARIANA", "gen4": "MARIANA"}
GENS = ("SUNDA", "CAYMAN", "MARIANA", "MARIANA_PLUS", "MAVERICK")


def kernel_args():
    """TPBSIM_KERNEL_ARGS: the JSON list of extra `tpbsim kernel run` arguments."""
    s = os.environ.get("TPBSIM_KERNEL_ARGS", "")
    if not s:
        return []
    try:
        v = json.loads(s)
    except ValueError as e:
        raise TraceError("TPBSIM_KERNEL_ARGS is not a JSON list of strings: %s" % e)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TraceError("TPBSIM_KERNEL_ARGS is not a JSON list of strings: %r" % (s,))
    return v


def _flag(args, name):
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(name + "="):
            return a[len(name) + 1:]
    return None


def _platform_gen(value, where):
    g = _PLATFORM.get(value.strip().lower())
    if g is None:
        raise TraceError("%s=%r: not a target tpbsim knows (trn1|inf2|gen2, trn2|gen3, trn3|gen4)" % (where, value))
    return g


def target_gen(platform_target=None):
    """The generation a kernel is traced for: `--gen` of TPBSIM_KERNEL_ARGS, TPBSIM_GEN,
    NEURON_PLATFORM_TARGET_OVERRIDE, then the kernel's platform_target; None = the Go side's default."""
    g = _flag(kernel_args(), "--gen")
    if g:
        return g.upper()
    g = os.environ.get("TPBSIM_GEN")
    if g:
        return g.strip().upper()
    p = os.environ.get("NEURON_PLATFORM_TARGET_OVERRIDE")
    if p:
        return _platform_gen(p, "NEURON_PLATFORM_TARGET_OVERRIDE")
    if platform_target:
        return _platform_gen(str(platform_target), "platform_target")
    return None


def target_nki_version():
    v = _flag(kernel_args(), "--nki-version")
    return v or os.environ.get("TPBSIM_NKI_VERSION") or None


# --- inputs -------------------------------------------------------------------------------------

class Input:
    """A kernel argument whose dtype numpy cannot hold: `raw` bits or float32 `converted` on load."""

    __slots__ = ("array", "dtype", "encoding")

    def __init__(self, array, dtype, encoding):
        self.array = array
        self.dtype = dtype
        self.encoding = encoding

    @property
    def shape(self):
        return self.array.shape


def raw(array, dtype):
    """Pass `array` (unsigned integers of the dtype's width: uint16 for bfloat16, uint8 for fp8,
    uint32 for tfloat32) as the raw bits of a tensor of NKI dtype `dtype`."""
    name = _dtypes.name_of(dtype)
    if name is None:
        raise TraceError("tpbsim_nki.raw: %r is not an NKI dtype" % (dtype,))
    a = np.asarray(array)
    width = _dtypes.itemsize(name)
    if a.dtype.kind != "u" or a.dtype.itemsize != width:
        raise TraceError("tpbsim_nki.raw: %s raw bits need a uint%d array, got %s" % (name, 8 * width, a.dtype))
    return Input(array, name, "raw")


def converted(array, dtype):
    """Pass `array` as float32 values, converted to NKI dtype `dtype` when the kernel's run loads it
    (round to nearest even, the machine's own conversion)."""
    name = _dtypes.name_of(dtype)
    if name is None:
        raise TraceError("tpbsim_nki.converted: %r is not an NKI dtype" % (dtype,))
    a = np.asarray(array)
    if a.dtype.kind not in "fiub":
        raise TraceError("tpbsim_nki.converted: needs a numeric array, got %s" % a.dtype)
    return Input(array, name, "float32")


def _as_input(value, pname):
    """(array to write, dtype name, encoding) for a kernel argument, or None if it is not an array."""
    if isinstance(value, Input):
        a = np.asarray(value.array)
        if value.encoding == "float32":
            a = a.astype(np.float32, copy=False)
        return a, value.dtype, value.encoding, value.array
    if isinstance(value, np.ndarray):
        d = value.dtype
        name = _dtypes.name_of(d)
        if name is None:
            raise TraceError("kernel argument %r: numpy dtype %s is not an NKI dtype (use %s, or "
                             "tpbsim_nki.raw / tpbsim_nki.converted for bfloat16 and fp8)" % (
                                 pname, d, "float32" if d.kind == "f" else "int32"))
        if name in _dtypes.SPECIAL:  # an ml_dtypes array: its raw bits
            return value.view(_dtypes.SPECIAL[name].raw), name, "raw", value
        if name == "bool":
            return value.view(np.uint8), name, "native", value
        return value, name, "native", value
    return None


# --- the recorder -------------------------------------------------------------------------------

class Recorder:
    def __init__(self, style, gen, nki_version):
        self.style = style
        self.gen = gen
        self.nki_version = nki_version
        self.tensors = []
        self.calls = []
        self.inputs = []  # (file name, array, tensor)
        self._names = {}

    def tensor(self, name, shape, dtype, buffer, loc, kind="internal", auto=False):
        if not name:
            name, auto = "t%d" % len(self.tensors), True
        t = Tensor(len(self.tensors), name, tuple(shape), dtype, buffer, loc, kind)
        t.auto_name = auto
        self.tensors.append(t)
        return View(self, t, 0, t.base_pattern())

    def name_from_locals(self, local_vars):
        """Renames each tensor whose name the recorder made up (t3, load2) after the kernel's local
        variable that held it whole when the kernel returned, so the Go side's messages say
        `tensor out` as the kernel does; a name another tensor has is left alone."""
        taken = {t.name for t in self.tensors}
        for var, v in local_vars.items():
            if not isinstance(v, View) or v._rec is not self or not v.tensor.auto_name:
                continue
            if var in taken or not v.is_whole():
                continue
            taken.discard(v.tensor.name)
            v.tensor.name, v.tensor.auto_name = var, False
            taken.add(var)

    def call(self, op, call, loc, **args):
        c = {"op": op, "call": call, "loc": loc}
        c.update(args)
        dst = args.get("dst")
        if dst is not None and dst.tensor.kind == "input":
            dst.tensor.writeback = True
        self.calls.append(c)
        return c

    def form(self, name, source, outputs):
        k = {"format": FORMAT, "version": VERSION, "name": name, "source": source, "api": self.style}
        if self.gen:
            k["gen"] = self.gen
        if self.nki_version:
            k["nki_version"] = self.nki_version
        k["tensors"] = [t.form() for t in self.tensors]
        k["calls"] = [_call_form(c) for c in self.calls]
        k["outputs"] = outputs
        return k


def _value(v):
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if v != v else ("inf" if v > 0 else "-inf")
    return v


def _call_form(c):
    out = {}
    for k, v in c.items():
        if isinstance(v, View):
            out[k] = v.form()
        else:
            out[k] = _value(v)
    return out


class KernelForm(dict):
    """A traced kernel: the kernel-form JSON object, plus the input arrays its tensors name."""

    def __init__(self, form, inputs, returned, writeback):
        super().__init__(form)
        self.inputs = inputs  # (file name, array)
        self.returned = returned  # None, an output index, or a tuple of them
        self.writeback = writeback  # (output index, caller's array, dtype name) per written argument

    def json(self, indent=None):
        """The JSON text; by default one tensor and one call per line."""
        if indent is not None:
            return json.dumps(self, indent=indent, allow_nan=False)
        parts = []
        for k, v in self.items():
            if k in ("tensors", "calls") and v:
                items = ",\n  ".join(json.dumps(x, allow_nan=False) for x in v)
                parts.append('"%s": [\n  %s\n ]' % (k, items))
            else:
                parts.append("%s: %s" % (json.dumps(k), json.dumps(v, allow_nan=False)))
        return "{" + ",\n ".join(parts) + "}"

    def write(self, path):
        """Write the JSON to `path` and the inputs' .npy files beside it; returns `path`."""
        d = os.path.dirname(os.path.abspath(path))
        os.makedirs(d, exist_ok=True)
        for fname, arr in self.inputs:
            _write_whole(os.path.join(d, fname), lambda f, a=arr: np.save(f, np.ascontiguousarray(a)), "wb")
        _write_whole(path, lambda f: f.write(self.json() + "\n"), "w")
        return path


def _write_whole(path, writer, mode):
    tmp = path + ".tmp%d" % os.getpid()
    try:
        with open(tmp, mode) as f:
            writer(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# --- kernels ------------------------------------------------------------------------------------

class Kernel:
    """A kernel function decorated with @nki.jit (either import style)."""

    def __init__(self, func, style, options=None, grid=None):
        if isinstance(func, Kernel):
            func = func.func
        if not callable(func):
            raise TraceError("nki.jit: expected a function, got %r" % (func,))
        self.func = func
        self.style = style
        self.options = dict(options or {})
        self.grid = grid
        functools.update_wrapper(self, func)

    def __getitem__(self, grid):
        return Kernel(self.func, self.style, self.options, grid)

    def __call__(self, *args, **kwargs):
        if active() is not None:
            return self.func(*args, **kwargs)  # a kernel calling another: inline it
        from ._run import run
        return run(self, args, kwargs)

    def __repr__(self):
        return "<tpbsim NKI kernel %s>" % getattr(self.func, "__qualname__", self.func)


def as_kernel(kernel, style):
    if isinstance(kernel, Kernel):
        return kernel
    if callable(kernel):
        return Kernel(kernel, style)
    raise TraceError("%s: expected a kernel function, got %r" % (user_loc(3), kernel))


def _grid_ok(grid):
    if grid is None:
        return True
    g = grid if isinstance(grid, tuple) else (grid,)
    return all(isinstance(x, int) and x == 1 for x in g)


def trace(kernel, *args, **kwargs):
    """Trace `kernel` with these arguments (numpy arrays become HBM input tensors; other values pass
    through) and return the KernelForm, without running it."""
    return trace_call(as_kernel(kernel, "nki"), args, kwargs)


def _overlap(a, b):
    """Whether two arrays share a byte: the bounds test first (cheap), then numpy's exact test
    with a work cap (exact overlap of strided arrays can take exponential time); past the cap
    they are taken to overlap."""
    if not np.may_share_memory(a, b):
        return False
    try:
        return np.shares_memory(a, b, max_work=1 << 20)
    except Exception:  # numpy's TooHardError (np.exceptions.TooHardError from numpy 2)
        return True


def trace_call(k, args, kwargs):
    if active() is not None:
        raise TraceError("%s: a kernel cannot be traced while another is being traced" % user_loc(3))
    if not _grid_ok(k.grid):
        raise unsupported("launching %s on a grid / LNC of %r (tpbsim runs one NeuronCore, grid 1)" % (
            k.__name__, k.grid), user_loc(3))
    func = k.func
    loc = func_loc(func)
    try:
        sig = inspect.signature(func)
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TraceError("%s: kernel %s: %s" % (loc, getattr(func, "__name__", "?"), e))
    rec = Recorder(k.style, target_gen(k.options.get("platform_target")), target_nki_version())
    params = list(sig.parameters)
    callers = {}  # tensor id -> (caller's array, dtype name)
    for pname, value in list(bound.arguments.items()):
        try:
            got = _as_input(value, pname)
        except TraceError as e:
            raise TraceError("%s: %s" % (loc, e))
        if got is None:
            continue
        arr, dtname, enc, orig = got
        if arr.ndim == 0:
            raise TraceError("%s: kernel argument %r is a 0-d array (a scalar is not a tensor)" % (loc, pname))
        if arr.size == 0:
            raise TraceError("%s: kernel argument %r is an empty array of shape %s (a tensor's extents are positive)" % (
                loc, pname, tuple(arr.shape)))
        v = rec.tensor(pname, arr.shape, dtname, "hbm", loc, kind="input")
        t = v.tensor
        t.arg = params.index(pname)
        t.file = "in%d.npy" % len(rec.inputs)
        t.encoding = enc
        rec.inputs.append((t.file, arr))
        callers[t.id] = (orig, dtname)
        bound.arguments[pname] = v
    _state.rec = rec
    local_vars = {}
    code = getattr(func, "__code__", None)
    prev = sys.getprofile()

    def watch(frame, event, arg):
        # the kernel's locals as it returns: the names its tensors had (sys.setprofile sees no
        # line events, so tracing costs a call per Python call, not per line)
        if event == "return" and frame.f_code is code:
            local_vars.update(frame.f_locals)
        if prev is not None:
            prev(frame, event, arg)

    sys.setprofile(watch)
    try:
        ret = func(*bound.args, **bound.kwargs)
    finally:
        sys.setprofile(prev)
        _state.rec = None
    rec.name_from_locals(local_vars)
    outputs = []

    def out_id(v):
        if not isinstance(v, View):
            raise TraceError("%s: kernel %s returned %s; tpbsim kernels return tensors (or a tuple of them)" % (
                loc, func.__name__, type(v).__name__))
        if not v.is_whole():
            raise TraceError("%s: kernel %s returned a view of tensor %r, not the whole tensor" % (
                loc, func.__name__, v.tensor.name))
        outputs.append(v.tensor.id)
        return len(outputs) - 1

    if ret is None:
        returned = None
    elif isinstance(ret, (tuple, list)):
        returned = tuple(out_id(v) for v in ret)
    else:
        returned = out_id(ret)
    # A written input argument may not share memory with another argument: each becomes a
    # tensor of its own in HBM, so the kernel would see two arrays where the caller has one, and
    # only one write-back would survive.
    ins = [t for t in rec.tensors if t.kind == "input"]
    for i, t in enumerate(ins):
        for u in ins[i + 1:]:
            if not (t.writeback or u.writeback):
                continue
            a, b = callers[t.id][0], callers[u.id][0]
            if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and _overlap(a, b):
                w = t if t.writeback else u
                raise TraceError("%s: kernel arguments %r and %r share memory and the kernel writes %r: tpbsim gives each "
                                 "argument a tensor of its own, so the two would diverge; pass separate arrays (a copy)" % (
                                     loc, t.name, u.name, w.name))
    writeback = []
    for t in rec.tensors:
        if t.kind == "input" and t.writeback:
            if t.id not in outputs:
                outputs.append(t.id)
            arr, dtname = callers[t.id]
            writeback.append((outputs.index(t.id), arr, dtname))
    source = func_loc(func).rsplit(":", 1)[0]
    form = rec.form(getattr(func, "__name__", "kernel"), source, outputs)
    return KernelForm(form, [(f, a) for f, a in rec.inputs], returned, writeback)
