"""Timing helpers the benchmarks share, and the peer in a process of its own.

Nothing here imports russet: a torch CUDA peer that runs autograd must not
share its process with russet (pytorch/pytorch#161129: the autograd engine
asserts when a process has two accelerator backends with streams), so the
benchmarks with a backward pass time each device in a child process."""

import json
import os
import subprocess
import sys
import time

import torch


def sync(dev):
    if dev == "russet":
        torch.russet.synchronize()
    elif dev.startswith("cuda"):
        torch.cuda.synchronize()


def bench_runs():
    """BENCH_RUNS: how many runs each figure is the median of (3)"""
    return max(1, int(os.environ.get("BENCH_RUNS", "3")))


SPREADS = []  # (max - min) / median of each best_time's runs, for spread_summary


def best_time(fn, dev, reps, per_sync=10, warm_s=0.2):
    """The median over BENCH_RUNS (3; the child processes of peer_table run
    1, their parent repeats them) runs of: the best time per call over
    `reps` rounds of `per_sync` calls and one sync. The runs' spread goes to
    SPREADS (spread_summary prints it)."""
    import statistics

    runs = bench_runs()
    times = sorted(_best_of_rounds(fn, dev, reps, per_sync, warm_s) for _ in range(runs))
    med = statistics.median(times)
    SPREADS.append((times[-1] - times[0]) / med if med else 0.0)
    return med


def spread_summary():
    """One line: how far the runs behind each figure were apart"""
    import statistics

    runs = bench_runs()
    if not SPREADS or runs < 2:
        return f"each figure from {runs} run(s)"
    return (f"each figure is the median of {runs} runs in this session; their spread (max - min over the median): "
            f"median {statistics.median(SPREADS):.0%}, worst {max(SPREADS):.0%} over {len(SPREADS)} figures")


FIRST_WARM_S = 1.5
_warmed = False


def _best_of_rounds(fn, dev, reps, per_sync, warm_s):
    """Best time per call over `reps` rounds of `per_sync` calls and one sync
    (a sync alone costs tens of microseconds on either backend), after
    `warm_s` seconds of the same calls: an idle GPU runs at a fraction of
    its clock (the H200's SMs idle at 345 MHz, 1980 under load) and ramps
    up under load, so the first rounds after a pause measure the ramp. A
    process's first case warms FIRST_WARM_S at least: after the CPU-bound
    checks the GPU sits idle, and 0.2 s did not ramp it (bench_nn's first
    case, max_pool2d, read 0.42 ms on the H200 where 0.12 is its time)."""
    global _warmed
    if not _warmed:
        warm_s = max(warm_s, FIRST_WARM_S)
        _warmed = True
    fn()
    sync(dev)
    t_warm = time.perf_counter()
    while time.perf_counter() - t_warm < warm_s:
        for _ in range(per_sync):
            fn()
        sync(dev)
    best = float("inf")
    for _ in range(reps):
        sync(dev)
        t0 = time.perf_counter()
        for _ in range(per_sync):
            fn()
        sync(dev)
        best = min(best, (time.perf_counter() - t0) / per_sync)
    return best


def _tensors(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _tensors(v)]
    return []


def check_cases(got_cases, ref_cases, tol, pick=None, canon=None):
    """Every timed case checked at its timed size before anything is timed:
    each case's callable returns what it computes (the output, or the
    gradients of a forward + backward); russet's against the reference's
    (CPU, in float32 for the half dtypes), as the largest difference over
    the reference's largest magnitude (at least 1). tol(name) is the limit;
    pick(name, tensor) may narrow a tensor to the part the reference
    computed; canon(name, results) may map a case's results to what
    determines them (a QR's product, not its signs). Stops the benchmark on
    a wrong (or NaN) result."""
    for name, case in got_cases.items():
        got, want = case[0](), ref_cases[name][0]()
        if canon:
            got, want = canon(name, got), canon(name, want)
        got, want = _tensors(got), _tensors(want)
        if len(got) != len(want):
            raise SystemExit(f"{name}: {len(got)} results, the reference has {len(want)}")
        for g, w in zip(got, want):
            g = g.detach()
            if pick:
                g = pick(name, g)
            g, w = g.float().cpu(), w.detach().float().cpu()
            if g.shape != w.shape:
                raise SystemExit(f"{name}: shape {tuple(g.shape)}, the reference's {tuple(w.shape)}")
            err = (g - w).abs().max().item() / max(1.0, w.abs().max().item()) if w.numel() else 0.0
            if not err <= tol(name):
                raise SystemExit(f"{name}: WRONG, largest difference {err:.3g} of the reference's scale "
                                 f"(limit {tol(name):g}); not timed")
    print(f"checked {len(got_cases)} timed cases at their timed sizes against the reference", file=sys.stderr)


def half_tol(name):
    """the limit check_cases uses: float32 cases 1e-3 of the scale (an
    order of summation, TF32 off), bf16/fp16 3e-2 (their 8/11-bit
    mantissas over long sums)"""
    return 3e-2 if (" bf16" in name or " fp16" in name) else 1e-3


def run_child(script, dev, args):
    """Runs `script --child dev args...` with only dev's backend loaded (no
    CUDA for russet, no russet autoload for the others) and returns the
    JSON object it prints last."""
    env = dict(os.environ, BENCH_RUNS="1")  # the parent repeats the children (peer_table)
    if dev == "russet":
        env["CUDA_VISIBLE_DEVICES"] = ""
    else:
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    r = subprocess.run([sys.executable, os.path.abspath(script), "--child", dev] + list(args), env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{dev} run failed:\n{r.stdout}\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def child_run(dev, run, check=None, info=None):
    """The child's side: load russet only for russet (and check what is timed
    against CPU there), then print {"results": run(dev), ...} for run_child."""
    extra = dict(info or {})
    if dev == "russet":
        import russet  # noqa: F401

        props = torch.russet.get_device_properties()
        extra.update(device=props.name, driver=props.driver, profile=props.profile)
        if check:
            check()
    print(json.dumps({"results": run(dev), **extra}))


def peer_table(script, child_args, metric, unit, target, json_path=None, note=None):
    """Times russet and the peer (CUDA where present, else CPU) in child
    processes, prints their table (time, `metric` in `unit`, russet's over
    the peer's) and writes it to json_path."""
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    # BENCH_RUNS (3) runs of each side, alternating, in this one machine
    # session; each figure is their median, with the spread (max - min over
    # the median) beside it
    runs = bench_runs()
    rr_runs, pp_runs = [], []
    for _ in range(runs):
        rr_runs.append(run_child(script, "russet", child_args))
        pp_runs.append(run_child(script, peer, child_args))
    rr, pp = rr_runs[0], pp_runs[0]
    r, p = _median_runs([x["results"] for x in rr_runs], metric), _median_runs([x["results"] for x in pp_runs], metric)
    if note:
        line = note(pp)
        if line:
            print(line)
    print(f"russet on {rr['device']} ({rr['driver']}), profile {rr['profile']}; peer: torch {peer}; "
          f"{' '.join(child_args)}")
    print(f"torch {torch.__version__}\n")
    w = max(len(k) for k in r)
    col = len(unit) + 16
    print(f"median of {runs} runs of each side, spread (max - min) / median in brackets\n")
    print(f"{'benchmark':<{w}}  {'russet':>{col + 7}}  {'torch ' + peer:>{col + 7}}  {'ratio':>6}  target")
    for k in r:
        a, b = r[k], p[k]
        print(f"{k:<{w}}  {a['ms']:>7.3f} ms {a[metric]:>6.2f} {unit} [{a['spread']:>4.0%}]  "
              f"{b['ms']:>7.3f} ms {b[metric]:>6.2f} {unit} [{b['spread']:>4.0%}]  "
              f"{a[metric] / b[metric]:>5.2f}x  {target}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"device": rr["device"], "peer": peer, "args": child_args, "runs": runs,
                       "results": {"russet": r, peer: p}}, f, indent=1)


def _median_runs(results, metric):
    """{case: {"ms", metric, "spread", "runs"}}: the median of each case's
    time over the runs (the metric from the median time), and the runs'
    spread"""
    import statistics

    out = {}
    for k, first in results[0].items():
        ms = sorted(r[k]["ms"] for r in results)
        med = statistics.median(ms)
        out[k] = {"ms": med, metric: first[metric] * first["ms"] / med,
                  "spread": (ms[-1] - ms[0]) / med if med else 0.0, "runs": ms}
    return out
