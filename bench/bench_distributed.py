"""What russet's c10d backend costs (issue 20; docs/distributed.md): the
time of an all_reduce (sum, float32) of a few sizes in 2 processes on one
host, russet tensors through the "russet" backend (host staging, then
Gloo) beside CPU tensors through Gloo itself, measured in the same run.

    python bench/bench_distributed.py [--sizes 1024,1048576,16777216] [--reps 10]

Each figure is the median of --reps calls after two warm-up calls; the
ratio is russet's time over Gloo's on CPU tensors (the staging's cost).
RUSSET_DISTRIBUTED_COPY=1 stages through host copies where russet's memory
is mapped, for comparison with the views it uses there. Nothing fails on a
slow result.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def child(rank, world, store, dev, sizes, reps, out):
    import torch
    import torch.distributed as dist

    if dev == "russet":
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
        import russet  # noqa: F401
    dist.init_process_group(None if dev == "russet" else "gloo", init_method=f"file://{store}", rank=rank,
                            world_size=world)
    res = {}
    for n in sizes:
        t = torch.ones(n, device=dev)
        times = []
        for i in range(reps + 2):
            if dev == "russet":
                torch.russet.synchronize()
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            if dev == "russet":
                torch.russet.synchronize()
            if i >= 2:
                times.append(time.perf_counter() - t0)
        res[n] = sorted(times)[len(times) // 2]
    if rank == 0:
        with open(out, "w") as f:
            json.dump(res, f)
    dist.destroy_process_group()


def run(dev, sizes, reps, world=2):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "res.json")
        procs = [subprocess.Popen([sys.executable, __file__, "--child", dev, "--rank", str(r), "--world", str(world),
                                   "--store", os.path.join(d, "store"), "--out", out, "--sizes",
                                   ",".join(map(str, sizes)), "--reps", str(reps)]) for r in range(world)]
        for p in procs:
            p.wait()
        with open(out) as f:
            return {int(k): v for k, v in json.load(f).items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1024,1048576,16777216")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--rank", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--world", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.child:
        child(a.rank, a.world, a.store, a.child, sizes, a.reps, a.out)
        return
    rr = run("russet", sizes, a.reps)
    cc = run("cpu", sizes, a.reps)
    print("all_reduce (sum, float32), 2 processes on one host, median of", a.reps)
    print(f"{'elements':>10s} {'russet ms':>10s} {'Gloo CPU ms':>12s} {'ratio':>7s}")
    for n in sizes:
        print(f"{n:10d} {1e3 * rr[n]:10.3f} {1e3 * cc[n]:12.3f} {rr[n] / cc[n]:6.2f}x")


if __name__ == "__main__":
    main()
