#!/usr/bin/env python3
"""Times numpy's np.copyto(out, tiles.T) on the data of dve's BenchmarkStreamTranspose:
[128 x N] tiles of 1-, 2- and 4-byte cells at 1 MiB and at the CAYMAN full
size (112 KiB per partition, 14 MiB per side), next to np.copyto(out, tiles) (a plain copy).

    python3 testdata/dve/bench_numpy.py
"""
import time

import numpy as np

FULL = 112 * 1024 * 128


def best(fn, seconds=0.6):
    fn()
    t_best, spent = float("inf"), 0.0
    while spent < seconds:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        spent += dt
        t_best = min(t_best, dt)
    return t_best


def main():
    print("%-22s %10s %10s %8s" % ("case", "T GB/s", "copy GB/s", "x-copy"))
    for es, dt in ((1, np.uint8), (2, np.uint16), (4, np.uint32)):
        for name, nbytes in (("1MiB", 1 << 20), ("full", FULL)):
            n = nbytes // es // 128
            tiles = np.random.default_rng(0).integers(0, 255, size=(128, n), dtype=np.uint64).astype(dt)
            out = np.empty((n, 128), dtype=dt)
            same = np.empty_like(tiles)
            t = best(lambda: np.copyto(out, tiles.T))
            c = best(lambda: np.copyto(same, tiles))
            print("%-22s %10.2f %10.2f %8.3f" % ("%dB/%s" % (es, name), nbytes / t / 1e9, nbytes / c / 1e9, c / t))


if __name__ == "__main__":
    main()
