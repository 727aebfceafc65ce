"""Attention benchmarks (issue 16): F.scaled_dot_product_attention, causal,
GPT-2-sized heads (12 heads of 64) at T 512 and 4096, forward and forward +
backward, russet (the C core's fused attention engine) beside a peer
measured in the same run: torch CUDA (flash attention) where a CUDA device
exists (the lent H200), else torch CPU.

    python bench/bench_attention.py [--batch N] [--reps R] [--dtypes bfloat16,float32] [--dropout P]
                                    [--json out.json]

Each row prints the time per call and the FLOP rate (4 B H T^2 E / 2 for a
causal forward, 2.5 times that for forward + backward) and russet's rate
over the peer's (target on the H200: >= 0.50x). Nothing fails on a slow
result. --dropout P times SDPA's dropout_p = P instead; those results are
not checked against CPU here (each device draws its own mask:
tests/python/test_attention.py checks russet's against CPU's math with the
same mask).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from timing import best_time, check_cases, child_run, half_tol, peer_table  # noqa: E402

DEFAULT_BATCH_CUDA, DEFAULT_BATCH_CPU = 8, 1
TARGET = "0.50"
HEADS, DIM = 12, 64


def cases(dev, batch, dtype, lengths, heads=HEADS, ref=False, dropout=0.0):
    """name -> (callable, flops); each callable returns what it computes.
    q, k and v are drawn on the CPU (the first `heads` heads of one draw),
    so that ref=True (CPU, float32 from the same rounded values) with fewer
    heads is the reference for those heads of any device's cases."""
    out = {}
    tag = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]
    for t in lengths:
        torch.manual_seed(0)
        run_dt = torch.float32 if ref else dtype
        q, k, v = (torch.randn(batch, HEADS, t, DIM)[:, :heads].to(dtype).to(run_dt).to(dev) for _ in range(3))
        qg, kg, vg = (x.detach().clone().requires_grad_() for x in (q, k, v))
        flops = 4 * batch * HEADS * t * t * DIM // 2  # causal: half the scores

        def fwd(q=q, k=k, v=v):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=dropout)

        def both(q=qg, k=kg, v=vg):
            q.grad = k.grad = v.grad = None
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=dropout)
            y.backward(torch.ones_like(y))
            return q.grad, k.grad, v.grad

        shape = f"({batch},{HEADS},{t},{DIM})" + (f" dropout {dropout:g}" if dropout else "")
        out[f"sdpa causal {shape} {tag} fwd"] = (fwd, flops)
        out[f"sdpa causal {shape} {tag} fwd+bwd"] = (both, flops * 5 // 2)
    return out


def run(dev, batch, reps, dtypes, lengths, dropout):
    res = {}
    for dt in dtypes:
        for name, (fn, flops) in cases(dev, batch, dt, lengths, dropout=dropout).items():
            t = best_time(fn, dev, reps)
            res[name] = {"ms": t * 1e3, "tflops": flops / t / 1e12}
    return res


CHECK_HEADS = 2  # heads are independent: CPU computes the first two of every timed call


def check(batch, dtypes, lengths):
    """Every timed case, at its timed size (its length, batch and head dim),
    against CPU before any timing: the first CHECK_HEADS heads of each
    result (a float32 CPU attention at T 4096 over all 12 heads would take
    minutes)"""
    for dt in dtypes:
        check_cases(cases("russet", batch, dt, lengths), cases("cpu", batch, dt, lengths, CHECK_HEADS, ref=True),
                    half_tol, pick=lambda name, t: t[:, :CHECK_HEADS])


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dtypes", default="bfloat16,float32")
    ap.add_argument("--lengths", default=None, help="sequence lengths (default 512,4096 on CUDA, 256 on CPU)")
    ap.add_argument("--dropout", type=float, default=0.0, help="SDPA's dropout_p (not checked against CPU)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    dtypes = [getattr(torch, d) for d in args.dtypes.split(",")]
    if args.child:  # one device per process (timing.py says why)
        lengths = [int(x) for x in args.lengths.split(",")]
        child_run(args.child, lambda dev: run(dev, args.batch, args.reps, dtypes, lengths, args.dropout),
                  None if args.dropout else lambda: check(args.batch, dtypes, lengths))
        return
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    batch = args.batch or (DEFAULT_BATCH_CUDA if peer == "cuda" else DEFAULT_BATCH_CPU)
    lengths = args.lengths or ("512,4096" if peer == "cuda" else "256")
    peer_table(__file__, ["--batch", str(batch), "--reps", str(args.reps), "--dtypes", args.dtypes, "--lengths",
                          lengths, "--dropout", str(args.dropout)], "tflops", "TFLOP/s", TARGET, args.json)


if __name__ == "__main__":
    main()
