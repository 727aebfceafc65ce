"""End-to-end: the demo's training step (`python -m russet demo`: a 2-layer
MLP, SGD with momentum, cross_entropy) on russet beside a peer in the same
run: torch CUDA where it exists (the lent H200), else torch CPU. Prints the
time per step, the ratio, and the aten ops that ran on the host in the timed
steps (the issue's goal: none but float64).

    python bench/bench_train.py [--steps 200] [--batch 64] [--json out.json]
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
from russet.__main__ import _make_model, _make_task  # noqa: E402


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
    host = torch.russet.host_op_counts() if dev == "russet" else {}
    return dt, final, host


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    props = torch.russet.get_device_properties()
    print(f"russet on {props.name}, profile {props.profile}; peer: torch {peer}")
    r_dt, r_loss, host = time_steps("russet", args.steps, args.batch)
    p_dt, p_loss, _ = time_steps(peer, args.steps, args.batch)
    print(f"time per step: russet {r_dt * 1e3:.2f} ms, torch {peer} {p_dt * 1e3:.2f} ms, "
          f"ratio {r_dt / p_dt:.2f}x (time)")
    print(f"final loss: russet {r_loss:.5f}, torch {peer} {p_loss:.5f}")
    print(f"host-executed ops in {args.steps} steps: {host or 'none'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": props.name, "peer": peer, "ms_per_step": {"russet": r_dt * 1e3, peer: p_dt * 1e3},
                       "host_ops": host}, f, indent=1)


if __name__ == "__main__":
    main()
