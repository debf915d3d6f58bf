"""nki.language on tpbsim (shared with neuronxcc.nki.language: tpbsim_nki.language)."""
from tpbsim_nki.language import *  # noqa: F401,F403
from tpbsim_nki.language import __all__  # noqa: F401
from tpbsim_nki._stub import install_getattr as _install

_install(__name__, "nl")
