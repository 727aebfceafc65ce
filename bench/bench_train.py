"""End-to-end: the demo's training step (`python -m russet demo`: a 2-layer
MLP, SGD with momentum, cross_entropy) on russet beside a peer in the same
run: torch CUDA where it exists (the lent H200), else torch CPU. Prints the
time per step, the ratio, and the aten ops that ran on the host in the timed
steps (the issue's goal: none but float64).

    python bench/bench_train.py [--steps 200] [--batch 64] [--json out.json]

Each device trains in its own process: PyTorch's autograd engine asserts
when CUDA and a PrivateUse1 backend are both registered in one process
(pytorch/pytorch#161129), so the CUDA peer runs without russet
(TORCH_DEVICE_BACKEND_AUTOLOAD=0) and russet without CUDA
(CUDA_VISIBLE_DEVICES=).
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.join(os.path.dirname(HERE), "python")

import torch  # noqa: E402

# the demo's task and model, without importing (registering) russet
_spec = importlib.util.spec_from_file_location("russet_demo", os.path.join(PYDIR, "russet", "__main__.py"))
_demo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_demo)
_make_model, _make_task = _demo._make_model, _demo._make_task


def sync(dev):
    if dev == "russet":
        torch.russet.synchronize()
    elif dev == "cuda":
        torch.cuda.synchronize()


def time_steps(dev, steps, batch):
    x, y = _make_task(torch)
    x, y = x.to(dev), y.to(dev)
    model = _make_model(torch).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = x.shape[0]

    def step(i):
        lo = (i * batch) % n
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x[lo:lo + batch]), y[lo:lo + batch])
        loss.backward()
        opt.step()
        return loss

    for i in range(5):  # warm-up: kernel compiles, caches
        step(i)
    sync(dev)
    if dev == "russet":
        torch.russet.reset_host_op_counts()
    t0 = time.perf_counter()
    for i in range(steps):
        loss = step(i)
    final = loss.item()
    sync(dev)
    dt = (time.perf_counter() - t0) / steps
    host = dict(torch.russet.host_op_counts()) if dev == "russet" else {}
    return dt, final, host


def child(dev, steps, batch):
    if dev == "russet":
        sys.path.insert(0, PYDIR)
        import russet  # noqa: F401
    dt, loss, host = time_steps(dev, steps, batch)
    name = torch.russet.get_device_properties().name if dev == "russet" else dev
    print(json.dumps({"dt": dt, "loss": loss, "host": host, "name": name}))


def run_child(dev, steps, batch):
    env = dict(os.environ)
    if dev == "russet":
        env["CUDA_VISIBLE_DEVICES"] = ""
    else:
        env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", dev, "--steps", str(steps),
                        "--batch", str(batch)], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{dev} run failed:\n{r.stdout}\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child, args.steps, args.batch)
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    r = run_child("russet", args.steps, args.batch)
    p = run_child(peer, args.steps, args.batch)
    # the check before the report: the same weights, data and steps give the
    # same final loss (float32 rounding over the steps, far below a wrong
    # kernel's effect)
    rel = abs(r["loss"] - p["loss"]) / max(abs(p["loss"]), 1e-12)
    if not rel <= 1e-3:
        raise SystemExit(f"bench_train: russet's final loss {r['loss']:.6f} is not torch {peer}'s "
                         f"{p['loss']:.6f} (relative {rel:.2e}): no timing is reported for a wrong result")
    print(f"russet on {r['name']}; peer: torch {peer}")
    print(f"time per step: russet {r['dt'] * 1e3:.2f} ms, torch {peer} {p['dt'] * 1e3:.2f} ms, "
          f"ratio {r['dt'] / p['dt']:.2f}x (time)")
    print(f"final loss: russet {r['loss']:.5f}, torch {peer} {p['loss']:.5f} (relative {rel:.1e}, checked <= 1e-3)")
    print(f"host-executed ops in {args.steps} steps: {r['host'] or 'none'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": r["name"], "peer": peer,
                       "ms_per_step": {"russet": r["dt"] * 1e3, peer: p["dt"] * 1e3}, "host_ops": r["host"]},
                      f, indent=1)


if __name__ == "__main__":
    main()
