#!/usr/bin/python3
"""A stand-in for `tpbsim kernel run K.json --out-dir DIR` used by test_run.py: it checks its
arguments, writes each output as (input + 1) for written-back arguments and as zeros otherwise,
and records its argv in $FAKE_ARGV. $FAKE_EXIT makes it fail with that status."""

import json
import os
import sys

import numpy as np

argv = sys.argv[1:]
with open(os.environ["FAKE_ARGV"], "w") as f:
    json.dump(argv, f)
status = int(os.environ.get("FAKE_EXIT", "0"))
if status:
    sys.stderr.write("t.py:12: nisa.dma_copy: rule dma.shape: src has 64 elements, dst 32\n")
    sys.exit(status)
assert argv[:2] == ["kernel", "run"], argv
kpath = argv[2]
out = argv[argv.index("--out-dir") + 1]
raw = "--raw-bits" in argv
with open(kpath) as f:
    k = json.load(f)
assert k["format"] == "tpbsim.kernel" and k["version"] == 1
os.makedirs(out)
entries = []
for i, tid in enumerate(k["outputs"]):
    t = k["tensors"][tid]
    dt = t["dtype"]
    np_dt = {"bfloat16": np.uint16 if raw else np.float32, "bool": np.uint8}.get(dt, dt)
    if t["kind"] == "input":
        a = np.load(os.path.join(os.path.dirname(kpath), t["file"]))
        a = (a + 1).astype(np_dt)
    else:
        a = np.zeros(t["shape"], np_dt)
    np.save(os.path.join(out, "output%d.npy" % i), a)
    entries.append({"tensor": tid, "name": t["name"], "file": "output%d.npy" % i, "dtype": dt,
                    "shape": t["shape"], "encoding": "raw" if raw and dt == "bfloat16" else "native"})
with open(os.path.join(out, "result.json"), "w") as f:
    json.dump({"format": "tpbsim.kernel.result", "version": 1, "outputs": entries, "instructions": 1, "end_ns": 1.0}, f)
print("fake tpbsim: %d outputs" % len(entries))
