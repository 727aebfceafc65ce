"""Sparse benchmarks (issue 19; docs/sparse.md): coalesce, sparse @ dense
(COO and CSR), dense + sparse and the sparse softmax on russet, beside torch
on a peer measured in the same run (CUDA where there is one, else CPU). Each
case is checked against the peer's result at the timed size first.

    python bench/bench_sparse.py [--rows N] [--nnz N] [--cols N] [--reps 5]

Prints milliseconds per call and the peer's time over russet's (above 1:
russet is faster). Nothing fails on a slow result.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

import torch  # noqa: E402

import russet  # noqa: E402,F401
from timing import best_time, spread_summary  # noqa: E402


def inputs(rows, nnz, cols):
    g = torch.Generator().manual_seed(0)
    idx = torch.randint(0, rows, (2, nnz), generator=g)
    vals = torch.randn(nnz, generator=g)
    coo = torch.sparse_coo_tensor(idx, vals, (rows, rows))  # uncoalesced, with duplicates
    dense = torch.randn(rows, cols, generator=g)
    return {"coo": coo, "coalesced": coo.coalesce(), "csr": coo.coalesce().to_sparse_csr(), "dense": dense,
            "square": torch.randn(rows, rows, generator=g) if rows <= 8192 else None}


def cases(t):
    c = {
        "coalesce": lambda: t["coo"].coalesce()._values(),
        "COO @ dense": lambda: torch.sparse.mm(t["coalesced"], t["dense"]),
        "CSR @ dense": lambda: t["csr"] @ t["dense"],
        "sparse softmax (dim 1)": lambda: torch.sparse.softmax(t["coalesced"], 1)._values(),
    }
    if t["square"] is not None:
        c["dense + sparse"] = lambda: t["square"] + t["coalesced"]
    return c


def run(dev, cpu, reps, ref=None):
    t = {k: (v.to(dev) if v is not None else None) for k, v in cpu.items()}
    times, outs = {}, {}
    for name, fn in cases(t).items():
        outs[name] = fn().cpu()
        if ref is not None and not torch.allclose(outs[name], ref[name], rtol=1e-4, atol=1e-4):
            raise SystemExit(f"bench_sparse: {dev} {name} differs from the peer at the timed size: no timing")
        times[name] = best_time(fn, dev, reps, per_sync=3) * 1e3
    return times, outs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--nnz", type=int, default=None)
    ap.add_argument("--cols", type=int, default=None)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args(argv)
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    rows = a.rows or (16384 if peer == "cuda" else 4096)
    nnz = a.nnz or (4 << 20 if peer == "cuda" else 200_000)
    cols = a.cols or (64 if peer == "cuda" else 32)
    props = torch.russet.get_device_properties()
    print(f"russet on {props.name} ({props.driver}), profile {props.profile}; peer: torch {peer} {torch.__version__}")
    print(f"COO ({rows} x {rows}, {nnz} entries with duplicates), dense ({rows} x {cols}), float32\n")
    cpu = inputs(rows, nnz, cols)
    p, ref = run(peer, cpu, a.reps)
    r, _ = run("russet", cpu, a.reps, ref)
    w = max(len(k) for k in r)
    print(f"{'case':<{w}}  {'russet':>10}  {'torch ' + peer:>10}  peer/russet")
    for k in r:
        print(f"{k:<{w}}  {r[k]:>7.3f} ms  {p[k]:>7.3f} ms  {p[k] / r[k]:>6.2f}x")
    print(spread_summary())


if __name__ == "__main__":
    main()
