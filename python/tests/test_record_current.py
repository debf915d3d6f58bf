"""Recording kernels written in the current API (import nki): views, calls, locs."""

import unittest

import numpy as np

from helpers import calls, f32, line, loc_line, tpbsim_nki, view

import nki
import nki.isa as nisa
import nki.language as nl


class TestViews(unittest.TestCase):
    def test_slices_ints_ds_steps_ellipsis(self):
        got = {}

        @nki.jit
        def k(a):
            got["full"] = a
            got["slice"] = a[2:6, 8:24]
            got["step"] = a[::2, 1:17:4]
            got["int_hbm"] = a[3]
            got["ds"] = a[nl.ds(4, 8), nl.ds(16, 32)]
            got["ell"] = a[..., 5]
            got["neg"] = a[-1, -4:]
            t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
            got["int_sbuf"] = t[7, 0:8]
            got["sbuf_col"] = t[:, 3]
            return None

        tpbsim_nki.trace(k, f32(16, 64))
        self.assertEqual(got["full"].form(), view(0, 0, [[64, 16], [1, 64]]))
        self.assertEqual(got["slice"].form(), view(0, 2 * 64 + 8, [[64, 4], [1, 16]]))
        self.assertEqual(got["step"].form(), view(0, 1, [[128, 8], [4, 4]]))
        self.assertEqual(got["int_hbm"].form(), view(0, 3 * 64, [[1, 64]]))
        self.assertEqual(got["ds"].form(), view(0, 4 * 64 + 16, [[64, 8], [1, 32]]))
        self.assertEqual(got["ell"].form(), view(0, 5, [[64, 16]]))
        self.assertEqual(got["neg"].form(), view(0, 15 * 64 + 60, [[1, 4]]))
        # on chip, an integer on the partition axis keeps it (size 1), and a view is at least 2-D
        self.assertEqual(got["int_sbuf"].form(), view(1, 7 * 64, [[64, 1], [1, 8]]))
        self.assertEqual(got["sbuf_col"].form(), view(1, 3, [[64, 128], [1, 1]]))
        self.assertEqual(got["slice"].shape, (4, 16))

    def test_ap_and_indirect(self):
        got = {}

        @nki.jit
        def k(data, indices):
            idx = nl.ndarray((64, 1), dtype=nl.uint32, buffer=nl.sbuf)
            nisa.dma_copy(dst=idx, src=indices)
            got["ap"] = data[1:].ap(pattern=[[512, 64], [1, 512]], offset=3)
            got["gather"] = data.ap(pattern=[[512, 64], [1, 512]], vector_offset=idx, indirect_dim=0)
            dst = nl.ndarray((64, 512), dtype=data.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=dst, src=got["gather"], oob_mode=nisa.oob_mode.skip)
            return None

        f = tpbsim_nki.trace(k, f32(128, 512), np.zeros((64, 1), np.uint32))
        self.assertEqual(got["ap"].form(), view(0, 512 + 3, [[512, 64], [1, 512]]))
        want = view(0, 0, [[512, 64], [1, 512]])
        want["indirect"] = {"index": view(2, 0, [[1, 64], [1, 1]]), "dim": 0}
        c = calls(f)[1]
        self.assertEqual(c["src"], want)
        self.assertEqual(c["oob_mode"], "skip")
        self.assertEqual(f["tensors"][1]["dtype"], "uint32")

    def test_view_methods(self):
        got = {}

        @nki.jit
        def k(a):
            got["perm"] = a.permute((1, 0))
            got["reshape"] = a.reshape((4, 4, 64))
            got["rows"] = a[0:8].reshape((2, 256))
            got["sel"] = a.select(0, 2)
            got["pattern"] = a.get_pattern()

        tpbsim_nki.trace(k, f32(16, 64))
        self.assertEqual(got["perm"].form(), view(0, 0, [[1, 64], [64, 16]]))
        self.assertEqual(got["reshape"].form(), view(0, 0, [[256, 4], [64, 4], [1, 64]]))
        self.assertEqual(got["rows"].form(), view(0, 0, [[256, 2], [1, 256]]))
        self.assertEqual(got["sel"].form(), view(0, 128, [[1, 64]]))
        self.assertEqual(got["pattern"], [[64, 16], [1, 64]])


class TestCalls(unittest.TestCase):
    def test_every_call(self):
        L = []

        @nki.jit
        def k(a, idx_hbm):
            out = nl.ndarray((32, 32), dtype=a.dtype, buffer=nl.shared_hbm); L.append(line())
            t = nl.load(a[0:32, 0:32]); L.append(line())
            u = nl.ndarray((32, 32), dtype=nl.float32, buffer=nl.psum); L.append(line())
            nisa.nc_transpose(u, t, engine=nisa.engine.vector); L.append(line())
            nisa.nc_transpose(dst=u, data=t); L.append(line())
            nisa.nc_stream_shuffle(u, t, [0] * 32); L.append(line())
            r = nl.ndarray((32, 1), dtype=nl.float32); L.append(line())
            nisa.tensor_reduce(r, nl.maximum, t, axis=1, negate=True, keepdims=True); L.append(line())
            nisa.tensor_reduce(dst=r, op=np.add, data=t, axis=(1,)); L.append(line())
            nisa.tensor_copy(u, t, engine=nisa.engine.gpsimd); L.append(line())
            nisa.reciprocal(u, t); L.append(line())
            nisa.memset(u, 0.5, engine=nisa.engine.gpsimd); L.append(line())
            z = nl.zeros((32, 4), dtype=nl.int32); L.append(line())
            full = nl.full((32, 4), 7, dtype=nl.int32, buffer=nl.sbuf); L.append(line())
            nisa.dma_copy(out, u, dge_mode=nisa.dge_mode.swdge, engine=nisa.engine.sync); L.append(line())
            nisa.dma_copy(dst=out, src=u, dst_rmw_op=np.add); L.append(line())
            d = nl.ndarray((32, 16), dtype=nl.bfloat16); L.append(line())
            nisa.dma_transpose(d, a.ap([[1, 32], [32, 16]]), axes=(1, 0), dge_mode=nisa.dge_mode.hwdge); L.append(line())
            lt = nl.load_transpose2d(a[0:16, 0:32]); L.append(line())
            nl.store(out[0:16, :], value=lt); L.append(line())
            return out

        a = tpbsim_nki.converted(f32(32, 32), nl.bfloat16)
        f = tpbsim_nki.trace(k, a, np.zeros((32, 1), np.uint32))
        cs = calls(f)
        ops = [c["op"] for c in cs]
        self.assertEqual(ops, ["dma_copy", "nc_transpose", "nc_transpose", "nc_stream_shuffle", "tensor_reduce",
                               "tensor_reduce", "tensor_copy", "reciprocal", "memset", "memset", "memset",
                               "dma_copy", "dma_copy", "dma_transpose", "load_transpose2d", "dma_copy"])
        call_lines = [L[1], L[3], L[4], L[5], L[7], L[8], L[9], L[10], L[11], L[12], L[13], L[14], L[15], L[17],
                      L[18], L[19]]
        self.assertEqual([loc_line(c["loc"], self) for c in cs], call_lines)
        self.assertEqual(cs[0]["call"], "nl.load")
        self.assertEqual(cs[0]["dst"], view(3, 0, [[32, 32], [1, 32]]))
        self.assertEqual(f["tensors"][3]["buffer"], "sbuf")
        self.assertEqual(f["tensors"][3]["dtype"], "bfloat16")
        self.assertEqual(cs[1]["engine"], "vector")
        self.assertIsNone(cs[2]["engine"])
        self.assertEqual(cs[3]["shuffle_mask"], [0] * 32)
        self.assertEqual((cs[4]["reduce_op"], cs[4]["axis"], cs[4]["negate"], cs[4]["keepdims"]), ("maximum", [1], True, True))
        self.assertEqual((cs[5]["reduce_op"], cs[5]["axis"], cs[5]["negate"], cs[5]["keepdims"]), ("add", [1], False, False))
        self.assertEqual(cs[6]["engine"], "gpsimd")
        self.assertEqual((cs[8]["value"], cs[8]["engine"]), (0.5, "gpsimd"))
        self.assertEqual((cs[9]["call"], cs[9]["value"], cs[9]["engine"]), ("nl.zeros", 0, None))
        self.assertEqual((cs[10]["call"], cs[10]["value"]), ("nl.full", 7))
        self.assertEqual((cs[11]["dge_mode"], cs[11]["engine"], cs[11]["dst_rmw_op"]), ("swdge", "sync", None))
        self.assertEqual((cs[12]["dge_mode"], cs[12]["dst_rmw_op"], cs[12]["oob_mode"]), (None, "add", "error"))
        self.assertEqual((cs[13]["axes"], cs[13]["dge_mode"], cs[13]["oob_mode"]), ([1, 0], "hwdge", "error"))
        self.assertEqual(cs[13]["src"], view(0, 0, [[1, 32], [32, 16]]))
        self.assertEqual(f["tensors"][cs[14]["dst"]["tensor"]]["shape"], [32, 16])
        self.assertEqual(f["outputs"], [2])
        t0 = f["tensors"][0]
        self.assertEqual((t0["kind"], t0["arg"], t0["encoding"], t0["dtype"], t0["file"]), ("input", 0, "float32", "bfloat16", "in0.npy"))
        self.assertEqual(loc_line(f["tensors"][2]["loc"], self), L[0])
        self.assertEqual(loc_line(f["tensors"][0]["loc"], self), k.__code__.co_firstlineno if hasattr(k, "__code__") else k.func.__code__.co_firstlineno)
        self.assertEqual(f["api"], "nki")
        self.assertEqual(f["format"], "tpbsim.kernel")
        self.assertEqual(f["version"], 1)

    def test_writeback_and_outputs(self):
        @nki.jit
        def k(a, out):
            t = nl.load(a)
            nl.store(out, t)

        f = tpbsim_nki.trace(k, f32(4, 8), f32(4, 8))
        self.assertEqual(f["outputs"], [1])
        self.assertTrue(f["tensors"][1]["writeback"])
        self.assertNotIn("writeback", f["tensors"][0])
        self.assertIsNone(f.returned)

    def test_non_array_args_pass_through(self):
        seen = []

        @nki.jit
        def k(a, scale=3, flag=False):
            seen.append((scale, flag))
            t = nl.load(a)
            return t

        tpbsim_nki.trace(k, f32(2, 2), 5, flag=True)
        self.assertEqual(seen, [(5, True)])

    def test_target(self):
        import os
        old = dict(os.environ)
        try:
            for var, val, gen in [("NEURON_PLATFORM_TARGET_OVERRIDE", "trn1", "SUNDA"),
                                  ("NEURON_PLATFORM_TARGET_OVERRIDE", "gen3", "CAYMAN"),
                                  ("NEURON_PLATFORM_TARGET_OVERRIDE", "trn3", "MARIANA"),
                                  ("TPBSIM_GEN", "mariana_plus", "MARIANA_PLUS")]:
                os.environ.pop("NEURON_PLATFORM_TARGET_OVERRIDE", None)
                os.environ.pop("TPBSIM_GEN", None)
                os.environ[var] = val
                os.environ["TPBSIM_NKI_VERSION"] = "2.28"
                seen = []

                @nki.jit
                def k(a):
                    seen.append(nisa.get_nc_version())

                f = tpbsim_nki.trace(k, f32(2, 2))
                self.assertEqual((f["gen"], f["nki_version"]), (gen, "2.28"))
                self.assertEqual(seen[0], {"SUNDA": nisa.nc_version.gen2, "CAYMAN": nisa.nc_version.gen3}.get(gen, nisa.nc_version.gen4))
            os.environ["TPBSIM_KERNEL_ARGS"] = '["--gen", "SUNDA", "--nki-version=2.31"]'
            f = tpbsim_nki.trace(k, f32(2, 2))
            self.assertEqual((f["gen"], f["nki_version"]), ("SUNDA", "2.31"))
        finally:
            os.environ.clear()
            os.environ.update(old)
        f = tpbsim_nki.trace(k, f32(2, 2))
        self.assertNotIn("gen", f)


if __name__ == "__main__":
    unittest.main()
