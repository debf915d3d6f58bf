#!/usr/bin/python3
"""Time numpy on the arrays of the dge/dma benchmarks (dge/bench_test.go), for comparison.

Cases (same shapes and dtypes as the Go benchmarks):
  contiguous64MiB   np.copyto(out, a)                       a: uint8 (64 MiB)
  nd_keep_inner     np.copyto(out, a.transpose(1, 0, 2))    a: float32 (64, 64, 2048) = 32 MiB
  transpose2d       np.copyto(out, a.T)                     a: uint16 (131072, 128) = 32 MiB
  perm3120          np.copyto(out, a.transpose(3, 1, 2, 0)) a: uint16 (2048, 8, 8, 128) = 32 MiB

Prints one line per case: name, best seconds of --repeat runs, GB/s; with --json a JSON object
{name: seconds}.
"""
import json
import sys
import time

import numpy as np


def best(fn, repeat):
    fn()
    t = float("inf")
    for _ in range(repeat):
        s = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - s)
    return t


def cases():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 255, size=64 << 20, dtype=np.uint8)
    o = np.empty_like(a)
    yield "contiguous64MiB", a.nbytes, lambda: np.copyto(o, a)
    b = rng.standard_normal((64, 64, 2048), dtype=np.float32)
    ob = np.empty((64, 64, 2048), dtype=np.float32)
    yield "nd_keep_inner", b.nbytes, lambda: np.copyto(ob, b.transpose(1, 0, 2))
    c = rng.integers(0, 65535, size=(131072, 128), dtype=np.uint16)
    oc = np.empty((128, 131072), dtype=np.uint16)
    yield "transpose2d", c.nbytes, lambda: np.copyto(oc, c.T)
    d = rng.integers(0, 65535, size=(2048, 8, 8, 128), dtype=np.uint16)
    od = np.empty((128, 8, 8, 2048), dtype=np.uint16)
    yield "perm3120", d.nbytes, lambda: np.copyto(od, d.transpose(3, 1, 2, 0))


def main():
    repeat = 5
    out = {}
    for name, nbytes, fn in cases():
        t = best(fn, repeat)
        out[name] = t
        if "--json" not in sys.argv:
            print("%-16s %10.3f ms %8.2f GB/s" % (name, t * 1e3, nbytes / t / 1e9))
    if "--json" in sys.argv:
        print(json.dumps(out))


if __name__ == "__main__":
    main()
