"""A soak run (issue 24): train small models on russet for many steps with
shapes that change every step, and watch the memory and the host's cost.

    python tools/soak.py --steps 10000 --seed 0 [--models mlp,transformer] [--json out.json]

Each model trains with AdamW; every step draws a new batch size (and, for
the transformer, a new sequence length). After each step it records
`torch.russet.memory_allocated()` and `memory_reserved()`; every
`--probe-every` steps it synchronizes and times one step of a fixed shape
(the host's time to issue it, and the time to finish it), so that the
host's cost can be compared across the run whatever the random shapes.

What must hold (the exit status is 1 otherwise, with the reason):
- the memory allocated at the end of every step after the first is the
  same (parameters, gradients and the optimizer's state: the activations
  of a step are all freed, whatever its shapes);
- the losses stay finite.
What it reports besides: the reserved memory's peak in each quarter of the
run (bounded: the caching allocator must reuse its blocks, not grow with
the shapes seen), and the fixed step's host time at the start and the end.
"""
import argparse
import json
import math
import os
import random
import sys
import time

import torch
import torch.nn as nn

try:
    import russet  # noqa: F401  (registers the device when run from a source tree)
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
    import russet  # noqa: F401

D = "russet"


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.LayerNorm(64), nn.Linear(64, 10))

    @staticmethod
    def batch(rng, fixed=False):
        n = 16 if fixed else rng.randint(1, 64)
        return torch.randn(n, 32), torch.randint(0, 10, (n,))

    def loss(self, x, y):
        return nn.functional.cross_entropy(self.net(x), y)


class Transformer(nn.Module):
    VOCAB = 100

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(self.VOCAB, 32)
        layer = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(32, self.VOCAB)

    @staticmethod
    def batch(rng, fixed=False):
        b, t = (4, 16) if fixed else (rng.randint(1, 8), rng.randint(1, 48))
        x = torch.randint(0, Transformer.VOCAB, (b, t))
        return x, x.roll(-1, 1)

    def loss(self, x, y):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
        h = self.enc(self.emb(x), mask=mask, is_causal=True)
        return nn.functional.cross_entropy(self.head(h).flatten(0, 1), y.flatten())


MODELS = {"mlp": MLP, "transformer": Transformer}


def soak(name, steps, seed, probe_every, log=print):
    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = MODELS[name]().to(D)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def step(x, y):
        opt.zero_grad(set_to_none=True)
        loss = model.loss(x.to(D), y.to(D))
        loss.backward()
        opt.step()
        return loss

    fixed = MODELS[name].batch(random.Random(0), fixed=True)
    allocated, reserved, probes, losses = [], [], [], []
    t0 = time.perf_counter()
    for i in range(steps):
        if i % probe_every == 0:
            torch.russet.synchronize()
            a = time.perf_counter()
            step(*fixed)
            b = time.perf_counter()
            torch.russet.synchronize()
            probes.append({"step": i, "host_ms": (b - a) * 1e3, "total_ms": (time.perf_counter() - a) * 1e3})
        loss = step(*MODELS[name].batch(rng))
        allocated.append(torch.russet.memory_allocated())
        reserved.append(torch.russet.memory_reserved())
        if i % probe_every == 0 or i == steps - 1:
            losses.append(loss.item())
            log(f"{name} step {i}: loss {losses[-1]:.4f}, allocated {allocated[-1]}, reserved {reserved[-1]}")
    elapsed = time.perf_counter() - t0
    problems = []
    later = set(allocated[1:])
    if len(later) > 1:
        first_bad = next(i for i in range(1, len(allocated)) if allocated[i] != allocated[1])
        problems.append(f"{name}: allocated memory changed between steps: {allocated[1]} after step 1, "
                        f"{allocated[first_bad]} after step {first_bad} ({len(later)} levels)")
    if not all(math.isfinite(v) for v in losses):
        problems.append(f"{name}: a loss is not finite: {losses}")
    q = max(1, steps // 4)
    return {
        "model": name, "steps": steps, "seed": seed, "seconds": elapsed,
        "allocated_after_step": sorted(later) if later else allocated[:1],
        "reserved_peak_by_quarter": [max(reserved[k:k + q]) for k in range(0, steps, q)],
        "reserved_final": reserved[-1], "probes": probes, "losses": losses, "problems": problems,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", default="mlp,transformer")
    ap.add_argument("--probe-every", type=int, default=500)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    results = [soak(m, a.steps, a.seed, a.probe_every, log=(lambda *_: None) if a.quiet else print)
               for m in a.models.split(",")]
    for r in results:
        # the first probe compiles the kernels: the second is the start
        p0, p1 = r["probes"][min(1, len(r["probes"]) - 1)], r["probes"][-1]
        print(f"{r['model']}: {r['steps']} steps in {r['seconds']:.0f} s; allocated after each step "
              f"{r['allocated_after_step']}; reserved peak by quarter {r['reserved_peak_by_quarter']}; "
              f"fixed step host {p0['host_ms']:.1f} -> {p1['host_ms']:.1f} ms, "
              f"total {p0['total_ms']:.1f} -> {p1['total_ms']:.1f} ms")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    problems = [p for r in results for p in r["problems"]]
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
