#!/usr/bin/env python3
"""numpy oracle for the DVE S4D4_TR executor (tpbsim).

Usage: oracle.py DIR
  DIR/cases.json  list of cases (see dve/oracle_test.go)
  DIR/in.bin      concatenated windows: for each case the src window then the dst window, each
                  rows x cols bytes (row = partition), as memory was before the instruction
  writes DIR/out.bin: for each case the dst window after the instruction.

The semantics are written here from DESIGN.md §4 with numpy only, independently of the Go code:
walks are numpy index arithmetic (dim 0 innermost), the transpose is a reshape/transpose,
reductions and scans are sequential float32 folds, casts are numpy casts plus explicit RNE bit
arithmetic for bfloat16 (numpy has none).
"""
import json
import os
import sys

import numpy as np

RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
INT = {2: np.int8, 3: np.uint8, 4: np.int16, 5: np.uint16, 8: np.int32, 9: np.uint32, 0x0C: np.int64, 0x01: np.uint64}
SIZE = {1: 8, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 2, 8: 4, 9: 4, 10: 4, 11: 4, 12: 8, 13: 1, 14: 1, 15: 1}


def walk(start, step, num, es):
    """Byte offsets of a TENSOR4D walk, dim 0 innermost."""
    idx = np.zeros((num[3], num[2], num[1], num[0]), dtype=np.int64)
    idx += (np.arange(num[3]) * step[3])[:, None, None, None]
    idx += (np.arange(num[2]) * step[2])[None, :, None, None]
    idx += (np.arange(num[1]) * step[1])[None, None, :, None]
    idx += (np.arange(num[0]) * step[0])[None, None, None, :]
    return start + idx.reshape(-1) * es


def gather(win, offs, es):
    """[rows, E] raw unsigned cells."""
    b = win[:, offs[:, None] + np.arange(es)[None, :]]  # rows, E, es
    return np.ascontiguousarray(b).view(RAW[es]).reshape(win.shape[0], len(offs))


def scatter(win, offs, es, raw):
    b = np.ascontiguousarray(raw.astype(RAW[es])).view(np.uint8).reshape(raw.shape[0], raw.shape[1], es)
    win[:, offs[:, None] + np.arange(es)[None, :]] = b


def to_f32(raw, dt):
    if dt in (10, 11):
        return raw.astype(np.uint32).view(np.float32)
    if dt == 6:
        return (raw.astype(np.uint32) << 16).view(np.float32)
    if dt == 7:
        return raw.astype(np.uint16).view(np.float16).astype(np.float32)
    if dt in INT:
        return raw.astype(RAW[SIZE[dt]]).view(INT[dt]).astype(np.float32)
    raise ValueError("dtype %d not in the oracle" % dt)


def from_f32(x, dt):
    x = np.asarray(x, dtype=np.float32)
    if dt == 10:
        return x.view(np.uint32)
    if dt == 6:
        u = x.view(np.uint32).astype(np.uint64)
        nan = np.isnan(x)
        r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF
        return np.where(nan, ((u >> 16) | 0x40) & 0xFFFF, r).astype(np.uint16)
    if dt == 7:
        return x.astype(np.float16).view(np.uint16)
    if dt in INT:
        t = INT[dt]
        info = np.iinfo(t)
        v = np.trunc(x.astype(np.float64))
        v = np.where(np.isnan(v), 0, v)
        v = np.clip(v, float(info.min), float(info.max))
        if t == np.uint64:
            out = np.where(v >= 2.0**64, np.uint64(info.max), v.astype(np.float64).clip(0, 2.0**64 - 1).astype(np.uint64))
            return out.astype(np.uint64)
        if t == np.int64:
            big = v >= 2.0**63
            out = np.where(big, 0, v).astype(np.int64)
            out = np.where(big, np.int64(info.max), out)
            return out.view(np.uint64)
        return v.astype(np.int64).astype(t).view(RAW[SIZE[dt]])
    raise ValueError("dtype %d not in the oracle" % dt)


def fmax(a, b):
    return np.where(np.isnan(a) | (a >= b), a, b).astype(np.float32)


def fmin(a, b):
    return np.where(np.isnan(a) | (a <= b), a, b).astype(np.float32)


def f(b):
    return b.astype(np.float32)


ARITH = {
    0x00: lambda a, b: a,
    0x04: lambda a, b: a + b,
    0x05: lambda a, b: a - b,
    0x06: lambda a, b: a * b,
    0x07: lambda a, b: a / b,
    0x08: fmax,
    0x09: fmin,
    0x0D: lambda a, b: f((a != 0) & (b != 0)),
    0x0E: lambda a, b: f((a != 0) | (b != 0)),
    0x0F: lambda a, b: f((a != 0) != (b != 0)),
    0x12: lambda a, b: f(a == b),
    0x13: lambda a, b: f(a > b),
    0x14: lambda a, b: f(a >= b),
    0x15: lambda a, b: f(a <= b),
    0x16: lambda a, b: f(a < b),
    0x17: lambda a, b: np.abs(a - b),
    0x18: lambda a, b: f(a != b),
    0x19: lambda a, b: np.abs(a),
    0x1D: lambda a, b: np.float32(1) / np.sqrt(a),
    0x20: lambda a, b: fmax(np.abs(a), np.abs(b)),
    0x21: lambda a, b: fmin(np.abs(a), np.abs(b)),
    0x22: lambda a, b: fmax(a, np.zeros_like(a)),
    0x23: lambda a, b: a * a,
}


def bits(op, a, b, width):
    mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    sh = (b % np.uint64(width)).astype(np.uint64)
    if op == 0x00:
        r = a
    elif op == 0x01:
        r = ~a
    elif op == 0x0A:
        r = a & b
    elif op == 0x0B:
        r = a | b
    elif op == 0x0C:
        r = a ^ b
    elif op in (0x02, 0x10):
        r = a << sh
    elif op == 0x11:
        r = (a & mask) >> sh
    elif op == 0x03:
        s = ((a << np.uint64(64 - width)).view(np.int64) >> np.int64(64 - width))
        r = (s >> sh.astype(np.int64)).view(np.uint64)
    else:
        raise ValueError("bitvec op %#x" % op)
    return r & mask


def reduce_groups(vals, G, op, arith, width, scan):
    """vals [rows, E] (float32 or uint64); fold groups of G consecutive elements."""
    rows, E = vals.shape
    v = vals.reshape(rows, E // G, G)
    acc = v[:, :, 0]
    if not arith:
        acc = bits(0x00, acc, acc, width)
    outs = [acc]
    for i in range(1, G):
        if arith:
            with np.errstate(all="ignore"):
                acc = ARITH[op](acc, v[:, :, i]).astype(np.float32)
        else:
            acc = bits(op, acc, v[:, :, i], width)
        outs.append(acc)
    if scan:
        return np.stack(outs, axis=2).reshape(rows, E)
    return acc


def stream_transpose(S):
    rows, E = S.shape
    return S.reshape(rows // 32, 32, E // 32, 32).transpose(0, 3, 2, 1).reshape(rows, E)


def run_case(c, src_win, dst_win):
    op = c["opcode"]
    s, d = c["src"], c["dst"]
    ein, eout = SIZE[c["in_dtype"]], SIZE[c["out_dtype"]]
    so = walk(s["start"], s["step"], s["num"], ein)
    do = walk(d["start"], d["step"], d["num"], eout)
    S = gather(src_win, so, ein)
    out = dst_win.copy()
    arith_ops = (0x42, 0x83, 0x4E, 0x8C, 0x8D)
    if op == 0x6B:
        O = stream_transpose(S)
        scatter(out, do, eout, O[:, : len(do)])
    elif op == 0x46:
        scatter(out, do, eout, S)
    elif op == 0x6A:
        mask = c["mask"]
        for ch in range(S.shape[0]):
            m = mask[ch % 32]
            if m == 255:
                continue
            src_ch = ch // 32 * 32 + m % 32
            scatter(out[ch : ch + 1], do, eout, S[src_ch : src_ch + 1])
    elif op == 0x47:
        with np.errstate(all="ignore"):
            scatter(out, do, eout, from_f32(to_f32(S, c["in_dtype"]), c["out_dtype"]))
    elif op == 0x48:
        with np.errstate(all="ignore"):
            scatter(out, do, eout, from_f32(np.float32(1) / to_f32(S, c["in_dtype"]), c["out_dtype"]))
    elif op in (0x42, 0x52, 0x83, 0x84, 0x4E, 0x5E, 0x8C, 0x8D):
        if op in (0x83, 0x84):
            S = stream_transpose(S)
        k = max(c["op_dim"] - 1, 1 if op in (0x8C, 0x8D) else 0)
        G = int(np.prod(s["num"][:k]))
        arith = op in arith_ops
        alu = {0x8C: 0x04, 0x8D: 0x08}.get(op, c["op"])
        if arith:
            vals = to_f32(S, c["in_dtype"])
        else:
            vals = S.astype(np.uint64)
        r = reduce_groups(vals, G, alu, arith, ein * 8, op in (0x4E, 0x5E))
        if arith:
            if c["negated"] and op not in (0x4E,):
                r = -r
            with np.errstate(all="ignore"):
                r = from_f32(r, c["out_dtype"])
        else:
            r = r & np.uint64((1 << (eout * 8)) - 1 if eout < 8 else 0xFFFFFFFFFFFFFFFF)
        scatter(out, do, eout, r)
    else:
        raise ValueError("opcode %#x" % op)
    return out


def main():
    d = sys.argv[1]
    cases = json.load(open(os.path.join(d, "cases.json")))
    data = np.fromfile(os.path.join(d, "in.bin"), dtype=np.uint8)
    res = []
    for c in cases:
        s, t = c["src"], c["dst"]
        sw = data[s["off"] : s["off"] + s["rows"] * s["cols"]].reshape(s["rows"], s["cols"])
        dw = data[t["off"] : t["off"] + t["rows"] * t["cols"]].reshape(t["rows"], t["cols"])
        res.append(run_case(c, sw, dw).reshape(-1))
    np.concatenate(res).astype(np.uint8).tofile(os.path.join(d, "out.bin"))


if __name__ == "__main__":
    main()
