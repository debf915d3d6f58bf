#!/usr/bin/python3
"""numpy oracle for tpbsim's DGE reshape engine + DMA engines (dge/oracle_test.go).

Reads the JSON case list the Go test writes (inputs and the model's results) and recomputes every
result with numpy, independently of the planner:

  tensor        dst = cast/compute(np.transpose(src.reshape(shape), perm)), compared row-major
  gather_xpose  NKI: flat = indices.T.flatten()[:n]; dst = src[flat, :].T
  gather        INDIRECT1D: dst[i] = src[idx[i]]

Casts go through float32 (the hardware's cast hub): float -> int truncates toward zero and
saturates (NaN -> 0); float32 -> float16 rounds to nearest even. compute_op is
dst = op(dst, src) in float32, then cast to the destination dtype.

Prints "cases=N mismatches=M" and the first mismatches; exit status 1 when M > 0.
"""
import base64
import json
import sys

import numpy as np

NP = {"u1": np.uint8, "i1": np.int8, "u2": np.uint16, "i2": np.int16, "bf16": np.uint16,
      "f2": np.float16, "i4": np.int32, "u4": np.uint32, "f4": np.float32}


def arr(b64, dt):
    raw = base64.b64decode(b64) if b64 else b""
    return np.frombuffer(raw, dtype=NP[dt])


def to_f32(x, dt):
    if dt == "bf16":
        return (x.astype(np.uint32) << 16).view(np.float32)
    return x.astype(np.float32)


def from_f32(v, dt):
    t = NP[dt]
    if dt == "bf16":
        raise ValueError("bf16 casts are not in the oracle")
    if np.issubdtype(t, np.integer):
        info = np.iinfo(t)
        w = np.trunc(v.astype(np.float64))
        w = np.where(np.isnan(w), 0, w)
        w = np.clip(w, info.min, info.max)
        return w.astype(t)
    return v.astype(t)


def tensor(c):
    src = arr(c["src"], c["in"]).reshape(c["shape"])
    x = np.transpose(src, c["perm"]) if c.get("perm") else src
    x = np.ascontiguousarray(x).ravel()
    op = c.get("op", 0)
    if c["in"] == c["out"] and op == 0:
        return x
    xf = to_f32(x, c["in"])
    if op == 0:
        return from_f32(xf, c["out"])
    y = to_f32(arr(c["dst_before"], c["out"]), c["out"])
    with np.errstate(all="ignore"):
        r = {1: lambda: y + xf, 2: lambda: y * xf, 3: lambda: np.maximum(y, xf), 4: lambda: np.minimum(y, xf)}[op]()
    return from_f32(r.astype(np.float32), c["out"])


def gather_xpose(c):
    N, F = c["shape"]
    src = arr(c["src"], "u2").reshape(N, F)
    P, K = c["idx_shape"]
    indices = np.array(c["indices"], dtype=np.uint32).reshape(P, K)
    flat = indices.T.flatten()[: c["n"]]
    return np.ascontiguousarray(src[flat, :].T).ravel()


def gather(c):
    rows, es = c["shape"]
    src = arr(c["src"], "u1").reshape(rows, es)
    return src[np.array(c["indices"], dtype=np.int64)].ravel()


def main():
    cases = json.load(open(sys.argv[1]))
    bad = []
    for c in cases:
        want = {"tensor": tensor, "gather_xpose": gather_xpose, "gather": gather}[c["kind"]](c)
        got = arr(c["result"], c["out"] if c["kind"] == "tensor" else ("u2" if c["kind"] == "gather_xpose" else "u1"))
        if got.shape != want.shape or got.tobytes() != np.ascontiguousarray(want).tobytes():
            i = next((k for k in range(min(len(got), len(want))) if got.view(np.uint8 if got.itemsize == 1 else got.dtype)[k:k+1].tobytes() != want[k:k+1].tobytes()), -1)
            bad.append((c["id"], c["kind"], c["gen"], c.get("shape"), c.get("perm"), c.get("in"), c.get("out"), c.get("op"), c.get("space"), c.get("plan"), i,
                        got[i] if 0 <= i < len(got) else None, want[i] if 0 <= i < len(want) else None))
    print("cases=%d mismatches=%d" % (len(cases), len(bad)))
    for b in bad[:10]:
        print("mismatch:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
