"""Each kernel's device time inside an op, on any torch (the H100 image's
2.11 has no Kineto plugin for russet: docs/profiling.md): the C core's
profiler (russet/profiler.h) through ctypes, around a few calls of each
case, the records summed by kernel name, and the last call's dispatches
in order (a kernel's passes share the source's name). A tool for tuning, not a
benchmark against a peer.

    python bench/kernel_times.py [--only REGEX] [--reps N]
"""
import argparse
import ctypes
import os
import re
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import russet  # noqa: E402,F401


class Record(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char * 64), ("start_ns", ctypes.c_int64), ("end_ns", ctypes.c_int64),
                ("correlation", ctypes.c_uint64), ("stream", ctypes.c_int)]


def core():
    lib = ctypes.CDLL(os.path.join(os.path.dirname(russet.__file__), "_russet.so"))
    dev = ctypes.c_void_p()
    if lib.rs_device_get(0, ctypes.byref(dev)) != 0:
        raise RuntimeError("rs_device_get failed")
    lib.rs_profiler_take.restype = ctypes.c_size_t
    return lib, dev


def cases():
    D = "russet"
    t = torch.randn(4096, 768, device=D)
    ln = torch.nn.LayerNorm(768).to(D)
    w = torch.randn(768, device=D)
    x = torch.randn(64, 64, 64, 64, device=D)
    xcl = x.to(memory_format=torch.channels_last)
    bn = torch.nn.BatchNorm2d(64).to(D)
    xd = torch.randn(4096, 3072, device=D)
    # a decoding step's weight-only products (bench_quant's shapes; the
    # weights' values do not matter to the time)
    q4 = {}
    for n in (4096, 11008):
        packed = torch._convert_weight_to_int4pack(torch.randint(0, 256, (n, 2048), dtype=torch.uint8, device=D), 2)
        q4[n] = (packed, torch.rand(32, n, 2, device=D).bfloat16(),
                 torch.randint(-128, 128, (n, 4096), dtype=torch.int8, device=D), torch.rand(n, device=D).bfloat16())
    x1 = torch.randn(1, 4096, device=D).bfloat16()
    # torch.compile's generated kernels (bench_compile's cases)
    sys.path.insert(0, HERE)
    import bench_compile
    cx, cy, cm = torch.randn(1 << 24, device=D), torch.randn(1 << 24, device=D), torch.randn(8192, 1024, device=D)
    cw, cb = torch.randn(1024, device=D), torch.randn(1024, device=D)
    chain_c, ln_c = torch.compile(bench_compile.chain), torch.compile(bench_compile.layer_norm)
    sm_c = torch.compile(bench_compile.softmax)
    # the chain's steps alone, compiled and eager: where a compiled kernel's time goes
    parts = {"x*y+1": lambda a, b: a * b + 1, "sin": lambda a, b: a.sin(), "exp": lambda a, b: a.exp(),
             "tanh": lambda a, b: a.tanh(), "sigmoid": lambda a, b: a.sigmoid(), "copy": lambda a, b: a + 0}
    steps = {}
    for k, f in parts.items():
        fc = torch.compile(f)
        steps[f"compiled step {k} (16M)"] = lambda fc=fc: fc(cx, cy)
        steps[f"eager step {k} (16M)"] = lambda f=f: f(cx, cy)
    return {
        **steps,
        "compiled chain of 10 ops (16M)": lambda: chain_c(cx, cy),
        "compiled layer_norm (8192,1024)": lambda: ln_c(cm, cw, cb),
        "compiled softmax (8192,1024)": lambda: sm_c(cm),
        "int4 4096x4096 decode": lambda: torch._weight_int4pack_mm(x1, q4[4096][0], 128, q4[4096][1]),
        "int4 11008x4096 decode": lambda: torch._weight_int4pack_mm(x1, q4[11008][0], 128, q4[11008][1]),
        "int8 4096x4096 decode": lambda: torch._weight_int8pack_mm(x1, q4[4096][2], q4[4096][3]),
        "int8 11008x4096 decode": lambda: torch._weight_int8pack_mm(x1, q4[11008][2], q4[11008][3]),
        "layer_norm (4096,768)": lambda: ln(t),
        "rms_norm (4096,768)": lambda: F.rms_norm(t, (768,), w),
        "batch_norm train (64,64,64,64)": lambda: bn(x),
        "batch_norm train CL": lambda: bn(xcl),
        "max_pool2d 3x3 s2": lambda: F.max_pool2d(x, 3, 2, 1),
        "dropout 0.1 (4096,3072)": lambda: torch.ops.aten.native_dropout(xd, 0.1, True),
        "ones_like CL": lambda: torch.ones_like(xcl),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    lib, dev = core()
    recs = (Record * 65536)()
    for name, fn in cases().items():
        if args.only and not re.search(args.only, name):
            continue
        for _ in range(3):
            fn()
        torch.russet.synchronize()
        lib.rs_profiler_take(dev, recs, 65536)  # drop anything earlier
        if lib.rs_profiler_start(dev) != 0:
            raise RuntimeError("rs_profiler_start failed (no timestamp queries?)")
        t0 = time.perf_counter()
        for _ in range(args.reps):
            fn()
        torch.russet.synchronize()
        wall = (time.perf_counter() - t0) / args.reps * 1e6
        lib.rs_profiler_stop(dev)
        n = lib.rs_profiler_take(dev, recs, 65536)
        sums = {}
        for r in recs[:n]:
            k = r.name.decode(errors="replace")
            c, ns = sums.get(k, (0, 0))
            sums[k] = (c + 1, ns + (r.end_ns - r.start_ns))
        total = sum(ns for _, ns in sums.values()) / args.reps / 1e3
        print(f"{name}: {total:.1f} us of kernels a call ({wall:.1f} us wall, profiled)")
        for k, (c, ns) in sorted(sums.items(), key=lambda kv: -kv[1][1]):
            print(f"    {k:40s} {c / args.reps:4.1f} a call  {ns / args.reps / 1e3:8.1f} us")
        # the last call's dispatches in order (a kernel's passes share its name)
        last = recs[n - n // args.reps:n]
        print("    in order: " + ", ".join(f"{r.name.decode(errors='replace')} {(r.end_ns - r.start_ns) / 1e3:.1f}"
                                          for r in last))


if __name__ == "__main__":
    main()
