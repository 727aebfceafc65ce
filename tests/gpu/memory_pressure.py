"""Memory pressure on a real device's own heap (issue 24; docs/reliability.md).

    RUSSET_PROFILE=native python3 tests/gpu/memory_pressure.py [--chunk-gib 1] [--fraction 1]

Fills the device with `--chunk-gib` tensors (each written, so the memory
is really used) until russet raises torch.OutOfMemoryError, then checks
that the process is whole: every tensor made before the error keeps its
value, an op runs, freeing half makes room for new tensors, a single
request past the heap raises OutOfMemoryError, and empty_cache returns the
cache. Prints one line per step and exits 1 on the first broken promise
(a crash or a device lost ends the process: the caller sees its exit code).
"""

import argparse
import sys
import time

import torch

import russet  # noqa: F401  (registers the device)

D = "russet"
GIB = 1 << 30


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunk-gib", type=float, default=1.0)
    ap.add_argument("--most", type=int, default=1000, help="chunks at most (a safety stop)")
    ap.add_argument("--fraction", type=float, default=1.0,
                    help="set_per_process_memory_fraction first (a dry run on lavapipe, whose heap is host RAM)")
    args = ap.parse_args()
    torch.russet.set_per_process_memory_fraction(args.fraction)
    props = torch.russet.get_device_properties(0)
    chunk = int(args.chunk_gib * GIB) // 4  # float32 elements
    print(f"device {props.name}, profile {props.profile}, total_memory {props.total_memory / GIB:.1f} GiB, "
          f"chunks of {args.chunk_gib} GiB", flush=True)

    kept, t0 = [], time.perf_counter()
    before = torch.russet.memory_stats()
    err = None
    try:
        for i in range(args.most):
            kept.append(torch.full((chunk,), float(i), device=D))
    except torch.OutOfMemoryError as e:
        err = e
    filled = time.perf_counter() - t0
    after = torch.russet.memory_stats()
    print(f"filled {len(kept)} chunks ({len(kept) * args.chunk_gib:.1f} GiB) in {filled:.1f} s; "
          f"allocated {torch.russet.memory_allocated() / GIB:.1f} GiB, reserved "
          f"{torch.russet.memory_reserved() / GIB:.1f} GiB", flush=True)
    check(len(kept) >= 2, f"{len(kept)} chunks fit (at least 2)")
    check(err is not None, f"OutOfMemoryError past the heap: {str(err).splitlines()[0] if err else 'none'}")
    check(after["num_ooms"] == before["num_ooms"] + 1, "num_ooms counted once")
    check(all(t[-1].item() == float(i) for i, t in enumerate(kept)), "every tensor made before the error intact")
    del kept[-1]  # one chunk of room: the heap is full to the last page
    s = (kept[0][:1024] + kept[-1][:1024]).sum().item()
    check(s == 1024.0 * (len(kept) - 1), "an op runs one chunk below the limit")

    half = len(kept) // 2
    freed = len(kept) - half
    del kept[half:]
    again = []
    try:
        for i in range(freed):
            again.append(torch.ones(chunk, device=D))
    except torch.OutOfMemoryError as e:
        check(False, f"room after freeing half: {e}")
    check(again[-1][:8].sum().item() == 8.0, f"{freed} new chunks in the {freed} freed")
    del again

    try:
        torch.empty(int(props.total_memory * 2) // 4, device=D)
        check(False, "a single request of twice the heap raises")
    except torch.OutOfMemoryError as e:
        check(True, f"a single request of twice the heap raises: {str(e).splitlines()[0][:120]}")

    kept.clear()
    reserved = torch.russet.memory_reserved()
    torch.russet.empty_cache()
    check(torch.russet.memory_reserved() < reserved, f"empty_cache returns the cache ({reserved / GIB:.1f} -> "
          f"{torch.russet.memory_reserved() / GIB:.1f} GiB)")
    x = torch.randn(1 << 20, device=D)
    check(abs((x * 2).sum().item() - 2 * x.sum().item()) < 1e-2 * (1 << 10), "the device works afterwards")
    print("memory pressure: all passed", flush=True)


if __name__ == "__main__":
    main()
