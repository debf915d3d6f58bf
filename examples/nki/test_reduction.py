"""Reductions on tpbsim as a unittest file (older neuronxcc API): tensor_reduce add, max with
keepdims, negate, over the last free axes.

    tpbsim nki run examples/nki/test_reduction.py      (a failing test fails the command)"""

import unittest

import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit(mode="simulation")
def reduce_kernel(a_tensor, c_tensor):
    sums = nl.ndarray([128, 1], dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    maxes = nl.ndarray([128, 1], dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    neg = nl.ndarray([32, 1, 1], dtype=c_tensor.dtype, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(512)[None, :]
    a = nl.load(a_tensor[i_p, i_f])
    s = nisa.tensor_reduce(np.add, a[i_p, i_f], axis=[1])  # [128]
    nl.store(sums, s)
    m = nisa.tensor_reduce(nl.maximum, a, axis=1, keepdims=True)  # [128, 1]
    nl.store(maxes, m)
    c = nl.load(c_tensor)  # [32, 4, 8]
    n = nisa.tensor_reduce(np.add, c, axis=(1, 2), keepdims=True, negate=True)  # [32, 1, 1]
    nl.store(neg, n)
    return sums, maxes, neg


class TestReduction(unittest.TestCase):
    def test_reduce(self):
        rng = np.random.default_rng(3)
        a = rng.random((128, 512)).astype(np.float32) * 100
        c = rng.integers(-8, 8, size=(32, 4, 8)).astype(np.float32)
        sums, maxes, neg = reduce_kernel(a, c)
        np.testing.assert_allclose(sums, a.sum(axis=1, keepdims=True), rtol=1e-5)
        np.testing.assert_array_equal(maxes, a.max(axis=1, keepdims=True))
        np.testing.assert_array_equal(neg, -c.sum(axis=(1, 2), keepdims=True))  # small integers: exact


if __name__ == "__main__":
    unittest.main()
