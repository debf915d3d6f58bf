"""neuronxcc.nki.isa, the older API: calls take their inputs and return a new tile (dma_copy and
nc_stream_shuffle write a destination given by reference). Any other nisa name resolves to an
NKIFunction that raises when called."""

from . import _ops
from ._errors import KernelError, user_loc
from ._ops import UNSET, engine, nc_version, oob_mode
from ._ops import dge_mode_older as dge_mode
from ._stub import api, install_getattr
from ._trace import current
from .isa_current import (get_nc_sub_version, get_nc_version, gpsimd_engine, scalar_engine,  # noqa: F401
                          tensor_engine, unknown_engine, vector_engine)

NkiValidationError = KernelError



@api("nisa.dma_copy")
def dma_copy(dst, src, mask=None, dst_rmw_op=None, oob_mode=UNSET, dge_mode=UNSET, engine=UNSET):
    loc = user_loc(2)
    _ops.no_mask(mask, "nisa.dma_copy", loc)
    _ops.dma_copy(current("nisa.dma_copy"), "nisa.dma_copy", loc, dst, src, dst_rmw_op, oob_mode, dge_mode,
                  _ops.dge_mode_older, engine)


@api("nisa.dma_transpose")
def dma_transpose(src, axes=None, mask=None, dtype=None, dge_mode=UNSET, oob_mode=UNSET):
    call = "nisa.dma_transpose"
    rec, loc = _ops.begin(call, mask)
    src = _ops.tile(src, call, "src", loc)
    ax = _ops.axes_arg(axes, call, loc)
    dst = _ops.fresh(rec, call, _ops.dma_transposed_shape(src, ax), src.tensor.dtype, loc)
    _ops.dma_transpose(rec, call, loc, dst, src, ax, dge_mode, _ops.dge_mode_older, oob_mode)
    return _ops.cast_into(rec, call, loc, dst, _ops.dtype_arg(dtype, call, loc, None))


@api("nisa.nc_transpose")
def nc_transpose(data, mask=None, dtype=None, engine=UNSET):
    call = "nisa.nc_transpose"
    rec, loc = _ops.begin(call, mask)
    data = _ops.tile(data, call, "data", loc)
    eng = _ops.enum_name(engine, _ops.engine, call, "engine", loc)
    # The Tensor Engine writes its transpose to PSUM, the Vector Engine to SBUF.
    dst = _ops.fresh(rec, call, _ops.transposed_shape(data), data.tensor.dtype, loc, "psum" if eng == "tensor" else "sbuf")
    _ops.nc_transpose(rec, call, loc, dst, data, engine)
    return _ops.cast_into(rec, call, loc, dst, _ops.dtype_arg(dtype, call, loc, None))


@api("nisa.nc_stream_shuffle")
def nc_stream_shuffle(src, dst, shuffle_mask, dtype=None, mask=None):
    call = "nisa.nc_stream_shuffle"
    loc = user_loc(2)
    _ops.no_mask(mask, call, loc)
    if dtype is not None:
        _ops.dtype_arg(dtype, call, loc, None)
    _ops.nc_stream_shuffle(current(call), call, loc, dst, src, shuffle_mask)


@api("nisa.tensor_reduce")
def tensor_reduce(op, data, axis, mask=None, dtype=None, negate=False, keepdims=False):
    call = "nisa.tensor_reduce"
    rec, loc = _ops.begin(call, mask)
    data = _ops.tile(data, call, "data", loc)
    axes = _ops.axis_arg(axis, len(data.shape), call, loc)
    shape = _ops.reduced_shape(data, axes, keepdims, call, loc)
    dst = _ops.fresh(rec, call, shape, _ops.dtype_arg(dtype, call, loc, data.tensor.dtype), loc)
    _ops.tensor_reduce(rec, call, loc, dst, op, data, axis, negate, keepdims)
    return dst


@api("nisa.tensor_copy")
def tensor_copy(src, mask=None, dtype=None, engine=UNSET):
    call = "nisa.tensor_copy"
    rec, loc = _ops.begin(call, mask)
    src = _ops.tile(src, call, "src", loc)
    dst = _ops.fresh(rec, call, src.shape, _ops.dtype_arg(dtype, call, loc, src.tensor.dtype), loc)
    _ops.tensor_copy(rec, call, loc, dst, src, engine)
    return dst


@api("nisa.reciprocal")
def reciprocal(data, dtype=None, mask=None):
    call = "nisa.reciprocal"
    rec, loc = _ops.begin(call, mask)
    data = _ops.tile(data, call, "data", loc)
    dst = _ops.fresh(rec, call, data.shape, _ops.dtype_arg(dtype, call, loc, data.tensor.dtype), loc)
    _ops.reciprocal(rec, call, loc, dst, data)
    return dst


@api("nisa.memset")
def memset(shape, value, dtype, mask=None, engine=UNSET):
    call = "nisa.memset"
    rec, loc = _ops.begin(call, mask)
    from ._views import _shape
    dt = _ops.dtype_arg(dtype, call, loc, None)
    if dt is None:
        raise _ops.misuse(call, "dtype is required", loc)
    dst = _ops.fresh(rec, call, _shape(shape, call), dt, loc)
    _ops.memset(rec, call, loc, dst, value, engine)
    return dst


__all__ = ["NkiValidationError", "dge_mode", "dma_copy", "dma_transpose", "engine", "get_nc_sub_version",
           "get_nc_version", "gpsimd_engine", "memset", "nc_stream_shuffle", "nc_transpose", "nc_version",
           "oob_mode", "reciprocal", "scalar_engine", "tensor_copy", "tensor_engine", "tensor_reduce",
           "unknown_engine", "vector_engine"]

install_getattr(__name__, "nisa")
