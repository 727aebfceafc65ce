"""Where a training step's time goes, op by op: one step of a model from
tests/gpu/train_compare.py under a TorchDispatchMode that waits for the
device before and after every aten op, so each op's wall time is its
device time plus a fixed wait (the same for every op, printed as `wait`).

    python bench/op_profile.py --model gpt --device russet --json r.json
    python bench/op_profile.py --model gpt --device cuda --json c.json   # its own process
    python bench/op_profile.py --compare r.json c.json                  # side by side

The ranking, not the sum, is the point: the ops where russet's time is far
from its peer's are the kernels to work on (docs/performance.md). Waiting
after every op changes what overlaps, so totals exceed a step's time.
"""
import argparse
import collections
import importlib.util
import json
import os
import sys
import time

import torch
from torch.utils._python_dispatch import TorchDispatchMode

HERE = os.path.dirname(os.path.abspath(__file__))


def _train_compare():
    spec = importlib.util.spec_from_file_location("train_compare", os.path.join(HERE, "..", "tests", "gpu", "train_compare.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _shape(a):
    if isinstance(a, torch.Tensor):
        return "x".join(map(str, a.shape)) or "()"
    if isinstance(a, (list, tuple)) and a and isinstance(a[0], torch.Tensor):
        return f"[{len(a)}]"
    return None


class OpTimer(TorchDispatchMode):
    def __init__(self, sync):
        super().__init__()
        self.sync = sync
        self.times = collections.defaultdict(float)
        self.counts = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.sync()
        t0 = time.perf_counter()
        out = func(*args, **(kwargs or {}))
        self.sync()
        dt = time.perf_counter() - t0
        shapes = ",".join(s for s in (_shape(a) for a in args) if s)
        key = f"{func.overloadpacket.__name__}({shapes})"
        self.times[key] += dt
        self.counts[key] += 1
        return out


def profile(a):
    if a.device == "russet":
        sys.path.insert(0, os.path.join(HERE, "..", "python"))
        import russet  # noqa: F401
        sync = torch.russet.synchronize
    elif a.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        sync = torch.cuda.synchronize
    else:
        sync = lambda: None  # noqa: E731
    tc = _train_compare()
    model, data, loss_fn, make_opt = tc.build(a.model, a.small)
    model = model.to(a.device)
    opt = make_opt(model.parameters())

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        with torch.autocast(a.device, dtype=torch.bfloat16, enabled=a.dtype == "bf16"):
            out = model(x)
        loss_fn(out.float(), y).backward()
        opt.step()

    x, y = (t.to(a.device) for t in data[0])
    for _ in range(2):  # kernels compiled, memory pooled
        step(x, y)
    sync()
    # the fixed cost of a wait around an op that does nothing on the device
    t0 = time.perf_counter()
    for _ in range(100):
        sync()
        sync()
    wait = (time.perf_counter() - t0) / 100
    t0 = time.perf_counter()
    step(x, y)
    sync()
    plain = time.perf_counter() - t0
    timer = OpTimer(sync)
    with timer:
        step(x, y)
    ops = sorted(((k, timer.times[k] - timer.counts[k] * wait, timer.counts[k]) for k in timer.times),
                 key=lambda r: -r[1])
    return {"model": a.model, "device": a.device, "dtype": a.dtype, "profile": os.environ.get("RUSSET_PROFILE", ""),
            "step_ms": plain * 1e3, "wait_ms": wait * 1e3,
            "ops": [{"op": k, "ms": t * 1e3, "calls": c} for k, t, c in ops]}


def show(res, top):
    total = sum(o["ms"] for o in res["ops"])
    print(f"{res['model']} {res['dtype']} on {res['device']} {res['profile']}: step {res['step_ms']:.1f} ms, "
          f"ops {total:.1f} ms after a wait of {res['wait_ms'] * 1e3:.0f} us each")
    for o in res["ops"][:top]:
        print(f"  {o['ms']:8.3f} ms {o['calls']:4d}x  {o['op'][:110]}")


def compare(a_path, b_path, top):
    ra, rb = (json.load(open(p)) for p in (a_path, b_path))
    tb = {o["op"]: o["ms"] for o in rb["ops"]}
    print(f"{ra['device']} {ra['profile']} step {ra['step_ms']:.1f} ms vs {rb['device']} {rb['step_ms']:.1f} ms; "
          f"ops ranked by {ra['device']}'s time minus {rb['device']}'s")
    rows = sorted(ra["ops"], key=lambda o: -(o["ms"] - tb.get(o["op"], 0.0)))
    print(f"  {'ms':>8s} {'peer ms':>8s} {'ratio':>6s} calls  op")
    for o in rows[:top]:
        p = tb.get(o["op"])
        ratio = f"{o['ms'] / p:6.1f}" if p and p > 0 else "     -"
        print(f"  {o['ms']:8.3f} {p if p is not None else float('nan'):8.3f} {ratio} {o['calls']:5d}  {o['op'][:100]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="gpt")
    ap.add_argument("--device", default="russet")
    ap.add_argument("--dtype", default="fp32", choices=["fp32", "bf16"])
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--json")
    ap.add_argument("--compare", nargs=2, metavar=("MINE", "PEER"))
    a = ap.parse_args()
    if a.compare:
        compare(*a.compare, a.top)
        return
    res = profile(a)
    show(res, a.top)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main()
