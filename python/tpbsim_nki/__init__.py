"""tpbsim's NKI front end: records an NKI kernel (either import style) into tpbsim's kernel form
(kernel/FORMAT.md) and runs it with `tpbsim kernel run`. See python/README.md.

    import tpbsim_nki
    form = tpbsim_nki.trace(kernel, a, b)     # the kernel form (a dict), nothing run
    form.write("k.json")                     # JSON plus the inputs' .npy files beside it
    out = tpbsim_nki.simulate(kernel)(a, b)  # run on tpbsim, numpy arrays back
"""

from ._errors import (Error, KernelError, KernelUsageError, TraceError,  # noqa: F401
                      UnsupportedError, install_excepthook)
from ._run import run, simulate, tpbsim_bin  # noqa: F401
from ._trace import (FORMAT, VERSION, Input, Kernel, KernelForm, converted, raw,  # noqa: F401
                     target_gen, trace)


def jit(fn=None, style="nki", **options):
    """@jit / @jit(**options): wrap a kernel function; calling it with arrays runs it on tpbsim."""
    if fn is None:
        return lambda f: Kernel(f, style, options)
    return Kernel(fn, style, options)


def simulate_kernel(kernel, *args, **kwargs):
    """neuronxcc's nki.simulate_kernel(kernel, *arrays)."""
    from ._trace import as_kernel
    return run(as_kernel(kernel, "neuronxcc"), args, kwargs)


install_excepthook()
