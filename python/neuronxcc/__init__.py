"""tpbsim's stand-in for the neuronxcc package: only neuronxcc.nki (the older NKI API)."""
