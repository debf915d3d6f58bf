"""neuronxcc.nki.isa.constants: the older API's enums."""
from tpbsim_nki._ops import dge_mode_older as dge_mode  # noqa: F401
from tpbsim_nki._ops import engine, nc_version, oob_mode  # noqa: F401
from tpbsim_nki._stub import install_getattr as _install

_install(__name__, "nisa.constants")
