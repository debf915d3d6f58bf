"""neuronxcc.nki on tpbsim (the older NKI API): @nki.jit(mode="simulation") kernels and
nki.simulate_kernel run on tpbsim. Names tpbsim does not model raise when called."""

import tpbsim_nki as _t
from tpbsim_nki._stub import install_getattr as _install

from . import isa, language  # noqa: F401

UnsupportedError = _t.UnsupportedError
KernelError = _t.KernelError


def jit(fn=None, mode=None, **kwargs):
    """@nki.jit, @nki.jit(mode="simulation", platform_target=...): calling the kernel with numpy
    arrays runs it on tpbsim, whatever the mode."""
    return _t.jit(fn, style="neuronxcc", mode=mode, **kwargs)


baremetal = jit


def simulate_kernel(kernel, *args, **kwargs):
    """nki.simulate_kernel(kernel, *arrays): run on tpbsim, numpy arrays back."""
    return _t.simulate_kernel(kernel, *args, **kwargs)


_install(__name__, "nki")
