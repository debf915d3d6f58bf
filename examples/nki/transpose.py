"""Transposes on tpbsim (current NKI API): the Vector Engine's nc_transpose of a full [32, 32] tile
and of a partial [32, 2] one, and a DMA transpose of a [16, 128] float16 tensor.

    tpbsim nki run examples/nki/transpose.py

Exits 1, printing what differed, if a result is not numpy's transpose."""

import sys

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def transposes(a, b, c):
    aT = nl.ndarray((32, 32), dtype=a.dtype, buffer=nl.shared_hbm)
    bT = nl.ndarray((2, 32), dtype=b.dtype, buffer=nl.shared_hbm)
    cT = nl.ndarray((128, 16), dtype=c.dtype, buffer=nl.shared_hbm)

    a_sb = nl.load(a)
    aT_sb = nl.ndarray((32, 32), dtype=a.dtype, buffer=nl.sbuf)
    nisa.nc_transpose(aT_sb, a_sb, engine=nisa.engine.vector)
    nl.store(aT, aT_sb)

    b_sb = nl.load(b)
    bT_sb = nl.ndarray((2, 32), dtype=b.dtype, buffer=nl.sbuf)
    nisa.nc_transpose(bT_sb, b_sb, engine=nisa.engine.vector)  # a partial tile
    nl.store(bT, bT_sb)

    cT_sb = nl.ndarray((128, 16), dtype=c.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(cT_sb, c, axes=(1, 0))
    nl.store(cT, cT_sb)
    return aT, bT, cT


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, 32)).astype(np.float32)
    b = rng.standard_normal((32, 2)).astype(np.float32)
    c = rng.standard_normal((16, 128)).astype(np.float16)
    bad = 0
    for name, got, want in zip(("aT", "bT", "cT"), nki.simulate(transposes)(a, b, c), (a.T, b.T, c.T)):
        if got.shape != want.shape or not np.array_equal(got, want):
            bad += 1
            print("%s differs: shape %s (want %s); %s" % (name, got.shape, want.shape,
                  np.argwhere(got != want)[:5].tolist() if got.shape == want.shape else ""))
    print("transposes: %s" % ("FAIL" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
