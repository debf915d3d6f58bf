"""NKI dtypes: the names of the kernel form, numpy's types where numpy has one, small objects where
it has none (bfloat16, tfloat32, the fp8 formats)."""

import numpy as np


class DType:
    """An NKI dtype numpy has no type for. Compares equal to its name and to itself."""

    __slots__ = ("name", "itemsize", "raw")

    def __init__(self, name, itemsize, raw):
        self.name = name
        self.itemsize = itemsize
        self.raw = raw  # the unsigned numpy type holding its raw bits

    def __repr__(self):
        return "nl." + self.name

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, DType):
            return other.name == self.name
        if isinstance(other, str):
            return other == self.name
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __hash__(self):
        return hash(self.name)


bfloat16 = DType("bfloat16", 2, np.uint16)
tfloat32 = DType("tfloat32", 4, np.uint32)
float8_e4m3 = DType("float8_e4m3", 1, np.uint8)
float8_e4m3fn = DType("float8_e4m3fn", 1, np.uint8)
float8_e5m2 = DType("float8_e5m2", 1, np.uint8)
float8_e8m0fnu = DType("float8_e8m0fnu", 1, np.uint8)
# Packed formats NKI names; tpbsim records them and the lowering refuses them.
float8_e4m3fn_x4 = DType("float8_e4m3fn_x4", 4, np.uint32)
float8_e5m2_x4 = DType("float8_e5m2_x4", 4, np.uint32)
float4_e2m1fn_x4 = DType("float4_e2m1fn_x4", 2, np.uint16)

SPECIAL = {d.name: d for d in (bfloat16, tfloat32, float8_e4m3, float8_e4m3fn, float8_e5m2,
                                float8_e8m0fnu, float8_e4m3fn_x4, float8_e5m2_x4, float4_e2m1fn_x4)}

# Kernel-form name -> numpy type, for the dtypes numpy has.
NATIVE = {
    "bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16,
    "uint32": np.uint32, "int32": np.int32, "float16": np.float16, "float32": np.float32,
}
_NP_NAME = {np.dtype(t).name: n for n, t in NATIVE.items()}
# ml_dtypes names for the formats numpy lacks (arrays of these are read as raw bits).
_ML_NAME = {"bfloat16": "bfloat16", "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
            "float8_e4m3": "float8_e4m3", "float8_e8m0fnu": "float8_e8m0fnu"}


def name_of(dt):
    """The kernel-form name of a dtype given as an NKI dtype object, a numpy type or dtype, or a
    name string; None if it is not an NKI dtype."""
    if isinstance(dt, DType):
        return dt.name
    if isinstance(dt, str):
        if dt == "bool_":
            return "bool"
        if dt in NATIVE or dt in SPECIAL:
            return dt
        try:
            dt = np.dtype(dt)
        except TypeError:
            return None
    try:
        d = np.dtype(dt)
    except TypeError:
        return None
    n = _NP_NAME.get(d.name)
    if n is not None:
        return n
    return _ML_NAME.get(d.name)


def user_dtype(name):
    """What a kernel sees as `tensor.dtype`: numpy's dtype where numpy has one, else the DType."""
    t = NATIVE.get(name)
    if t is not None:
        return np.dtype(t)
    return SPECIAL.get(name, name)


def itemsize(name):
    t = NATIVE.get(name)
    if t is not None:
        return np.dtype(t).itemsize
    d = SPECIAL.get(name)
    return d.itemsize if d is not None else 0


def is_float(name):
    return name.startswith(("float", "bfloat", "tfloat"))
