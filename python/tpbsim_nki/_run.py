"""Running a traced kernel on the Go side: `tpbsim kernel run K.json --out-dir DIR`."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from . import _dtypes
from ._errors import KernelError, KernelUsageError, TraceError, func_loc
from ._trace import as_kernel, kernel_args, trace_call


def tpbsim_bin():
    """The tpbsim binary: $TPBSIM_BIN, else `tpbsim` on PATH."""
    b = os.environ.get("TPBSIM_BIN")
    if b:
        return b
    b = shutil.which("tpbsim")
    if b is None:
        raise KernelUsageError("no tpbsim binary: set TPBSIM_BIN or put tpbsim on PATH "
                               "(go install github.com/tpbsim/tpbsim/cmd/tpbsim@latest)")
    return b


def _raw_bits(flag):
    if flag is not None:
        return bool(flag)
    return os.environ.get("TPBSIM_RAW_BITS", "") not in ("", "0")


def simulate(kernel, raw_bits=None, style="nki"):
    """`nki.simulate(kernel)`: a callable running the kernel on tpbsim with numpy arrays."""
    k = as_kernel(kernel, style)

    def simulated(*args, **kwargs):
        return run(k, args, kwargs, raw_bits)

    simulated.__name__ = getattr(k, "__name__", "kernel")
    simulated.__wrapped__ = k
    return simulated


def run(kernel, args, kwargs, raw_bits=None):
    """Trace, run on the Go side, copy written-back arguments into the caller's arrays, and return
    the kernel's return value as numpy arrays (one, a tuple, or None)."""
    form = trace_call(kernel, args, kwargs)
    for tid in form["outputs"]:
        t = form["tensors"][tid]
        if t["buffer"] in ("sbuf", "psum"):
            raise TraceError("%s: kernel %s returns %r, a tile in %s (made at %s); a kernel returns HBM tensors: "
                             "nl.ndarray(shape, dtype, buffer=nl.shared_hbm), then nl.store the tile into it" % (
                                 func_loc(kernel.func) if hasattr(kernel, "func") else form["source"], form["name"],
                                 t["name"], t["buffer"], t.get("loc", "?")))
    raw = _raw_bits(raw_bits)
    keep = os.environ.get("TPBSIM_KEEP", "") not in ("", "0")
    d = tempfile.mkdtemp(prefix="tpbsim-nki-%s-" % form["name"])
    try:
        kjson = form.write(os.path.join(d, "kernel.json"))
        out = os.path.join(d, "out")
        cmd = [tpbsim_bin(), "kernel", "run", kjson, "--out-dir", out] + kernel_args()
        if "TPBSIM_KERNEL_ARGS" not in os.environ and os.environ.get("TPBSIM_VERBOSE", "") in ("", "0"):
            cmd.append("--quiet")  # library use: no machine summary per run (tpbsim nki run decides itself)
        if raw:
            cmd.append("--raw-bits")
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            raise KernelUsageError("cannot run %s: %s" % (cmd[0], e))
        stdout = p.stdout.decode("utf-8", "replace")
        stderr = p.stderr.decode("utf-8", "replace")
        if stdout:
            sys.stdout.write(stdout)
        if p.returncode == 1:
            note = ""
            if not keep and kjson in stderr:
                note = " (the kernel form named below is removed after the run; tpbsim nki run --keep keeps it)"
            raise KernelError("tpbsim kernel run: kernel %s broke a rule or failed at run time%s:\n%s" % (
                form["name"], note, stderr.rstrip()), stderr, 1)
        if p.returncode != 0:
            raise KernelUsageError("tpbsim kernel run failed (exit status %d) on kernel %s:\n%s" % (
                p.returncode, form["name"], stderr.rstrip()), stderr, p.returncode)
        if stderr:
            sys.stderr.write(stderr)
        arrays = _read_outputs(out, form)
    finally:
        if keep:
            sys.stderr.write("tpbsim: kept the kernel files in %s\n" % d)
        else:
            shutil.rmtree(d, ignore_errors=True)
    for k, caller, dtname in form.writeback:
        _copy_back(caller, arrays[k], dtname, form["tensors"][form["outputs"][k]]["name"])
    r = form.returned
    if r is None:
        return None
    if isinstance(r, tuple):
        return tuple(arrays[i] for i in r)
    return arrays[r]


def _read_outputs(out, form):
    path = os.path.join(out, "result.json")
    try:
        with open(path) as f:
            res = json.load(f)
        entries = res["outputs"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise KernelUsageError("cannot read %s: %s" % (path, e))
    if len(entries) != len(form["outputs"]):
        raise KernelUsageError("%s lists %d outputs, the kernel has %d" % (path, len(entries), len(form["outputs"])))
    arrays = []
    for e in entries:
        a = np.load(os.path.join(out, e["file"]))
        if e.get("dtype") == "bool" and a.dtype != np.bool_:
            a = a.view(np.bool_) if a.dtype.itemsize == 1 else a.astype(np.bool_)
        arrays.append(a)
    return arrays


def _copy_back(caller, result, dtname, name):
    """Write a kernel-written argument's result into the caller's array, in place."""
    if not isinstance(caller, np.ndarray):  # a tpbsim_nki.raw / converted wrapper
        caller = caller.array
        if not isinstance(caller, np.ndarray):
            return
    if caller.dtype == result.dtype or (caller.dtype.kind == result.dtype.kind == "f" and dtname in _dtypes.NATIVE):
        np.copyto(caller, result.reshape(caller.shape), casting="unsafe")
        return
    if caller.dtype.kind == "f" and result.dtype == np.float32:
        np.copyto(caller, result.reshape(caller.shape), casting="unsafe")
        return
    if dtname == "bfloat16" and caller.dtype == np.uint16 and result.dtype == np.float32:
        # every bfloat16 value is a float32 whose low 16 bits are zero: its bits are the high half
        np.copyto(caller, (result.reshape(caller.shape).view(np.uint32) >> 16).astype(np.uint16))
        return
    if caller.dtype == np.bool_ or caller.dtype.itemsize == result.dtype.itemsize:
        np.copyto(caller, result.reshape(caller.shape).view(caller.dtype))
        return
    raise KernelUsageError("kernel argument %r (%s) was written by the kernel but its result (%s) cannot "
                           "be copied into the caller's %s array; run with raw_bits=True "
                           "(TPBSIM_RAW_BITS=1) to get raw bits back" % (name, dtname, result.dtype, caller.dtype))
