"""Scan and sort benchmarks (issue 5), russet beside a peer measured in the
same run: torch CUDA where a CUDA device exists (the lent H200), else torch
CPU.

    python bench/bench_sort.py [--numel 16777216] [--json out.json]

- sort of `numel` float32 (values and indices), target >= 30% of CUDA
  (the default: the radix sort with the subgroup ranking where the device
  has ballots); the same with the radix scatter's other rankings
  (RUSSET_SORT_RANK=shared, and RUSSET_SORT_RANK=subgroup with
  RUSSET_SORT_ITEMS=4 and 8), and with the global bitonic merge
  (RUSSET_SORT=bitonic) instead of the radix sort;
- sort of 4096 rows of 4096 float32 (shared-memory rows);
- cumsum of `numel` float32 (one row), and of 4096 x 4096 along dim 1;
- topk(k=100) of `numel` float32; nonzero of `numel` bools.
Every result is checked against the peer's before it is timed. Nothing here
fails on a slow result: the ratio is printed beside the target.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

import russet  # noqa: E402,F401


# timing helpers shared by the benchmarks
from bench_pointwise import best_time as _best_time  # noqa: E402
from timing import spread_summary  # noqa: E402


def best_time(fn, dev, reps):
    """Best time of one call (a sort is long enough to time alone)."""
    return _best_time(fn, dev, reps, per_sync=1)


def with_env(**env):
    """torch.sort under these environment variables (the engine reads
    RUSSET_SORT, RUSSET_SORT_RANK and RUSSET_SORT_ITEMS at each sort; the
    peer ignores them)."""
    def sort(x):
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return torch.sort(x)
        finally:
            for k, v in old.items():
                if v is None:
                    del os.environ[k]
                else:
                    os.environ[k] = v
    return sort


bitonic_sort = with_env(RUSSET_SORT="bitonic")


def cases(numel):
    side = 4096 if numel >= 4096 * 4096 else 1024
    return [
        ("sort float32 (1 row)", lambda g: torch.rand(numel, generator=g), lambda x: torch.sort(x), 0.30),
        ("sort float32 (1 row), shared ranking", lambda g: torch.rand(numel, generator=g),
         with_env(RUSSET_SORT_RANK="shared"), 0.30),
        ("sort float32 (1 row), subgroup ranking, 4 items", lambda g: torch.rand(numel, generator=g),
         with_env(RUSSET_SORT_RANK="subgroup", RUSSET_SORT_ITEMS="4"), 0.30),
        ("sort float32 (1 row), subgroup ranking, 8 items", lambda g: torch.rand(numel, generator=g),
         with_env(RUSSET_SORT_RANK="subgroup", RUSSET_SORT_ITEMS="8"), 0.30),
        ("sort float32 (1 row), bitonic merge", lambda g: torch.rand(numel, generator=g), bitonic_sort, None),
        (f"sort float32 ({side} rows of {side})", lambda g: torch.rand(side, side, generator=g),
         lambda x: torch.sort(x, dim=1), None),
        ("cumsum float32 (1 row)", lambda g: torch.rand(numel, generator=g), lambda x: torch.cumsum(x, 0), None),
        (f"cumsum float32 ({side} x {side}, dim 1)", lambda g: torch.rand(side, side, generator=g),
         lambda x: torch.cumsum(x, 1), None),
        ("topk k=100 float32", lambda g: torch.rand(numel, generator=g), lambda x: torch.topk(x, 100), None),
        ("nonzero bool (50%)", lambda g: torch.rand(numel, generator=g) > 0.5, lambda x: torch.nonzero(x), None),
    ]


def check(a, b):
    a = a if isinstance(a, torch.Tensor) else a[0]
    b = b if isinstance(b, torch.Tensor) else b[0]
    a, b = a.cpu(), b.cpu()
    if a.dtype.is_floating_point:
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-3)
    else:
        assert torch.equal(a, b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--numel", type=int, default=None)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    numel = args.numel or ((1 << 24) if peer == "cuda" else (1 << 20))
    info = torch.russet.get_device_properties()
    print(f"russet: {info.name} | profile {info.profile} | peer: torch {peer} | numel {numel} | "
          f"subgroup size {info.features.subgroup_size}, ballots {info.features.has_subgroup_ballot}")
    rows = []
    for name, make, fn, target in cases(numel):
        g = torch.Generator().manual_seed(0)
        x = make(g)
        xr, xp = x.to("russet"), x.to(peer)
        check(fn(xr), fn(xp))
        tr = best_time(lambda: fn(xr), "russet", args.reps)
        tp = best_time(lambda: fn(xp), peer, args.reps)
        ratio = tp / tr
        tgt = f"  (target >= {target:.0%})" if target and peer == "cuda" else ""
        print(f"{name:50s} russet {tr * 1e3:9.3f} ms   {peer} {tp * 1e3:9.3f} ms   {ratio:7.1%} of {peer}{tgt}")
        rows.append(dict(case=name, russet_ms=tr * 1e3, peer=peer, peer_ms=tp * 1e3, ratio=ratio, target=target))
    print(spread_summary())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=info.name, numel=numel, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
