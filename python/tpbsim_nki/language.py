"""nki.language / neuronxcc.nki.language, shared by both import styles: tensors, index grids,
loops, dtypes, buffers and the data movement calls (nl.load, nl.store, nl.load_transpose2d).
Any other nl name resolves to an NKIFunction that raises when called."""

import numpy as np

from . import _dtypes, _ops
from ._errors import misuse, unsupported, user_loc
from ._stub import NKIFunction, api, install_getattr
from ._trace import current
from ._views import DynSlice, GridTuple, IndexExpr, View, _int, _shape, arange as _arange, mgrid

NkiTensor = View
tensor = View


# --- dtypes -------------------------------------------------------------------------------------
bool_ = np.bool_
int8 = np.int8
int16 = np.int16
int32 = np.int32
uint8 = np.uint8
uint16 = np.uint16
uint32 = np.uint32
float16 = np.float16
float32 = np.float32
bfloat16 = _dtypes.bfloat16
tfloat32 = _dtypes.tfloat32
float8_e4m3 = _dtypes.float8_e4m3
float8_e4m3fn = _dtypes.float8_e4m3fn
float8_e5m2 = _dtypes.float8_e5m2
float8_e8m0fnu = _dtypes.float8_e8m0fnu
float8_e4m3fn_x4 = _dtypes.float8_e4m3fn_x4
float8_e5m2_x4 = _dtypes.float8_e5m2_x4
float4_e2m1fn_x4 = _dtypes.float4_e2m1fn_x4


# --- buffers ------------------------------------------------------------------------------------
class MemoryRegion(str):
    """A memory region (nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm, nl.private_hbm)."""

    def __repr__(self):
        return "nl." + str(self)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("nl.%s.%s (explicit allocation)" % (self, name), user_loc(2))


sbuf = MemoryRegion("sbuf")
psum = MemoryRegion("psum")
hbm = MemoryRegion("hbm")
shared_hbm = MemoryRegion("shared_hbm")
private_hbm = MemoryRegion("private_hbm")
BUFFERS = {str(b): b for b in (sbuf, psum, hbm, shared_hbm, private_hbm)}


def _buffer(buffer, call, loc):
    if buffer is None:
        return "sbuf"
    if isinstance(buffer, str) and str(buffer) in BUFFERS:
        return str(buffer)
    raise misuse(call, "buffer must be nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm or nl.private_hbm, got %r" % (buffer,), loc)


def is_hbm(buffer):
    return str(buffer) in ("hbm", "shared_hbm", "private_hbm")


def is_on_chip(buffer):
    return str(buffer) in ("sbuf", "psum")


def is_psum(buffer):
    return str(buffer) == "psum"


def is_sbuf(buffer):
    return str(buffer) == "sbuf"


# --- constants ----------------------------------------------------------------------------------
class _TileSize:
    """nl.tile_size: the hardware's tile limits (NKI.md §4)."""

    pmax = 128
    psum_fmax = 512
    psum_bank_fmax = 512
    psum_bank_fmax_bytes = 2048
    psum_num_banks = 8
    gemm_stationary_fmax = 128
    gemm_moving_fmax = 512
    bn_stats_fmax = 512

    @property
    def sbuf_fmax_bytes(self):
        from ._trace import target_gen
        return {"SUNDA": 192 * 1024, "CAYMAN": 224 * 1024}.get(target_gen() or "CAYMAN", 256 * 1024)

    @property
    def sbuf_fmax(self):
        return self.sbuf_fmax_bytes // 4

    @property
    def total_available_sbuf_size(self):
        return self.sbuf_fmax_bytes

    @property
    def sbuf_size_bytes(self):
        return self.sbuf_fmax_bytes * 128

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("nl.tile_size.%s (tpbsim does not know this constant)" % name, user_loc(2))

    def __repr__(self):
        return "nl.tile_size"


tile_size = _TileSize()


def par_dim(n):
    """nl.par_dim(n): marks the partition axis of a shape; tpbsim takes the first axis as it anyway."""
    return n


# --- tensors ------------------------------------------------------------------------------------
def _new(call, shape, dtype, buffer, name, loc):
    rec = current(call)
    shape = _shape(shape, call)
    dt = _dtypes.name_of(dtype)
    if dt is None:
        raise misuse(call, "dtype %r is not an NKI dtype" % (dtype,), loc)
    if name is not None and not isinstance(name, str):
        raise misuse(call, "name must be a string, got %r" % (name,), loc)
    return rec.tensor(name or "", shape, dt, _buffer(buffer, call, loc), loc)


@api("nl.ndarray")
def ndarray(shape, dtype, buffer=None, name="", address=None):
    loc = user_loc(2)
    if address is not None:
        raise unsupported("nl.ndarray(address=...) (explicit placement)", loc)
    return _new("nl.ndarray", shape, dtype, buffer, name, loc)


def _filled(call, shape, value, dtype, buffer, name, loc):
    v = _new(call, shape, dtype, buffer, name, loc)
    _ops.memset(v._rec, call, loc, v, value)
    return v


@api("nl.zeros")
def zeros(shape, dtype, buffer=None, name=""):
    return _filled("nl.zeros", shape, 0, dtype, buffer, name, user_loc(2))


@api("nl.ones")
def ones(shape, dtype, buffer=None, name=""):
    return _filled("nl.ones", shape, 1, dtype, buffer, name, user_loc(2))


@api("nl.full")
def full(shape, fill_value, dtype, buffer=None, name=""):
    return _filled("nl.full", shape, fill_value, dtype, buffer, name, user_loc(2))


def _like(call, x, dtype, buffer, loc, default_buffer):
    x = _ops.tile(x, call, "x", loc)
    return (x.shape, x.tensor.dtype if dtype is None else dtype,
            (default_buffer or x.tensor.buffer) if buffer is None else buffer)


@api("nl.zeros_like")
def zeros_like(x, dtype=None, buffer=None, name=""):
    loc = user_loc(2)
    shape, dt, buf = _like("nl.zeros_like", x, dtype, buffer, loc, "sbuf")
    return _filled("nl.zeros_like", shape, 0, dt, buf, name, loc)


@api("nl.ones_like")
def ones_like(x, dtype=None, buffer=None, name=""):
    loc = user_loc(2)
    shape, dt, buf = _like("nl.ones_like", x, dtype, buffer, loc, "sbuf")
    return _filled("nl.ones_like", shape, 1, dt, buf, name, loc)


@api("nl.empty_like")
def empty_like(x, dtype=None, buffer=None, name=""):
    loc = user_loc(2)
    shape, dt, buf = _like("nl.empty_like", x, dtype, buffer, loc, None)
    return _new("nl.empty_like", shape, dt, buf, name, loc)


# --- index grids and slices ---------------------------------------------------------------------
@api("nl.ds")
def ds(start, size):
    return DynSlice(start, size)


@api("nl.arange")
def arange(*args):
    return _arange(*args)


def _range(call, args):
    try:
        return range(*[int(_int(a)) if _int(a) is not None else a for a in args])
    except TypeError:
        raise misuse(call, "bounds must be integers, got %r" % (args,), user_loc(3))


def affine_range(*args, **kwargs):
    """A Python range: tpbsim unrolls every loop at trace time."""
    return _range("nl.affine_range", args)


def sequential_range(*args, **kwargs):
    """A Python range: tpbsim unrolls every loop at trace time."""
    return _range("nl.sequential_range", args)


def static_range(*args, **kwargs):
    """A Python range: tpbsim unrolls every loop at trace time."""
    return _range("nl.static_range", args)


def program_id(axis=0):
    """0: tpbsim launches a kernel on a grid of one."""
    return 0


def num_programs(axes=None):
    return 1


def program_ndim():
    return 0


# --- data movement ------------------------------------------------------------------------------
@api("nl.load")
def load(src, dtype=None, mask=None):
    rec, loc = _ops.begin("nl.load", mask)
    return _ops.load(rec, "nl.load", loc, src, dtype)


@api("nl.store")
def store(dst, value, mask=None):
    rec, loc = _ops.begin("nl.store", mask)
    _ops.store(rec, "nl.store", loc, dst, value)


@api("nl.load_transpose2d")
def load_transpose2d(src, dtype=None, mask=None):
    rec, loc = _ops.begin("nl.load_transpose2d", mask)
    return _ops.load_transpose2d(rec, "nl.load_transpose2d", loc, src, dtype)


def assign(dst, value, loc):
    """`tile[...] = value`: a copy into the view (tensor_copy on chip, a DMA when HBM is involved),
    or a memset for a number."""
    call = "tile[...] ="
    rec = current(call)
    if isinstance(value, View):
        if dst.tensor.buffer in ("sbuf", "psum") and value.tensor.buffer in ("sbuf", "psum"):
            _ops.tensor_copy(rec, call, loc, dst, value)
        else:
            rec.call("dma_copy", call, loc, dst=dst, src=value, dst_rmw_op=None, oob_mode="error",
                     dge_mode=None, engine=None)
    else:
        _ops.memset(rec, call, loc, dst, value)


__all__ = [n for n in list(globals()) if not n.startswith("_") and n not in (
    "np", "api", "current", "misuse", "unsupported", "user_loc", "install_getattr", "assign",
    "BUFFERS", "NKIFunction", "GridTuple", "DynSlice", "IndexExpr")]

install_getattr(__name__, "nl")
