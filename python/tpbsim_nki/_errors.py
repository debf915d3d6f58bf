"""Exceptions of the tpbsim NKI front end, and the user's file:line they name."""

import os
import sys

# Files of these folders are the front end's own; a call's loc is the innermost frame outside them.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OWN = tuple(os.path.join(_ROOT, d) + os.sep for d in ("tpbsim_nki", "nki", "neuronxcc"))
# numpy's dispatch frames (np.sum(tile) reaches a tile's __array_function__ through them)
_SKIP = ("<__array_function__",)
try:
    import numpy as _np
    _SKIP += (os.path.dirname(os.path.abspath(_np.__file__)) + os.sep,)
except ImportError:  # pragma: no cover
    pass


class Error(Exception):
    """Base class of every error the tpbsim front end raises."""


class UnsupportedError(Error, NotImplementedError):
    """The kernel used an NKI call or feature tpbsim does not model."""


class TraceError(Error, TypeError):
    """The kernel misused an NKI call in a way the recorder can see (type, arity, shape algebra)."""


class KernelError(Error):
    """`tpbsim kernel run` refused the kernel (exit status 1): a broken rule, named with its call's
    file:line in the message (the Go side's stderr)."""

    def __init__(self, message, stderr="", status=1):
        super().__init__(message)
        self.stderr = stderr
        self.status = status


class KernelUsageError(Error):
    """`tpbsim kernel run` failed on usage or I/O (exit status 2), or could not be started."""

    def __init__(self, message, stderr="", status=2):
        super().__init__(message)
        self.stderr = stderr
        self.status = status


_SHORT = {}


def _short(path):
    """path relative to the working directory when inside it (memoised: a trace asks per call)."""
    key = (os.getcwd(), path)
    s = _SHORT.get(key)
    if s is None:
        s = _SHORT[key] = _shorten(path)
    return s


def _shorten(path):
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def user_loc(depth=1):
    """The "file:line" of the innermost frame outside the front end's packages."""
    f = sys._getframe(depth)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_OWN) and not fn.startswith(_SKIP):
            if fn.startswith("<"):
                return "%s:%d" % (fn, f.f_lineno)
            return "%s:%d" % (_short(fn), f.f_lineno)
        f = f.f_back
    return "<unknown>:0"


def func_loc(fn):
    """The "file:line" of a function's def line."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return "<unknown>:0"
    return "%s:%d" % (_short(code.co_filename), code.co_firstlineno)


def unsupported(what, loc=None):
    """An UnsupportedError naming the call, where the kernel made it, and that tpbsim does not model it."""
    if loc is None:
        loc = user_loc(2)
    return UnsupportedError("%s: %s is not modelled by tpbsim (no numpy fallback); the subset tpbsim "
                            "runs is listed in tpbsim's README (NKI kernels: the front door) and in the README.md beside "
                            "these packages (tpbsim nki path)" % (loc, what))


def misuse(call, msg, loc=None):
    if loc is None:
        loc = user_loc(2)
    return TraceError("%s: %s: %s" % (loc, call, msg))


def _excepthook(etype, value, tb):
    """Uncaught front-end errors print the kernel's frames and the message, not the recorder's."""
    import traceback
    if not isinstance(value, Error) or os.environ.get("TPBSIM_DEBUG"):
        return _previous_hook(etype, value, tb)
    frames = [f for f in traceback.extract_tb(tb) if not f.filename.startswith(_OWN)]
    sys.stderr.write("Traceback (most recent call last, tpbsim's own frames left out):\n")
    sys.stderr.write("".join(traceback.format_list(frames)))
    sys.stderr.write("%s: %s\n" % (etype.__name__, value))


_previous_hook = sys.excepthook


def install_excepthook():
    global _previous_hook
    if sys.excepthook is sys.__excepthook__:
        _previous_hook = sys.excepthook
        sys.excepthook = _excepthook
