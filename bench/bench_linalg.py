"""Linear-algebra benchmarks: batches of small matrices, the case of
robotics, graphics and Gaussian-process code, and one larger matrix,
russet (the C core's linalg engine: one dispatch a factorization over the
whole batch) beside a peer measured in the same run: torch CUDA (cuSOLVER,
MAGMA) where a CUDA device exists (the lent H200), else torch CPU (LAPACK).

    python bench/bench_linalg.py [--batch B] [--n N] [--big M] [--reps K] [--json out.json]

Each row prints the time per call and matrices per second, and russet's
rate over the peer's. No target is set yet; nothing fails on a slow result.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

from timing import best_time, child_run, peer_table  # noqa: E402


def spd(shape, dev):
    g = torch.randn(*shape, device=dev)
    return g @ g.mT + shape[-1] * torch.eye(shape[-1], device=dev)


def cases(dev, batch, n, big):
    torch.manual_seed(0)
    out = {}
    for tag, shape in ((f"({batch},{n},{n})", (batch, n, n)), (f"({big},{big})", (big, big))):
        a, s = torch.randn(*shape, device=dev), spd(shape, dev)
        b = torch.randn(*shape[:-1], 4, device=dev)
        count = batch if len(shape) == 3 else 1
        out[f"cholesky {tag}"] = (lambda s=s: torch.linalg.cholesky(s), count)
        out[f"lu_factor {tag}"] = (lambda a=a: torch.linalg.lu_factor(a), count)
        out[f"solve, 4 rhs {tag}"] = (lambda a=a, b=b: torch.linalg.solve(a, b), count)
        out[f"inv {tag}"] = (lambda a=a: torch.linalg.inv(a), count)
        out[f"qr {tag}"] = (lambda a=a: torch.linalg.qr(a), count)
        if shape[-1] <= 128:  # russet's Jacobi limit
            out[f"svdvals {tag}"] = (lambda a=a: torch.linalg.svdvals(a), count)
            out[f"eigvalsh {tag}"] = (lambda s=s: torch.linalg.eigvalsh(s), count)
    return out


def run(dev, batch, n, big, reps):
    res = {}
    for name, (fn, count) in cases(dev, batch, n, big).items():
        t = best_time(fn, dev, reps, per_sync=3)
        res[name] = {"ms": t * 1e3, "mps": count / t / 1e3}
    return res


def check():
    """What is timed is right (against CPU)."""
    torch.manual_seed(1)
    a = torch.randn(8, 20, 20)
    b = torch.randn(8, 20, 4)
    torch.testing.assert_close(torch.linalg.solve(a.to("russet"), b.to("russet")).cpu(), torch.linalg.solve(a, b),
                               rtol=1e-3, atol=1e-3)
    s = spd((8, 20, 20), "cpu")
    torch.testing.assert_close(torch.linalg.cholesky(s.to("russet")).cpu(), torch.linalg.cholesky(s),
                               rtol=1e-4, atol=1e-4)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=None, help="matrices in the batch (default 4096 CUDA, 256 CPU)")
    ap.add_argument("--n", type=int, default=16, help="their size")
    ap.add_argument("--big", type=int, default=None, help="the single matrix's size (default 1024 CUDA, 128 CPU)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:  # one device per process (timing.py says why)
        child_run(args.child, lambda dev: run(dev, args.batch, args.n, args.big, args.reps), check)
        return
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    batch = args.batch or (4096 if peer == "cuda" else 256)
    big = args.big or (1024 if peer == "cuda" else 128)
    peer_table(__file__, ["--batch", str(batch), "--n", str(args.n), "--big", str(big), "--reps", str(args.reps)],
               "mps", "K/s", "none yet", args.json)


if __name__ == "__main__":
    main()
