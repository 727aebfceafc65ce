"""Probes for ordering races on a real GPU (issue 15): runs small patterns
that once went wrong on the H200 and prints each one's relative error
against CPU. Run it under different stream modes (RUSSET_SERIALIZE=1,
RUSSET_BATCH_BYTES=..., RUSSET_PROFILE=apple|native) in separate processes
and compare: a result that changes with the mode is a hazard bug.

    python tests/gpu/race_probe.py [--batch 64] [--json FILE]
"""
import argparse
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import russet  # noqa: E402,F401


def rel(a, b):
    a = a.detach().float().cpu()
    b = b.detach().float().cpu()
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


def conv_bn(n, sync):
    torch.manual_seed(0)
    conv = torch.nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
    bn = torch.nn.BatchNorm2d(64)
    x = torch.randn(n, 3, 128, 128)
    ref_y = conv(x)
    ref_z = bn(ref_y)
    convr = conv.to("russet")
    bnr = torch.nn.BatchNorm2d(64).to("russet")
    y = convr(x.to("russet"))
    if sync:
        torch.russet.synchronize()
    z = bnr(y)
    out = {"conv": rel(y, ref_y), "bn": rel(z, ref_z), "running_mean": rel(bnr.running_mean, bn.running_mean),
           "running_var": rel(bnr.running_var, bn.running_var)}
    # the statistics alone, straight after a fresh convolution
    y2 = convr(x.to("russet"))
    v, m = torch.var_mean(y2, dim=(0, 2, 3), correction=0)
    rv, rm = torch.var_mean(ref_y, dim=(0, 2, 3), correction=0)
    out["var_mean.var"] = rel(v, rv)
    out["var_mean.mean"] = rel(m, rm)
    return out


def chain(n):
    # long chains of big pointwise ops and reductions that submit early
    torch.manual_seed(1)
    x = torch.randn(n, 64, 64, 64)
    xr = x.to("russet")
    ref = x
    for i in range(6):
        ref = (ref * 1.01 + 0.5).relu()
        xr = (xr * 1.01 + 0.5).relu()
    return {"chain": rel(xr, ref), "chain.sum": rel(xr.sum(dim=(0, 2, 3)), ref.sum(dim=(0, 2, 3)))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--json")
    a = ap.parse_args()
    res = {}
    res.update({"sync " + k: v for k, v in conv_bn(a.batch, True).items()})
    res.update(conv_bn(a.batch, False))
    res.update(chain(a.batch))
    mode = " ".join(f"{k}={os.environ[k]}" for k in sorted(os.environ) if k.startswith("RUSSET_") and k not in (
        "RUSSET_CACHE_DIR", "RUSSET_HOST_OPS"))
    print(f"== {mode or 'default'}")
    for k, v in res.items():
        flag = "  WRONG" if v > 1e-4 else ""
        print(f"  {k:28s} {v:.3e}{flag}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"mode": mode, "results": res}, f)


if __name__ == "__main__":
    main()
