"""Recording kernels written in the older API (import neuronxcc.nki): index grids, affine
expressions, indirect DMA through a tile, calls returning tiles."""

import unittest

import numpy as np

from helpers import calls, f32, line, loc_line, tpbsim_nki, view

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
from neuronxcc.nki.isa.constants import dge_mode
from neuronxcc.nki.typing import tensor


class TestGrids(unittest.TestCase):
    def test_arange_mgrid_affine(self):
        got = {}

        @nki.jit(mode="simulation")
        def k(a):
            i_p = nl.arange(64)[:, None]
            i_f = nl.arange(32)[None, :]
            got["grid"] = a[i_p, i_f]
            got["affine"] = a[2 * i_p + 1, i_f + 32 * 3]
            g = nl.mgrid[0:8, 0:16]
            got["mgrid"] = a[g.p, g.x]
            got["mgrid_key"] = a[nl.mgrid[0:4, 0:8]]
            ip, jf = nl.mgrid[0:4, 0:8]
            got["unpacked"] = a[ip + 4, jf - 2 + 10]
            got["int_grid"] = a[5, nl.arange(16)[None, :]]
            got["step_grid"] = a[nl.mgrid[0:8:2, 0:4]]
            got["sum"] = a[i_p, i_p + i_f]
            got["sliced"] = a[0:4, nl.arange(8)[None, :]]

        tpbsim_nki.trace(k, f32(256, 512))
        self.assertEqual(got["grid"].form(), view(0, 0, [[512, 64], [1, 32]]))
        self.assertEqual(got["affine"].form(), view(0, 512 + 96, [[1024, 64], [1, 32]]))
        self.assertEqual(got["mgrid"].form(), view(0, 0, [[512, 8], [1, 16]]))
        self.assertEqual(got["mgrid_key"].form(), view(0, 0, [[512, 4], [1, 8]]))
        self.assertEqual(got["unpacked"].form(), view(0, 4 * 512 + 8, [[512, 4], [1, 8]]))
        self.assertEqual(got["int_grid"].form(), view(0, 5 * 512, [[0, 1], [1, 16]]))
        self.assertEqual(got["step_grid"].form(), view(0, 0, [[1024, 4], [1, 4]]))
        self.assertEqual(got["sum"].form(), view(0, 0, [[513, 64], [1, 32]]))
        # numpy placement: the slice axis, then the grid [1, 8]
        self.assertEqual(got["sliced"].form(), view(0, 0, [[512, 4], [0, 1], [1, 8]]))
        self.assertEqual(got["grid"].shape, (64, 32))

    def test_indirect_by_tile(self):
        L = []

        @nki.jit(mode="simulation")
        def k(data_tensor, idx_tensor):
            out_tensor = nl.ndarray([64, 512], dtype=data_tensor.dtype, buffer=nl.shared_hbm)
            i_p = nl.arange(64)[:, None]
            i_f = nl.arange(512)[None, :]
            idx_tile = nl.load(idx_tensor[i_p])
            data_tile = nl.load(data_tensor[idx_tile[i_p, 0], i_f]); L.append(line())
            nl.store(out_tensor, value=data_tile)
            nisa.dma_copy(dst=out_tensor[idx_tile, i_f], src=data_tile, dst_rmw_op=np.add); L.append(line())
            return out_tensor

        f = tpbsim_nki.trace(k, f32(128, 512), 2 * np.arange(64, dtype=np.int32))
        cs = calls(f)
        self.assertEqual(cs[0]["src"], view(1, 0, [[1, 64], [0, 1]]))
        want = view(0, 0, [[512, 64], [1, 512]])
        want["indirect"] = {"index": view(3, 0, [[1, 64], [0, 1]]), "dim": 0}
        self.assertEqual(cs[1]["src"], want)
        self.assertEqual(loc_line(cs[1]["loc"], self), L[0])
        scatter = cs[3]
        self.assertEqual(scatter["dst"]["indirect"], {"index": view(3, 0, [[1, 64], [1, 1]]), "dim": 0})
        self.assertEqual(scatter["dst_rmw_op"], "add")
        self.assertEqual(loc_line(scatter["loc"], self), L[1])
        self.assertEqual(f["api"], "neuronxcc")

    def test_gather_transpose_3d(self):
        @nki.jit(mode="simulation", platform_target="trn2")
        def k(src_tensor, idx_tensor):
            i_p = nl.arange(32)[:, None]
            idx = nl.load(idx_tensor)
            _, dim1, dim2 = src_tensor.shape
            iy = nl.arange(dim1)[None, :, None]
            iz = nl.arange(dim2)[None, None, :]
            dst = nisa.dma_transpose(src_tensor[idx[i_p, 0], iy, iz], axes=(2, 1, 0))
            self.assertEqual(dst.shape, (dim2, dim1, 32))
            out = nl.ndarray(shape=(dim2, dim1, idx.shape[0]), dtype=src_tensor.dtype, buffer=nl.shared_hbm)
            nl.store(out, dst)
            return out

        f = tpbsim_nki.trace(k, np.zeros((64, 4, 128), np.uint16), np.arange(32, dtype=np.uint32).reshape(32, 1))
        c = calls(f, "dma_transpose")[0]
        want = view(0, 0, [[512, 32], [128, 4], [1, 128]])
        want["indirect"] = {"index": view(2, 0, [[1, 32], [0, 1]]), "dim": 0}
        self.assertEqual(c["src"], want)
        self.assertEqual(c["axes"], [2, 1, 0])
        self.assertEqual(f["gen"], "CAYMAN")


class TestTiles(unittest.TestCase):
    def test_returned_shapes(self):
        got = {}

        @nki.jit
        def k(a):
            t: tensor[32, 64] = nl.load(a)
            got["sum"] = nisa.tensor_reduce(np.add, t, axis=[1])
            got["max_keep"] = nisa.tensor_reduce(np.max, t, axis=1, keepdims=True, negate=True)
            got["T"] = nisa.nc_transpose(t[:, 0:32], engine=nisa.vector_engine)
            got["T_tensor"] = nisa.nc_transpose(t[:, 0:2], engine=nisa.engine.tensor)
            got["T16"] = nisa.nc_transpose(t[:, 0:32], dtype=np.float16)
            got["copy"] = nisa.tensor_copy(t, dtype=nl.bfloat16)
            got["recip"] = nisa.reciprocal(t)
            got["ms"] = nisa.memset(shape=(32, 8), value=-1, dtype=nl.int32)
            got["dmaT"] = nisa.dma_transpose(a[0:16, 0:64], dge_mode=dge_mode.hwdge)
            got["lt"] = nl.load_transpose2d(a)
            nisa.nc_stream_shuffle(src=t[0, 0:64], dst=t[0:32, 0:64], shuffle_mask=[0] * 32)

        f = tpbsim_nki.trace(k, f32(32, 64))
        self.assertEqual(got["sum"].shape, (32,))
        self.assertEqual(got["max_keep"].shape, (32, 1))
        self.assertEqual(got["T"].shape, (32, 32))
        self.assertEqual(got["T_tensor"].shape, (2, 32))
        self.assertEqual(got["T_tensor"].buffer, nl.psum)
        self.assertEqual(got["T16"].dtype, np.float16)
        self.assertEqual(got["copy"].dtype, nl.bfloat16)
        self.assertEqual(got["recip"].shape, (32, 64))
        self.assertEqual((got["ms"].shape, got["ms"].dtype), ((32, 8), np.int32))
        self.assertEqual(got["dmaT"].shape, (64, 16))
        self.assertEqual(got["lt"].shape, (64, 32))
        ops = [c["op"] for c in calls(f)]
        self.assertEqual(ops, ["dma_copy", "tensor_reduce", "tensor_reduce", "nc_transpose", "nc_transpose",
                               "nc_transpose", "tensor_copy", "tensor_copy", "reciprocal", "memset",
                               "dma_transpose", "load_transpose2d", "nc_stream_shuffle"])
        cs = calls(f)
        self.assertEqual((cs[2]["reduce_op"], cs[2]["negate"], cs[2]["keepdims"]), ("maximum", True, True))
        self.assertEqual(cs[3]["engine"], "vector")
        self.assertEqual(cs[4]["engine"], "tensor")
        self.assertEqual(cs[5]["engine"], None)
        self.assertEqual(cs[10]["dge_mode"], "hwdge")
        self.assertEqual(cs[12]["src"], view(1, 0, [[64, 1], [1, 64]]))
        self.assertEqual(cs[12]["dst"], view(1, 0, [[64, 32], [1, 64]]))

    def test_setitem_and_zeros(self):
        @nki.jit(mode="simulation")
        def k(in_tensor):
            out_tensor = nl.ndarray(in_tensor.shape, in_tensor.dtype, buffer=nl.shared_hbm)
            for i_b in nl.affine_range(2):
                data_tile = nl.zeros((128, 512), dtype=in_tensor.dtype)
                i_p, i_f = nl.mgrid[0:128, 0:512]
                data_tile[i_p, i_f] = nl.load(in_tensor[i_b, i_p, i_f])
                data_tile[0:1, 0:4] = 0
                nl.store(out_tensor[i_b, i_p, i_f], value=data_tile[i_p, i_f])
            nl.store(out_tensor[0, 0:128, 0:512], 100)
            return out_tensor

        f = tpbsim_nki.trace(k, f32(2, 128, 512))
        ops = [(c["op"], c["call"]) for c in calls(f)]
        one = [("memset", "nl.zeros"), ("dma_copy", "nl.load"), ("tensor_copy", "tile[...] ="),
               ("memset", "tile[...] ="), ("dma_copy", "nl.store")]
        self.assertEqual(ops, one + one + [("memset", "nl.store"), ("dma_copy", "nl.store")])
        self.assertEqual(calls(f)[6]["src"], view(0, 128 * 512, [[512, 128], [1, 512]]))

    def test_kernel_called_directly_runs(self):
        # Calling a jit kernel with arrays runs it: without a tpbsim binary that is a clear error.
        import os
        @nki.jit(mode="simulation")
        def k(a):
            return a

        old = os.environ.pop("TPBSIM_BIN", None)
        path = os.environ.get("PATH", "")
        os.environ["PATH"] = ""
        try:
            with self.assertRaises(tpbsim_nki.KernelUsageError):
                k(f32(2, 2))
        finally:
            os.environ["PATH"] = path
            if old is not None:
                os.environ["TPBSIM_BIN"] = old


if __name__ == "__main__":
    unittest.main()
