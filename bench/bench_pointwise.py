"""Pointwise engine benchmarks (issue 4), russet beside a peer measured in
the same run: torch CUDA where a CUDA device exists (the lent H200), else
torch CPU.

    python bench/bench_pointwise.py [--numel 67108864] [--json out.json]

- bandwidth of contiguous float32 add, mul, exp and a cast to float16;
- the same with transposed (non-contiguous) inputs;
- a chain of 1,000 dependent ops on 1K elements: time per op;
- host cost per cached op (enqueue only, no sync);
- first-use compile time of a new kernel, and a warm start from the disk cache.
Nothing here fails on a slow result: the targets are printed beside.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

import russet  # noqa: E402,F401
from timing import best_time, spread_summary, sync  # noqa: E402,F401


def bandwidth(dev, numel, reps):
    """GB/s (bytes read + written / time) for each case."""
    side = int(numel ** 0.5)
    a = torch.rand(numel, device=dev)
    b = torch.rand(numel, device=dev)
    out = torch.empty(numel, device=dev)
    out16 = torch.empty(numel, device=dev, dtype=torch.float16)
    at = torch.rand(side, side, device=dev)
    bt = torch.rand(side, side, device=dev)
    outt = torch.empty(side, side, device=dev)
    n2 = side * side
    # the 16-byte path at other widths (2-, 1- and 8-byte dtypes)
    a16, b16 = a.half(), b.half()
    o16 = torch.empty_like(a16)
    a8 = (a * 100).to(torch.int8)
    b8 = (b * 100).to(torch.int8)
    o8 = torch.empty_like(a8)
    # attention's head split and its gradient's: a permuted (b, 512, 3, 12,
    # 64) -> (3, b, 12, 512, 64) copy, and a stack of three (b, 12, 512, 64)
    hb = max(1, numel // (512 * 3 * 12 * 64))
    qkv = torch.rand(hb, 512, 3, 12, 64, device=dev)
    heads = qkv.permute(2, 0, 3, 1, 4)
    parts = [torch.rand(hb, 12, 512, 64, device=dev) for _ in range(3)]
    nq = qkv.numel()
    # name: (the timed call, bytes moved, its output, CPU's result of the same inputs)
    cases = {
        "add": (lambda: torch.add(a, b, out=out), 12 * numel, out, lambda: a.cpu() + b.cpu()),
        "mul": (lambda: torch.mul(a, b, out=out), 12 * numel, out, lambda: a.cpu() * b.cpu()),
        "exp": (lambda: torch.exp(a, out=out), 8 * numel, out, lambda: a.cpu().exp()),
        "cast fp32->fp16": (lambda: out16.copy_(a), 6 * numel, out16, lambda: a.cpu().half()),
        "add fp16": (lambda: torch.add(a16, b16, out=o16), 6 * numel, o16, lambda: a16.cpu() + b16.cpu()),
        "add int8": (lambda: torch.add(a8, b8, out=o8), 3 * numel, o8, lambda: a8.cpu() + b8.cpu()),
        "add, transposed inputs": (lambda: torch.add(at.t(), bt.t(), out=outt), 12 * n2, outt,
                                   lambda: at.cpu().t() + bt.cpu().t()),
        "clone, permuted heads": (lambda: heads.contiguous(), 8 * nq, None, lambda: heads.cpu().contiguous()),
        "stack of 3 heads": (lambda: torch.stack(parts), 8 * nq, None, lambda: torch.stack([p.cpu() for p in parts])),
    }
    fp64 = dev != "russet" or bool(torch.russet.get_device_properties().has_fp64)
    if fp64:
        a64, b64 = a[: numel // 2].double(), b[: numel // 2].double()
        o64 = torch.empty_like(a64)
        cases["add fp64 (32M)"] = (lambda: torch.add(a64, b64, out=o64), 24 * (numel // 2), o64,
                                   lambda: a64.cpu() + b64.cpu())
        cases["exp fp64 (32M)"] = (lambda: torch.exp(a64, out=o64), 16 * (numel // 2), o64, lambda: a64.cpu().exp())
    # each case's result at the timed size, checked before it is timed
    for name, (fn, _, result, ref) in cases.items():
        got = fn()
        result = got if result is None else result
        want = ref()
        ok = torch.equal(result.cpu(), want) if not want.is_floating_point() or want.dtype == torch.float16 \
            else torch.allclose(result.cpu(), want, rtol=1e-6 if want.dtype == torch.float64 else 1e-5, atol=0)
        if not ok:
            raise SystemExit(f"bench_pointwise: {dev} {name} is wrong at {numel} elements: no timing is reported")
    # the four target cases again in rounds of 50 calls a sync: the steady
    # rate, where the rows above (10 a sync) also carry each round's start
    # and sync (docs/performance.md, sixth session)
    for name in ("add", "mul", "exp", "cast fp32->fp16"):
        cases[f"{name} (50 a sync)"] = cases[name][:2] + (None, None, 50)
    res = {}
    for name, (fn, nbytes, _, _, *per) in cases.items():
        t = best_time(fn, dev, reps, per_sync=per[0] if per else 10)
        res[name] = nbytes / t / 1e9
        print(f"  {dev:6s} {name}: {res[name]:.1f} GB/s", flush=True)  # kept if a run is cut short
    return res


def chain(dev, n_ops=1000, numel=1024):
    x = torch.ones(numel, device=dev)
    y = torch.full((numel,), 1e-6, device=dev)
    for _ in range(20):
        x = x + y
    sync(dev)
    t0 = time.perf_counter()
    for _ in range(n_ops):
        x = x + y
    sync(dev)
    dt = time.perf_counter() - t0
    expect = 1.0 + (n_ops + 20) * 1e-6
    assert abs(x[0].item() - expect) < 1e-3, f"{dev}: chain gave {x[0].item()}"
    return dt / n_ops * 1e6


def host_cost(dev, n_ops=10000, numel=1024):
    a = torch.ones(numel, device=dev)
    b = torch.ones(numel, device=dev)
    for _ in range(50):
        torch.add(a, b)
    sync(dev)
    best = float("inf")
    for _ in range(3):
        sync(dev)
        t0 = time.perf_counter()
        for _ in range(n_ops):
            torch.add(a, b)
        best = min(best, (time.perf_counter() - t0) / n_ops * 1e6)
        sync(dev)
    return best


COMPILE_SNIPPET = """
import time, torch, russet
a = torch.ones(64, device="russet")
torch.russet.synchronize()
t0 = time.perf_counter()
b = torch.atan2(a, a)          # a kernel this process has not used
torch.russet.synchronize()
print(time.perf_counter() - t0)
"""


def compile_times():
    """Seconds to first result of a new kernel: cold (empty cache dir) and
    warm (the SPIR-V and pipeline cache on disk), each in a fresh process."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, RUSSET_CACHE_DIR=d)
        out = []
        for _ in range(2):
            r = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], env=env, capture_output=True,
                               text=True, check=True)
            out.append(float(r.stdout.strip().splitlines()[-1]))
    return {"cold_s": out[0], "warm_s": out[1]}


def fp64_accuracy():
    """Max relative error of the float64 transcendentals (ops_math64.glsl)
    against torch CPU, on devices with fp64: the driver's compiler must keep
    the range reductions exact."""
    torch.manual_seed(0)
    x = torch.cat([torch.randn(4096, dtype=torch.float64) * 3, torch.randn(4096, dtype=torch.float64) * 300,
                   torch.rand(4096, dtype=torch.float64) * 2 - 1])
    out = {}
    for fn in ["exp", "expm1", "log", "log1p", "sin", "cos", "tan", "atan", "asin", "tanh", "asinh", "erf"]:
        f = getattr(torch, fn)
        g = f(x.to("russet")).cpu()
        e = f(x)
        fin = e.isfinite() & (e != 0)
        out[fn] = ((g - e).abs() / e.abs())[fin].max().item()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--numel", type=int, default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    numel = args.numel or ((64 << 20) if peer == "cuda" else (4 << 20))
    props = torch.russet.get_device_properties()
    print(f"russet on {props.name} ({props.driver}), profile {props.profile}; peer: torch {peer}")
    print(f"torch {torch.__version__}; {numel} elements\n")

    res = {"device": props.name, "peer": peer, "numel": numel}
    bw_r = bandwidth("russet", numel, args.reps)
    bw_p = bandwidth(peer, numel, args.reps)
    res["bandwidth_gbs"] = {"russet": bw_r, peer: bw_p}
    ch_r, ch_p = chain("russet"), chain(peer)
    hc_r, hc_p = host_cost("russet"), host_cost(peer)
    ct = compile_times()
    if props.has_fp64:
        res["fp64_max_rel_err"] = fp64_accuracy()
        print("float64 max relative error vs CPU:",
              ", ".join(f"{k} {v:.1e}" for k, v in res["fp64_max_rel_err"].items()))
    res.update(chain_us={"russet": ch_r, peer: ch_p}, host_us={"russet": hc_r, peer: hc_p}, compile=ct)

    rows = [(k, f"{bw_r[k]:.1f} GB/s", f"{bw_p[k]:.1f} GB/s", f"{bw_r[k] / bw_p[k]:.2f}x",
             ">= 0.90x" if "transposed" not in k else ">= 0.50x") for k in bw_r if k in bw_p]
    rows.append(("chain of 1000 ops, per op", f"{ch_r:.2f} us", f"{ch_p:.2f} us", f"{ch_r / ch_p:.2f}x (time)",
                 "<= 1.5x (time)"))
    rows.append(("host cost per cached op", f"{hc_r:.2f} us", f"{hc_p:.2f} us", f"{hc_r / hc_p:.2f}x (time)",
                 "<= 10 us"))
    rows.append(("new kernel, cold / warm start", f"{ct['cold_s'] * 1e3:.0f} / {ct['warm_s'] * 1e3:.0f} ms", "",
                 "", ""))
    w = [max(len(str(r[i])) for r in rows + [("case", "russet", peer, "ratio", "target")]) for i in range(5)]
    print("  ".join(h.ljust(w[i]) for i, h in enumerate(("case", "russet", peer, "ratio", "target"))))
    for r in rows:
        print("  ".join(str(c).ljust(w[i]) for i, c in enumerate(r)))
    print(spread_summary())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=2)


if __name__ == "__main__":
    main()
