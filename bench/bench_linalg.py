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

from timing import best_time, check_cases, child_run, peer_table  # noqa: E402


def spd(shape):
    g = torch.randn(*shape, dtype=torch.float64)
    return (g @ g.mT + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)).float()


def cases(dev, batch, n, big):
    """name -> (callable, matrices); the matrices are drawn on the CPU, so
    that every device's cases (and CPU's reference) see the same values"""
    torch.manual_seed(0)
    out = {}
    for tag, shape in ((f"({batch},{n},{n})", (batch, n, n)), (f"({big},{big})", (big, big))):
        a, s = torch.randn(*shape).to(dev), spd(shape).to(dev)
        b = torch.randn(*shape[:-1], 4).to(dev)
        count = batch if len(shape) == 3 else 1
        out[f"cholesky {tag}"] = (lambda s=s: torch.linalg.cholesky(s), count)
        out[f"lu_factor {tag}"] = (lambda a=a: torch.linalg.lu_factor(a), count)
        out[f"solve, 4 rhs {tag}"] = (lambda a=a, b=b: torch.linalg.solve(a, b), count)
        out[f"inv {tag}"] = (lambda a=a: torch.linalg.inv(a), count)
        out[f"qr {tag}"] = (lambda a=a: torch.linalg.qr(a), count)
        if shape[-1] <= 128:  # russet's Jacobi limit
            out[f"svdvals {tag}"] = (lambda a=a: torch.linalg.svdvals(a), count)
            out[f"eigvalsh {tag}"] = (lambda s=s: torch.linalg.eigvalsh(s), count)
            out[f"svd {tag}"] = (lambda a=a: torch.linalg.svd(a, full_matrices=False), count)
            out[f"eigh {tag}"] = (lambda s=s: torch.linalg.eigh(s), count)
    return out


def run(dev, batch, n, big, reps):
    res = {}
    for name, (fn, count) in cases(dev, batch, n, big).items():
        t = best_time(fn, dev, reps, per_sync=3)
        res[name] = {"ms": t * 1e3, "mps": count / t / 1e3}
    return res


def canonical(name, res):
    """what determines a result: a QR's product Q R and |diag R| (the signs
    of Q's columns are the algorithm's choice), an SVD's U S V^H and S, an
    eigendecomposition's V diag(w) V^H and w (each vector's sign is the
    algorithm's too); the others as they are"""
    if name.startswith("svd "):
        u, s, vh = res
        return (u * s.unsqueeze(-2)) @ vh, s
    if name.startswith("eigh"):
        w, v = res
        return (v * w.unsqueeze(-2)) @ v.mT, w
    if name.startswith("qr"):
        q, r = res
        return q @ r, r.diagonal(dim1=-2, dim2=-1).abs()
    if name.startswith("lu_factor"):  # P L U (a near-tie may pick another pivot)
        p, l, u = torch.lu_unpack(res[0].cpu(), res[1].cpu())
        return p @ l @ u
    return res


def check(batch, n, big):
    """Every timed case, at its timed size, against CPU before any timing:
    within 1e-3 of the scale, 1e-2 for solve and inv (float32 on random
    matrices, whose condition numbers reach 1e3-1e4 at 1024)"""
    check_cases(cases("russet", batch, n, big), cases("cpu", batch, n, big),
                lambda name: 1e-2 if name.startswith(("solve", "inv")) else 1e-3, canon=canonical)


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
        child_run(args.child, lambda dev: run(dev, args.batch, args.n, args.big, args.reps),
                  lambda: check(args.batch, args.n, args.big))
        return
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    batch = args.batch or (4096 if peer == "cuda" else 256)
    big = args.big or (1024 if peer == "cuda" else 128)
    peer_table(__file__, ["--batch", str(batch), "--n", str(args.n), "--big", str(big), "--reps", str(args.reps)],
               "mps", "K/s", "none yet", args.json)


if __name__ == "__main__":
    main()
