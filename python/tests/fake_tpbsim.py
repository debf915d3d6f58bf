#!/usr/bin/python3
"""A stand-in for `tpbsim kernel run K.json --out-dir DIR`, for the front end's tests only: a
small numpy interpreter of the kernel form (FORMAT.md) with NKI.md's semantics, so the recorder's
views and calls can be checked against numpy without the Go side. It is a test oracle, not a
fallback: the front end itself never computes.

$FAKE_ARGV names a file that receives argv as JSON; $FAKE_EXIT=1|2 makes it fail with that status
and a message on stderr, as the Go side does."""

import json
import os
import sys

import numpy as np

NP = {"bool": np.uint8, "uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16,
      "uint32": np.uint32, "int32": np.int32, "float16": np.float16, "float32": np.float32,
      "bfloat16": np.float32, "tfloat32": np.float32}  # the oracle keeps bf16 / tf32 as float32
DMA_T_AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}


class Refused(Exception):
    pass


def values(mem, v, order="C"):
    """The flat indices a view walks, shaped as the view (indirect positions replaced)."""
    pat = v["pattern"]
    nums = [n for _, n in pat]
    flat = np.full(nums, v["offset"], dtype=np.int64)
    ind = v.get("indirect")
    for d, (s, n) in enumerate(pat):
        shape = [1] * len(pat)
        shape[d] = n
        pos = np.arange(n).reshape(shape)
        if ind is not None and ind["dim"] == d:
            idx = read(mem, ind["index"]).astype(np.int64)
            idx = (idx.T if order == "F" else idx).reshape(-1)[:n]
            pos = idx.reshape(shape)
        flat = flat + s * pos
    return flat


def read(mem, v, order="C"):
    data = mem[v["tensor"]]
    ix = values(mem, v, order)
    if ix.size and (ix.min() < 0 or ix.max() >= data.size):
        raise Refused("view of tensor %d walks outside it" % v["tensor"])
    return data[ix]


def write(mem, v, vals, rmw=None, skip_oob=False):
    data = mem[v["tensor"]]
    ix = values(mem, v)
    vals = np.asarray(vals).reshape(-1)
    ix = ix.reshape(-1)
    if ix.size != vals.size:
        raise Refused("%d elements into a view of %d" % (vals.size, ix.size))
    ok = (ix >= 0) & (ix < data.size)
    if not ok.all():
        if not skip_oob:
            raise Refused("out of bounds write into tensor %d" % v["tensor"])
        ix, vals = ix[ok], vals[ok]
    vals = vals.astype(np.float32).astype(data.dtype) if vals.dtype != data.dtype else vals
    if rmw == "add":
        data[ix] = (data[ix].astype(np.float32) + vals.astype(np.float32)).astype(data.dtype)
    else:
        data[ix] = vals


def gather_rows(mem, v, skip):
    """An indirect source read row by row, out-of-bounds rows left out when skip (None there)."""
    data = mem[v["tensor"]]
    ix = values(mem, v)
    bad = (ix < 0) | (ix >= data.size)
    if bad.any() and not skip:
        raise Refused("out of bounds index")
    out = np.where(bad, 0, data[np.where(bad, 0, ix)])
    return out, bad


def run_call(mem, c):
    op = c["op"]
    if op == "dma_copy":
        skip = c.get("oob_mode") == "skip"
        if c["src"].get("indirect") is not None:
            vals, bad = gather_rows(mem, c["src"], skip)
            dst_ix = values(mem, c["dst"]).reshape(vals.shape)
            keep = ~bad.reshape(vals.shape)
            sub = {"tensor": c["dst"]["tensor"]}
            data = mem[sub["tensor"]]
            data[dst_ix[keep]] = vals[keep].astype(np.float32).astype(data.dtype)
            return
        write(mem, c["dst"], read(mem, c["src"]), c.get("dst_rmw_op"), skip)
    elif op == "dma_transpose":
        ind = c["src"].get("indirect") is not None
        src = read(mem, c["src"], "F" if ind else "C")
        axes = c.get("axes") or DMA_T_AXES[src.ndim]
        write(mem, c["dst"], np.transpose(src, axes))
    elif op == "load_transpose2d":
        write(mem, c["dst"], read(mem, c["src"]).T)
    elif op == "nc_transpose":
        d = read(mem, c["data"])
        write(mem, c["dst"], d.reshape(d.shape[0], -1).T)
    elif op == "nc_stream_shuffle":
        src = read(mem, c["src"])
        src = src.reshape(src.shape[0], -1)
        dix = values(mem, c["dst"])
        dix = dix.reshape(dix.shape[0], -1)
        data = mem[c["dst"]["tensor"]]
        for p in range(dix.shape[0]):
            m = c["shuffle_mask"][p % 32]
            if m == 255:
                continue
            sp = (p // 32) * 32 + m
            data[dix[p]] = src[sp if sp < src.shape[0] else m]
    elif op == "tensor_reduce":
        d = read(mem, c["data"]).astype(np.float32)
        f = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum}[c["reduce_op"]]
        r = f.reduce(d, axis=tuple(c["axis"]))
        write(mem, c["dst"], -r if c.get("negate") else r)
    elif op == "tensor_copy":
        write(mem, c["dst"], read(mem, c["src"]))
    elif op == "reciprocal":
        with np.errstate(divide="ignore"):
            write(mem, c["dst"], np.float32(1) / read(mem, c["data"]).astype(np.float32))
    elif op == "memset":
        v = c["value"]
        v = float(v) if isinstance(v, str) else v
        ix = values(mem, c["dst"])
        mem[c["dst"]["tensor"]][ix] = v
    else:
        raise Refused("op %s" % op)


def main(argv):
    if os.environ.get("FAKE_ARGV"):
        with open(os.environ["FAKE_ARGV"], "w") as f:
            json.dump(argv, f)
    status = int(os.environ.get("FAKE_EXIT", "0"))
    if status:
        sys.stderr.write("t.py:12: nisa.dma_copy: rule dma.shape: src has 64 elements, dst 32\n")
        return status
    if argv[:2] != ["kernel", "run"] or "--out-dir" not in argv:
        sys.stderr.write("usage: kernel run K.json --out-dir DIR\n")
        return 2
    kpath = argv[2]
    out = argv[argv.index("--out-dir") + 1]
    raw = "--raw-bits" in argv
    with open(kpath) as f:
        k = json.load(f)
    mem = []
    for t in k["tensors"]:
        dt = NP[t["dtype"]]
        if t["kind"] == "input":
            a = np.load(os.path.join(os.path.dirname(kpath), t["file"]))
            if t.get("encoding") == "raw" and t["dtype"] == "bfloat16":
                a = (a.astype(np.uint32) << 16).view(np.float32)
            mem.append(a.astype(dt).reshape(-1).copy())
        else:
            mem.append(np.full(int(np.prod(t["shape"])), np.nan if np.dtype(dt).kind == "f" else 4, dtype=dt))
    for i, c in enumerate(k["calls"]):
        try:
            run_call(mem, c)
        except (Refused, KeyError, ValueError, IndexError) as e:
            sys.stderr.write("%s: %s: call %d: %s\n" % (c["loc"], c["call"], i, e))
            return 1
    os.makedirs(out)
    entries = []
    for i, tid in enumerate(k["outputs"]):
        t = k["tensors"][tid]
        a = mem[tid].reshape(t["shape"])
        enc = "native"
        if t["dtype"] == "bfloat16":
            a = a.astype(np.float32)
            if raw:
                a, enc = (a.view(np.uint32) >> 16).astype(np.uint16), "raw"
            else:
                enc = "float32"
        np.save(os.path.join(out, "output%d.npy" % i), a)
        entries.append({"tensor": tid, "name": t["name"], "file": "output%d.npy" % i, "dtype": t["dtype"],
                        "shape": t["shape"], "encoding": enc})
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump({"format": "tpbsim.kernel.result", "version": 1, "outputs": entries,
                   "instructions": len(k["calls"]), "end_ns": 0.0}, f)
    if os.environ.get("FAKE_ARGV"):
        print("fake tpbsim: %d calls, %d outputs" % (len(k["calls"]), len(entries)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
