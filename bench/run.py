"""russet benchmarks: host cost per dispatch and copy bandwidth.

Every figure is printed beside a peer measured in the same run: PyTorch CPU
(memcpy for copies) always, PyTorch CUDA too where a CUDA device exists
(bench/gpu.sh on the lent H200). These are measurements, not tests: nothing
here fails on a slow result; the targets are printed next to the figures.

    python -m russet bench            # or: python bench/run.py [--size-mib 64] [--json out.json]
"""

import argparse
import ctypes
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

import russet  # noqa: E402,F401
from timing import sync  # noqa: E402

DISPATCH_TARGET_US = 5.0
COPY_TARGET = 0.80  # of memcpy, on unified memory


# ---------------------------------------------------------------- dispatch


def bench_dispatch(dev, op, n_ops, numel=1024, repeats=3):
    """Host time to enqueue `n_ops` tiny ops without a sync (µs/op), and the time
    including the final sync (µs/op). Best of `repeats`."""
    t = torch.empty(numel, device=dev)
    fns = {"fill_": lambda: t.fill_(1.0), "zero_": lambda: t.zero_()}
    fn = fns[op]
    for _ in range(50):  # warm-up: pipelines, caches, allocator
        fn()
    sync(dev)
    best_host, best_total = float("inf"), float("inf")
    for _ in range(repeats):
        sync(dev)
        t0 = time.perf_counter()
        for _ in range(n_ops):
            fn()
        t1 = time.perf_counter()
        sync(dev)
        t2 = time.perf_counter()
        best_host = min(best_host, (t1 - t0) / n_ops * 1e6)
        best_total = min(best_total, (t2 - t0) / n_ops * 1e6)
    # the result must be right, or the timing means nothing
    expect = 1.0 if op == "fill_" else 0.0
    assert bool((t.cpu() == expect).all()), f"{dev} {op}: wrong result"
    return best_host, best_total


# ---------------------------------------------------------------- copies


def _once(fn, dev_sync):
    dev_sync()
    t0 = time.perf_counter()
    fn()
    dev_sync()
    return time.perf_counter() - t0


def bench_copies(dev, nbytes, reps):
    """GB/s for a CPU memcpy and for host->device, device->host and
    device->device copies of nbytes. The four are timed round-robin, so that
    they see the same machine load (other processes, CPU frequency), and the
    best of `reps` rounds is kept for each."""
    src_h = torch.randint(0, 255, (nbytes,), dtype=torch.uint8)
    dst_h = torch.empty_like(src_h)
    src_d = src_h.to(dev)
    dst_d = torch.empty(nbytes, dtype=torch.uint8, device=dev)
    s = lambda: sync(dev)  # noqa: E731
    none = lambda: None  # noqa: E731
    kinds = [
        # libc memcpy itself (ctypes.memmove), not torch's CPU copy_ loop
        ("memcpy", lambda: ctypes.memmove(dst_h.data_ptr(), src_h.data_ptr(), nbytes), none),
        ("H2D", lambda: dst_d.copy_(src_h), s),
        ("D2H", lambda: dst_h.copy_(src_d), s),
        ("D2D", lambda: dst_d.copy_(src_d), s),
    ]
    for _, fn, sy in kinds:  # warm-up: first touch of pages, pipelines
        _once(fn, sy)
    best = {k: float("inf") for k, _, _ in kinds}
    for _ in range(reps):
        for k, fn, sy in kinds:
            best[k] = min(best[k], _once(fn, sy))
    # check the data made it, both ways
    dst_d.copy_(src_h)
    dst_h.zero_()
    dst_h.copy_(dst_d)
    assert torch.equal(dst_h, src_h), f"{dev}: copies corrupted data"
    return {k: nbytes / t / 1e9 for k, t in best.items()}


# ---------------------------------------------------------------- main


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=10000, help="ops per dispatch measurement")
    ap.add_argument("--size-mib", type=int, default=64, help="copy size")
    ap.add_argument("--reps", type=int, default=5, help="rounds of copies (best kept)")
    ap.add_argument("--no-cuda", action="store_true", help="skip the PyTorch CUDA peer")
    ap.add_argument("--json", help="also write the results to this file")
    args = ap.parse_args(argv)

    if not torch.russet.is_available():
        print("russet: no Vulkan device found (python -m russet info)", file=sys.stderr)
        return 1
    props = torch.russet.get_device_properties()
    has_cuda = torch.cuda.is_available() and not args.no_cuda
    print(f"russet on {props.name} ({props.driver}), profile {props.profile}, "
          f"unified memory: {'yes' if props.unified_memory else 'no'}")
    print(f"torch {torch.__version__}" + (f", CUDA peer: {torch.cuda.get_device_name()}" if has_cuda else ""))
    peers = ["cpu"] + (["cuda"] if has_cuda else [])
    results = {"device": props.name, "driver": props.driver, "profile": props.profile,
               "dispatch": {}, "copy": {}}

    # (a) host cost per dispatch
    print(f"\n(a) host cost per dispatch: {args.ops} x op on a 1K float32 tensor, no sync between")
    for op in ("fill_", "zero_"):
        for dev in ["russet"] + peers:
            host, total = bench_dispatch(dev, op, args.ops)
            results["dispatch"][f"{dev}.{op}"] = {"host_us": host, "with_sync_us": total}
            print(f"  {dev:<7}{op:<7} enqueue {host:8.2f} us/op   incl. final sync {total:8.2f} us/op")

    # (b) copy bandwidth
    nbytes = args.size_mib << 20
    print(f"\n(b) copy bandwidth, {args.size_mib} MiB, best of {args.reps} rounds (timed round-robin)")
    cr = bench_copies("russet", nbytes, args.reps)
    memcpy = cr.pop("memcpy")
    results["copy"]["memcpy"] = memcpy
    results["copy"]["russet"] = cr
    print(f"  cpu memcpy (libc)            {memcpy:8.2f} GB/s")
    for k, v in cr.items():
        print(f"  russet {k}                   {v:8.2f} GB/s  ({v / memcpy:5.2f}x memcpy)")
    cc = None
    if has_cuda:
        cc = bench_copies("cuda", nbytes, args.reps)
        cc.pop("memcpy")
        results["copy"]["cuda"] = cc
        for k, v in cc.items():
            print(f"  cuda   {k}                   {v:8.2f} GB/s  ({cr[k] / v:5.2f}x russet/cuda)")

    # the short table, last
    print("\nsummary")
    rows = []
    d = results["dispatch"]
    for op in ("fill_", "zero_"):
        r = d[f"russet.{op}"]["host_us"]
        row = [f"dispatch {op} (us/op)", f"{r:.2f}", f"{d[f'cpu.{op}']['host_us']:.2f}",
               f"{r / d[f'cpu.{op}']['host_us']:.1f}x"]
        if has_cuda:
            row += [f"{d[f'cuda.{op}']['host_us']:.2f}", f"{r / d[f'cuda.{op}']['host_us']:.2f}x"]
        row.append(f"<= {DISPATCH_TARGET_US:.0f} us: {'met' if r <= DISPATCH_TARGET_US else 'NOT met'}")
        rows.append(row)
    for k in ("H2D", "D2H", "D2D"):
        row = [f"copy {k} (GB/s)", f"{cr[k]:.2f}", f"{memcpy:.2f}", f"{cr[k] / memcpy:.2f}x"]
        if has_cuda:
            row += [f"{cc[k]:.2f}", f"{cr[k] / cc[k]:.2f}x"]
        if props.unified_memory:
            row.append(f">= {COPY_TARGET:.0%} memcpy: {'met' if cr[k] / memcpy >= COPY_TARGET else 'NOT met'}")
        else:
            row.append("(discrete memory)")
        rows.append(row)
    head = ["measure", "russet", "cpu", "russet/cpu"] + (["cuda", "russet/cuda"] if has_cuda else []) + ["target"]
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]
    line = lambda r: "  " + "  ".join(str(c).ljust(w) for c, w in zip(r, widths))  # noqa: E731
    print(line(head))
    print("  " + "  ".join("-" * w for w in widths))
    for r in rows:
        print(line(r))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
