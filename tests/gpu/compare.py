"""Compares the training runs that train_compare.py wrote (issue 15).

    python tests/gpu/compare.py DIR

DIR holds MODEL-DTYPE-DEVICE[-PROFILE].json files. For each model and
dtype, every russet run is compared with the CUDA run step by step:
  fp32  each step's loss within a relative 1e-4 of CUDA's;
  fp64  within a relative 1e-9 (rounding cannot explain more);
  bf16  within what CUDA-vs-CPU shows (the largest relative difference of
        CUDA's losses from CPU's under the same autocast, times 2, at least
        1e-3), when a CPU run is there; else 1e-2.
A model with dropout ("-drop" in its name) draws a different mask on each
device, so every dtype is held to 3 x what CUDA-vs-CPU shows (their masks
differ too), at least 1e-3; it needs a CPU run.
It also checks the parameter count and reports the parameter checksums.
Prints a table and exits 1 if a comparison fails.
"""
import glob
import json
import os
import sys


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def main():
    d = sys.argv[1]
    runs = {}
    for f in sorted(glob.glob(os.path.join(d, "*.json"))):
        with open(f) as fh:
            r = json.load(fh)
        if "losses" not in r:
            continue
        runs.setdefault((r["model"], r["dtype"]), []).append(r)
    ok = True
    rows = []
    for (model, dtype), rs in sorted(runs.items()):
        cuda = next((r for r in rs if r["device"] == "cuda"), None)
        cpu = next((r for r in rs if r["device"] == "cpu"), None)
        if cuda is None:
            print(f"{model} {dtype}: no CUDA run")
            ok = False
            continue
        drop = "-drop" in model
        if drop and cpu is None:
            print(f"{model} {dtype}: dropout needs a CPU run to set the limit")
            ok = False
            continue
        if drop:
            n = min(len(cpu["losses"]), len(cuda["losses"]))
            spread = max(rel(cuda["losses"][i], cpu["losses"][i]) for i in range(n))
            tol, why = max(3 * spread, 1e-3), f"3 x CUDA-vs-CPU {spread:.1e}"
        elif dtype == "fp32":
            tol, why = 1e-4, "1e-4"
        elif dtype == "fp64":
            tol, why = 1e-9, "1e-9"
        elif cpu is not None:
            n = min(len(cpu["losses"]), len(cuda["losses"]))
            spread = max(rel(cuda["losses"][i], cpu["losses"][i]) for i in range(n))
            tol, why = max(2 * spread, 1e-3), f"2 x CUDA-vs-CPU {spread:.1e}"
        else:
            tol, why = 1e-2, "1e-2 (no CPU run)"
        for r in rs:
            if r["device"] != "russet":
                continue
            n = min(len(r["losses"]), len(cuda["losses"]))
            worst = max(rel(r["losses"][i], cuda["losses"][i]) for i in range(n))
            g1 = max((rel(a, b) for a, b in zip(r.get("grad1", []), cuda.get("grad1", [])) if b), default=float("nan"))
            cpu_cuda = (max(rel(cpu["losses"][i], cuda["losses"][i]) for i in range(min(n, len(cpu["losses"]))))
                        if cpu else float("nan"))
            good = worst <= tol and r["params"] == cuda["params"] and n == len(cuda["losses"])
            ok &= good
            rows.append((model, dtype, r["profile"] + ("+c" if r.get("compiled") else ""), n, worst, cpu_cuda, g1, why, r["params"] == cuda["params"],
                         rel(r["checksum"], cuda["checksum"]), r["ms_per_step"], cuda["ms_per_step"],
                         "pass" if good else "FAIL"))
    # worst rel: the largest relative difference of a step's loss from CUDA's;
    # CPU-CUDA: the same for CPU's run (how far float32 rounding alone takes
    # the run); grad1: the largest relative difference of a parameter's
    # first gradient (|grad| summed) from CUDA's
    print(f"{'model':9s} {'dtype':5s} {'profile':7s} {'steps':>5s} {'worst rel':>10s} {'CPU-CUDA':>9s} "
          f"{'grad1':>9s} {'limit':24s} {'params':6s} {'checksum':>9s} {'ms/step':>8s} {'CUDA ms':>8s}")
    for m, dt, p, n, w, cc, g1, why, pc, cs, ms, cms, verdict in rows:
        print(f"{m:9s} {dt:5s} {p:7s} {n:5d} {w:10.2e} {cc:9.2e} {g1:9.2e} {why:24s} {'same' if pc else 'DIFF':6s} "
              f"{cs:9.2e} {ms:8.1f} {cms:8.1f}  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
