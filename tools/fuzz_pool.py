"""Runs given ranges of one fuzz seed in parallel processes, up to a deadline.

    python tools/fuzz_pool.py --seed 52 --ranges 54302-54419,64845-79999 \
        --procs 15 --seconds 300 --out /tmp/fuzz

For a machine with many cores (the lent GPU, docs/reliability.md): the
ranges (inclusive) are cut into chunks of --chunk cases, and --procs
`tools/fuzz.py` runs at a time take them in order, each with the time left
to the deadline, so a run cut short still writes its records. At the end it
writes OUT/summary.json: the outcome counts, every finding (what is not
"same" or "skipped"), and the ranges done and left, which the next run
takes as its --ranges (a file: --ranges @OUT/summary.json).
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time


def parse_ranges(text):
    """'a-b,c-d' (inclusive) or '@summary.json' (its ranges left) -> [(a, b), ...]."""
    if text.startswith("@"):
        with open(text[1:]) as f:
            return [tuple(r) for r in json.load(f)["left"]]
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.append((int(a), int(b or a)))
    return out


def to_ranges(cases):
    """A set of case numbers -> sorted inclusive (first, last) runs."""
    out = []
    for k in sorted(cases):
        if out and out[-1][1] == k - 1:
            out[-1][1] = k
        else:
            out.append([k, k])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--ranges", required=True, help="a-b,c-d (inclusive), or @summary.json for its ranges left")
    ap.add_argument("--procs", type=int, default=os.cpu_count())
    ap.add_argument("--seconds", type=float, required=True, help="the deadline, from now")
    ap.add_argument("--chunk", type=int, default=600)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    ranges = parse_ranges(a.ranges)
    chunks = [(k, min(k + a.chunk - 1, last)) for first, last in ranges for k in range(first, last + 1, a.chunk)]
    t0 = time.time()
    fuzz = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz.py")

    def run(chunk):
        first, last = chunk
        left = a.seconds - (time.time() - t0)
        if left < 20:  # not worth a worker's start
            return None
        path = os.path.join(a.out, f"chunk-{first}.json")
        subprocess.run([sys.executable, fuzz, "--seed", str(a.seed), "--first", str(first),
                        "--cases", str(last - first + 1), "--seconds", str(int(left - 10)), "--json", path],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return path

    with concurrent.futures.ThreadPoolExecutor(a.procs) as pool:
        paths = [p for p in pool.map(run, chunks) if p]
    counts, findings, done = {}, [], set()
    for p in paths:
        if not os.path.exists(p):
            continue
        with open(p) as f:
            records = json.load(f)["records"]
        for r in records:
            counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
            done.add(r["case"])
            if r["outcome"] not in ("same", "skipped"):
                findings.append(r)
    wanted = {k for first, last in ranges for k in range(first, last + 1)}
    summary = {"seed": a.seed, "seconds": round(time.time() - t0), "procs": a.procs, "cases": len(done),
               "counts": counts, "done": to_ranges(done & wanted), "left": to_ranges(wanted - done),
               "findings": sorted(findings, key=lambda r: r["case"])}
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"fuzz pool: seed {a.seed}, {len(done)} of {len(wanted)} cases in {summary['seconds']} s on {a.procs} "
          f"processes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    fatal = [r for r in findings if r["outcome"] in ("crash", "hang")]
    for r in fatal:
        print(f"  {r['outcome']:8s} case {r['case']}: {r.get('op')} {r.get('dtype')} {r.get('detail', '')[:200]}")
    return 1 if fatal else 0


if __name__ == "__main__":
    sys.exit(main())
