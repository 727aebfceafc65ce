"""What torch.profiler costs on russet (issue 20; docs/profiling.md): the
host time per op of a loop of small ops (an in-place add on 1,024 floats,
one dispatch each), measured in the same run

  - without a profiler (the C core's timing off: one atomic load a dispatch),
  - under torch.profiler with the CPU activity only (PyTorch's op recording),
  - under torch.profiler with the CPU and russet activities (the C core's
    timestamp queries around every dispatch, and the Kineto plugin).

    python bench/bench_profiler.py [--ops 2000] [--reps 5]

Each figure is the best of --reps runs of --ops ops, synchronized at the
end. Nothing fails on a slow result.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import russet  # noqa: E402,F401


def loop(x, n):
    for _ in range(n):
        x.add_(1.0)
    torch.russet.synchronize()


def best(fn, reps):
    t = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    x = torch.zeros(1024, device="russet")
    loop(x, 100)  # warm: kernels compiled, memory cached

    def under(activities):
        def run():
            with profile(activities=activities):
                loop(x, a.ops)
        return run

    rows = [("no profiler", best(lambda: loop(x, a.ops), a.reps))]
    rows.append(("torch.profiler, CPU", best(under([ProfilerActivity.CPU]), a.reps)))
    if torch.russet._profiler_plugin():
        rows.append(("torch.profiler, CPU + russet", best(under([ProfilerActivity.CPU, ProfilerActivity.PrivateUse1]),
                                                          a.reps)))
    base = rows[0][1]
    print(f"{a.ops} in-place adds of 1,024 floats, best of {a.reps}; device {torch.russet.get_device_name()}")
    print(f"{'':32s} {'us/op':>8s} {'vs none':>8s}")
    for name, t in rows:
        print(f"{name:32s} {1e6 * t / a.ops:8.2f} {t / base:7.2f}x")


if __name__ == "__main__":
    main()
