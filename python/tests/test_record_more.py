"""More of the recorder: on-chip access patterns, numbers JSON cannot hold, argument kinds,
tensor names, and the refusals of index shapes the form cannot carry."""

import json
import os
import tempfile
import unittest

import numpy as np

from helpers import calls, f32, tpbsim_nki, view

import nki
import nki.isa as nisa
import nki.language as nl
import neuronxcc.nki.isa as onisa
import neuronxcc.nki.language as onl


class TestMore(unittest.TestCase):
    def test_sbuf_ap_and_partition_offsets(self):
        got = {}

        @nki.jit
        def k(a):
            t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            got["ap"] = t.ap([[64, 32], [1, 16]], offset=64 * 32)
            got["quadrant"] = t[32:64, 0:16]
            got["strided_free"] = t[0:32, 1::2]
            p = nl.ndarray((32, 4, 8), dtype=nl.float32, buffer=nl.psum)
            got["psum3"] = p[:, 1, 2:6]

        tpbsim_nki.trace(k, f32(2, 2))
        self.assertEqual(got["ap"].form(), view(1, 2048, [[64, 32], [1, 16]]))
        self.assertEqual(got["quadrant"].form(), view(1, 2048, [[64, 32], [1, 16]]))
        self.assertEqual(got["strided_free"].form(), view(1, 1, [[64, 32], [2, 32]]))
        self.assertEqual(got["psum3"].form(), view(2, 10, [[32, 32], [1, 4]]))

    def test_store_from_psum_copies_to_sbuf(self):
        @nki.jit
        def k(a):
            p = nl.ndarray((4, 4), dtype=nl.float32, buffer=nl.psum)
            nisa.memset(p, 1.0)
            nl.store(a, p)

        f = tpbsim_nki.trace(k, f32(4, 4))
        cs = calls(f)
        self.assertEqual([(c["op"], c["call"]) for c in cs],
                         [("memset", "nisa.memset"), ("tensor_copy", "nl.store"), ("dma_copy", "nl.store")])
        self.assertEqual(f["tensors"][cs[1]["dst"]["tensor"]]["buffer"], "sbuf")
        self.assertEqual(cs[2]["src"], cs[1]["dst"])

    def test_reshape(self):
        got = {}

        @nki.jit
        def k(a):
            got["flat"] = a.reshape((-1,))
            got["ones"] = a.reshape((1, 8, 1, 8))
            got["cols"] = a[:, 0:4].reshape((2, 4, 4))
            try:
                a[:, 0:4].reshape((32,))
            except tpbsim_nki.UnsupportedError as e:
                got["refused"] = str(e)

        tpbsim_nki.trace(k, f32(8, 8))
        self.assertEqual(got["flat"].form(), view(0, 0, [[1, 64]]))
        self.assertEqual(got["ones"].form(), view(0, 0, [[0, 1], [8, 8], [0, 1], [1, 8]]))
        self.assertEqual(got["cols"].form(), view(0, 0, [[32, 2], [8, 4], [1, 4]]))
        self.assertIn("non-contiguous", got["refused"])

    def test_non_finite_values_and_json(self):
        @nki.jit
        def k(a):
            t = nl.full((4, 4), np.nan, dtype=nl.float32)
            nisa.memset(t, float("inf"))
            nisa.memset(t, -np.inf)
            return t

        f = tpbsim_nki.trace(k, f32(2, 2))
        self.assertEqual([c["value"] for c in calls(f)], ["nan", "inf", "-inf"])
        json.loads(f.json())  # strict JSON: no NaN tokens

    def test_argument_kinds(self):
        @nki.jit
        def k(flags, a, n=2, out=None):
            t = nl.load(a)
            nl.store(out, t)

        d = tempfile.mkdtemp()
        f = tpbsim_nki.trace(k, np.array([[True, False]]), f32(1, 2), out=f32(1, 2))
        ts = f["tensors"]
        self.assertEqual([(t["name"], t["arg"], t["dtype"], t["file"]) for t in ts[:3]],
                         [("flags", 0, "bool", "in0.npy"), ("a", 1, "float32", "in1.npy"), ("out", 3, "float32", "in2.npy")])
        f.write(os.path.join(d, "k.json"))
        flags = np.load(os.path.join(d, "in0.npy"))
        self.assertEqual((flags.dtype, flags.tolist()), (np.uint8, [[1, 0]]))
        self.assertEqual(f["outputs"], [2])
        self.assertEqual(ts[3]["name"], "t")  # the kernel's variable, not the recorder's load3

    def test_tensor_names_from_variables(self):
        # a tensor the recorder named (t1, load2) takes the name of the kernel's variable that
        # held it whole when the kernel returned; a slice, a name given with name=, and a
        # variable whose name another tensor has already keep theirs
        @nki.jit
        def k(a):
            out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
            tile = nl.load(a)
            half = tile[0:1, :]
            named = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf, name="mine")
            nisa.tensor_copy(dst=named, src=tile)
            also = tile  # a second variable of the same tile: the first name stays
            nl.store(out, named)
            a2 = nl.load(half)
            a = a2  # "a" is the input's name: the tile is named a2
            return out

        f = tpbsim_nki.trace(k, f32(2, 4))
        names = [t["name"] for t in f["tensors"]]
        self.assertEqual(names, ["a", "out", "tile", "mine", "a2"])

    def test_index_refusals(self):
        def tile_2d(a):
            idx = nl.ndarray((4, 2), dtype=nl.int32)
            return a[idx, nl.arange(4)[None, :]]

        def tile_and_grid_same_axis(a):
            idx = nl.ndarray((4, 1), dtype=nl.int32)
            return a[idx, nl.arange(4)[:, None]]

        def grids_mismatch(a):
            return a[nl.arange(4)[:, None], nl.arange(8)[:, None]]

        def grid_times_grid(a):
            return a[nl.arange(4)[:, None] * nl.arange(4)[:, None]]

        for fn, exc in ((tile_2d, tpbsim_nki.UnsupportedError), (tile_and_grid_same_axis, tpbsim_nki.UnsupportedError),
                        (grids_mismatch, tpbsim_nki.TraceError), (grid_times_grid, tpbsim_nki.UnsupportedError)):
            with self.subTest(fn.__name__):
                def k(a, fn=fn):
                    fn(a)
                with self.assertRaises(exc) as cm:
                    tpbsim_nki.trace(k, f32(16, 16))
                self.assertIn("test_record_more.py:", str(cm.exception))

    def test_defaults_and_versions(self):
        self.assertEqual(onisa.get_nc_version(), onisa.nc_version.gen3)
        self.assertEqual(int(onisa.dge_mode.unknown), 3)
        self.assertEqual(int(nisa.dge_mode.unknown), 0)
        self.assertEqual(nl.tile_size.pmax, 128)
        self.assertEqual(onl.tile_size.psum_fmax, 512)
        self.assertEqual(nl.par_dim(64), 64)
        self.assertEqual(list(nl.affine_range(2, 6, 2)), [2, 4])
        self.assertTrue(nl.float32 == np.float32 and nl.bfloat16 == "bfloat16")

    def test_dge_numbering_per_style(self):
        @nki.jit
        def k(a):
            t = nl.ndarray((2, 2), dtype=nl.float32)
            nisa.dma_copy(t, a, dge_mode=3)
            onisa.dma_copy(dst=t, src=a, dge_mode=3)

        f = tpbsim_nki.trace(k, f32(2, 2))
        self.assertEqual([c["dge_mode"] for c in calls(f)], ["none", "unknown"])


if __name__ == "__main__":
    unittest.main()
