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


def best_time(fn, dev, reps, per_sync=10, warm_s=0.2):
    """Best time per call over `reps` rounds of `per_sync` calls and one sync
    (a sync alone costs tens of microseconds on either backend), after
    `warm_s` seconds of the same calls: an idle GPU runs at a fraction of
    its clock (the H200's SMs idle at 345 MHz, 1980 under load) and ramps
    up under load, so the first rounds after a pause measure the ramp."""
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


def run_child(script, dev, args):
    """Runs `script --child dev args...` with only dev's backend loaded (no
    CUDA for russet, no russet autoload for the others) and returns the
    JSON object it prints last."""
    env = dict(os.environ)
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
    rr = run_child(script, "russet", child_args)
    pp = run_child(script, peer, child_args)
    r, p = rr["results"], pp["results"]
    if note:
        line = note(pp)
        if line:
            print(line)
    print(f"russet on {rr['device']} ({rr['driver']}), profile {rr['profile']}; peer: torch {peer}; "
          f"{' '.join(child_args)}")
    print(f"torch {torch.__version__}\n")
    w = max(len(k) for k in r)
    col = len(unit) + 16
    print(f"{'benchmark':<{w}}  {'russet':>{col}}  {'torch ' + peer:>{col}}  {'ratio':>6}  target")
    for k in r:
        a, b = r[k], p[k]
        print(f"{k:<{w}}  {a['ms']:>7.3f} ms {a[metric]:>6.2f} {unit}  {b['ms']:>7.3f} ms {b[metric]:>6.2f} {unit}  "
              f"{a[metric] / b[metric]:>5.2f}x  {target}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"device": rr["device"], "peer": peer, "args": child_args, "results": {"russet": r, peer: p}},
                      f, indent=1)
