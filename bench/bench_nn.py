"""Neural-network kernel benchmarks (issue 16), russet beside a peer measured
in the same run: torch CUDA where a CUDA device exists (the lent H200), else
torch CPU.

    python bench/bench_nn.py [--batch N] [--reps R] [--only REGEX] [--json out.json]

(--only: the rows whose names match REGEX, e.g. "max_pool2d|norm").

Pooling (the C core's pooling engine): ResNet's stem max pool (3x3 stride 2
pad 1) forward and forward + backward, in NCHW and channels_last; average
pooling; the head's adaptive average pool. Normalization (the normalization
engine): batch norm in training (running statistics updated) forward and
forward + backward, NCHW and channels_last; layer norm (tokens, 768)
forward and forward + backward. Grid sampling (a bilinear warp) and the
recurrent layers' fused cells (a 256-unit LSTM and GRU over 32 steps),
forward and forward + backward. Dropout (p 0.1) forward and forward +
backward. Each row prints the time per
call and the bandwidth (bytes read + written by the forward, or by forward
and backward, over time), and russet's bandwidth over the peer's (target on
the H200: >= 0.7x). Nothing fails on a slow result.
"""

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from timing import best_time, check_cases, child_run, half_tol, peer_table  # noqa: E402

DEFAULT_BATCH_CUDA, DEFAULT_BATCH_CPU = 64, 4
TARGET = "0.70"


aten = torch.ops.aten


def fwd_bwd(fn, x):
    """forward + backward of fn at x (a leaf that needs its gradient); returns
    the gradient"""
    def run():
        x.grad = None
        y = fn(x)
        y.backward(torch.ones_like(y))
        return x.grad
    return run


def randn(dev, *shape):
    """drawn on the CPU, so that every device's cases (and CPU's reference)
    see the same values"""
    return torch.randn(*shape).to(dev)


def cases(dev, batch, only=None):
    """name -> (callable, bytes moved); each callable returns what it computes
    (only: a regular expression the names must match)"""
    torch.manual_seed(0)
    out = {}
    for fmt_name, fmt in (("", torch.contiguous_format), (" CL", torch.channels_last)):
        x = randn(dev, batch, 64, 64, 64).to(memory_format=fmt)
        xg = x.detach().clone().requires_grad_()
        nx = x.numel() * 4
        ny = nx // 4  # 64x64 -> 32x32
        out[f"max_pool2d 3x3 s2 ({batch},64,64,64){fmt_name}"] = (lambda x=x: F.max_pool2d(x, 3, 2, 1), nx + 3 * ny)
        # backward: reads grad and indices, writes grad_input
        out[f"max_pool2d fwd+bwd ({batch},64,64,64){fmt_name}"] = (
            fwd_bwd(lambda t: F.max_pool2d(t, 3, 2, 1), xg), nx + 3 * ny + 3 * ny + nx)
        out[f"avg_pool2d 3x3 s2 ({batch},64,64,64){fmt_name}"] = (lambda x=x: F.avg_pool2d(x, 3, 2, 1), nx + ny)
        h = randn(dev, batch, 512, 7, 7).to(memory_format=fmt)
        hg = h.detach().clone().requires_grad_()
        nh = h.numel() * 4
        out[f"adaptive_avg_pool2d 1x1 ({batch},512,7,7){fmt_name}"] = (
            lambda h=h: F.adaptive_avg_pool2d(h, 1), nh + batch * 512 * 4)
        out[f"adaptive_avg_pool2d fwd+bwd ({batch},512,7,7){fmt_name}"] = (
            fwd_bwd(lambda t: F.adaptive_avg_pool2d(t, 1), hg), 2 * nh + 2 * batch * 512 * 4)
        # batch norm, training: reads x twice (statistics, normalization),
        # writes y; the backward reads x and g twice, writes the gradient
        bn = torch.nn.BatchNorm2d(64).to(dev)
        out[f"batch_norm train ({batch},64,64,64){fmt_name}"] = (lambda x=x, bn=bn: bn(x), 3 * nx)
        out[f"batch_norm fwd+bwd ({batch},64,64,64){fmt_name}"] = (fwd_bwd(bn, xg), 3 * nx + 5 * nx)
        # the backward kernels alone (no autograd, no forward): where the
        # fwd+bwd rows' time goes
        y, ix = aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1])
        gy = torch.ones_like(y)
        out[f"max_pool2d backward op ({batch},64,64,64){fmt_name}"] = (
            lambda gy=gy, x=x, ix=ix: aten.max_pool2d_with_indices_backward(gy, x, [3, 3], [2, 2], [1, 1], [1, 1],
                                                                            False, ix), 3 * ny + nx)
        w, b = torch.ones(64, device=dev), torch.zeros(64, device=dev)
        rm, rv = torch.zeros(64, device=dev), torch.ones(64, device=dev)
        _, sm, si = aten.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
        go = randn(dev, batch, 64, 64, 64).to(memory_format=fmt)
        out[f"batch_norm backward op ({batch},64,64,64){fmt_name}"] = (
            lambda go=go, x=x, w=w, rm=rm, rv=rv, sm=sm, si=si: aten.native_batch_norm_backward(
                go, x, w, rm, rv, sm, si, True, 1e-5, [True, True, True]), 5 * nx)
    tokens = batch * 64
    t = randn(dev, tokens, 768)
    tg = t.detach().clone().requires_grad_()
    ln = torch.nn.LayerNorm(768).to(dev)
    nt = t.numel() * 4
    out[f"layer_norm ({tokens},768)"] = (lambda: ln(t), 3 * nt)
    out[f"layer_norm fwd+bwd ({tokens},768)"] = (fwd_bwd(ln, tg), 3 * nt + 5 * nt)
    # RMS norm (Llama's): F.rms_norm with a weight; the same bytes
    rw = randn(dev, 768)
    out[f"rms_norm ({tokens},768)"] = (lambda: F.rms_norm(t, (768,), rw), 3 * nt)
    out[f"rms_norm fwd+bwd ({tokens},768)"] = (fwd_bwd(lambda u: F.rms_norm(u, (768,), rw), tg), 3 * nt + 5 * nt)
    # dropout (the random engine's rs_dropout: the mask and the output in one
    # launch) at p = 0.1 on an MLP's activations (tokens, 3072); bytes: x
    # read, the output and the bool mask written; the backward reads the
    # gradient and the mask and writes the input's gradient
    xd = randn(dev, tokens, 3072)
    xdg = xd.detach().clone().requires_grad_()
    nd = xd.numel()
    out[f"dropout 0.1 ({tokens},3072)"] = (lambda: aten.native_dropout(xd, 0.1, True) + (xd,), 9 * nd)
    out[f"dropout fwd+bwd ({tokens},3072)"] = (fwd_bwd(lambda u: F.dropout(u, 0.1, training=True), xdg), 18 * nd)
    # grid sampling (the grid-sampling engine): a bilinear warp of (B, 32,
    # 64, 64) by a (B, 64, 64, 2) grid; bytes: input, grid and output once
    # (the corners' re-reads hit the cache)
    gx = randn(dev, batch, 32, 64, 64)
    gxg = gx.detach().clone().requires_grad_()
    grid = (torch.rand(batch, 64, 64, 2) * 2 - 1).to(dev)
    ng = gx.numel() * 4 * 2 + grid.numel() * 4
    out[f"grid_sample bilinear ({batch},32,64,64)"] = (lambda: F.grid_sample(gx, grid, align_corners=False), ng)
    out[f"grid_sample fwd+bwd ({batch},32,64,64)"] = (
        fwd_bwd(lambda t: F.grid_sample(t, grid, align_corners=False), gxg), 3 * ng)
    gout = randn(dev, batch, 32, 64, 64)
    out[f"grid_sample backward op ({batch},32,64,64)"] = (
        lambda: aten.grid_sampler_2d_backward(gout, gx, grid, 0, 0, False, [True, True]), 2 * ng)
    # recurrent layers (the fused cells): 32 steps of a 256-unit LSTM / GRU;
    # bytes: the gates written and read by the cells plus the states
    seq = randn(dev, batch, 32, 256)
    seqg = seq.detach().clone().requires_grad_()
    for name, layer, g in (("LSTM", torch.nn.LSTM, 4), ("GRU", torch.nn.GRU, 3)):
        rnn = layer(256, 256, batch_first=True).to(dev)
        nr = 32 * batch * 256 * 4 * (3 * g + 3)
        out[f"{name} 256x256, 32 steps ({batch})"] = (lambda rnn=rnn: rnn(seq)[0], nr)
        out[f"{name} fwd+bwd 256x256, 32 steps ({batch})"] = (fwd_bwd(lambda t, rnn=rnn: rnn(t)[0], seqg), 3 * nr)
    # embedding bags (the embedding-bag engine): a 100,000 x 128 table,
    # batch * 1024 indices in bags of 32; bytes: the indices, the rows
    # gathered and the output (the backward: the output's gradient read
    # and the rows' gradients written)
    g = torch.Generator().manual_seed(1)
    n_idx = batch * 1024
    table = randn(dev, 100000, 128)
    tableg = table.detach().clone().requires_grad_()
    idx = torch.randint(0, 100000, (n_idx,), generator=g).to(dev)
    offs = torch.arange(0, n_idx, 32).to(dev)
    ne = n_idx * 8 + n_idx * 128 * 4 + (n_idx // 32) * 128 * 4
    for mode in ("sum", "mean", "max"):
        out[f"embedding_bag {mode} ({n_idx} idx, bags of 32)"] = (
            lambda mode=mode: F.embedding_bag(idx, table, offs, mode=mode), ne)
    out[f"embedding_bag sum fwd+bwd ({n_idx} idx)"] = (
        fwd_bwd(lambda w: F.embedding_bag(idx, w, offs, mode="sum"), tableg), 2 * ne)
    return {k: v for k, v in out.items() if not only or re.search(only, k)}


def run(dev, batch, reps, only):
    res = {}
    for name, (fn, nbytes) in cases(dev, batch, only).items():
        t = best_time(fn, dev, reps)
        res[name] = {"ms": t * 1e3, "gbs": nbytes / t / 1e9}
    return res


def canon(name, res):
    """Random cases (dropout) as what determines them: the output against
    (x * mask) / 0.9, and the kept fraction to one decimal (0.9)"""
    if not name.startswith("dropout"):
        return res
    if isinstance(res, tuple):  # (output, mask, x)
        y, mask, x = (t.detach().float().cpu() for t in res)
        return [y - x * mask / 0.9, torch.tensor(round(mask.mean().item(), 1))]
    g = res.detach().float().cpu()  # the input's gradient: 1 / 0.9 where kept
    kept = g != 0
    return [g - kept.float() / 0.9, torch.tensor(round(kept.float().mean().item(), 1))]


def check(batch, only):
    """Every timed case, at its timed size, against CPU before any timing"""
    check_cases(cases("russet", batch, only), cases("cpu", batch, only), half_tol, canon=canon)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="", help="time only the rows whose names match this regular expression")
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:  # one device per process (timing.py says why)
        child_run(args.child, lambda dev: run(dev, args.batch, args.reps, args.only),
                  lambda: check(args.batch, args.only))
        return
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    batch = args.batch or (DEFAULT_BATCH_CUDA if peer == "cuda" else DEFAULT_BATCH_CPU)
    peer_table(__file__, ["--batch", str(batch), "--reps", str(args.reps), "--only", args.only], "gbs", "GB/s",
               TARGET, args.json)

if __name__ == "__main__":
    main()
