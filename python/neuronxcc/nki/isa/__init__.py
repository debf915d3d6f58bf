"""neuronxcc.nki.isa on tpbsim, the older API (calls return tiles): tpbsim_nki.isa_older."""
from tpbsim_nki.isa_older import *  # noqa: F401,F403
from tpbsim_nki.isa_older import (NkiValidationError, dge_mode, engine, get_nc_sub_version,  # noqa: F401
                                  get_nc_version, nc_version, oob_mode)
from tpbsim_nki._stub import install_getattr as _install

from . import constants  # noqa: F401

_install(__name__, "nisa")
