"""Shared helpers of the front end's tests."""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PYROOT = os.path.dirname(HERE)
if PYROOT not in sys.path and not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, PYROOT)

import tpbsim_nki  # noqa: E402


def line():
    """The caller's line number (put a call and `L.append(line())` on one line)."""
    return sys._getframe(1).f_lineno


def loc_line(loc, test):
    """Assert that a loc names `test`'s file and return its line."""
    path, _, n = loc.rpartition(":")
    test.assertEqual(os.path.basename(path), os.path.basename(sys._getframe(1).f_code.co_filename), loc)
    return int(n)


def calls(form, op=None):
    return [c for c in form["calls"] if op is None or c["op"] == op]


def view(tensor, offset, pattern):
    return {"tensor": tensor, "offset": offset, "pattern": [list(p) for p in pattern]}


def f32(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
