"""Rewrites tests/conformance/known_failures.json from a full sweep.

    python tools/update_known_failures.py docs/coverage.json

Every (op, variant, dtype) that the sweep classed wrong or error becomes an
entry. An entry already in the file keeps its reason (and its class is
updated); a new one gets "not yet triaged" plus the first line of its error,
for the next engineer to replace with the real cause. Every entry records
the stable part of how it fails now (detail, coverage.failure_signature).
Entries that no longer fail are dropped, so the list only says what is true,
except those marked `"flaky": true` (CPU's own result differs between runs),
which stay while their op, variant and dtype ran.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from conformance import failure_signature  # noqa: E402

FAILING = {"wrong", "error"}
PATH = "tests/conformance/known_failures.json"


def main(report_path):
    with open(report_path) as f:
        report = json.load(f)
    with open(PATH) as f:
        old = json.load(f)
    known = {(e["op"], e["variant"], e["dtype"]): e for e in old["failures"]}
    out, kept, added = [], 0, 0
    for r in report["records"]:
        for v, x in r["variants"].items():
            if x["class"] not in FAILING:
                continue
            k = (r["op"], v, r["dtype"])
            e = dict(known[k]) if k in known else None
            if e is None:
                detail = (x.get("detail") or "").strip().splitlines()
                e = {"op": k[0], "variant": v, "dtype": k[2],
                     "reason": "not yet triaged: " + (detail[0][:300] if detail else x["class"])}
                added += 1
            else:
                kept += 1
            e["class"] = x["class"]
            e["detail"] = failure_signature(x.get("detail"))
            out.append(e)
    ran = {(r["op"], v, r["dtype"]) for r in report["records"] for v in r["variants"]}
    listed = {(e["op"], e["variant"], e["dtype"]) for e in out}
    for k, e in known.items():
        if e.get("flaky") and k in ran and k not in listed:
            out.append(e)
            kept += 1
    out.sort(key=lambda e: (e["op"], e["variant"], e["dtype"]))
    with open(PATH, "w") as f:
        json.dump({"about": old["about"], "failures": out}, f, indent=1)
        f.write("\n")
    print(f"{len(out)} known failures: {kept} kept, {added} new, {len(known) - kept} fixed and dropped")


if __name__ == "__main__":
    main(sys.argv[1])
