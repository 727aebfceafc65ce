"""Convolution benchmarks (issue 16): every distinct conv layer of ResNet-18
at 3x128x128 inputs, forward and forward + backward, float32 and bfloat16,
russet (the C core's implicit-GEMM engine) beside a peer measured in the
same run: torch CUDA (cuDNN) where a CUDA device exists (the lent H200),
else torch CPU.

    python bench/bench_conv.py [--batch N] [--reps R] [--dtypes float32,bfloat16] [--json out.json]

Each row prints the time per call and the FLOP rate (2 N O P C/groups K
for the forward, three times that for forward + backward; twice for the
stem, whose input, the data, takes no gradient in training) and russet's rate
over the peer's (target on the H200: >= 0.40x cuDNN's). Nothing fails on a
slow result.
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

DEFAULT_BATCH_CUDA, DEFAULT_BATCH_CPU = 64, 2
TARGET = "0.40"

# name: (in channels, out channels, kernel, stride, input size) at 128x128
LAYERS = {
    "stem 3->64 7x7 s2": (3, 64, 7, 2, 128),
    "layer1 64->64 3x3": (64, 64, 3, 1, 32),
    "layer2 64->128 3x3 s2": (64, 128, 3, 2, 32),
    "layer2 128->128 3x3": (128, 128, 3, 1, 16),
    "layer2 down 64->128 1x1 s2": (64, 128, 1, 2, 32),
    "layer3 128->256 3x3 s2": (128, 256, 3, 2, 16),
    "layer3 256->256 3x3": (256, 256, 3, 1, 8),
    "layer4 256->512 3x3 s2": (256, 512, 3, 2, 8),
    "layer4 512->512 3x3": (512, 512, 3, 1, 4),
}


def cases(dev, batch, dtype, ref=False):
    """name -> (callable, flops); each callable returns what it computes.
    The inputs are drawn on the CPU and rounded to the dtype, so that
    ref=True (CPU, float32 from the same rounded values) is the reference
    for any device's cases."""
    out = {}
    for name, (c, o, k, s, hw) in LAYERS.items():
        torch.manual_seed(0)
        run_dt = torch.float32 if ref else dtype
        x = torch.randn(batch, c, hw, hw).to(dtype).to(run_dt).to(dev)
        w = (torch.randn(o, c, k, k) / (c * k * k) ** 0.5).to(dtype).to(run_dt).to(dev)
        pad = k // 2
        p = (hw + 2 * pad - k) // s + 1
        flops = 2 * batch * o * p * p * c * k * k
        products = 3 if not name.startswith("stem") else 2  # forward, input and weight gradients
        # the stem's input is the data: training takes no gradient there
        xg = x.detach().clone().requires_grad_(not name.startswith("stem"))
        wg = w.detach().clone().requires_grad_()

        def fwd(x=x, w=w, s=s, pad=pad):
            return F.conv2d(x, w, stride=s, padding=pad)

        def both(x=xg, w=wg, s=s, pad=pad):
            x.grad = w.grad = None
            y = F.conv2d(x, w, stride=s, padding=pad)
            y.backward(torch.ones_like(y))
            return (x.grad, w.grad) if x.requires_grad else (w.grad,)

        tag = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]
        out[f"{name} {tag} fwd"] = (fwd, flops)
        out[f"{name} {tag} fwd+bwd"] = (both, products * flops)
    return out


def run(dev, batch, reps, dtypes):
    res = {}
    for dt in dtypes:
        for name, (fn, flops) in cases(dev, batch, dt).items():
            t = best_time(fn, dev, reps)
            res[name] = {"ms": t * 1e3, "tflops": flops / t / 1e12}
    return res


def check(batch, dtypes):
    """Every timed case, at its timed size, against CPU before any timing"""
    for dt in dtypes:
        check_cases(cases("russet", batch, dt), cases("cpu", batch, dt, ref=True), half_tol)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--json", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    dtypes = [getattr(torch, d) for d in args.dtypes.split(",")]
    if args.child:
        # one device per process (timing.py says why); cuDNN's float32
        # convolutions take TF32 tensor cores unless told not to
        tf32 = args.child == "cuda" and torch.backends.cudnn.allow_tf32
        child_run(args.child, lambda dev: run(dev, args.batch, args.reps, dtypes), lambda: check(args.batch, dtypes),
                  {"tf32": tf32})
        return
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    batch = args.batch or (DEFAULT_BATCH_CUDA if peer == "cuda" else DEFAULT_BATCH_CPU)
    peer_table(__file__, ["--batch", str(batch), "--reps", str(args.reps), "--dtypes", args.dtypes], "tflops",
               "TFLOP/s", TARGET, args.json,
               note=lambda pp: "(the peer's float32 convolutions use TF32: torch.backends.cudnn.allow_tf32 is on, "
                               "its default)" if pp.get("tf32") else None)

if __name__ == "__main__":
    main()
