"""Reduction benchmarks (issue 5), russet beside a peer measured in the
same run: torch CUDA where a CUDA device exists (the lent H200), else torch
CPU.

    python bench/bench_reduce.py [--numel N] [--side S] [--json out.json]

- sum of N float32 (target on the H200: >= 85% of CUDA's bandwidth);
- sums over the inner and the outer dim of (S, S), amax, argmax, var;
- softmax and log_softmax over (S, S) along the last dim (target: >= 70%),
  and softmax along dim 0; cross_entropy forward of (S, 1000).
Bandwidth is bytes read + written over time. Nothing fails on a slow
result: the targets are printed beside.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import russet  # noqa: E402,F401
from bench_pointwise import best_time  # noqa: E402
from timing import spread_summary  # noqa: E402


def inputs(numel, side):
    """the cases' inputs, made on the CPU from a seed (each device gets a copy)"""
    g = torch.Generator().manual_seed(0)
    return {"x": torch.rand(numel, generator=g), "m": torch.rand(side, side, generator=g),
            "logits": torch.randn(side, 1000, generator=g), "target": torch.randint(0, 1000, (side,), generator=g)}


def cases(t, numel, side):
    """name: (the timed call on the inputs t, bytes read, target)"""
    x, m, logits, target = t["x"], t["m"], t["logits"], t["target"]
    n2 = side * side * 4
    return {
        f"sum of {numel} fp32": (lambda: x.sum(), 4 * numel, "0.85"),
        f"sum ({side},{side}) dim 1": (lambda: m.sum(1), n2, ""),
        f"sum ({side},{side}) dim 0": (lambda: m.sum(0), n2, ""),
        f"amax ({side},{side}) dim 1": (lambda: m.amax(1), n2, ""),
        f"argmax ({side},{side}) dim 1": (lambda: m.argmax(1), n2, ""),
        f"var ({side},{side}) dim 1": (lambda: m.var(1), n2, ""),
        f"softmax ({side},{side}) dim -1": (lambda: F.softmax(m, -1), 2 * n2, "0.70"),
        f"log_softmax ({side},{side}) dim -1": (lambda: F.log_softmax(m, -1), 2 * n2, ""),
        f"softmax ({side},{side}) dim 0": (lambda: F.softmax(m, 0), 2 * n2, ""),
        f"cross_entropy ({side},1000)": (lambda: F.cross_entropy(logits, target), side * 1000 * 4, ""),
    }


def references(cpu_inputs, numel, side):
    """each case's result on the CPU (the long sum in float64, rounded)"""
    ref = {name: fn() for name, (fn, _, _) in cases(cpu_inputs, numel, side).items()}
    ref[f"sum of {numel} fp32"] = cpu_inputs["x"].double().sum().float()
    return ref


def run(dev, cpu_inputs, ref, numel, side, reps):
    """GB/s of each case on `dev`, each checked at its timed size first"""
    t = {k: v.to(dev) for k, v in cpu_inputs.items()}
    res = {}
    for name, (fn, nbytes, _) in cases(t, numel, side).items():
        got, want = fn().cpu(), ref[name]
        ok = torch.equal(got, want) if not want.is_floating_point() else \
            torch.allclose(got, want, rtol=1e-4 if name.startswith(("sum of", "var")) else 1e-5, atol=1e-6)
        if not ok:
            raise SystemExit(f"bench_reduce: {dev} {name} is wrong at the timed size: no timing is reported")
        res[name] = nbytes / best_time(fn, dev, reps) / 1e9
    return res


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--numel", type=int, default=None)
    ap.add_argument("--side", type=int, default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    numel = args.numel or ((256 << 20) if peer == "cuda" else (16 << 20))
    side = args.side or (4096 if peer == "cuda" else 1024)
    props = torch.russet.get_device_properties()
    print(f"russet on {props.name} ({props.driver}), profile {props.profile}; peer: torch {peer}")
    print(f"torch {torch.__version__}\n")
    cpu_inputs = inputs(numel, side)
    ref = references(cpu_inputs, numel, side)
    r = run("russet", cpu_inputs, ref, numel, side, args.reps)
    p = run(peer, cpu_inputs, ref, numel, side, args.reps)
    targets = {name: t for name, (_, _, t) in cases(inputs(16, 4), 16, 4).items()}
    w = max(len(k) for k in r)
    print(f"{'benchmark':<{w}}  {'russet':>12}  {'torch ' + peer:>12}  {'ratio':>6}  target")
    for k in r:
        tgt = targets.get(k.replace(str(numel), "16").replace(str(side), "4"), "")
        print(f"{k:<{w}}  {r[k]:>8.1f} GB/s  {p[k]:>8.1f} GB/s  {r[k] / p[k]:>5.2f}x  {tgt}")
    print(spread_summary())
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": props.name, "peer": peer, "numel": numel, "side": side,
                       "bandwidth_gbs": {"russet": r, peer: p}}, f, indent=1)


if __name__ == "__main__":
    main()
