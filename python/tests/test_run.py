"""Running a traced kernel: the command line, the result files, exit statuses, writeback, and the
temporary folder (with a stand-in for the Go binary, tests/fake_tpbsim.py)."""

import contextlib
import io
import json
import os
import tempfile
import unittest

import numpy as np

from helpers import HERE, f32, tpbsim_nki

import nki
import nki.language as nl
import neuronxcc.nki as onki
import neuronxcc.nki.language as onl


@nki.jit
def copy_kernel(a, out):
    t = nl.load(a)
    nl.store(out, t)
    res = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(res, t)
    return res


@onki.jit(mode="simulation")
def two_outputs(a):
    x = onl.ndarray(a.shape, dtype=a.dtype, buffer=onl.shared_hbm)
    y = onl.ndarray(a.shape, dtype=onl.bfloat16, buffer=onl.shared_hbm)
    t = onl.load(a)
    onl.store(x, t)
    onl.store(y, t)
    return x, y


class TestRun(unittest.TestCase):
    def setUp(self):
        self.env = dict(os.environ)
        self.tmp = tempfile.mkdtemp()
        # the runs' temporary folders go in a folder of this test's own (other tests run beside it)
        self.saved_tempdir = tempfile.tempdir
        tempfile.tempdir = os.path.join(self.tmp, "runs")
        os.makedirs(tempfile.tempdir)
        os.environ["TPBSIM_BIN"] = os.path.join(HERE, "fake_tpbsim.py")
        os.environ["FAKE_ARGV"] = os.path.join(self.tmp, "argv.json")
        for v in ("TPBSIM_KERNEL_ARGS", "TPBSIM_KEEP", "TPBSIM_RAW_BITS", "TPBSIM_VERBOSE", "FAKE_EXIT"):
            os.environ.pop(v, None)

    def tearDown(self):
        tempfile.tempdir = self.saved_tempdir
        os.environ.clear()
        os.environ.update(self.env)

    def argv(self):
        with open(os.environ["FAKE_ARGV"]) as f:
            return json.load(f)

    def run_quiet(self, fn, *args):
        with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()) as err:
            r = fn(*args)
        return r, out.getvalue(), err.getvalue()

    def test_simulate_returns_and_writes_back(self):
        a = f32(4, 8)
        out = np.zeros((4, 8), np.float32)
        r, stdout, _ = self.run_quiet(nki.simulate(copy_kernel), a, out)
        self.assertIsInstance(r, np.ndarray)
        self.assertEqual(r.shape, (4, 8))
        np.testing.assert_array_equal(r, a)
        np.testing.assert_array_equal(out, a)  # written back in place
        self.assertIn("fake tpbsim: 3 calls, 2 outputs", stdout)
        argv = self.argv()
        self.assertEqual(argv[:2], ["kernel", "run"])
        self.assertTrue(argv[2].endswith("kernel.json"))
        self.assertEqual(argv[3], "--out-dir")
        self.assertNotIn("--raw-bits", argv)
        self.assertEqual(argv[5:], ["--quiet"])  # library use without TPBSIM_KERNEL_ARGS
        self.assertEqual(os.listdir(tempfile.gettempdir()), [])  # the run's folder is removed

    def test_calling_the_kernel_runs_it(self):
        r, _, _ = self.run_quiet(two_outputs, f32(4, 8))
        self.assertIsInstance(r, tuple)
        self.assertEqual([x.dtype for x in r], [np.float32, np.float32])  # bf16 comes back as float32
        r, _, _ = self.run_quiet(onki.simulate_kernel, two_outputs, f32(4, 8))
        self.assertEqual(len(r), 2)

    def test_raw_bits_and_kernel_args(self):
        os.environ["TPBSIM_KERNEL_ARGS"] = json.dumps(["--gen", "MARIANA", "--trace", "t.json"])
        r, _, _ = self.run_quiet(nki.simulate(two_outputs, raw_bits=True), f32(4, 8))
        self.assertEqual(r[1].dtype, np.uint16)
        argv = self.argv()
        self.assertEqual(argv[5:], ["--gen", "MARIANA", "--trace", "t.json", "--raw-bits"])
        os.environ["TPBSIM_RAW_BITS"] = "1"
        self.run_quiet(nki.simulate(two_outputs), f32(4, 8))
        self.assertIn("--raw-bits", self.argv())

    def test_exit_statuses(self):
        os.environ["FAKE_EXIT"] = "1"
        with self.assertRaises(tpbsim_nki.KernelError) as cm:
            self.run_quiet(nki.simulate(two_outputs), f32(4, 8))
        self.assertIn("t.py:12: nisa.dma_copy: rule dma.shape", str(cm.exception))
        self.assertIn("rule dma.shape", cm.exception.stderr)
        self.assertIs(tpbsim_nki.KernelError, nki.isa.NkiValidationError)
        os.environ["FAKE_EXIT"] = "2"
        with self.assertRaises(tpbsim_nki.KernelUsageError) as cm:
            self.run_quiet(nki.simulate(two_outputs), f32(4, 8))
        self.assertEqual(cm.exception.status, 2)

    def test_keep(self):
        os.environ["TPBSIM_KEEP"] = "1"
        _, _, err = self.run_quiet(nki.simulate(two_outputs), f32(4, 8))
        self.assertIn("kept the kernel files in", err)
        d = err.split("kept the kernel files in ")[1].strip()
        self.assertTrue(os.path.exists(os.path.join(d, "kernel.json")))
        self.assertTrue(os.path.exists(os.path.join(d, "in0.npy")))
        import shutil
        shutil.rmtree(d)

    def test_raw_and_converted_inputs(self):
        bits = np.array([[0x3F80, 0x4000]], np.uint16)  # 1.0, 2.0 as bfloat16
        arg = tpbsim_nki.raw(bits, nl.bfloat16)

        @nki.jit
        def k(a):
            t = nl.load(a)
            nl.store(a, t)

        f = tpbsim_nki.trace(k, arg)
        self.assertEqual((f["tensors"][0]["encoding"], f["tensors"][0]["dtype"]), ("raw", "bfloat16"))
        path = f.write(os.path.join(self.tmp, "k", "k.json"))
        np.testing.assert_array_equal(np.load(os.path.join(self.tmp, "k", "in0.npy")), bits)
        with open(path) as fh:
            self.assertEqual(json.load(fh), json.loads(f.json()))
        # written back: bf16 comes back as float32 values; a raw bf16 argument gets its bits again
        bits[0, 1] = 0x4040  # 3.0: the run reads it, the kernel writes it back unchanged
        before = bits.copy()
        self.run_quiet(nki.simulate(k), arg)
        self.assertEqual(bits.dtype, np.uint16)
        np.testing.assert_array_equal(bits, before)
        vals = np.array([[1.5, 2.5]], np.float32)
        self.run_quiet(nki.simulate(k), tpbsim_nki.converted(vals, nl.bfloat16))
        np.testing.assert_array_equal(vals, [[1.5, 2.5]])
        conv = tpbsim_nki.converted(np.array([[1.5, 2.5]], np.float64), nl.bfloat16)
        f = tpbsim_nki.trace(k, conv)
        self.assertEqual(f["tensors"][0]["encoding"], "float32")
        self.assertEqual(f.inputs[0][1].dtype, np.float32)


if __name__ == "__main__":
    unittest.main()
