"""Calls outside tpbsim's subset raise at once, naming the call and the kernel's file:line;
misuse the recorder can see raises TraceError with the file:line."""

import unittest

import numpy as np

from helpers import f32, line, tpbsim_nki

import nki
import nki.isa as nisa
import nki.language as nl
import neuronxcc.nki.isa as onisa
import neuronxcc.nki.language as onl


class TestUnsupported(unittest.TestCase):
    def assertRaisesAt(self, exc, fn, what, where):
        with self.assertRaises(exc) as cm:
            tpbsim_nki.trace(fn, f32(32, 32))
        msg = str(cm.exception)
        self.assertIn("test_refusals.py:%d" % where, msg)
        self.assertIn(what, msg)
        return msg

    def test_unsupported_calls(self):
        cases = [
            ("nl.add(...)", lambda t: nl.add(t, t)),
            ("nl.exp(...)", lambda t: nl.exp(t)),
            ("nl.matmul(...)", lambda t: nl.matmul(t, t)),
            ("nisa.nc_matmul(...)", lambda t: nisa.nc_matmul(t, t, t)),
            ("nisa.activation(...)", lambda t: nisa.activation(t, nl.exp, t)),
            ("nisa.tensor_tensor(...)", lambda t: nisa.tensor_tensor(t, t, t, nl.add)),
            ("nisa.iota(...)", lambda t: onisa.iota(nl.arange(4)[:, None], dtype=np.int32)),
            ("nl.device_print(...)", lambda t: onl.device_print("x", t)),
            ("arithmetic on tiles", lambda t: t + t),
            ("arithmetic on tiles", lambda t: 2 * t),
            ("arithmetic on tiles", lambda t: t > 0),
            ("np.exp on a tile", lambda t: np.exp(t)),
            ("np.sum on a tile", lambda t: np.sum(t)),
            ("truth value", lambda t: bool(t)),
            ("nl.load(mask=...)", lambda t: nl.load(t, mask=t)),
            ("nl.fp32.min", lambda t: nl.fp32.min),
            ("nl.tile_size.psum_min_align", lambda t: nl.tile_size.psum_min_align),
            ("tensor.broadcast_to", lambda t: t.broadcast_to((4, 4))),
            ("scalar_offset", lambda t: t.ap([[32, 32], [1, 32]], scalar_offset=t)),
            ("masks are not modelled", lambda t: t[nl.arange(4)[:, None] < 2]),
        ]
        for what, body in cases:
            with self.subTest(what):
                def k(a, body=body):
                    t = nl.load(a)
                    body(t)
                # the innermost frame outside the front end is the lambda's line
                msg = self.assertRaisesAt(tpbsim_nki.UnsupportedError, k, what, body.__code__.co_firstlineno)
                self.assertIn("not modelled by tpbsim", msg)

    def test_unsupported_is_notimplemented(self):
        self.assertTrue(issubclass(tpbsim_nki.UnsupportedError, NotImplementedError))
        # ops stay usable as names: nl.add as a reduce op records "add"
        @nki.jit
        def k(a):
            t = nl.load(a)
            r = nl.ndarray((32, 1), dtype=nl.float32)
            nisa.tensor_reduce(r, nl.add, t, axis=1)
            nisa.tensor_reduce(r, nl.exp, t, axis=1)
        f = tpbsim_nki.trace(k, f32(32, 32))
        self.assertEqual([c.get("reduce_op") for c in f["calls"]], [None, "add", "exp"])

    def test_misuse(self):
        cases = [
            ("nl.load", lambda a: nl.load()),
            ("nl.load", lambda a: nl.load(a, 1, 2, 3)),
            ("nisa.tensor_copy", lambda a: nisa.tensor_copy(a, 3)),
            ("nisa.tensor_copy", lambda a: nisa.tensor_copy(a, a, engine=nl.add)),
            ("nisa.dma_copy", lambda a: nisa.dma_copy(a, a, oob_mode=7)),
            ("nisa.nc_stream_shuffle", lambda a: nisa.nc_stream_shuffle(a, a, shuffle_mask=3)),
            ("nl.ndarray", lambda a: nl.ndarray((4, 4), dtype=np.float64)),
            ("nl.ndarray", lambda a: nl.ndarray((4, "x"), dtype=nl.float32)),
            ("nl.ndarray", lambda a: nl.ndarray((4, 4), dtype=nl.float32, buffer="dram")),
            ("indexing", lambda a: a[1, 2, 3]),
            ("nisa.memset", lambda a: nisa.memset(a, "zero")),
            ("nisa.tensor_reduce", lambda a: onisa.tensor_reduce(np.add, nl.load(a), axis=[2])),
            ("nl.arange", lambda a: nl.arange(1.5)),
        ]
        for what, body in cases:
            with self.subTest(what):
                def k(a, body=body):
                    body(a)
                msg = self.assertRaisesAt(tpbsim_nki.TraceError, k, what, body.__code__.co_firstlineno)
                self.assertIsInstance(tpbsim_nki.TraceError(""), TypeError)

    def test_outside_a_kernel(self):
        where = line() + 2
        with self.assertRaises(tpbsim_nki.TraceError) as cm:
            nl.ndarray((4, 4), dtype=nl.float32)
        self.assertIn("test_refusals.py:%d" % where, str(cm.exception))
        self.assertIn("outside a kernel", str(cm.exception))

    def test_aliased_written_arguments(self):
        @nki.jit
        def k(x, y):
            nl.store(x, nl.load(y))

        a = f32(4, 8)
        with self.assertRaises(tpbsim_nki.TraceError) as cm:
            tpbsim_nki.trace(k, a, a)
        self.assertIn("'x' and 'y' share memory and the kernel writes 'x'", str(cm.exception))
        with self.assertRaises(tpbsim_nki.TraceError):
            tpbsim_nki.trace(k, a[:2], a[1:3])  # overlapping slices
        tpbsim_nki.trace(k, a[:2], a[2:])  # disjoint halves of one array: fine
        tpbsim_nki.trace(k, a[:, ::2], a[:, 1::2])  # interleaved columns: bounds overlap, bytes do not
        tpbsim_nki.trace(k, f32(4, 8), a)

    def test_bad_arguments(self):
        def k(a):
            return a
        with self.assertRaises(tpbsim_nki.TraceError) as cm:
            tpbsim_nki.trace(k, np.zeros((2, 2)))
        self.assertIn("float64", str(cm.exception))
        self.assertIn("test_refusals.py:", str(cm.exception))  # the kernel's file:line
        with self.assertRaises(tpbsim_nki.TraceError) as cm:
            tpbsim_nki.trace(k, np.zeros((0, 4), np.float32))
        self.assertIn("test_refusals.py:", str(cm.exception))
        self.assertIn("empty array of shape (0, 4)", str(cm.exception))
        with self.assertRaises(tpbsim_nki.TraceError):
            tpbsim_nki.trace(k, f32(2), f32(2))
        with self.assertRaises(tpbsim_nki.TraceError):
            tpbsim_nki.raw(np.zeros(4, np.float32), nl.bfloat16)
        with self.assertRaises(tpbsim_nki.UnsupportedError):
            tpbsim_nki.trace(nki.jit(k)[2], f32(2))

    def test_returned_views(self):
        def k(a):
            return a[0:1]
        with self.assertRaises(tpbsim_nki.TraceError):
            tpbsim_nki.trace(k, f32(2, 2))

        def k2(a):
            return 3
        with self.assertRaises(tpbsim_nki.TraceError):
            tpbsim_nki.trace(k2, f32(2, 2))


if __name__ == "__main__":
    unittest.main()
