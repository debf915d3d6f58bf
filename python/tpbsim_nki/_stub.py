"""What makes every NKI name outside tpbsim's subset raise: module __getattr__ hands out
NKIFunction objects, which name themselves when used as an op and raise when called."""

import functools
import sys

import numpy as np

from ._errors import Error, misuse, unsupported, user_loc


class NKIFunction:
    """An NKI function tpbsim does not run (nl.add, nl.exp, nisa.nc_matmul, ...). Usable as the name
    of an op (`nisa.tensor_reduce(..., op=nl.add, ...)`); calling it raises UnsupportedError."""

    __slots__ = ("qual", "opname")

    def __init__(self, qual, opname):
        self.qual = qual
        self.opname = opname

    def __call__(self, *args, **kwargs):
        raise unsupported("%s(...)" % self.qual, user_loc(2))

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise unsupported("%s.%s" % (self.qual, name), user_loc(2))

    def __repr__(self):
        return self.qual

    def __eq__(self, other):
        return isinstance(other, NKIFunction) and other.qual == self.qual

    def __hash__(self):
        return hash(self.qual)


def module_getattr(prefix, module_name):
    """A module-level __getattr__ for an NKI namespace: unknown public names are NKIFunctions."""
    cache = {}

    def __getattr__(name):
        if name.startswith("_"):
            raise AttributeError("module %r has no attribute %r" % (module_name, name))
        f = cache.get(name)
        if f is None:
            f = cache[name] = NKIFunction(prefix + "." + name, name)
        return f

    return __getattr__


# numpy / Python names of reductions -> the kernel form's reduce_op names
_ALIASES = {"max": "maximum", "amax": "maximum", "min": "minimum", "amin": "minimum", "sum": "add",
            "prod": "multiply", "product": "multiply", "nanmax": "maximum", "nanmin": "minimum"}


def op_name(op, call, arg):
    """The kernel-form name of an ALU op given as nl.add, np.add, np.max, "add", ..."""
    if isinstance(op, NKIFunction):
        n = op.opname
    elif isinstance(op, str):
        n = op
    elif isinstance(op, np.ufunc) or callable(op):
        n = getattr(op, "__name__", None)
        if n is None:
            raise misuse(call, "%s: cannot name the op %r" % (arg, op), user_loc(3))
    else:
        raise misuse(call, "%s must be an op such as np.add or nl.add, got %r" % (arg, op), user_loc(3))
    return _ALIASES.get(n, n)


def api(qual):
    """Decorate an NKI entry point so that a wrong call (arity, unknown keyword) raises a TraceError
    naming the call and the kernel's file:line."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TypeError as e:
                if isinstance(e, Error) or e.__traceback__ is None or e.__traceback__.tb_next is not None:
                    raise
                msg = str(e).replace(fn.__name__ + "()", "").strip()
                raise misuse(qual, msg, user_loc(2)) from None

        wrapper.qual = qual
        return wrapper

    return deco


def install_getattr(module_name, prefix):
    sys.modules[module_name].__getattr__ = module_getattr(prefix, module_name)
