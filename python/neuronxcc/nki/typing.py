"""neuronxcc.nki.typing: `tensor[...]` annotations (tpbsim ignores them)."""
from tpbsim_nki._views import View as tensor  # noqa: F401
