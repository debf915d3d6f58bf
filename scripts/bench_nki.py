"""Times a 1,000-call NKI kernel on tpbsim (trace in Python, then lower + run in Go) beside eager
numpy of the same calls (figures go to BENCHMARKS.md, never a timed test).

    PYTHONPATH=python TPBSIM_BIN=$(go env GOPATH)/bin/tpbsim /usr/bin/python3 scripts/bench_nki.py
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl
import tpbsim_nki

ITERS = 200  # 5 calls each


@nki.jit
def pipeline(a):
    out = nl.ndarray((ITERS, 32, 32), dtype=a.dtype, buffer=nl.shared_hbm)
    sums = nl.ndarray((ITERS, 32, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(ITERS):
        t = nl.load(a[i])
        u = nl.ndarray((32, 32), dtype=a.dtype, buffer=nl.sbuf)
        nisa.nc_transpose(u, t)
        s = nl.ndarray((32, 1), dtype=a.dtype, buffer=nl.sbuf)
        nisa.tensor_reduce(s, nl.add, u, axis=1)
        nl.store(out[i], u)
        nl.store(sums[i], s)
    return out, sums


def eager(a):
    out = np.empty((ITERS, 32, 32), a.dtype)
    sums = np.empty((ITERS, 32, 1), a.dtype)
    for i in range(ITERS):
        t = a[i].copy()
        u = t.T.copy()
        s = u.sum(axis=1, keepdims=True)
        out[i] = u
        sums[i] = s
    return out, sums


def best(fn, n=5):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        r = fn()
        ts.append(time.perf_counter() - t0)
    return min(ts), r


def main():
    os.environ.setdefault("TPBSIM_KERNEL_ARGS", "[\"--quiet\"]")
    a = np.random.default_rng(0).standard_normal((ITERS, 32, 32)).astype(np.float32)
    t_trace, form = best(lambda: tpbsim_nki.trace(pipeline, a))
    calls = len(form.form["calls"]) if hasattr(form, "form") else ITERS * 5
    d = tempfile.mkdtemp()
    form.write(os.path.join(d, "k.json"))
    binary = os.environ.get("TPBSIM_BIN", "tpbsim")
    t_go, _ = best(lambda: subprocess.run([binary, "kernel", "run", os.path.join(d, "k.json"), "--quiet"], check=True))
    t_all, (o, s) = best(lambda: nki.simulate(pipeline)(a))
    t_np, (eo, es) = best(lambda: eager(a))
    assert np.array_equal(o, eo) and np.allclose(s, es, rtol=1e-5, atol=1e-4)  # fold order differs from numpy's pairwise sum
    print("%d calls: trace %.0f ms, lower+run (tpbsim kernel run) %.0f ms, nki.simulate end to end %.0f ms; eager numpy %.1f ms"
          % (calls, 1e3 * t_trace, 1e3 * t_go, 1e3 * t_all, 1e3 * t_np))


if __name__ == "__main__":
    sys.exit(main())
