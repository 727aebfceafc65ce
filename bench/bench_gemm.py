"""GEMM benchmarks (issue 5, matrix products): russet beside a peer measured
in the same run: torch CUDA where a CUDA device exists (the lent H200;
cuBLAS with TF32 off for float32), else torch CPU.

    python bench/bench_gemm.py [--sizes 256] [--json out.json]

On CUDA: float32 4096^3 (target >= 50% of cuBLAS), float16 and bfloat16
8192^3 (target >= 40% of cuBLAS; float16 runs on cooperative matrices where
the device has them). Elsewhere the same dtypes at --sizes (default 256).
Each result is checked against the peer's before it is timed. Nothing here
fails on a slow result: the targets are printed beside.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

import russet  # noqa: E402,F401


# timing helpers shared by the benchmarks
from bench_pointwise import best_time, sync  # noqa: E402,F401
from timing import spread_summary  # noqa: E402


def case(dtype, m, n, k, peer, reps, per_sync, layout="nn"):
    g = torch.Generator().manual_seed(0)
    a = torch.randn(m, k, generator=g).to(dtype)
    b = torch.randn(k, n, generator=g).to(dtype)
    if layout == "nt":  # B given transposed (as a Linear layer's weight)
        b = b.t().contiguous().t()
    res, outs, fns = {}, {}, {}
    for dev in ("russet", peer):
        x, y = a.to(dev), (b.t().contiguous().to(dev).t() if layout == "nt" else b.to(dev))
        out = torch.empty(m, n, dtype=dtype, device=dev)
        fns[dev] = lambda x=x, y=y, out=out: torch.mm(x, y, out=out)
        fns[dev]()
        sync(dev)
        outs[dev] = out.float().cpu()
    # the timed case's own result, checked before it is timed
    err = (outs["russet"] - outs[peer]).abs().max().item() / max(outs[peer].abs().max().item(), 1e-30)
    bound = {torch.float32: 1e-4, torch.float16: 5e-3, torch.bfloat16: 2e-2}[dtype]
    if not err <= bound:
        raise SystemExit(f"bench_gemm: {dtype} {m}x{n}x{k} {layout}: russet is {err:.2e} from {peer} "
                         f"(relative to the largest element; bound {bound:.0e}): no timing for a wrong result")
    for dev in ("russet", peer):
        t = best_time(fns[dev], dev, reps, per_sync)
        res[dev] = 2.0 * m * n * k / t / 1e12
    return res["russet"], res[peer], err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, default=256, help="m = n = k without CUDA")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    cuda = torch.cuda.is_available()
    peer = "cuda" if cuda else "cpu"
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    p = torch.russet.get_device_properties()
    print(f"russet: {p.name} | profile {p.profile} | cooperative matrix {bool(p.has_cooperative_matrix)} | "
          f"subgroup {p.subgroup_size}")
    print(f"peer: torch {peer}{' (cuBLAS, TF32 off)' if cuda else ''}")
    s = args.sizes
    # edge shapes and layouts first (on the GPU: the cooperative-matrix
    # kernel's edges, strided and transposed operands), against the peer
    worst = 0.0
    for dt in (torch.float16, torch.float32, torch.bfloat16):
        for (m, n, k, ta, tb) in [(300, 200, 100, False, False), (129, 257, 72, True, False),
                                  (128, 128, 32, False, True), (1000, 64, 1000, True, True), (64, 4096, 8, False, False)]:
            a = torch.randn(k, m).t() if ta else torch.randn(m, k)
            b = torch.randn(n, k).t() if tb else torch.randn(k, n)
            a, b = a.to(dt), b.to(dt)
            got = torch.mm(a.to("russet") if not ta else a.t().to("russet").t(),
                           b.to("russet") if not tb else b.t().to("russet").t()).float().cpu()
            ref = torch.mm(a.to(peer), b.to(peer)).float().cpu() if dt != torch.float32 or cuda else (a @ b)
            ref64 = a.double() @ b.double()
            e = ((got - ref64).abs().max() / ref64.abs().max()).item()
            worst = max(worst, e)
            assert e < (2e-2 if dt == torch.bfloat16 else 5e-3), f"{dt} {m}x{n}x{k} ta={ta} tb={tb}: rel err {e}"
    print(f"check: edge shapes and layouts match (worst rel err vs float64 {worst:.2e})")
    cases = [
        ("float32", torch.float32, (4096,) * 3 if cuda else (s,) * 3, 0.50, "nn"),
        ("float32 B^T", torch.float32, (4096,) * 3 if cuda else (s,) * 3, None, "nt"),
        ("float16", torch.float16, (8192,) * 3 if cuda else (s,) * 3, 0.40, "nn"),
        ("float16 B^T", torch.float16, (8192,) * 3 if cuda else (s,) * 3, None, "nt"),
        ("bfloat16", torch.bfloat16, (8192,) * 3 if cuda else (s,) * 3, 0.40, "nn"),
    ]
    rows = []
    print(f"{'case':<14}{'m x n x k':>18}{'russet TFLOP/s':>16}{peer + ' TFLOP/s':>16}{'ratio':>8}{'target':>8}{'max rel err':>13}")
    for name, dt, (m, n, k), target, layout in cases:
        per_sync = 10 if cuda else 2
        r, q, err = case(dt, m, n, k, peer, args.reps, per_sync, layout)
        ratio = r / q
        tgt = f"{target:.0%}" if (target and cuda) else "-"
        print(f"{name:<14}{f'{m}x{n}x{k}':>18}{r:>16.3f}{q:>16.3f}{ratio:>8.1%}{tgt:>8}{err:>13.2e}")
        rows.append(dict(case=name, m=m, n=n, k=k, russet_tflops=r, peer_tflops=q, peer=peer, ratio=ratio,
                         target=target if cuda else None, max_rel_err=err))
    print(spread_summary())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=p.name, profile=p.profile, peer=peer, rows=rows,
                           date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())), f, indent=1)


if __name__ == "__main__":
    main()
