"""nki.isa on tpbsim, the current API (destination first): tpbsim_nki.isa_current."""
from tpbsim_nki.isa_current import *  # noqa: F401,F403
from tpbsim_nki.isa_current import (NkiValidationError, dge_mode, engine, get_nc_sub_version,  # noqa: F401
                                    get_nc_version, nc_version, oob_mode)
from tpbsim_nki._stub import install_getattr as _install

_install(__name__, "nisa")
