"""Every supported NKI call on tpbsim against numpy, as a unittest file run by
`tpbsim nki run` (cmd/tpbsim TestNKIOracle): casts with NaN / Inf / overflow, partial VE
transposes, PSUM placement, dst_rmw_op add, reduces, shuffles with 255 entries, indirect DMA
with out-of-bound indices in both modes, and the refusals."""

import unittest

import numpy as np

import nki
import nki.isa as nisa
import nki.language as nl
import tpbsim_nki

SPECIAL = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 65504.0, 65520.0,
                    70000.0, 1.5, -2.5, 3.4e38, 1e-8, -7.75], np.float32)


def bf16_rne(x):
    """float32 -> bfloat16 (as float32), round to nearest even, NaN kept NaN: numpy bit ops."""
    b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    out = r.astype(np.uint32).view(np.float32).copy()
    out[np.isnan(x)] = np.nan
    return out


@nki.jit
def cast_kernel(a):
    f16 = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.shared_hbm)
    bf = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.shared_hbm)
    i8 = nl.ndarray(a.shape, dtype=nl.int8, buffer=nl.shared_hbm)
    dmaf16 = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.shared_hbm)
    t = nl.load(a)
    h = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.sbuf)
    nisa.tensor_copy(h, t)
    nl.store(f16, h)
    b = nl.ndarray(a.shape, dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.tensor_copy(b, t)
    nl.store(bf, b)
    i = nl.ndarray(a.shape, dtype=nl.int8, buffer=nl.sbuf)
    nisa.tensor_copy(i, t)
    nl.store(i8, i)
    nisa.dma_copy(dmaf16, a)  # the DMA's own cast
    return f16, bf, i8, dmaf16


@nki.jit
def psum_kernel(a):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    p = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.psum)
    nisa.memset(p, 0.0)
    nisa.tensor_copy(p, t)
    r = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.sbuf)
    nisa.reciprocal(r, p)
    nl.store(out, r)
    return out


@nki.jit
def transpose_kernel(a):
    P, F = a.shape
    out = nl.ndarray((F, P), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    u = nl.ndarray((F, P), dtype=a.dtype, buffer=nl.sbuf)
    nisa.nc_transpose(u, t)
    nl.store(out, u)
    return out


@nki.jit
def rmw_kernel(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, t)
    nisa.dma_copy(out, b, dst_rmw_op=np.add)
    return out


@nki.jit
def reduce_kernel(a):
    P = a.shape[0]
    s = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    m = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    ts = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(ts, nl.add, t, axis=(1, 2), negate=True, keepdims=True)
    nl.store(s, ts)
    tm = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(tm, nl.minimum, t, axis=(1, 2), keepdims=True)
    nl.store(m, tm)
    return s, m


def shuffle_kernel_for(mask):
    @nki.jit
    def shuffle_kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        u = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.memset(u, -1.0)
        nisa.nc_stream_shuffle(u, t, mask)
        nl.store(out, u)
        return out
    return shuffle_kernel


def gather_kernel_for(mode):
    @nki.jit
    def gather_kernel(table, idx):
        n = idx.shape[0]
        F = table.shape[1]
        out = nl.ndarray((n, F), dtype=table.dtype, buffer=nl.shared_hbm)
        it = nl.load(idx)
        g = nl.ndarray((n, F), dtype=table.dtype, buffer=nl.sbuf)
        nisa.memset(g, 7.0)
        nisa.dma_copy(g, table.ap(pattern=[[F, n], [1, F]], vector_offset=it, indirect_dim=0), oob_mode=mode)
        nl.store(out, g)
        return out
    return gather_kernel


@nki.jit
def gather4d_kernel(tokens, idx_hbm):
    T = idx_hbm.shape[0]
    idx = nl.load(idx_hbm)
    out = nl.ndarray((64, 1, 2, T), dtype=tokens.dtype, buffer=nl.shared_hbm)
    dst = nl.ndarray((64, 1, 2, T), dtype=tokens.dtype, buffer=nl.sbuf)
    src = tokens.ap(pattern=[[128, T], [128, 1], [64, 2], [1, 64]], vector_offset=idx, indirect_dim=0)
    nisa.dma_transpose(dst, src, axes=(3, 1, 2, 0))
    nisa.dma_copy(out, dst)
    return out


@nki.jit
def gather_transpose_skip_kernel(tok, idx_hbm):
    n = idx_hbm.shape[0]
    out = nl.ndarray((tok.shape[1], n), dtype=tok.dtype, buffer=nl.shared_hbm)
    idx = nl.load(idx_hbm)
    d = nl.ndarray((tok.shape[1], n), dtype=tok.dtype, buffer=nl.sbuf)
    nisa.memset(d, 7.0)
    nisa.dma_transpose(d, tok.ap(pattern=[[tok.shape[1], n], [1, tok.shape[1]]], vector_offset=idx, indirect_dim=0),
                       oob_mode=nisa.oob_mode.skip)
    nl.store(out, d)
    return out


@nki.jit
def transpose_fp32_kernel(a):
    out = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
    d = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(d, a)
    nl.store(out, d)
    return out


@nki.jit
def reversed_rows_kernel(a):
    o = nl.ndarray((32, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.ndarray((32, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=y, src=x[31::-1, :])
    nl.store(o, y)
    return o


@nki.jit
def long_row_kernel(a):
    o = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.ndarray(a.shape, dtype=nl.float16, buffer=nl.sbuf)
    nisa.tensor_copy(y, x)
    nl.store(o, y)
    return o


class TestCalls(unittest.TestCase):
    def test_reversed_partitions_by_dma(self):
        a = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
        np.testing.assert_array_equal(nki.simulate(reversed_rows_kernel)(a), a[31::-1])

    def test_row_longer_than_a_tensor4d_count(self):
        a = (np.arange(100000) % 250 - 120).astype(np.int8).reshape(1, 100000)
        np.testing.assert_array_equal(nki.simulate(long_row_kernel)(a), a.astype(np.float16))

    def test_gather_transpose_4d(self):
        rng = np.random.default_rng(5)
        tokens = rng.standard_normal((100, 1, 2, 64)).astype(np.float16)
        idx = rng.integers(0, 100, size=(32, 1), dtype=np.uint32)
        want = np.transpose(tokens[idx.T.flatten()], (3, 1, 2, 0))
        np.testing.assert_array_equal(nki.simulate(gather4d_kernel)(tokens, idx), want)

    def test_gather_transpose_skip(self):
        tok = (np.arange(64 * 32) % 100).astype(np.float16).reshape(64, 32)
        idx = np.r_[np.arange(15), 999].astype(np.uint32).reshape(16, 1)
        want = np.full((32, 16), 7, np.float16)
        for j, v in enumerate(idx[:, 0]):
            if v < 64:
                want[:, j] = tok[v]
        np.testing.assert_array_equal(nki.simulate(gather_transpose_skip_kernel)(tok, idx), want)  # skipped column untouched

    def test_dma_transpose_fp32_default_path(self):
        a = np.random.default_rng(6).standard_normal((2048, 128)).astype(np.float32)
        np.testing.assert_array_equal(nki.simulate(transpose_fp32_kernel)(a), a.T)

    def test_casts_special_values(self):
        a = np.tile(SPECIAL, (8, 1))
        f16, bf, i8, dmaf16 = nki.simulate(cast_kernel)(a)
        with np.errstate(over="ignore", invalid="ignore"):
            want16 = a.astype(np.float16)
        np.testing.assert_array_equal(f16, want16)  # NaN positions equal too
        np.testing.assert_array_equal(dmaf16, want16)
        np.testing.assert_array_equal(bf, bf16_rne(a))
        with np.errstate(invalid="ignore"):
            want8 = np.where(np.isnan(a), 0, np.clip(np.trunc(a), -128, 127)).astype(np.int8)
        np.testing.assert_array_equal(i8, want8)  # toward zero, saturating, NaN -> 0 (num.cast.float_to_int)

    def test_psum_placement(self):
        a = np.linspace(0.5, 8, 64 * 32, dtype=np.float32).reshape(64, 32)
        np.testing.assert_allclose(nki.simulate(psum_kernel)(a), 1 / a, rtol=1e-6)

    def test_partial_transposes(self):
        rng = np.random.default_rng(1)
        for shape in ((32, 32), (32, 2), (5, 7), (1, 32), (32, 1), (17, 31)):
            a = rng.standard_normal(shape).astype(np.float32)
            np.testing.assert_array_equal(nki.simulate(transpose_kernel)(a), a.T, err_msg=str(shape))
        h = rng.standard_normal((16, 8)).astype(np.float16)
        np.testing.assert_array_equal(nki.simulate(transpose_kernel)(h), h.T)

    def test_dst_rmw_add(self):
        rng = np.random.default_rng(2)
        a = rng.standard_normal((64, 48)).astype(np.float32)
        b = rng.standard_normal((64, 48)).astype(np.float32)
        np.testing.assert_array_equal(nki.simulate(rmw_kernel)(a, b), a + b)

    def test_reduce(self):
        a = np.random.default_rng(3).standard_normal((96, 4, 16)).astype(np.float32)
        s, m = nki.simulate(reduce_kernel)(a)
        np.testing.assert_allclose(s[:, 0], -a.sum(axis=(1, 2)), rtol=1e-5, atol=1e-4)
        np.testing.assert_array_equal(m[:, 0], a.min(axis=(1, 2)))

    def test_shuffle_mask(self):
        rng = np.random.default_rng(4)
        mask = [int(x) for x in rng.integers(0, 32, 32)]
        mask[3] = mask[17] = 255
        a = rng.standard_normal((64, 20)).astype(np.float32)
        got = nki.simulate(shuffle_kernel_for(mask))(a)
        want = np.full_like(a, -1.0)
        for q in range(2):
            for i, m in enumerate(mask):
                if m != 255:
                    want[32 * q + i] = a[32 * q + m]
        np.testing.assert_array_equal(got, want)

    def test_gather_oob(self):
        table = np.arange(40 * 8, dtype=np.float32).reshape(40, 8)
        idx = np.array([[3], [39], [40], [0], [1000], [7], [12], [5]] * 2, np.uint32)
        got = nki.simulate(gather_kernel_for(nisa.oob_mode.skip))(table, idx)
        want = np.full((16, 8), 7.0, np.float32)
        for k, v in enumerate(idx[:, 0]):
            if v < 40:
                want[k] = table[v]
        np.testing.assert_array_equal(got, want)  # out-of-bound rows skipped: left as they were
        with self.assertRaises(tpbsim_nki.KernelError) as cm:
            nki.simulate(gather_kernel_for(nisa.oob_mode.error))(table, idx)
        self.assertIn("dma_copy", str(cm.exception))

    def test_refusals(self):
        @nki.jit
        def big_transpose(a):
            out = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.load(a)
            u = nl.ndarray((64, 64), dtype=a.dtype, buffer=nl.sbuf)
            nisa.nc_transpose(u, t, engine=nisa.engine.vector)
            nl.store(out, u)
            return out
        with self.assertRaises(tpbsim_nki.KernelError) as cm:
            nki.simulate(big_transpose)(np.zeros((64, 64), np.float32))
        self.assertIn("nki.nc_transpose.vector_tile", str(cm.exception))

        @nki.jit
        def too_big(a):
            out = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)
            t = nl.ndarray((128, 70000), dtype=nl.float32, buffer=nl.sbuf)
            nisa.memset(t, 0.0)
            nl.store(out, t[:, 0:8])
            return out
        with self.assertRaises(tpbsim_nki.KernelError) as cm:
            nki.simulate(too_big)(np.zeros((1, 1), np.float32))
        self.assertIn("kernel.capacity", str(cm.exception))

        @nki.jit
        def matmul(a):
            t = nl.load(a)
            return nl.matmul(t, t)
        with self.assertRaises(tpbsim_nki.UnsupportedError) as cm:
            nki.simulate(matmul)(np.zeros((4, 4), np.float32))
        self.assertIn("matmul", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
