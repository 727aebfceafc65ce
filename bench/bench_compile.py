"""torch.compile benchmarks (issue 18): a chain of 10 pointwise ops, layer
norm and softmax, eager and compiled, russet beside a peer measured in the
same run: torch CUDA (Triton kernels from Inductor) where a CUDA device
exists (the lent H200), else torch CPU (C++ kernels from Inductor).

    python bench/bench_compile.py [--n N] [--rows R] [--reps K] [--json out.json]

Each row prints the time per call and the bytes moved per second (inputs
read once, outputs written once), and russet's rate over the peer's.
Targets (H200): compiled chain >= 0.9x of CUDA's compiled, compiled layer
norm and softmax >= 0.7x. The eager rows beside the compiled ones show what
fusion gains on each device. Nothing fails on a slow result.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from timing import best_time, check_cases, child_run, peer_table  # noqa: E402


def chain(x, y):
    z = x * y + 1
    z = z.relu().sin() * 2 - y
    z = torch.exp(-z.abs()) / (1 + y * y)
    return z.tanh() + x.sigmoid()


def layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b)


def softmax(x):
    return torch.softmax(x, -1)


def cases(dev, n, rows, compile=True):
    """name -> (callable, bytes); inputs drawn on the CPU, so that every
    device's cases (and CPU's eager reference, compile=False) see the same
    values"""
    torch.manual_seed(0)
    x, y = torch.randn(n).to(dev), torch.randn(n).to(dev)
    m = torch.randn(rows, 1024).to(dev)
    w, b = torch.randn(1024).to(dev), torch.randn(1024).to(dev)
    out = {}
    for tag, fn, args, nbytes in (
        (f"chain of 10 ops ({n})", chain, (x, y), 3 * n * 4),
        (f"layer_norm ({rows},1024)", layer_norm, (m, w, b), 2 * m.numel() * 4),
        (f"softmax ({rows},1024)", softmax, (m,), 2 * m.numel() * 4),
    ):
        compiled = torch.compile(fn) if compile else fn
        out[f"{tag} eager"] = (lambda fn=fn, args=args: fn(*args), nbytes)
        out[f"{tag} compiled"] = (lambda c=compiled, args=args: c(*args), nbytes)
    return out


def run(dev, n, rows, reps):
    res = {}
    for name, (fn, nbytes) in cases(dev, n, rows).items():
        t = best_time(fn, dev, reps)
        res[name] = {"ms": t * 1e3, "gbs": nbytes / t / 1e9}
    return res


def check(n, rows):
    """Every timed case, eager and compiled, at its timed size, against CPU's
    eager result before any timing"""
    check_cases(cases("russet", n, rows), cases("cpu", n, rows, compile=False), lambda name: 1e-5)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=None, help="chain elements (default 16M on CUDA, 1M on CPU)")
    ap.add_argument("--rows", type=int, default=None, help="layer norm/softmax rows (default 8192 / 512)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:  # one device per process (timing.py says why)
        child_run(args.child, lambda dev: run(dev, args.n, args.rows, args.reps), lambda: check(args.n, args.rows))
        return
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    n = args.n or (16 << 20 if peer == "cuda" else 1 << 20)
    rows = args.rows or (8192 if peer == "cuda" else 512)
    peer_table(__file__, ["--n", str(n), "--rows", str(rows), "--reps", str(args.reps)], "gbs", "GB/s",
               "chain 0.9x, norm 0.7x (compiled)", args.json)


if __name__ == "__main__":
    main()
