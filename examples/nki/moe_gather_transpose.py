"""An MoE-style gather transpose on tpbsim (current NKI API): token rows picked by a uint32 index
tile and transposed in one software-DGE DMA (nisa.dma_transpose with an indirect src), checked
against NKI's formula: flat = indices.T.flatten()[:n]; dst = src[flat, :].T

    tpbsim nki run examples/nki/moe_gather_transpose.py

Exits 1, printing what differed, on a mismatch."""

import sys

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl

D = 64  # features per token (<= 128)


@nki.jit
def gather_transpose(tokens, idx_hbm):
    P, N = idx_hbm.shape  # [16..128, 1], or [128, N]
    F = P * N  # tokens gathered
    out = nl.ndarray((D, F), dtype=tokens.dtype, buffer=nl.shared_hbm)
    idx = nl.load(idx_hbm)
    dst = nl.ndarray((D, F), dtype=tokens.dtype, buffer=nl.sbuf)
    nisa.memset(dst, 0)
    src = tokens.ap(pattern=[[D, F], [1, D]], vector_offset=idx, indirect_dim=0)
    nisa.dma_transpose(dst, src, axes=(1, 0), dge_mode=nisa.dge_mode.swdge)
    nisa.dma_copy(out, dst)
    return out


def main():
    rng = np.random.default_rng(2)
    tokens = rng.standard_normal((300, D)).astype(np.float16)
    bad = 0
    for shape in ((32, 1), (128, 2)):
        idx = rng.integers(0, tokens.shape[0], size=shape, dtype=np.uint32)
        flat = idx.T.flatten()[: shape[0] * shape[1]]
        want = tokens[flat, :].T
        got = nki.simulate(gather_transpose)(tokens, idx)
        if got.shape != want.shape or not np.array_equal(got, want):
            bad += 1
            cols = sorted({int(c) for c in np.argwhere(got != want)[:, 1]}) if got.shape == want.shape else []
            print("indices %s: differs (shape %s, want %s; token columns %s)" % (shape, got.shape, want.shape, cols[:8]))
    print("gather transpose: %s" % ("FAIL" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
