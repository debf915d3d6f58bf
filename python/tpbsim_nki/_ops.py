"""The one recorder both API styles share: each function records one kernel-form call (or a fresh
tile plus its call, for the older style's calls that return tiles)."""

from enum import IntEnum

import numpy as np

from . import _dtypes
from ._errors import misuse, unsupported
from ._stub import op_name
from ._views import View, _int

UNSET = type("Unset", (), {"__repr__": lambda self: "<unset>"})()


class engine(IntEnum):
    """Neuron Device engines (nisa.engine)."""
    unknown = 0
    tensor = 1
    scalar = 2
    gpsimd = 3
    dma = 4
    vector = 5
    sync = 6


class oob_mode(IntEnum):
    """Out-of-bounds handling of indirect DMA (nisa.oob_mode)."""
    error = 0
    skip = 1


class nc_version(IntEnum):
    """NeuronCore version (nisa.nc_version)."""
    gen2 = 2
    gen3 = 3
    gen4 = 4


class dge_mode(IntEnum):
    """Descriptor Generation Engine mode, current numbering (nisa.dge_mode)."""
    unknown = 0
    swdge = 1
    hwdge = 2
    none = 3


class dge_mode_older(IntEnum):
    """Descriptor Generation Engine mode, the neuronxcc numbering."""
    none = 0
    swdge = 1
    hwdge = 2
    unknown = 3


_GEN_VERSION = {"SUNDA": (nc_version.gen2, 0), "CAYMAN": (nc_version.gen3, 0),
                "MARIANA": (nc_version.gen4, 0), "MARIANA_PLUS": (nc_version.gen4, 1)}


def nc_version_of(gen):
    g = _GEN_VERSION.get(gen or "CAYMAN")
    if g is None:
        raise unsupported("nisa.get_nc_version() for %s (no nc_version names it)" % gen)
    return g


def enum_name(value, cls, call, arg, loc):
    """The member name of an enum argument given as a member, its integer, or its name; None if unset."""
    if value is UNSET or value is None:
        return None
    if isinstance(value, cls):
        return value.name
    if isinstance(value, IntEnum) or not isinstance(value, (int, str, np.integer)) or isinstance(value, bool):
        raise misuse(call, "%s must be a %s, got %r" % (arg, cls.__name__, value), loc)
    if isinstance(value, str):
        if value in cls.__members__:
            return value
        raise misuse(call, "%s=%r: not one of %s" % (arg, value, ", ".join(cls.__members__)), loc)
    try:
        return cls(int(value)).name
    except ValueError:
        raise misuse(call, "%s=%r: not one of %s" % (arg, value, ", ".join(
            "%s (%d)" % (m.name, m.value) for m in cls)), loc)


def tile(x, call, arg, loc):
    if not isinstance(x, View):
        raise misuse(call, "%s must be a tile or tensor, got %s" % (arg, type(x).__name__), loc)
    return x


def begin(call, mask=None):
    """(recorder, the kernel's file:line) at the start of an NKI call; refuses instruction masks."""
    from ._errors import user_loc
    from ._trace import current
    loc = user_loc(3)
    rec = current(call)
    no_mask(mask, call, loc)
    return rec, loc


def no_mask(mask, call, loc):
    if mask is not None:
        raise unsupported("%s(mask=...) (instruction masks)" % call, loc)


def dtype_arg(dt, call, loc, default):
    if dt is None:
        return default
    n = _dtypes.name_of(dt)
    if n is None:
        raise misuse(call, "dtype %r is not an NKI dtype" % (dt,), loc)
    return n


def number(value, call, arg, loc):
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    raise misuse(call, "%s must be a number, got %s" % (arg, type(value).__name__), loc)


def rec_of(v):
    return v._rec


def fresh(rec, call, shape, dtype, loc, buffer="sbuf"):
    """A new on-chip tensor for a call's result, named after the call and its id (`load3`)."""
    return rec.tensor("%s%d" % (call.rsplit(".", 1)[-1].strip("[]. ="), len(rec.tensors)), shape, dtype, buffer, loc, auto=True)


# --- the calls ----------------------------------------------------------------------------------

def dma_copy(rec, call, loc, dst, src, dst_rmw_op=None, oob=UNSET, dge=UNSET, dge_cls=dge_mode, eng=UNSET):
    dst = tile(dst, call, "dst", loc)
    src = tile(src, call, "src", loc)
    rmw = None if dst_rmw_op is None else op_name(dst_rmw_op, call, "dst_rmw_op")
    rec.call("dma_copy", call, loc, dst=dst, src=src, dst_rmw_op=rmw,
             oob_mode=enum_name(oob, oob_mode, call, "oob_mode", loc) or "error",
             dge_mode=enum_name(dge, dge_cls, call, "dge_mode", loc),
             engine=enum_name(eng, engine, call, "engine", loc))


def load(rec, call, loc, src, dtype=None):
    src = tile(src, call, "src", loc)
    dst = fresh(rec, call, src.shape, dtype_arg(dtype, call, loc, src.tensor.dtype), loc)
    rec.call("dma_copy", call, loc, dst=dst, src=src, dst_rmw_op=None, oob_mode="error", dge_mode=None, engine=None)
    return dst


def store(rec, call, loc, dst, value):
    dst = tile(dst, call, "dst", loc)
    if not isinstance(value, View):
        v = number(value, call, "value", loc)
        value = fresh(rec, call, dst.shape, dst.tensor.dtype, loc)
        rec.call("memset", call, loc, dst=value, value=v, engine=None)
    elif value.tensor.buffer == "psum":
        # nl.store of a PSUM tile copies it to SBUF first (NKI's documented behaviour)
        staged = fresh(rec, call, value.shape, value.tensor.dtype, loc)
        rec.call("tensor_copy", call, loc, dst=staged, src=value, engine=None)
        value = staged
    rec.call("dma_copy", call, loc, dst=dst, src=value, dst_rmw_op=None, oob_mode="error", dge_mode=None, engine=None)


def load_transpose2d(rec, call, loc, src, dtype=None):
    src = tile(src, call, "src", loc)
    dst = fresh(rec, call, tuple(reversed(src.shape)), dtype_arg(dtype, call, loc, src.tensor.dtype), loc)
    rec.call("load_transpose2d", call, loc, dst=dst, src=src)
    return dst


_DMA_T_AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}


def axes_arg(axes, call, loc):
    if axes is None:
        return None
    try:
        out = [_int(a) for a in axes]
    except TypeError:
        raise misuse(call, "axes must be a tuple of integers, got %r" % (axes,), loc)
    if any(a is None for a in out):
        raise misuse(call, "axes must be a tuple of integers, got %r" % (axes,), loc)
    return out


def dma_transpose(rec, call, loc, dst, src, axes=None, dge=UNSET, dge_cls=dge_mode, oob=UNSET):
    dst = tile(dst, call, "dst", loc)
    src = tile(src, call, "src", loc)
    rec.call("dma_transpose", call, loc, dst=dst, src=src, axes=axes_arg(axes, call, loc),
             dge_mode=enum_name(dge, dge_cls, call, "dge_mode", loc),
             oob_mode=enum_name(oob, oob_mode, call, "oob_mode", loc) or "error")


def dma_transposed_shape(src, axes):
    shape = src.shape
    perm = axes if axes is not None else _DMA_T_AXES.get(len(shape), tuple(reversed(range(len(shape)))))
    if sorted(perm) != list(range(len(shape))):
        return tuple(reversed(shape))  # recorded as given; the lowering refuses the axes
    return tuple(shape[a] for a in perm)


def nc_transpose(rec, call, loc, dst, data, eng=UNSET):
    rec.call("nc_transpose", call, loc, dst=tile(dst, call, "dst", loc), data=tile(data, call, "data", loc),
             engine=enum_name(eng, engine, call, "engine", loc))


def transposed_shape(data):
    shape = data.shape
    f = 1
    for n in shape[1:]:
        f *= n
    return (f, shape[0])


def nc_stream_shuffle(rec, call, loc, dst, src, shuffle_mask):
    dst = tile(dst, call, "dst", loc)
    src = tile(src, call, "src", loc)
    try:
        mask = [_int(m) for m in shuffle_mask]
    except TypeError:
        raise misuse(call, "shuffle_mask must be a list of integers, got %r" % (shuffle_mask,), loc)
    if any(m is None for m in mask):
        raise misuse(call, "shuffle_mask must be a list of integers, got %r" % (shuffle_mask,), loc)
    rec.call("nc_stream_shuffle", call, loc, dst=dst, src=src, shuffle_mask=mask)


def axis_arg(axis, ndim, call, loc):
    if isinstance(axis, (list, tuple)):
        axes = [_int(a) for a in axis]
    else:
        axes = [_int(axis)]
    if any(a is None for a in axes):
        raise misuse(call, "axis must be an integer or a list of integers, got %r" % (axis,), loc)
    return [a + ndim if a < 0 and a + ndim >= 0 else a for a in axes]


def tensor_reduce(rec, call, loc, dst, op, data, axis, negate=False, keepdims=False):
    dst = tile(dst, call, "dst", loc)
    data = tile(data, call, "data", loc)
    rec.call("tensor_reduce", call, loc, dst=dst, data=data, reduce_op=op_name(op, call, "op"),
             axis=axis_arg(axis, len(data.shape), call, loc), negate=bool(negate), keepdims=bool(keepdims))


def reduced_shape(data, axes, keepdims, call, loc):
    nd = len(data.shape)
    for a in axes:
        if not 0 <= a < nd:
            raise misuse(call, "axis %d is not an axis of a %d-D tile %s" % (a, nd, list(data.shape)), loc)
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(data.shape))
    return tuple(n for i, n in enumerate(data.shape) if i not in axes)


def tensor_copy(rec, call, loc, dst, src, eng=UNSET):
    rec.call("tensor_copy", call, loc, dst=tile(dst, call, "dst", loc), src=tile(src, call, "src", loc),
             engine=enum_name(eng, engine, call, "engine", loc))


def reciprocal(rec, call, loc, dst, data):
    rec.call("reciprocal", call, loc, dst=tile(dst, call, "dst", loc), data=tile(data, call, "data", loc))


def memset(rec, call, loc, dst, value, eng=UNSET):
    rec.call("memset", call, loc, dst=tile(dst, call, "dst", loc), value=number(value, call, "value", loc),
             engine=enum_name(eng, engine, call, "engine", loc))


def cast_into(rec, call, loc, v, dtype):
    """The older style's dtype= on a call whose instruction keeps the dtype: a tensor_copy casts."""
    if dtype is None or dtype == v.tensor.dtype:
        return v
    out = fresh(rec, call, v.shape, dtype, loc)
    rec.call("tensor_copy", call, loc, dst=out, src=v, engine=None)
    return out
