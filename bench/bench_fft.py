"""FFT benchmarks, russet beside a peer measured in the same run: torch CUDA
where a CUDA device exists (the lent H200), else torch CPU.

    python bench/bench_fft.py [--scale 1] [--json out.json]

Cases (docs/fft.md says which path each takes): a batch of power-of-two
complex64 transforms (radix-2 passes), a long 1-D one, rfft2 of images,
a short non-power-of-two batch (the DFT-matrix product), a long prime
length (Bluestein), and an stft. Every result is checked against the
peer's before it is timed; no target, nothing fails on a slow figure.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402

import russet  # noqa: E402,F401
from bench_pointwise import best_time  # noqa: E402
from timing import spread_summary  # noqa: E402


def cases(s):
    win = torch.hann_window(1024)
    return [
        ("fft complex64, 4096 rows of 1024", lambda g: torch.randn(4096 * s, 1024, dtype=torch.complex64, generator=g),
         lambda x: torch.fft.fft(x)),
        ("fft complex64, one row of 2^22", lambda g: torch.randn(s << 22, dtype=torch.complex64, generator=g),
         lambda x: torch.fft.fft(x)),
        ("rfft2 float32, 64 images of 512x512", lambda g: torch.randn(16 * s, 4, 512, 512, generator=g),
         lambda x: torch.fft.rfft2(x)),
        ("fft complex64, 4096 rows of 100 (DFT matrix)",
         lambda g: torch.randn(4096 * s, 100, dtype=torch.complex64, generator=g), lambda x: torch.fft.fft(x)),
        ("fft complex64, 64 rows of 4099 (prime: Bluestein)",
         lambda g: torch.randn(64 * s, 4099, dtype=torch.complex64, generator=g), lambda x: torch.fft.fft(x)),
        ("stft float32, 16 signals of 2^18, n_fft 1024", lambda g: torch.randn(16 * s, 1 << 18, generator=g),
         lambda x: torch.stft(x, 1024, hop_length=256, window=win.to(x.device), return_complex=True)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=None, help="batch multiplier (default 4 with CUDA, else 1)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    peer = "cuda" if torch.cuda.is_available() else "cpu"
    s = args.scale or (4 if peer == "cuda" else 1)
    info = torch.russet.get_device_properties()
    print(f"russet: {info.name} | profile {info.profile} | peer: torch {peer}")
    rows = []
    for name, make, fn in cases(s):
        x = make(torch.Generator().manual_seed(0))
        xr, xp = x.to("russet"), x.to(peer)
        yr, yp = fn(xr).cpu(), fn(xp).cpu()
        scale = yp.abs().max().clamp_min(1e-30)
        err = ((yr - yp).abs().max() / scale).item()
        assert err < 1e-4, (name, err)
        tr = best_time(lambda: fn(xr), "russet", args.reps, per_sync=1)
        tp = best_time(lambda: fn(xp), peer, args.reps, per_sync=1)
        print(f"{name:52s} russet {tr * 1e3:9.3f} ms   {peer} {tp * 1e3:9.3f} ms   {tp / tr:7.1%} of {peer}"
              f"   (max err {err:.1e} of the largest output)")
        rows.append(dict(case=name, russet_ms=tr * 1e3, peer=peer, peer_ms=tp * 1e3, ratio=tp / tr, rel_err=err))
    print(spread_summary())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(device=info.name, rows=rows), f, indent=1)


if __name__ == "__main__":
    main()
