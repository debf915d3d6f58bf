"""End to end: every supported call run by `tpbsim kernel run` and compared with numpy, plus the
examples/nki scripts. With TPBSIM_BIN naming a tpbsim binary they run on the Go side; without it
they run on tests/fake_tpbsim.py, the test oracle that interprets the kernel form with numpy (which
checks the recorder's views and calls, not the machine)."""

import os
import subprocess
import sys
import unittest

import numpy as np

from helpers import HERE, PYROOT, f32, tpbsim_nki

import nki
import nki.isa as nisa
import nki.language as nl
import neuronxcc.nki as onki
import neuronxcc.nki.isa as onisa
import neuronxcc.nki.language as onl

BIN = os.environ.get("TPBSIM_BIN", "")
FAKE = os.path.join(HERE, "fake_tpbsim.py")
EXAMPLES = os.path.join(os.path.dirname(PYROOT), "examples", "nki")
needs_bin = unittest.skipUnless(BIN and BIN != FAKE, "TPBSIM_BIN is not set")


@nki.jit
def every_call(a, idx_hbm, acc):
    P, F = a.shape
    outs = [nl.ndarray(s, dtype=d, buffer=nl.shared_hbm) for s, d in (
        ((32, 32), a.dtype), ((32, 32), a.dtype), ((32, 1), a.dtype), ((32, 32), nl.float16),
        ((32, 32), a.dtype), ((32, 4), nl.int32), ((16, F), a.dtype))]
    t = nl.load(a[0:32, 0:32])
    u = nl.ndarray((32, 32), dtype=a.dtype, buffer=nl.psum)
    nisa.nc_transpose(u, t, engine=nisa.engine.vector)
    nl.store(outs[0], u)
    s = nl.ndarray((32, 32), dtype=a.dtype)
    nisa.nc_stream_shuffle(s, t, [(i + 1) % 32 for i in range(32)])
    nl.store(outs[1], s)
    r = nl.ndarray((32, 1), dtype=a.dtype)
    nisa.tensor_reduce(r, nl.add, t, axis=1, keepdims=True)
    nl.store(outs[2], r)
    h = nl.ndarray((32, 32), dtype=nl.float16)
    nisa.tensor_copy(h, t)
    nl.store(outs[3], h)
    rc = nl.ndarray((32, 32), dtype=a.dtype)
    nisa.reciprocal(rc, t)
    nl.store(outs[4], rc)
    nl.store(outs[5], nl.full((32, 4), 7, dtype=nl.int32))
    idx = nl.load(idx_hbm)  # [16, 1] uint32
    g = nl.ndarray((16, F), dtype=a.dtype)
    nisa.dma_copy(g, a.ap([[F, 16], [1, F]], vector_offset=idx, indirect_dim=0))
    nl.store(outs[6], g)
    nisa.dma_copy(acc, t[0:16, 0:32], dst_rmw_op=np.add)  # written back
    return tuple(outs)


@onki.jit(mode="simulation")
def oob_skip(in_tensor, idx_tensor):
    out = onl.ndarray([64, 512], dtype=in_tensor.dtype, buffer=onl.shared_hbm)
    ix, iy = onl.mgrid[0:64, 0:512]
    idx = onl.load(idx_tensor)
    tile = onisa.memset(shape=(64, 512), value=-1, dtype=in_tensor.dtype)
    onisa.dma_copy(src=in_tensor[idx, iy], dst=tile[ix, iy], oob_mode=onisa.oob_mode.skip)
    onl.store(out, value=tile)
    return out


class TestEndToEnd(unittest.TestCase):
    def setUp(self):
        self.env = dict(os.environ)
        if not BIN:
            os.environ["TPBSIM_BIN"] = FAKE
        os.environ.pop("FAKE_EXIT", None)
        os.environ.pop("FAKE_ARGV", None)

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.env)

    def test_every_call(self):
        a = (f32(128, 64) / 7 + 1).astype(np.float32)
        idx = np.array([[5], [0], [127], [3]] * 4, np.uint32)
        acc = np.ones((16, 32), np.float32)
        got = nki.simulate(every_call)(a, idx, acc)
        t = a[0:32, 0:32]
        want = [t.T, t[[(i + 1) % 32 for i in range(32)]], t.sum(axis=1, keepdims=True), t.astype(np.float16),
                np.float32(1) / t, np.full((32, 4), 7, np.int32), a[idx[:, 0]]]
        for i, (g, w) in enumerate(zip(got, want)):
            with self.subTest(output=i):
                self.assertEqual(g.dtype, w.dtype)
                np.testing.assert_allclose(g, w, rtol=1e-6)
        np.testing.assert_array_equal(acc, 1 + t[0:16])

    def test_oob_skip_and_error(self):
        a = f32(128, 512)
        idx = (3 * np.arange(64, dtype=np.int32)).reshape(64, 1)
        got = onki.simulate_kernel(oob_skip, a, idx)
        want = np.full((64, 512), -1, np.float32)
        ok = idx[:, 0] < 128
        want[ok] = a[idx[ok, 0]]
        np.testing.assert_array_equal(got, want)

    @needs_bin
    def test_refusal_names_the_call(self):
        @nki.jit
        def bad(a):
            t = nl.ndarray((200, 4), dtype=a.dtype)  # more than 128 partitions
            nisa.dma_copy(t, a)
            return a
        with self.assertRaises(tpbsim_nki.KernelError) as cm:
            nki.simulate(bad)(f32(200, 4))
        self.assertIn("test_e2e.py:", str(cm.exception))

    def test_examples(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), PYROOT) if p))
        for name in sorted(os.listdir(EXAMPLES)):
            if not name.endswith(".py"):
                continue
            with self.subTest(example=name):
                p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                self.assertEqual(p.returncode, 0, p.stdout.decode())


if __name__ == "__main__":
    unittest.main()
