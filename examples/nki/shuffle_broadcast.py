"""A stream-shuffle broadcast on tpbsim (older neuronxcc API): one partition copied to 32
partitions by nc_stream_shuffle with a mask of zeros.

    tpbsim nki run examples/nki/shuffle_broadcast.py

Exits 1, printing what differed, if a row of the result is not the input row."""

import sys

import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit(mode="simulation")
def broadcast(in_tensor):
    out_tensor = nl.ndarray(shape=(32, 128), dtype=np.float32, buffer=nl.shared_hbm)
    a = nl.load(in_tensor)  # [1, 128]
    b = nl.ndarray(shape=(32, 128), dtype=np.float32)
    dst = nl.mgrid[0:32, 0:128]
    src = nl.mgrid[0:1, 0:128]
    nisa.nc_stream_shuffle(src=a[0, src.x], dst=b[dst.p, dst.x], shuffle_mask=[0] * 32)
    nl.store(out_tensor, value=b)
    return out_tensor


def main():
    x = (np.random.default_rng(1).random((1, 128)) * 100).astype(np.float32)
    got = nki.simulate_kernel(broadcast, x)
    want = np.broadcast_to(x, (32, 128))
    rows = [i for i in range(32) if not np.array_equal(got[i], want[i])]
    if got.shape != want.shape or rows:
        print("shuffle broadcast differs: shape %s, rows %s" % (got.shape, rows))
        return 1
    print("shuffle broadcast: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
