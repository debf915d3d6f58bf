"""nki.isa, the current API: the destination comes first and the calls return nothing.
Any other nisa name resolves to an NKIFunction that raises when called."""

from . import _ops
from ._errors import KernelError, misuse, unsupported, user_loc
from ._ops import UNSET, dge_mode, engine, nc_version, oob_mode
from ._stub import api, install_getattr
from ._trace import current, target_gen

NkiValidationError = KernelError

tensor_engine = engine.tensor
vector_engine = engine.vector
scalar_engine = engine.scalar
gpsimd_engine = engine.gpsimd
unknown_engine = engine.unknown


def get_nc_version():
    """The nc_version of the target (TPBSIM_GEN / NEURON_PLATFORM_TARGET_OVERRIDE; default CAYMAN)."""
    rec = _active_gen()
    return _ops.nc_version_of(rec)[0]


def get_nc_sub_version():
    return _ops.nc_version_of(_active_gen())[1]


def _active_gen():
    from ._trace import active
    r = active()
    return r.gen if r is not None else target_gen()


def _no_priority(priority, call, loc):
    if priority is not None:
        raise unsupported("%s(priority=...) (DMA quality of service)" % call, loc)


@api("nisa.dma_copy")
def dma_copy(dst, src, priority=None, oob_mode=UNSET, dge_mode=UNSET, engine=UNSET, name=None, dst_rmw_op=None):
    loc = user_loc(2)
    _no_priority(priority, "nisa.dma_copy", loc)
    _ops.dma_copy(current("nisa.dma_copy"), "nisa.dma_copy", loc, dst, src, dst_rmw_op, oob_mode, dge_mode,
                  _ops.dge_mode, engine)


@api("nisa.dma_transpose")
def dma_transpose(dst, src, axes=None, priority=None, dge_mode=UNSET, oob_mode=UNSET, name=None):
    loc = user_loc(2)
    _no_priority(priority, "nisa.dma_transpose", loc)
    _ops.dma_transpose(current("nisa.dma_transpose"), "nisa.dma_transpose", loc, dst, src, axes, dge_mode,
                       _ops.dge_mode, oob_mode)


@api("nisa.nc_transpose")
def nc_transpose(dst, data, engine=UNSET, name=None):
    _ops.nc_transpose(current("nisa.nc_transpose"), "nisa.nc_transpose", user_loc(2), dst, data, engine)


@api("nisa.nc_stream_shuffle")
def nc_stream_shuffle(dst, src, shuffle_mask, name=None):
    _ops.nc_stream_shuffle(current("nisa.nc_stream_shuffle"), "nisa.nc_stream_shuffle", user_loc(2), dst, src,
                           shuffle_mask)


@api("nisa.tensor_reduce")
def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, name=None):
    _ops.tensor_reduce(current("nisa.tensor_reduce"), "nisa.tensor_reduce", user_loc(2), dst, op, data, axis,
                       negate, keepdims)


@api("nisa.tensor_copy")
def tensor_copy(dst, src, engine=UNSET, name=None):
    _ops.tensor_copy(current("nisa.tensor_copy"), "nisa.tensor_copy", user_loc(2), dst, src, engine)


@api("nisa.reciprocal")
def reciprocal(dst, data, name=None):
    _ops.reciprocal(current("nisa.reciprocal"), "nisa.reciprocal", user_loc(2), dst, data)


@api("nisa.memset")
def memset(dst, value, engine=UNSET, name=None):
    _ops.memset(current("nisa.memset"), "nisa.memset", user_loc(2), dst, value, engine)


__all__ = ["NkiValidationError", "dge_mode", "dma_copy", "dma_transpose", "engine", "get_nc_sub_version",
           "get_nc_version", "gpsimd_engine", "memset", "nc_stream_shuffle", "nc_transpose", "nc_version",
           "oob_mode", "reciprocal", "scalar_engine", "tensor_copy", "tensor_engine", "tensor_reduce",
           "unknown_engine", "vector_engine"]

install_getattr(__name__, "nisa")
