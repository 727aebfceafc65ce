"""Weight-only quantized matrix products (issue 21): int4 (groups of 128)
and int8 linear layers at Llama-style sizes, a decoding step (one row of
bfloat16 activations) and a prefill (512 rows), russet beside a peer
measured in the same run: torch CUDA's kernels (tinygemm's int4, its int8
kernel) on a GPU, CPU's own pair here.

    python bench/bench_quant.py [--reps K] [--json out.json]

Each row prints the time per call and the rate at which the packed weights
(and their scales) are read: a decoding step is bound by it. Targets
(issue 21, H200): int4 decode >= 0.6x of CUDA's bandwidth, int8 >= 0.7x.
Nothing fails on a slow result; every case is checked against CPU first.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

from timing import best_time, check_cases, child_run, peer_table  # noqa: E402

SHAPES = [(4096, 4096), (11008, 4096)]  # (N, K): attention's projections, the MLP's up projection
GROUP = 128


def quantize4(n, k, gen):
    """q (N, K) int32 0..15 and (K/G, N, 2) scales and zeros, as PyTorch's tests make them"""
    w = torch.randn(n, k, generator=gen)
    t = w.reshape(-1, GROUP)
    hi, lo = t.amax(1, keepdim=True), t.amin(1, keepdim=True)
    scale = (hi - lo).clamp(min=1e-6) / 15
    q = t.sub(lo).div(scale).round().clamp_(0, 15).to(torch.int32).reshape(n, k)
    sz = torch.cat([scale.reshape(n, -1, 1), (lo + 8 * scale).reshape(n, -1, 1)], 2).transpose(0, 1).contiguous()
    return q, sz.to(torch.bfloat16)


def int4_fn(dev, x, q, sz):
    if dev == "cpu":
        packed = torch._convert_weight_to_int4pack_for_cpu(q, 2)
        return lambda: torch._weight_int4pack_mm_for_cpu(x, packed, GROUP, sz)
    packed = torch._convert_weight_to_int4pack(((q[:, ::2] << 4) | q[:, 1::2]).to(torch.uint8).to(dev), 2)
    x, sz = x.to(dev), sz.to(dev)
    return lambda: torch._weight_int4pack_mm(x, packed, GROUP, sz)


def cases(dev):
    """name -> (callable, bytes of weights read); inputs drawn on the CPU"""
    gen = torch.Generator().manual_seed(0)
    out = {}
    for n, k in SHAPES:
        q, sz = quantize4(n, k, gen)
        w8 = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=gen)
        s8 = (torch.rand(n, generator=gen) * 0.01).to(torch.bfloat16)
        for m in (1, 512):
            x = torch.randn(m, k, generator=gen).to(torch.bfloat16)
            tag = "decode" if m == 1 else f"{m} rows"
            out[f"int4 {n}x{k} g{GROUP} {tag} bf16"] = (int4_fn(dev, x, q, sz), n * k // 2 + sz.numel() * 2)
            xd, wd, sd = x.to(dev), w8.to(dev), s8.to(dev)
            out[f"int8 {n}x{k} {tag} bf16"] = (lambda xd=xd, wd=wd, sd=sd: torch._weight_int8pack_mm(xd, wd, sd),
                                               n * k + n * 2)
    return out


def run(dev, reps):
    res = {}
    for name, (fn, nbytes) in cases(dev).items():
        t = best_time(fn, dev, reps)
        res[name] = {"ms": t * 1e3, "gbs": nbytes / t / 1e9}
    return res


def check():
    """every timed case against CPU's result before any timing"""
    check_cases(cases("russet"), cases("cpu"), lambda name: 3e-2)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:  # one device per process (timing.py says why)
        child_run(args.child, lambda dev: run(dev, args.reps), check)
        return
    peer_table(__file__, ["--reps", str(args.reps)], "gbs", "GB/s", "int4 0.6x, int8 0.7x (decode)", args.json)


if __name__ == "__main__":
    main()
