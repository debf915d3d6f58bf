"""tpbsim's `nki` (the current NKI API): kernels decorated with @nki.jit run on tpbsim.
Names tpbsim does not model resolve to objects that raise tpbsim_nki.UnsupportedError when called."""

import tpbsim_nki as _t
from tpbsim_nki._stub import install_getattr as _install

from . import isa, language  # noqa: F401

UnsupportedError = _t.UnsupportedError
KernelError = _t.KernelError


def jit(fn=None, **kwargs):
    """@nki.jit or @nki.jit(...): calling the kernel with numpy arrays runs it on tpbsim."""
    return _t.jit(fn, style="nki", **kwargs)


def simulate(kernel, raw_bits=None):
    """nki.simulate(kernel)(*arrays): run on tpbsim; raw_bits=True returns bf16/fp8 outputs as raw bits."""
    return _t.simulate(kernel, raw_bits=raw_bits, style="nki")


_install(__name__, "nki")
