"""Training runs compared step by step across devices (issue 15): the same
model, weights and batches train on one device per process, and the
losses (and a checksum of the parameters) go to a JSON file; compare.py
then compares the files. CUDA peers must run in their own process (russet
and CUDA do not share one: tests/python/test_cuda_coexistence.py).

    python tests/gpu/train_compare.py --model resnet18|gpt|gpt-drop|demo --device russet|cuda|cpu \
        [--dtype fp32|bf16] [--steps 10] [--small] --json FILE

Models (no dropout, so every device sees the same graph, except gpt-drop):
  resnet18  ResNet-18 (BasicBlocks, BatchNorm, max pooling), 100 classes,
            batch 64 of 3x128x128, SGD with momentum
  gpt       a GPT-style decoder: 6 layers, d 768, 12 heads, T 512, batch 8,
            vocab 8192, tied embedding/output, F.scaled_dot_product_attention
            (causal), AdamW
  gpt-drop  the same with attention dropout 0.1 (SDPA's dropout_p): each
            device draws its own mask, so compare.py holds it to the spread
            between CPU's and CUDA's runs, which draw different masks too
  demo      `python -m russet demo`'s MLP and task, SGD with momentum
--small shrinks the sizes for a quick run on lavapipe. --dtype fp64 trains in
float64 throughout (for russet, the native profile on a device with fp64).
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


# ---------------------------------------------------------------- models

class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.down is None else self.down(x)))


class ResNet18(nn.Module):
    def __init__(self, classes=100, width=64):
        super().__init__()
        w = width
        self.stem = nn.Sequential(nn.Conv2d(3, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], w
        for i, cout in enumerate((w, 2 * w, 4 * w, 8 * w)):
            layers += [Block(cin, cout, 1 if i == 0 else 2), Block(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(self.layers(self.stem(x)), 1), 1))


class Attn(nn.Module):
    def __init__(self, d, heads, dropout=0.0):
        super().__init__()
        self.h, self.dropout = heads, dropout
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Layer(nn.Module):
    def __init__(self, d, heads, dropout=0.0):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attn(d, heads, dropout)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=8192, d=768, layers=6, heads=12, ctx=512, dropout=0.0):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        self.layers = nn.ModuleList(Layer(d, heads, dropout) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as GPT-2

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x))


def build(name, small):
    """(model, batches, loss_fn, optimizer factory), made on the CPU from seeds."""
    g = torch.Generator().manual_seed(1234)
    torch.manual_seed(0)
    if name == "resnet18":
        n, hw, classes = (8, 32, 10) if small else (64, 128, 100)
        model = ResNet18(classes, 16 if small else 64)
        data = [(torch.randn(n, 3, hw, hw, generator=g), torch.randint(0, classes, (n,), generator=g))
                for _ in range(4)]
        return model, data, F.cross_entropy, lambda p: torch.optim.SGD(p, lr=0.02, momentum=0.9)
    if name in ("gpt", "gpt-drop"):
        vocab, d, layers, heads, t, b = (256, 64, 2, 4, 32, 2) if small else (8192, 768, 6, 12, 512, 8)
        model = GPT(vocab, d, layers, heads, t, 0.1 if name == "gpt-drop" else 0.0)
        data = []
        for _ in range(4):
            s = torch.randint(0, vocab, (b, t + 1), generator=g)
            data.append((s[:, :-1].contiguous(), s[:, 1:].contiguous()))

        def loss(logits, y):
            return F.cross_entropy(logits.flatten(0, 1).to(torch.promote_types(logits.dtype, torch.float32)),
                                   y.flatten())
        return model, data, loss, lambda p: torch.optim.AdamW(p, lr=3e-4, weight_decay=0.1)
    if name == "demo":
        # the demo's own task and model, from its file: importing the russet
        # package would load russet into a CUDA peer's process
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "russet_cli", os.path.join(os.path.dirname(__file__), "..", "..", "python", "russet", "__main__.py"))
        cli = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(cli)
        x, y = cli._make_task(torch)
        model = cli._make_model(torch)
        data = [(x[i:i + 64], y[i:i + 64]) for i in range(0, 512, 64)]
        return model, data, F.cross_entropy, lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)
    raise SystemExit(f"unknown model {name}")


# ---------------------------------------------------------------- run

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--device", required=True)
    ap.add_argument("--dtype", default="fp32", choices=["fp32", "bf16", "fp64"])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--compile", action="store_true", help="train through torch.compile(model)")
    ap.add_argument("--json")
    a = ap.parse_args()
    if a.device == "russet":
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
        import russet  # noqa: F401
    if a.device == "cuda":
        # exact float32 on both sides: no TF32
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    model, data, loss_fn, make_opt = build(a.model, a.small)
    if a.dtype == "fp64":
        # float64 on every side (russet: the native profile on a device with
        # fp64): rounding no longer hides a wrong result in an ill-conditioned run
        model = model.double()
        data = [(x.double() if x.is_floating_point() else x, y) for x, y in data]
    nparams = len(list(model.parameters()))
    model = model.to(a.device)
    assert len(list(model.parameters())) == nparams, "moving the model changed its parameter count"
    opt = make_opt(model.parameters())
    fwd = torch.compile(model) if a.compile else model
    losses, times = [], []
    for step in range(a.steps):
        x, y = data[step % len(data)]
        x, y = x.to(a.device), y.to(a.device)
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast(a.device, dtype=torch.bfloat16,
                            enabled=a.dtype == "bf16"):
            out = fwd(x)
        loss = loss_fn(out if a.dtype == "fp64" else out.float(), y)
        loss.backward()
        if step == 0:  # the first gradients, before any divergence: |grad| summed per parameter
            grad1 = [float(p.grad.double().abs().sum()) if p.grad is not None else 0.0 for p in model.parameters()]
        opt.step()
        losses.append(loss.item())  # a host read: the step has finished
        times.append(time.perf_counter() - t0)
    with torch.no_grad():
        checksum = sum(float(p.double().abs().sum()) for p in model.parameters())
    res = {"model": a.model, "device": a.device, "dtype": a.dtype, "small": a.small, "compiled": a.compile,
           "profile": os.environ.get("RUSSET_PROFILE", "") if a.device == "russet" else "",
           "params": nparams, "losses": losses, "checksum": checksum, "grad1": grad1,
           "ms_per_step": 1e3 * sorted(times[1:] or times)[len(times[1:] or times) // 2]}
    print(f"{a.model:9s} {a.dtype} {a.device:6s} {res['profile']:6s}{' compiled' if a.compile else ''} losses "
          + " ".join(f"{v:.5f}" for v in losses) + f"  ({res['ms_per_step']:.1f} ms/step)")
    assert all(math.isfinite(v) for v in losses), "a loss is not finite"
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main()
